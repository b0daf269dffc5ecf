import { sql, type Kysely } from 'kysely';
import * as packageNames from './0031-package-names.ts';

/**
 * Inventory matching finds a component written as the CNA writes it (`{vendor: "Jenkins Project",
 * product: "Jenkins NodeJS Plugin"}`) through the CNA's own names, not only through the catalog's
 * vendor keys: since the alias table maps CNA text to keys only when it is confident (issue 20), most
 * such CVEs have no product key at all, and 448 of 626 CNA-written components of the match benchmark
 * found no CVE. The GIN index of migration 0031 over the CNA statement's package names, lower-cased,
 * becomes one over its package names and product names (`affected[*].packageName` and `.product`);
 * the vendor is compared by the matching rules, not by the index. `CNA_NAMES_SQL` in
 * `inventory-match.repository.ts` is the same expression; the two must stay identical.
 *
 * Its cost on a first import, measured as one INSERT of the 44,130-record corpus's 88,156 statements
 * (PostgreSQL 15): +0.3 s over no index, about migration 0031's; an SQL function pairing each vendor
 * with its product cost +0.7–1.4 s.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await packageNames.down(db);
  await sql`
    CREATE INDEX cve_source_cna_names ON cve_source
    USING gin ((lower((jsonb_path_query_array(data, '$.affected[*].packageName')
                       || jsonb_path_query_array(data, '$.affected[*].product'))::text)::jsonb))
    WHERE provider = 'mitre'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS cve_source_cna_names`.execute(db);
  await packageNames.up(db);
}
