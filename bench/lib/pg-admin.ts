/** Creates and drops the benchmark's own databases on a PostgreSQL server. */
import pg from 'pg';

/** Default server: the development PostgreSQL; only its host, port and user are used. */
export const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** `url` with its database name replaced by `name`. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function withAdmin<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** (Re)creates an empty database `name`: a leftover from an interrupted run is dropped first. */
export async function createDatabase(serverUrl: string, name: string): Promise<string> {
  await withAdmin(serverUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${quoteIdent(name)}`);
  });
  return withDatabase(serverUrl, name);
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await withAdmin(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`));
}

/** Settings that move import numbers, as `SHOW` prints them. */
const SETTINGS = ['shared_buffers', 'max_wal_size', 'synchronous_commit', 'autovacuum'];

/** The server's version and the settings above: `15.20` and `shared_buffers=128MB, …`. */
export async function serverInfo(serverUrl: string): Promise<{ version: string; settings: string }> {
  return withAdmin(serverUrl, async (c) => {
    const show = async (name: string) =>
      Object.values((await c.query<Record<string, string>>(`SHOW ${name}`)).rows[0] ?? {})[0] ?? '?';
    const settings: string[] = [];
    for (const name of SETTINGS) settings.push(`${name}=${await show(name)}`);
    return { version: await show('server_version'), settings: settings.join(', ') };
  });
}
