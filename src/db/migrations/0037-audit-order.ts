import { sql, type Kysely } from 'kysely';

/**
 * The audit log's own order: a number drawn as each entry is written. Two entries one transaction
 * writes can share `created_at` (the embedded engine's clock moves in milliseconds), and ordering ties
 * by the random `id` then shuffled "organization created" and "owner added"; the list orders by
 * `created_at`, then `seq`. Existing rows are numbered in table order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE audit_log ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE audit_log DROP COLUMN IF EXISTS seq`.execute(db);
}
