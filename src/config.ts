/**
 * Environment → validated, typed config. Parsed once; a bad value stops the process with a message
 * that names the variable. Tests build a config with `parseConfig(env)`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type ipaddrModule from 'ipaddr.js';
import { parseAllowedHosts, type PrivateDestinations } from './domain/outbound-allow.ts';
import { parseGroupRoles, type GroupRole } from './domain/oidc-groups.ts';

export type ApiV1Shape = 'paged' | 'legacy';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  /** postgres://… for a server; undefined means the embedded database in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  port: number;
  host: string;
  baseUrl: string | undefined;
  /** Server secret for token hashing and signing; undefined in embedded mode until the data dir provides one. */
  secret: string | undefined;
  apiV1Shape: ApiV1Shape;
  logLevel: LogLevel;
  /** Load the bundled sample catalog on first start with an empty catalog. */
  loadSample: boolean;
  /** Requests per minute per API token. */
  rateLimitPerMinute: number;
  /**
   * Account email (invitations, confirmations, password resets) allowed per sender per hour
   * (ACCOUNT_MAIL_PER_SENDER_PER_HOUR) and per recipient address per day
   * (ACCOUNT_MAIL_PER_RECIPIENT_PER_DAY); 0: no limit.
   */
  accountMail: { perSenderPerHour: number; perRecipientPerDay: number };
  sync: SyncConfig;
  worker: WorkerConfig;
  notifications: NotificationConfig;
  /** How long a verified API v1 Basic credential is trusted without hashing again (API_V1_AUTH_CACHE_SECONDS). */
  apiV1AuthCacheMs: number;
  /** Failed API v1 sign-ins allowed per client address per minute (API_V1_AUTH_FAILURES_PER_MINUTE); 0: no limit. */
  apiV1AuthFailuresPerMinute: number;
  /**
   * Whether API v1 Basic authentication accepts the password of a user with two-factor sign-in on
   * (API_V1_BASIC_TWO_FACTOR_USERS): `refuse` (the default: 401 with a message) or `allow`.
   */
  apiV1BasicTwoFactorUsers: 'refuse' | 'allow';
  /**
   * Which proxies' `X-Forwarded-For` names the client (TRUST_PROXY): false (none, the default), true
   * (any), a number of hops, or addresses and CIDR ranges. Rate limits count per client address.
   */
  trustProxy: boolean | number | string[];
  /** Bearer token GET /metrics requires (METRICS_TOKEN); unset: /metrics answers anyone. */
  metricsToken: string | undefined;
  /** Memory for API v2 answers kept per catalog version (API_RESPONSE_CACHE_MB); 0: no cache. */
  apiResponseCacheBytes: number;
  /** Candidates whose matching data inventory matching keeps between calls (INVENTORY_MATCH_CACHE_CVES); 0: none. */
  inventoryMatchCacheCves: number;
  /** Anyone may create an account at `/signup` (WEB_OPEN_SIGNUP; off: accounts come from invitations). */
  webOpenSignup: boolean;
  /** Single sign-on with OpenID Connect (OIDC_*); undefined without OIDC_ISSUER. */
  oidc: OidcConfig | undefined;
}

/** OpenID Connect sign-in (docs/web-ui.md, "Single sign-on"). */
export interface OidcConfig {
  /** The issuer's URL (OIDC_ISSUER): https, or http on a loopback address (tests, a local provider). */
  issuer: string;
  clientId: string;
  /** OIDC_CLIENT_SECRET, or the file OIDC_CLIENT_SECRET_FILE names; undefined: a public client (PKCE only). */
  clientSecret: string | undefined;
  /** Space-separated (OIDC_SCOPES, default `openid email profile`). */
  scopes: string;
  buttonLabel: string;
  usernameClaim: string;
  emailClaim: string;
  groupsClaim: string;
  /** OIDC_GROUP_ROLES: `group=org:role` entries. */
  groupRoles: GroupRole[];
  /** OIDC_ONLY: no password sign-in, reset or self-made account but for server administrators. */
  only: boolean;
}

