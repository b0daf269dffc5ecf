import { sql, type Kysely } from 'kysely';

/**
 * A user's own tags on CVEs (OpenCVE's user tags): one row per (user, CVE, tag). API v1's `tag`
 * filter reads them; the CLI and the web UI write them through TagService.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE user_cve_tag (
      user_id uuid NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
      cve_id text NOT NULL,
      tag text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, cve_id, tag)
    )`.execute(db);
  // The `tag` filter: a user's CVEs carrying one tag.
  await sql`CREATE INDEX user_cve_tag_tag_idx ON user_cve_tag (user_id, tag, cve_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS user_cve_tag`.execute(db);
}
