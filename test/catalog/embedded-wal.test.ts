/**
 * The embedded database keeps its write-ahead log small however long the process runs: PGlite has
 * no checkpointer, so without the pool's checkpoints the WAL grew with every write until the process
 * ended (and PostgreSQL's default max_wal_size of 1 GB then kept it on disk).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';

function walBytes(dataDir: string): number {
  const dir = path.join(dataDir, 'pg', 'pg_wal');
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + fs.statSync(path.join(dir, entry.name)).size, 0);
}

describe('embedded database: write-ahead log', () => {
  let database: Database | undefined;
  let dataDir: string | undefined;

  afterEach(async () => {
    await database?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    database = undefined;
    dataDir = undefined;
  });

  it('keeps about 64 MB of WAL from the first start while several times that is written', async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-wal-'));
    database = await openDatabase({ dataDir });
    const { rows } = await sql<{ max_wal_size: string }>`SHOW max_wal_size`.execute(database.db);
    expect(rows[0]?.max_wal_size).toBe('64MB');

    // About 380 MB of WAL: six times the limit.
    for (let round = 0; round < 6; round++) {
      await sql`CREATE TABLE wal_filler AS SELECT g, repeat(md5(g::text), 8) AS pad FROM generate_series(1, 200000) g`.execute(
        database.db,
      );
      await sql`DROP TABLE wal_filler`.execute(database.db);
    }
    // A checkpoint due after the last statement runs before the next one.
    await sql`SELECT 1`.execute(database.db);
    // The limit, plus what a second of writing adds before the next check.
    expect(walBytes(dataDir)).toBeLessThanOrEqual(160 * 1024 * 1024);
  });
});
