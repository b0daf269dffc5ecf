/**
 * Composition root: the only place that wires concrete dependencies. Everything a command needs is
 * built here from the config and closed again by `close()`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/client.ts';
import { ImportService } from './services/import.service.ts';
import { HealthService } from './services/health.service.ts';

export interface Services {
  config: Config;
  database: Database;
  imports: ImportService;
  health: HealthService;
  /** The server secret (keys for token hashing and signing). */
  secret: string;
  close(): Promise<void>;
}

export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, base: undefined });
}

/**
 * The server secret: VULNTRACK_SECRET, or (embedded default only) one generated on first start and
 * kept in the data dir with owner-only permissions.
 */
function resolveSecret(config: Config): string {
  if (config.secret) return config.secret;
  const file = path.join(config.dataDir, 'secret');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(config.dataDir, { recursive: true });
    const secret = randomBytes(32).toString('base64url');
    fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    return secret;
  }
}

export async function createServices(config: Config, options: { migrate?: boolean } = {}): Promise<Services> {
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    migrate: options.migrate ?? true,
  });
  const secret = resolveSecret(config);
  return {
    config,
    database,
    secret,
    imports: new ImportService(database.db),
    health: new HealthService(database.db, database.kind),
    close: () => database.close(),
  };
}
