/**
 * The embedded database does the upkeep a PostgreSQL server's background processes would, which
 * PGlite, a single backend, does not (src/db/pglite-maintenance.ts): without it the WAL grew with
 * every write until the process ended, and every updated row stayed on disk for good.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import type { DB } from '../../src/db/schema.ts';
import { openTestDatabase } from '../helpers/databases.ts';
import { ImportService } from '../../src/services/import.service.ts';
import { sources } from '../../src/sources/index.ts';

function walBytes(dataDir: string): number {
  const dir = path.join(dataDir, 'pg', 'pg_wal');
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + fs.statSync(path.join(dir, entry.name)).size, 0);
}

async function cveTable(db: Kysely<DB>): Promise<{ bytes: number; dead: number; live: number }> {
  const { rows } = await sql<{ bytes: number; dead: number; live: number }>`
    SELECT pg_total_relation_size(relid)::float8 AS bytes, n_dead_tup::float8 AS dead, n_live_tup::float8 AS live
    FROM pg_stat_user_tables WHERE relname = 'cve'`.execute(db);
  return rows[0]!;
}

describe('embedded database upkeep', () => {
  let database: Database | undefined;
  let dataDir: string | undefined;

  afterEach(async () => {
    vi.useRealTimers();
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

  it('vacuums: records changed again and again reuse the space of their old versions', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-vacuum-'));
    database = await openTestDatabase('embedded');
    const importer = new ImportService(database.db);
    const sample = zlib.gunzipSync(fs.readFileSync('data/sample/cve5-sample.jsonl.gz')).toString();
    const records = sample.split('\n').filter(Boolean).slice(0, 1000);
    const sizes: number[] = [];
    for (let round = 0; round < 5; round++) {
      const file = path.join(dataDir, `round-${round}.jsonl`);
      const edited = records.map((line) => {
        const record = JSON.parse(line) as {
          cveMetadata: { dateUpdated?: string };
          containers: { cna: { descriptions?: { value: string }[] } };
        };
        const description = record.containers.cna.descriptions?.[0];
        if (description) description.value += ` (revision ${round})`;
        record.cveMetadata.dateUpdated = new Date(Date.UTC(2030, 0, round + 1)).toISOString();
        return JSON.stringify(record);
      });
      fs.writeFileSync(file, edited.join('\n'));
      const report = await importer.importInputs(sources.cve5, [file], {});
      expect(report.counts.imported + report.counts.updated).toBe(1000);
      // A minute later (the upkeep looks at dead rows once a minute), the next statements' turns.
      vi.setSystemTime(Date.now() + 61_000);
      await sql`SELECT 1`.execute(database.db);
      await sql`SELECT 1`.execute(database.db);
      const cve = await cveTable(database.db);
      expect(cve.dead).toBeLessThanOrEqual(50 + 0.2 * cve.live);
      sizes.push(cve.bytes);
    }
    // Each round rewrites every row: without VACUUM the table grew by its whole size each time.
    expect(sizes[4]).toBeLessThanOrEqual(sizes[1]! * 1.25);
  });
});
