/**
 * The match benchmark's catalog size: the real rows copied under synthetic ids as the API benchmark
 * does (`CVE-<9000+k>-<year><number>`, bench/api/catalog.phase.ts), and, unlike it, each copy's CNA
 * statement too (`cve_source`, provider `mitre`), which matching reads.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';

const COLUMNS = [
  'state',
  'title',
  'description',
  'metrics',
  'cvss20',
  'cvss30',
  'cvss31',
  'cvss40',
  'kev',
  'epss',
  'vendors',
  'weaknesses',
  'cpes',
  '"references"',
  'nvd_configurations',
  'providers',
].join(', ');

export async function replicate(db: Kysely<DB>, size: number): Promise<{ rows: number; statements: number }> {
  const base = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM cve`.execute(db)).rows[0]!.n;
  for (let k = 1; base * k < size; k++) {
    const rows = Math.min(base, size - base * k);
    const t = performance.now();
    await sql
      .raw(
        `INSERT INTO cve (cve_id, created_at, updated_at, ${COLUMNS})
         SELECT 'CVE-' || ${9000 + k} || '-' || substr(cve_id, 5, 4) || substr(cve_id, 10),
                created_at - interval '${k} hours', updated_at - interval '${k} hours', ${COLUMNS}
         FROM (SELECT *, row_number() OVER (ORDER BY md5(cve_id)) AS rn FROM cve WHERE cve_id < 'CVE-9000') c
         WHERE rn <= ${rows}`,
      )
      .execute(db);
    console.error(`  copy ${k}: ${rows} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  const t = performance.now();
  const copied = await sql`
    INSERT INTO cve_source (cve_id, provider, data, raw, hash)
    SELECT c.cve_id, s.provider, s.data, NULL, s.hash
    FROM cve c JOIN cve_source s
      ON s.provider = 'mitre' AND s.cve_id = 'CVE-' || substr(c.cve_id, 10, 4) || '-' || substr(c.cve_id, 14)
    WHERE c.cve_id >= 'CVE-9000'`.execute(db);
  console.error(
    `  CNA statements: ${copied.numAffectedRows} in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  const rows = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM cve`.execute(db)).rows[0]!.n;
  return { rows, statements: Number(copied.numAffectedRows ?? 0) };
}
