import { sql, type Kysely } from 'kysely';

/**
 * The catalog's freshness alarm (issue 31, docs/sync.md "Staleness"): when a source's first sync
 * attempt was made (`first_attempt_at`: the age of a source that never succeeded is counted from
 * there), and when the owners were last emailed that it is stale (`stale_alerted_at`): one email per
 * stale episode, an episode ending when the source succeeds again (`last_success_at` moves past it,
 * and a success clears it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE sync_state
      ADD COLUMN first_attempt_at timestamptz,
      ADD COLUMN stale_alerted_at timestamptz`.execute(db);
  await sql`UPDATE sync_state SET first_attempt_at = coalesce(last_attempt_at, updated_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE sync_state
      DROP COLUMN IF EXISTS first_attempt_at,
      DROP COLUMN IF EXISTS stale_alerted_at`.execute(db);
}
