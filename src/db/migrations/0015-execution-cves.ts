import { sql, type Kysely } from 'kysely';

/**
 * Each automation execution keeps the table of the CVEs it matched, with the scores they had then
 * (OpenCVE 3.1's `cves_table_data`; its `impact_summary` is derived from it). Executions recorded
 * before keep none: the API shows both as null, as OpenCVE does for executions without them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE automation_execution ADD COLUMN cves jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE automation_execution DROP COLUMN cves`.execute(db);
}
