import { sql, type Kysely } from 'kysely';

/**
 * Results computed by scheduled jobs and read as stored (the Statistics page's catalog statistics):
 * one row per name, replaced by each computation, with when it was computed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE computed_result (
      name text PRIMARY KEY,
      data jsonb NOT NULL,
      computed_at timestamptz NOT NULL,
      duration_ms integer NOT NULL
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS computed_result`.execute(db);
}