export interface NotificationConfig {
  /** smtp://user:pass@host:port or smtps://… (SMTP_URL); unset: email notifications cannot be delivered. */
  smtpUrl: string | undefined;
  /** The From address of notification email (SMTP_FROM). */
  smtpFrom: string;
  /**
   * The non-public destinations notification URLs may name: all loopback, private and link-local
   * addresses (`true`, OUTBOUND_ALLOW_PRIVATE: tests, closed networks), the hosts and networks of
   * OUTBOUND_ALLOW_HOSTS (internal receivers in production), or none (`false`).
   */
  outboundAllowPrivate: PrivateDestinations;
  /** Time limit of one outbound delivery attempt (DELIVERY_TIMEOUT_MS). */
  deliveryTimeoutMs: number;
  /** Attempts per delivery before it is dead (DELIVERY_ATTEMPTS, at least 5). */
  deliveryAttempts: number;
  /** How long deliveries, their payloads and attempts are kept (DELIVERY_RETENTION_DAYS). */
  deliveryRetentionMs: number;
  /** First retry delay of a failed delivery, doubled on each further one (DELIVERY_RETRY_BASE_SECONDS). */
  deliveryRetryBaseMs: number;
}

export const SYNC_SOURCE_NAMES = ['cve5', 'nvd', 'kev', 'epss', 'cwe'] as const;
export type SyncSourceName = (typeof SYNC_SOURCE_NAMES)[number];

export interface SyncConfig {
  /** Sources the scheduler keeps current (SYNC_SOURCES; `none` for none). */
  sources: SyncSourceName[];
  /** Cron pattern per source (SYNC_SCHEDULE_<SOURCE>). */
  schedules: Record<SyncSourceName, string>;
  /**
   * How long a configured source may go without advancing before it is stale: the banner names it
   * and its organizations' owners get one email (SYNC_STALE_HOURS_<SOURCE>; 0: never stale).
   */
  staleAfterMs: Record<SyncSourceName, number | null>;
  /** A local git clone of cvelistV5 or vulnrichment to pull and read instead of HTTP. */
  cve5GitDir: string | undefined;
  /** The CVE Program's bulk and delta archives. */
  cve5BaseUrl: string;
  nvdApiUrl: string;
  nvdApiKey: string | undefined;
  kevUrl: string;
  epssUrl: string;
  cweUrl: string;
  /** First NVD window start when no cursor is kept (NVD_SYNC_START); unset: a full load without dates. */
  nvdSyncStart: Date | undefined;
  /** NVD requests allowed per `nvdRateWindowMs` (NVD_RATE_LIMIT; NVD documents 5 without a key, 50 with). */
  nvdRateLimit: number;
  /** The NVD rate-limit window (NVD_RATE_WINDOW_SECONDS, 30). */
  nvdRateWindowMs: number;
  /** Attempts per upstream request before a sync gives up (SYNC_HTTP_ATTEMPTS). */
  httpAttempts: number;
  /** First retry delay, doubled on each retry (SYNC_RETRY_BASE_MS). */
  retryBaseMs: number;
}

export interface WorkerConfig {
  /** Jobs one worker process runs at once (WORKER_CONCURRENCY). */
  concurrency: number;
  /** How long a claimed job stays reserved without a heartbeat before another worker may take it over (JOB_LEASE_SECONDS). */
  leaseMs: number;
  /** Polling interval when no notification arrives (JOB_POLL_INTERVAL_MS). */
  pollIntervalMs: number;
  /** Retry delay after the first failure, doubled on each further one (JOB_RETRY_BASE_SECONDS). */
  retryBaseMs: number;
  /** Longest retry delay (JOB_RETRY_MAX_SECONDS). */
  retryMaxMs: number;
}

/** Default schedules (docs/jobs.md): cve5 and nvd every 15 minutes, kev and epss daily, cwe weekly. */
export const DEFAULT_SCHEDULES: Record<SyncSourceName, string> = {
  cve5: '*/15 * * * *',
  nvd: '7,22,37,52 * * * *',
  kev: '30 3 * * *',
  epss: '45 3 * * *',
  cwe: '0 4 * * 1',
};

/**
 * Default "stale after" per source, in hours (docs/sync.md, "Staleness"): a few missed rounds of the
 * 15-minute sources, two missed days of the daily ones, four missed weeks of the weekly CWE list.
 */
