import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, parseConfig } from './config.ts';

describe('TRUST_PROXY', () => {
  const trust = (value?: string) => parseConfig(value === undefined ? {} : { TRUST_PROXY: value }).trustProxy;

  it('trusts no proxy by default', () => {
    expect(trust()).toBe(false);
    expect(trust('')).toBe(false);
    expect(trust('false')).toBe(false);
  });

  it('takes true, a number of hops, or addresses and CIDR ranges', () => {
    expect(trust('true')).toBe(true);
    expect(trust('2')).toBe(2);
    expect(trust('127.0.0.1, 10.0.0.0/8,::1,fd00::/8')).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
    ]);
  });

  it('refuses anything else with a sentence naming the bad entry', () => {
    for (const bad of ['proxy.example', '10.0.0.0/33', '10.0.0.1/8/2', '127.0.0.1,', 'yes please']) {
      expect(() => trust(bad)).toThrow(ConfigError);
    }
    expect(() => trust('10.0.0.0/33')).toThrow(/^TRUST_PROXY must be .*\(got "10\.0\.0\.0\/33"\)$/);
  });
});

describe('API_V1_AUTH_FAILURES_PER_MINUTE', () => {
  it('defaults to 20, takes 0 (no limit) and refuses non-numbers', () => {
    expect(parseConfig({}).apiV1AuthFailuresPerMinute).toBe(20);
    expect(parseConfig({ API_V1_AUTH_FAILURES_PER_MINUTE: '0' }).apiV1AuthFailuresPerMinute).toBe(0);
    expect(() => parseConfig({ API_V1_AUTH_FAILURES_PER_MINUTE: '-1' })).toThrow(
      'API_V1_AUTH_FAILURES_PER_MINUTE must be a whole number from 0 to 1000000 (got "-1")',
    );
  });
});

describe('API_V1_BASIC_TWO_FACTOR_USERS', () => {
  it('refuses by default, takes allow, and refuses anything else', () => {
    expect(parseConfig({}).apiV1BasicTwoFactorUsers).toBe('refuse');
    expect(parseConfig({ API_V1_BASIC_TWO_FACTOR_USERS: 'allow' }).apiV1BasicTwoFactorUsers).toBe('allow');
    expect(() => parseConfig({ API_V1_BASIC_TWO_FACTOR_USERS: 'yes' })).toThrow(ConfigError);
  });
});

describe('METRICS_TOKEN', () => {
  it('is unset by default and refuses a short token or one with spaces', () => {
    expect(parseConfig({}).metricsToken).toBeUndefined();
    expect(parseConfig({ METRICS_TOKEN: 'a'.repeat(16) }).metricsToken).toBe('a'.repeat(16));
    expect(() => parseConfig({ METRICS_TOKEN: 'short' })).toThrow(
      'METRICS_TOKEN must be at least 16 characters, without spaces',
    );
    expect(() => parseConfig({ METRICS_TOKEN: 'with a space inside it' })).toThrow(ConfigError);
  });
});

describe('INVENTORY_MATCH_CACHE_CVES', () => {
  it('defaults to 50,000, takes 0 (nothing kept) and refuses non-numbers', () => {
    expect(parseConfig({}).inventoryMatchCacheCves).toBe(50_000);
    expect(parseConfig({ INVENTORY_MATCH_CACHE_CVES: '0' }).inventoryMatchCacheCves).toBe(0);
    expect(() => parseConfig({ INVENTORY_MATCH_CACHE_CVES: 'lots' })).toThrow(
      'INVENTORY_MATCH_CACHE_CVES must be a whole number from 0 to 10000000 (got "lots")',
    );
  });
});

describe('OIDC_*', () => {
  const base = {
    VULNTRACK_BASE_URL: 'https://vulntrack.example',
    OIDC_ISSUER: 'https://id.example/realms/acme',
    OIDC_CLIENT_ID: 'vulntrack',
  };

  it('is off without OIDC_ISSUER, with the documented defaults when set', () => {
    expect(parseConfig({}).oidc).toBeUndefined();
    expect(parseConfig(base).oidc).toEqual({
      issuer: 'https://id.example/realms/acme',
      clientId: 'vulntrack',
      clientSecret: undefined,
      scopes: 'openid email profile',
      buttonLabel: 'Sign in with SSO',
      usernameClaim: 'preferred_username',
      emailClaim: 'email',
      groupsClaim: 'groups',
      groupRoles: [],
      only: false,
    });
  });

  it('reads the group mapping and stops at a malformed one, naming the setting and the entry', () => {
    expect(parseConfig({ ...base, OIDC_GROUP_ROLES: 'secops=acme:owner' }).oidc?.groupRoles).toEqual([
      { group: 'secops', organization: 'acme', role: 'owner' },
    ]);
    expect(() => parseConfig({ ...base, OIDC_GROUP_ROLES: 'secops=acme:boss' })).toThrow(
      'OIDC_GROUP_ROLES: "secops=acme:boss": the role must be owner or member (got "boss")',
    );
  });

  it('refuses an http issuer but on loopback, a missing client or base URL, OIDC_ONLY alone', () => {
    expect(() => parseConfig({ ...base, OIDC_ISSUER: 'http://id.example' })).toThrow(ConfigError);
    expect(parseConfig({ ...base, OIDC_ISSUER: 'http://127.0.0.1:9000' }).oidc?.issuer).toBe(
      'http://127.0.0.1:9000',
    );
    expect(() => parseConfig({ ...base, OIDC_CLIENT_ID: '' })).toThrow('OIDC_CLIENT_ID is required');
    expect(() => parseConfig({ ...base, VULNTRACK_BASE_URL: '' })).toThrow('VULNTRACK_BASE_URL is required');
    expect(() => parseConfig({ OIDC_ONLY: 'true' })).toThrow('OIDC_ONLY needs OIDC_ISSUER');
    expect(() => parseConfig({ ...base, OIDC_SCOPES: 'email' })).toThrow('OIDC_SCOPES must include openid');
  });

  it('reads the client secret from OIDC_CLIENT_SECRET_FILE', () => {
    const file = path.join(os.tmpdir(), `oidc-secret-${process.pid}`);
    fs.writeFileSync(file, 's3cret-from-file\n');
    try {
      expect(parseConfig({ ...base, OIDC_CLIENT_SECRET_FILE: file }).oidc?.clientSecret).toBe(
        's3cret-from-file',
      );
    } finally {
      fs.rmSync(file);
    }
    expect(() => parseConfig({ ...base, OIDC_CLIENT_SECRET_FILE: `${file}-missing` })).toThrow(
      'OIDC_CLIENT_SECRET_FILE: cannot read',
    );
  });
});
