import { sql, type Kysely } from 'kysely';

/**
 * Account email sent (invitations, email-notification confirmations, password resets), one row per
 * email, kept a day: what the account-mail limit counts (`AccountMailLimit`). In the database, not in
 * memory, so that the budget survives a restart and holds across several `serve` processes (a
 * per-process count would allow N times the budget). `sender` is who asked (`user:<id>`,
 * `token:<id>`; null for a password reset, asked by no one signed in); `recipient` the address,
 * lower-cased.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE account_mail (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      kind text NOT NULL,
      sender text,
      recipient text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX account_mail_sender ON account_mail (sender, created_at)`.execute(db);
  await sql`CREATE INDEX account_mail_recipient ON account_mail (recipient, created_at)`.execute(db);
  await sql`CREATE INDEX account_mail_created ON account_mail (created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS account_mail`.execute(db);
}