export const DEFAULT_STALE_HOURS: Record<SyncSourceName, number> = {
  cve5: 6,
  nvd: 48,
  kev: 48,
  epss: 48,
  cwe: 720,
};

function staleAfter(env: NodeJS.ProcessEnv): Record<SyncSourceName, number | null> {
  const out = {} as Record<SyncSourceName, number | null>;
  for (const source of SYNC_SOURCE_NAMES) {
    const name = `SYNC_STALE_HOURS_${source.toUpperCase()}`;
    const hours = integer(name, env[name], DEFAULT_STALE_HOURS[source], 0, 8760);
    out[source] = hours === 0 ? null : hours * 3_600_000;
  }
  return out;
}

function url(name: string, value: string | undefined, dflt: string): string {
  if (value === undefined || value === '') return dflt;
  if (!/^https?:\/\/\S+$/.test(value))
    throw new ConfigError(`${name} must be an http(s) URL (got "${value}")`);
  return value.replace(/\/+$/, '');
}

function syncSources(value: string | undefined): SyncSourceName[] {
  if (value === undefined || value.trim() === '') return [...SYNC_SOURCE_NAMES];
  if (value.trim() === 'none') return [];
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(SYNC_SOURCE_NAMES as readonly string[]).includes(n));
  if (unknown.length) {
    throw new ConfigError(
      `SYNC_SOURCES: unknown source ${unknown.join(', ')}; use ${SYNC_SOURCE_NAMES.join(', ')} or none`,
    );
  }
  return [...new Set(names)] as SyncSourceName[];
}

function schedules(env: NodeJS.ProcessEnv): Record<SyncSourceName, string> {
  const out = { ...DEFAULT_SCHEDULES };
  for (const source of SYNC_SOURCE_NAMES) {
    const value = env[`SYNC_SCHEDULE_${source.toUpperCase()}`];
    if (value === undefined || value.trim() === '') continue;
    const fields = value.trim().split(/\s+/);
    if (fields.length < 5 || fields.length > 6) {
      throw new ConfigError(
        `SYNC_SCHEDULE_${source.toUpperCase()} must be a cron pattern of 5 or 6 fields (got "${value}")`,
      );
    }
    out[source] = value.trim();
  }
  return out;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], dflt: T): T {
  if (value === undefined || value === '') return dflt;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
}

function integer(name: string, value: string | undefined, dflt: number, min: number, max: number): number {
  if (value === undefined || value === '') return dflt;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
  }
  return Number(value);
}

