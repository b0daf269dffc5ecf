/**
 * Large catalog documents are compressed with lz4 on a PostgreSQL server (migration 0011: pglz cost
 * ~40 % more server CPU on NVD statements) and with PGlite's only method, pglz, on the embedded
 * database; either way they read back as imported.
 */
import fs from 'node:fs';
import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { ImportService } from '../../src/services/import.service.ts';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { fixture } from '../helpers/catalog.ts';

const XZ_NVD = fixture('nvd', 'CVE-2024-3094.json');

describeEachDatabase('Catalog: compression of large documents', (use, backend) => {
  beforeAll(async () => {
    const report = await new ImportService(use().db).importInputs(sources.nvd, [XZ_NVD]);
    expect(report.counts.imported).toBe(1);
  });

  it(`stores the NVD record compressed with ${backend === 'postgres' ? 'lz4' : 'pglz'} and reads it back whole`, async () => {
    const { rows } = await sql<{ method: string | null; raw: unknown }>`
      SELECT pg_column_compression(raw) AS method, raw FROM cve_source
       WHERE cve_id = 'CVE-2024-3094' AND provider = 'nvd'`.execute(use().db);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.method).toBe(backend === 'postgres' ? 'lz4' : 'pglz');
    expect(rows[0]!.raw).toEqual({ format: '2.0', record: JSON.parse(fs.readFileSync(XZ_NVD, 'utf8')) });
  });
});
