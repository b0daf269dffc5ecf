/**
 * Environment → validated, typed config. Parsed once; a bad value stops the process with a message
 * that names the variable. `resetConfig()` exists for tests.
 */
import path from 'node:path';

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
  };
}

let cached: Config | undefined;

/** The process configuration, parsed from the environment on first use. */
export function getConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

export function resetConfig(): void {
  cached = undefined;
}
