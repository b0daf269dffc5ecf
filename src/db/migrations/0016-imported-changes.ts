import { sql, type Kysely } from 'kysely';

/**
 * A CVE's change history may hold changes recorded elsewhere and imported with their own ids and
 * dates: OpenCVE's, from its knowledge base (`vulntrack import opencve-kb`, docs/catalog.md).
 * `cve_change.origin` names where such a change was recorded (`opencve`); NULL is a change of ours.
 * Imported changes are history, not news: the event processor and reports pass over them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE cve_change ADD COLUMN origin text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM cve_change WHERE origin IS NOT NULL`.execute(db);
  await sql`ALTER TABLE cve_change DROP COLUMN origin`.execute(db);
}
