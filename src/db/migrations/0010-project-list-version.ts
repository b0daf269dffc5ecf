import { sql, type Kysely } from 'kysely';

/**
 * `project.list_version`: bumped whenever what a project's CVE list shows may change outside the
 * catalog: its subscriptions, its tracker entries, the email of a user assigned in it. With the
 * catalog version it names one state of the list, so an answer computed for it may be served again
 * until either moves (the API's response cache, src/api/v2/response-cache.ts). Kept by statement
 * triggers, so every writer (API, CLI, automations, a member removed) moves it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE project ADD COLUMN list_version bigint NOT NULL DEFAULT 0`.execute(db);

  await sql`
    CREATE FUNCTION project_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        UPDATE project SET list_version = list_version + 1 WHERE id IN (SELECT project_id FROM new_rows);
      ELSIF TG_OP = 'DELETE' THEN
        UPDATE project SET list_version = list_version + 1 WHERE id IN (SELECT project_id FROM old_rows);
      ELSE
        UPDATE project SET list_version = list_version + 1
        WHERE id IN (SELECT project_id FROM new_rows UNION SELECT project_id FROM old_rows);
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  for (const table of ['project_subscription', 'tracker_entry']) {
    const t = sql.raw(table);
    await sql`
      CREATE TRIGGER ${sql.raw(`${table}_inserted`)} AFTER INSERT ON ${t} REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION project_list_changed()`.execute(db);
    await sql`
      CREATE TRIGGER ${sql.raw(`${table}_updated`)} AFTER UPDATE ON ${t}
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION project_list_changed()`.execute(db);
    await sql`
      CREATE TRIGGER ${sql.raw(`${table}_deleted`)} AFTER DELETE ON ${t} REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION project_list_changed()`.execute(db);
  }

  // Lists show an assignee by email.
  await sql`
    CREATE FUNCTION project_list_assignee_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE project SET list_version = list_version + 1
      WHERE id IN (
        SELECT te.project_id FROM tracker_entry te
        JOIN new_rows n ON n.id = te.assignee_id
        JOIN old_rows o ON o.id = n.id
        WHERE o.email IS DISTINCT FROM n.email);
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER app_user_email_updated AFTER UPDATE ON app_user
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION project_list_assignee_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS app_user_email_updated ON app_user`.execute(db);
  for (const table of ['project_subscription', 'tracker_entry']) {
    for (const event of ['inserted', 'updated', 'deleted']) {
      await sql`DROP TRIGGER IF EXISTS ${sql.raw(`${table}_${event}`)} ON ${sql.raw(table)}`.execute(db);
    }
  }
  await sql`DROP FUNCTION IF EXISTS project_list_assignee_changed()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS project_list_changed()`.execute(db);
  await sql`ALTER TABLE project DROP COLUMN IF EXISTS list_version`.execute(db);
}
