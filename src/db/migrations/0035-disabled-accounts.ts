import { sql, type Kysely } from 'kysely';

/**
 * A server administrator can disable an account (`vulntrack user disable`, `/admin/users`): while
 * `disabled_at` is set the user cannot sign in (web, API v1 Basic) and stays listed as a member of
 * their organizations; clearing it lets them sign in again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE app_user ADD COLUMN disabled_at timestamptz`.execute(db);
}
