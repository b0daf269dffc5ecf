import { sql, type Kysely } from 'kysely';

/**
 * The web UI's accounts: signed-in sessions (server-side, so that sign-out and a password change end
 * them everywhere), each user's display preferences, and one-time links (the first administrator's,
 * password resets, invitations) stored as hashes of their secrets only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE web_session (
      id text PRIMARY KEY,
      user_id uuid REFERENCES app_user(id) ON DELETE CASCADE,
      data jsonb NOT NULL,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX web_session_user ON web_session (user_id)`.execute(db);
  await sql`CREATE INDEX web_session_expiry ON web_session (expires_at)`.execute(db);
  await sql`
    ALTER TABLE app_user
      ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC',
      ADD COLUMN date_format text NOT NULL DEFAULT 'iso',
      ADD COLUMN theme text NOT NULL DEFAULT 'auto'`.execute(db);
  await sql`
    CREATE TABLE one_time_link (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      purpose text NOT NULL,
      token_hash text NOT NULL UNIQUE,
      user_id uuid REFERENCES app_user(id) ON DELETE CASCADE,
      membership_id uuid REFERENCES membership(id) ON DELETE CASCADE,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
}
