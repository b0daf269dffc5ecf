import { sql, type Kysely } from 'kysely';

/**
 * Single sign-on with OpenID Connect (issue 34). `sso_identity` links a user to the identity
 * provider's subject: one row per (issuer, sub), the key a sign-in is matched by (never the email
 * alone); a user has at most one identity per issuer. `app_user.sso_link_allowed` is set by
 * `vulntrack user link-sso <username>`: the next single sign-on whose verified email is the user's
 * links it (and clears the flag), without the password sign-in otherwise required first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE sso_identity (
      issuer text NOT NULL,
      subject text NOT NULL,
      user_id uuid NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_sign_in_at timestamptz,
      PRIMARY KEY (issuer, subject),
      UNIQUE (user_id, issuer)
    )`.execute(db);
  await sql`ALTER TABLE app_user ADD COLUMN sso_link_allowed boolean NOT NULL DEFAULT false`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE app_user DROP COLUMN IF EXISTS sso_link_allowed`.execute(db);
  await sql`DROP TABLE IF EXISTS sso_identity`.execute(db);
}
