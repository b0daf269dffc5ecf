/**
 * The databases a test suite runs against: always the embedded one, and a PostgreSQL server when
 * TEST_DATABASE_URL names one. Each test file gets fresh, migrated databases of its own.
 */
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { describe, beforeAll, afterAll, inject } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';

export type Backend = 'embedded' | 'postgres';

export const serverUrl = process.env.TEST_DATABASE_URL || undefined;

export const backends: Backend[] = serverUrl ? ['embedded', 'postgres'] : ['embedded'];

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A fresh database on a PostgreSQL server, dropped again by `close()`. */
export async function createServerDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `vt_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: withDatabase(serverUrl, name),
    drop: async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Opens a fresh migrated database of the given kind. */
export async function openTestDatabase(backend: Backend): Promise<Database> {
  if (backend === 'embedded')
    return openDatabase({ dataDir: 'memory://', template: inject('embeddedTemplate') });
  const { url, drop } = await createServerDatabase();
  const database = await openDatabase({ url, poolSize: 4 });
  return {
    ...database,
    close: async () => {
      await database.close();
      await drop();
    },
  };
}

/**
 * `describe` once per available backend, with a fresh database opened before the block and closed
 * after it. `use()` returns the open database inside tests and hooks.
 */
export function describeEachDatabase(
  name: string,
  fn: (use: () => Database, backend: Backend) => void,
): void {
  for (const backend of backends) {
    describe(`${name} [${backend}]`, () => {
      let database: Database | undefined;
      beforeAll(async () => {
        database = await openTestDatabase(backend);
      });
      afterAll(async () => {
        await database?.close();
      });
      fn(() => {
        if (!database) throw new Error('database not open yet');
        return database;
      }, backend);
    });
  }
}

/**
 * A database for CLI processes of the given kind: the environment that points `bin/vulntrack.js` at
 * it, a way to open it from the test, and `drop` for afterwards (a server database; an embedded data
 * dir is a folder under `workDir`, removed with it).
 */
export async function cliDatabase(
  backend: Backend,
  workDir: string,
): Promise<{ env: NodeJS.ProcessEnv; open: () => Promise<Database>; drop: () => Promise<void> }> {
  if (backend === 'embedded') {
    const dataDir = await fsp.mkdtemp(path.join(workDir, 'embedded-'));
    return {
      env: { VULNTRACK_DATA_DIR: dataDir, DATABASE_URL: '' },
      open: () => openDatabase({ dataDir }),
      drop: async () => {},
    };
  }
  const server = await createServerDatabase();
  return {
    env: { DATABASE_URL: server.url, VULNTRACK_SECRET: randomBytes(32).toString('hex') },
    open: () => openDatabase({ url: server.url, poolSize: 1 }),
    drop: server.drop,
  };
}