function bool(name: string, value: string | undefined, dflt: boolean): boolean {
  if (value === undefined || value === '') return dflt;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be true or false (got "${value}")`);
}

/**
 * TRUST_PROXY: unset or false → trust no proxy; true → any; a whole number → that many hops; else a
 * comma-separated list of addresses and CIDR ranges of the proxies in front of the service.
 */
function trustProxy(value: string | undefined): boolean | number | string[] {
  if (value === undefined || value === '' || /^(0|false|no|off)$/i.test(value)) return false;
  if (/^(true|yes|on)$/i.test(value)) return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((e) => e.trim());
  // Required here, not imported at the top: every command reads the config, and on Node 20 an ESM
  // import of this CommonJS package costs a start-up about 35 ms of CPU (require: about 2 ms).
  const ipaddr = createRequire(import.meta.url)('ipaddr.js') as typeof ipaddrModule;
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/');
    const valid =
      rest.length === 0 && ipaddr.isValid(address ?? '') && (bits === undefined || ipaddr.isValidCIDR(entry));
    if (!valid) {
      throw new ConfigError(
        `TRUST_PROXY must be true, false, a number of hops or addresses and CIDR ranges separated by commas (got "${entry}")`,
      );
    }
  }
  return entries;
}

function metricsToken(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.length < 16 || /\s/.test(value)) {
    throw new ConfigError('METRICS_TOKEN must be at least 16 characters, without spaces');
  }
  return value;
}

/** Job queue and worker settings (docs/jobs.md). */
function workerConfig(env: NodeJS.ProcessEnv): WorkerConfig {
  return {
    concurrency: integer('WORKER_CONCURRENCY', env.WORKER_CONCURRENCY, 16, 1, 64),
    leaseMs: integer('JOB_LEASE_SECONDS', env.JOB_LEASE_SECONDS, 60, 1, 86_400) * 1000,
    pollIntervalMs: integer('JOB_POLL_INTERVAL_MS', env.JOB_POLL_INTERVAL_MS, 1000, 10, 600_000),
    retryBaseMs: integer('JOB_RETRY_BASE_SECONDS', env.JOB_RETRY_BASE_SECONDS, 30, 0, 86_400) * 1000,
    retryMaxMs: integer('JOB_RETRY_MAX_SECONDS', env.JOB_RETRY_MAX_SECONDS, 3600, 0, 604_800) * 1000,
  };
}

/** OUTBOUND_ALLOW_HOSTS: `false` when unset or empty. */
function allowedHosts(value: string | undefined): PrivateDestinations {
  if (!value?.trim()) return false;
  try {
    return parseAllowedHosts(value);
  } catch (error) {
    throw new ConfigError(`OUTBOUND_ALLOW_HOSTS: ${(error as Error).message}`);
  }
}

/** Notification delivery settings (docs/notifications.md). */
function notificationConfig(env: NodeJS.ProcessEnv): NotificationConfig {
  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl && !/^smtps?:\/\/\S+$/.test(smtpUrl)) {
    throw new ConfigError(`SMTP_URL must be an smtp:// or smtps:// URL (got "${smtpUrl}")`);
  }
  const smtpFrom = env.SMTP_FROM || 'vulntrack <vulntrack@localhost>';
  return {
    smtpUrl,
    smtpFrom,
    outboundAllowPrivate:
      bool('OUTBOUND_ALLOW_PRIVATE', env.OUTBOUND_ALLOW_PRIVATE, false) ||
      allowedHosts(env.OUTBOUND_ALLOW_HOSTS),
    deliveryTimeoutMs: integer('DELIVERY_TIMEOUT_MS', env.DELIVERY_TIMEOUT_MS, 10_000, 100, 300_000),
    // A delivery gets at least 5 attempts over at least an hour (docs/notifications.md) (1+2+4+8 min base doubling ≥ 15 min, capped
    // by JOB_RETRY_MAX_SECONDS; the default 8 attempts from 60 s span 2+ hours).
    deliveryAttempts: integer('DELIVERY_ATTEMPTS', env.DELIVERY_ATTEMPTS, 8, 5, 50),
    deliveryRetryBaseMs:
      integer('DELIVERY_RETRY_BASE_SECONDS', env.DELIVERY_RETRY_BASE_SECONDS, 60, 0, 86_400) * 1000,
    deliveryRetentionMs:
      integer('DELIVERY_RETENTION_DAYS', env.DELIVERY_RETENTION_DAYS, 90, 1, 3650) * 86_400_000,
  };
}

function date(name: string, value: string | undefined): Date | undefined {
  if (value === undefined || value === '') return undefined;
  const d = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(d.getTime()))
    throw new ConfigError(`${name} must be an ISO date such as 2024-01-01 (got "${value}")`);
  return d;
}

