import { sql, type Kysely } from 'kysely';

/**
 * The project dashboard (docs/web-ui.md, "Projects: dashboard"): each user's last visit of each
 * project (its feed shows what changed since the visit before), and each user's Atom feed of a
 * project, found by the SHA-256 of its secret URL. The secret is an HMAC of the row's random nonce
 * under the server secret: the dashboard can show it again, a database dump alone does not give it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE project_visit (
      project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
      visited_at timestamptz NOT NULL,
      since timestamptz NOT NULL,
      first boolean NOT NULL DEFAULT true,
      PRIMARY KEY (project_id, user_id)
    )`.execute(db);
  await sql`
    CREATE TABLE project_feed (
      project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
      nonce text NOT NULL,
      secret_hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, user_id)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS project_feed`.execute(db);
  await sql`DROP TABLE IF EXISTS project_visit`.execute(db);
}
