import { sql, type Kysely } from 'kysely';

/**
 * The CVE lists' score orderings (`-cvss`, `cvss`, `-epss`, `epss`): one index each on the sort key
 * the lists compute (`sortExpression` in cve-list-conditions.ts, written identically), so that a page
 * is a range of the index, forwards or backwards, as the time orderings are. A CVE without a score
 * sorts as -1. What they cost an import is measured in bench/RESULTS-web.md.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX cve_best_cvss_idx
    ON cve ((coalesce(cvss40, cvss31, cvss30, cvss20, -1::double precision)), cve_id)`.execute(db);
  await sql`CREATE INDEX cve_epss_idx ON cve ((coalesce(epss, -1::double precision)), cve_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS cve_epss_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS cve_best_cvss_idx`.execute(db);
}
