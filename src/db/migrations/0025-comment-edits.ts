import { sql, type Kysely } from 'kysely';

/**
 * Triage comments can be edited: when a comment was last edited (null: never), so a conversation shows
 * "edited" beside a changed comment. A nullable column without a default: no table rewrite.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tracker_comment ADD COLUMN IF NOT EXISTS edited_at timestamptz`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tracker_comment DROP COLUMN IF EXISTS edited_at`.execute(db);
}
