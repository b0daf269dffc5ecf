import { sql, type Kysely } from 'kysely';

/**
 * A project's inventory events by time: the dashboard's feed, its Atom feed and the period reports
 * read one project's events of a window (docs/inventories.md, "Reports and the dashboard"); without
 * the index each read scanned every project's events.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX inventory_event_project ON inventory_event (project_id, created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS inventory_event_project`.execute(db);
}
