/**
 * Opens the database: a PostgreSQL server when a URL is given, otherwise the embedded PostgreSQL
 * (PGlite) in a data dir that this process locks for itself. Same schema and queries on both.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { DB } from './schema.ts';
import { PGlitePool } from './pglite-pool.ts';
import { makePrivate } from './data-dir-privacy.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { migrateToLatest } from './migrate.ts';
import { preparedStatementName } from './prepared.ts';

// int8 (count(*), bigint ids) as numbers, as PGlite already returns them.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * Runs the statements of `PreparedQuery` (prepared.ts) as named prepared statements on this
 * connection (pg parses each once per connection); every other call passes through unchanged.
 */
function prepareRegisteredStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values, ...rest] = args;
    const name = typeof text === 'string' ? preparedStatementName(text) : undefined;
    return name ? query({ name, text, values }, ...rest) : query(...args);
  };
}

export type DatabaseKind = 'embedded' | 'postgres';

/** Called with the payload of each notification on a channel. */
export type NotifyListener = (payload: string) => void;

export interface Database {
  db: Kysely<DB>;
  kind: DatabaseKind;
  /**
   * LISTENs on `channel` (PostgreSQL: on a dedicated connection outside the pool, reconnected when
   * lost). Resolves with a function that stops listening.
   */
  listen(channel: string, onNotify: NotifyListener): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** postgres:// URL; when absent the embedded database is used. */
  url?: string | undefined;
  /** Embedded only: the data dir, or 'memory://' for a throwaway database (tests). */
  dataDir?: string;
  /** With 'memory://': start from this dump of a migrated database (see writeEmbeddedTemplate). */
  template?: string | undefined;
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
  poolSize?: number;
}

/**
 * PGlite's start parameters, with the WAL kept small: PostgreSQL's default (1 GB) would leave
 * hundreds of MB of WAL in the data dir after a large import. Given at every start, so they hold
 * from the first one (ALTER SYSTEM would wait for a restart: PGlite cannot reload its settings).
 */
const EMBEDDED_START_PARAMS = [
  ...PGlite.defaultStartParams,
  ...['-c', 'max_wal_size=64MB', '-c', 'min_wal_size=32MB'],
];

async function openEmbedded(
  dataDir: string,
  template?: string,
): Promise<{ pool: PGlitePool; close: () => Promise<void> }> {
  if (dataDir === 'memory://') {
    const loadDataDir = template ? new Blob([fs.readFileSync(template)]) : undefined;
    const pgl = await PGlite.create({ extensions: { pg_trgm }, ...(loadDataDir ? { loadDataDir } : {}) });
    return { pool: new PGlitePool(pgl), close: () => pgl.close() };
  }
  const release = lockDataDir(dataDir);
  try {
    // Private before PGlite reads it (an install made before this was world-readable), again once
    // PGlite has created its files, and at close for the files it created while running.
    makePrivate(dataDir);
    const pgDir = path.join(dataDir, 'pg');
    const pgl = await PGlite.create(pgDir, { extensions: { pg_trgm }, startParams: EMBEDDED_START_PARAMS });
    makePrivate(dataDir);
    return {
      pool: new PGlitePool(pgl),
      close: async () => {
        try {
          await pgl.close();
          makePrivate(dataDir);
        } finally {
          release();
        }
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * LISTEN on a PostgreSQL server needs a session of its own: a pooled client would be handed to
 * other queries. The connection is re-opened after a loss; notifications sent meanwhile are missed,
 * which listeners cover by polling.
 */
async function listenOnServer(
  url: string,
  channel: string,
  onNotify: NotifyListener,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (n) => {
      if (n.channel === channel) onNotify(n.payload ?? '');
    });
    c.on('error', () => {
      void c.end().catch(() => {});
      if (client === c) client = undefined;
      if (!stopped) retry = setTimeout(() => void connect().catch(() => {}), 1000);
    });
    await c.connect();
    await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    if (stopped) await c.end();
    else client = c;
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  let db: Kysely<DB>;
  let kind: DatabaseKind;
  let closeExtra: () => Promise<void> = async () => {};
  let listen: Database['listen'];
  if (options.url) {
    kind = 'postgres';
    const url = options.url;
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      // Many small concurrent requests: a parallel plan triples the CPU of each for no gain in throughput.
      options: '-c max_parallel_workers_per_gather=0',
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    pool.on('connect', prepareRegisteredStatements);
    db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    listen = (channel, onNotify) => listenOnServer(url, channel, onNotify);
  } else {
    kind = 'embedded';
    const embedded = await openEmbedded(options.dataDir ?? './.data', options.template);
    db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: embedded.pool as unknown as pg.Pool }) });
    closeExtra = embedded.close;
    // Through the pool's turn, so the LISTEN never lands inside another caller's transaction.
    listen = async (channel, onNotify) => {
      const unlisten = await embedded.pool.exclusive((pgl) => pgl.listen(channel, onNotify));
      return () => embedded.pool.exclusive(() => unlisten());
    };
  }
  const database: Database = {
    db,
    kind,
    listen,
    close: async () => {
      await db.destroy();
      await closeExtra();
    },
  };
  if (options.migrate !== false) {
    try {
      await migrateToLatest(db as Kysely<unknown>);
    } catch (err) {
      await database.close();
      throw err;
    }
  }
  return database;
}

/**
 * Writes a dump of a freshly migrated in-memory database to `file`: opening a copy of it takes a
 * fraction of a fresh init plus migrations (what test suites open dozens of times).
 */
export async function writeEmbeddedTemplate(file: string): Promise<void> {
  const pgl = await PGlite.create({ extensions: { pg_trgm } });
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: new PGlitePool(pgl) as unknown as pg.Pool }),
  });
  try {
    await migrateToLatest(db as Kysely<unknown>);
    const dump = await pgl.dumpDataDir('none');
    fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  } finally {
    await db.destroy();
    await pgl.close();
  }
}