export function parseConfig(env: NodeJS.ProcessEnv): Config {
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const secret = env.VULNTRACK_SECRET || undefined;
  if (databaseUrl && !secret) {
    throw new ConfigError('VULNTRACK_SECRET is required with DATABASE_URL (at least 32 characters)');
  }
  if (secret && secret.length < 32) throw new ConfigError('VULNTRACK_SECRET must be at least 32 characters');
  const baseUrl = env.VULNTRACK_BASE_URL || undefined;
  if (baseUrl && !/^https?:\/\/[^\s]+$/.test(baseUrl)) {
    throw new ConfigError('VULNTRACK_BASE_URL must be an http(s) URL');
  }
  return {
    databaseUrl,
    dataDir: path.resolve(env.VULNTRACK_DATA_DIR || './.data'),
    port: integer('PORT', env.PORT, 8000, 0, 65535),
    host: env.HOST || '0.0.0.0',
    baseUrl: baseUrl?.replace(/\/+$/, ''),
    secret,
    apiV1Shape: oneOf('API_V1_SHAPE', env.API_V1_SHAPE, ['paged', 'legacy'] as const, 'paged'),
    logLevel: oneOf(
      'LOG_LEVEL',
      env.LOG_LEVEL,
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      'info',
    ),
    loadSample: bool('VULNTRACK_LOAD_SAMPLE', env.VULNTRACK_LOAD_SAMPLE, true),
    rateLimitPerMinute: integer('RATE_LIMIT_PER_MINUTE', env.RATE_LIMIT_PER_MINUTE, 1000, 1, 1_000_000),
    accountMail: {
      perSenderPerHour: integer(
        'ACCOUNT_MAIL_PER_SENDER_PER_HOUR',
        env.ACCOUNT_MAIL_PER_SENDER_PER_HOUR,
        20,
        0,
        100_000,
      ),
      perRecipientPerDay: integer(
        'ACCOUNT_MAIL_PER_RECIPIENT_PER_DAY',
        env.ACCOUNT_MAIL_PER_RECIPIENT_PER_DAY,
        5,
        0,
        100_000,
      ),
    },
    sync: {
      sources: syncSources(env.SYNC_SOURCES),
      schedules: schedules(env),
      staleAfterMs: staleAfter(env),
      cve5GitDir: env.CVE5_GIT_DIR ? path.resolve(env.CVE5_GIT_DIR) : undefined,
      cve5BaseUrl: url(
        'CVE5_BASE_URL',
        env.CVE5_BASE_URL,
        'https://github.com/CVEProject/cvelistV5/releases/download',
      ),
      nvdApiUrl: url('NVD_API_URL', env.NVD_API_URL, 'https://services.nvd.nist.gov/rest/json/cves/2.0'),
      nvdApiKey: env.NVD_API_KEY || undefined,
      kevUrl: url(
        'KEV_URL',
        env.KEV_URL,
        'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json',
      ),
      epssUrl: url('EPSS_URL', env.EPSS_URL, 'https://epss.cyentia.com/epss_scores-current.csv.gz'),
      cweUrl: url('CWE_URL', env.CWE_URL, 'https://cwe.mitre.org/data/csv/1000.csv.zip'),
      nvdSyncStart: date('NVD_SYNC_START', env.NVD_SYNC_START),
      nvdRateLimit: integer('NVD_RATE_LIMIT', env.NVD_RATE_LIMIT, env.NVD_API_KEY ? 50 : 5, 1, 10_000),
      nvdRateWindowMs: integer('NVD_RATE_WINDOW_SECONDS', env.NVD_RATE_WINDOW_SECONDS, 30, 1, 3600) * 1000,
      httpAttempts: integer('SYNC_HTTP_ATTEMPTS', env.SYNC_HTTP_ATTEMPTS, 5, 1, 20),
      retryBaseMs: integer('SYNC_RETRY_BASE_MS', env.SYNC_RETRY_BASE_MS, 2000, 0, 600_000),
    },
    worker: workerConfig(env),
    notifications: notificationConfig(env),
    apiV1AuthCacheMs:
      integer('API_V1_AUTH_CACHE_SECONDS', env.API_V1_AUTH_CACHE_SECONDS, 300, 0, 86_400) * 1000,
    apiV1AuthFailuresPerMinute: integer(
      'API_V1_AUTH_FAILURES_PER_MINUTE',
      env.API_V1_AUTH_FAILURES_PER_MINUTE,
      20,
      0,
      1_000_000,
    ),
    apiV1BasicTwoFactorUsers: oneOf(
      'API_V1_BASIC_TWO_FACTOR_USERS',
      env.API_V1_BASIC_TWO_FACTOR_USERS,
      ['refuse', 'allow'] as const,
      'refuse',
    ),
    trustProxy: trustProxy(env.TRUST_PROXY),
    metricsToken: metricsToken(env.METRICS_TOKEN),
    apiResponseCacheBytes:
      integer('API_RESPONSE_CACHE_MB', env.API_RESPONSE_CACHE_MB, 32, 0, 4096) * 1024 * 1024,
    inventoryMatchCacheCves: integer(
      'INVENTORY_MATCH_CACHE_CVES',
      env.INVENTORY_MATCH_CACHE_CVES,
      50_000,
      0,
      10_000_000,
    ),
    webOpenSignup: bool('WEB_OPEN_SIGNUP', env.WEB_OPEN_SIGNUP, false),
    oidc: oidcConfig(env, baseUrl),
  };
}

