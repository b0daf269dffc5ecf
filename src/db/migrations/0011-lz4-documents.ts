import { sql, type Kysely } from 'kysely';

/**
 * The catalog's large JSON documents compressed with lz4 instead of PostgreSQL's default pglz, on a
 * server built with lz4 (Debian's and the official images are). A value above ~2 kB is compressed as
 * it is stored: an NVD statement (its record kept for API v1's `raw_nvd_data`, its CPE
 * configurations) is 5–15 kB, and pglz made `INSERT INTO cve_source` cost ~40 % more server CPU on
 * an NVD window of 2,000 records (bench/RESULTS-sync.md). lz4 also decompresses faster on reads.
 *
 * The embedded database (PGlite) has no lz4: there this migration changes nothing. Values already
 * stored keep their compression until rewritten.
 */
const COLUMNS: Record<string, string[]> = {
  cve_source: ['data', 'raw'],
  cve: ['metrics', '"references"', 'nvd_configurations'],
  cve_change: ['data'],
};

async function setCompression(db: Kysely<unknown>, method: 'lz4' | 'pglz'): Promise<void> {
  const statements = Object.entries(COLUMNS).map(
    ([table, columns]) =>
      `ALTER TABLE ${table} ${columns.map((c) => `ALTER COLUMN ${c} SET COMPRESSION ${method}`).join(', ')};`,
  );
  await sql`
    DO $$ BEGIN
      ${sql.raw(statements.join('\n'))}
    EXCEPTION WHEN feature_not_supported THEN NULL;
    END $$`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await setCompression(db, 'lz4');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await setCompression(db, 'pglz');
}
