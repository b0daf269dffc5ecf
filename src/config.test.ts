import { describe, expect, it } from 'vitest';
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
