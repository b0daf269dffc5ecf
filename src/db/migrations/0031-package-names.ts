import { sql, type Kysely } from 'kysely';

/**
 * Inventory matching (`POST /api/v2/match`) finds the CVEs of a package URL through the `packageName`
 * a CNA gives an affected product (CVE 5 `affected[].packageName`, kept in the `mitre` statement since
 * parser `cve5/2`): a GIN index over those names, lower-cased, of the CNA statements only, so a call
 * reads index entries instead of every statement. `PACKAGE_NAMES_SQL` in
 * `inventory-match.repository.ts` is the same expression; the two must stay identical.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX cve_source_package_names ON cve_source
    USING gin ((lower(jsonb_path_query_array(data, '$.affected[*].packageName')::text)::jsonb))
    WHERE provider = 'mitre'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS cve_source_package_names`.execute(db);
}
