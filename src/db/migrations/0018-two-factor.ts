import { sql, type Kysely } from 'kysely';

/**
 * Two-factor sign-in: each user's TOTP secret (sealed with the server secret, never in clear), when
 * it was turned on, and the last time step a code was accepted for (a code is never accepted twice);
 * recovery codes, stored as hashes, each usable once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE app_user
      ADD COLUMN totp_secret text,
      ADD COLUMN totp_enabled_at timestamptz,
      ADD COLUMN totp_last_step bigint`.execute(db);
  await sql`
    CREATE TABLE recovery_code (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
      code_hash text NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (user_id, code_hash)
    )`.execute(db);
}
