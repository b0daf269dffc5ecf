/**
 * An import keeps the planner's statistics of the catalog tables current (neither PGlite nor a
 * server with autovacuum off would): after the bundled 6,258-record sample, the tables' sizes are
 * known and the columns queries filter on have statistics, while the large JSON documents, which no
 * query filters on and which are costly to sample, have none.
 */
import path from 'node:path';
import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { ImportService } from '../../src/services/import.service.ts';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

const SAMPLE = path.resolve('data/sample/cve5-sample.jsonl.gz');

describeEachDatabase('Import: planner statistics', (use) => {
  beforeAll(async () => {
    const report = await new ImportService(use().db).importInputs(sources.cve5, [SAMPLE]);
    expect(report.counts.imported).toBe(6258);
  }, 120_000);

  it('leaves the catalog tables analyzed, with their row counts known', async () => {
    const { rows } = await sql<{ relname: string; reltuples: number }>`
      SELECT relname, reltuples::float8 AS reltuples FROM pg_class
       WHERE relname IN ('cve', 'cve_source', 'cve_change', 'cve_input', 'cve_vendor')
       ORDER BY relname`.execute(use().db);
    const tuples = Object.fromEntries(rows.map((r) => [r.relname, r.reltuples]));
    // Analyzed once 2,000 rows were written: never -1 (never analyzed), and of the right order.
    for (const table of ['cve', 'cve_source', 'cve_change', 'cve_input'])
      expect(tuples[table], table).toBeGreaterThanOrEqual(2000);
    expect(tuples.cve_vendor).toBeGreaterThan(0);
  });

  it('samples the columns queries use, not the JSON documents', async () => {
    const { rows } = await sql<{ tablename: string; attname: string }>`
      SELECT tablename, attname FROM pg_stats
       WHERE schemaname = current_schema() AND tablename IN ('cve', 'cve_source', 'cve_change')`.execute(
      use().db,
    );
    const columns = new Set(rows.map((r) => `${r.tablename}.${r.attname}`));
    for (const used of [
      'cve_source.cve_id',
      'cve.cve_id',
      'cve.vendors',
      'cve.updated_at',
      'cve.cvss31',
      'cve.search_text',
      'cve_change.cve_id',
    ])
      expect(columns.has(used), used).toBe(true);
    for (const document of ['cve_source.data', 'cve.metrics', 'cve.references', 'cve_change.data'])
      expect(columns.has(document), document).toBe(false);
  });
});