/** http on these hosts is accepted for an issuer (a provider on this machine); anything else needs https. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** True for an http:// URL on a loopback address (openid-client is then told to allow plain http). */
export function isLoopbackHttp(url: string): boolean {
  const u = new URL(url);
  return u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname);
}

function oidcConfig(env: NodeJS.ProcessEnv, baseUrl: string | undefined): OidcConfig | undefined {
  const issuer = env.OIDC_ISSUER || undefined;
  const only = bool('OIDC_ONLY', env.OIDC_ONLY, false);
  if (!issuer) {
    const stray = ['OIDC_CLIENT_ID', 'OIDC_GROUP_ROLES'].find((name) => env[name]);
    if (only || stray) throw new ConfigError(`${only ? 'OIDC_ONLY' : stray} needs OIDC_ISSUER`);
    return undefined;
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(issuer);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !(parsed.protocol === 'https:' || isLoopbackHttp(issuer)) || parsed.search || parsed.hash)
    throw new ConfigError(
      `OIDC_ISSUER must be an https:// URL (http only on 127.0.0.1, localhost or [::1]) without ? or # (got "${issuer}")`,
    );
  if (!env.OIDC_CLIENT_ID) throw new ConfigError('OIDC_CLIENT_ID is required with OIDC_ISSUER');
  if (!baseUrl)
    throw new ConfigError(
      'VULNTRACK_BASE_URL is required with OIDC_ISSUER (the redirect URI is <VULNTRACK_BASE_URL>/auth/oidc/callback)',
    );
  if (env.OIDC_CLIENT_SECRET && env.OIDC_CLIENT_SECRET_FILE)
    throw new ConfigError('Set OIDC_CLIENT_SECRET or OIDC_CLIENT_SECRET_FILE, not both');
  let clientSecret = env.OIDC_CLIENT_SECRET || undefined;
  if (env.OIDC_CLIENT_SECRET_FILE) {
    try {
      clientSecret = fs.readFileSync(env.OIDC_CLIENT_SECRET_FILE, 'utf8').trim() || undefined;
    } catch (err) {
      throw new ConfigError(
        `OIDC_CLIENT_SECRET_FILE: cannot read ${env.OIDC_CLIENT_SECRET_FILE} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    if (!clientSecret)
      throw new ConfigError(`OIDC_CLIENT_SECRET_FILE: ${env.OIDC_CLIENT_SECRET_FILE} is empty`);
  }
  const scopes = (env.OIDC_SCOPES || 'openid email profile').split(/\s+/).filter(Boolean);
  if (!scopes.includes('openid'))
    throw new ConfigError(`OIDC_SCOPES must include openid (got "${env.OIDC_SCOPES}")`);
  const claim = (name: string, dflt: string) => {
    const value = (env[name] || dflt).trim();
    if (!/^[\w.:/-]{1,200}$/.test(value))
      throw new ConfigError(`${name} must be a claim name (letters, digits and _ . : / -; got "${value}")`);
    return value;
  };
  let groupRoles: GroupRole[];
  try {
    groupRoles = parseGroupRoles(env.OIDC_GROUP_ROLES);
  } catch (err) {
    throw new ConfigError(`OIDC_GROUP_ROLES: ${(err as Error).message}`);
  }
  const buttonLabel = (env.OIDC_BUTTON_LABEL || 'Sign in with SSO').trim().slice(0, 100);
  return {
    issuer,
    clientId: env.OIDC_CLIENT_ID,
    clientSecret,
    scopes: scopes.join(' '),
    buttonLabel,
    usernameClaim: claim('OIDC_USERNAME_CLAIM', 'preferred_username'),
    emailClaim: claim('OIDC_EMAIL_CLAIM', 'email'),
    groupsClaim: claim('OIDC_GROUPS_CLAIM', 'groups'),
    groupRoles,
    only,
  };
}

let cached: Config | undefined;

/** The process configuration, parsed from the environment on first use. */
export function getConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}
