import { sql, type Kysely } from 'kysely';

/** The job queue (claimed with FOR UPDATE SKIP LOCKED) and the sync cursor of each upstream source. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE job (
      id bigserial PRIMARY KEY,
      queue text NOT NULL DEFAULT 'default',
      name text NOT NULL,
      payload jsonb NOT NULL DEFAULT '{}',
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'succeeded', 'failed', 'dead')),
      run_at timestamptz NOT NULL DEFAULT now(),
      attempts integer NOT NULL DEFAULT 0,
      max_attempts integer NOT NULL DEFAULT 5,
      lease_until timestamptz,
      locked_by text,
      last_error text,
      dedupe_key text UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz
    )`.execute(db);
  // What a worker claims: due, pending (or running with an expired lease), oldest first.
  await sql`CREATE INDEX job_ready_idx ON job (queue, run_at, id) WHERE status IN ('pending', 'running')`.execute(
    db,
  );
  await sql`CREATE INDEX job_status_idx ON job (status, finished_at)`.execute(db);

  await sql`
    CREATE TABLE sync_state (
      source text PRIMARY KEY,
      cursor jsonb NOT NULL DEFAULT '{}',
      last_attempt_at timestamptz,
      last_success_at timestamptz,
      last_error text,
      last_error_at timestamptz,
      consecutive_failures integer NOT NULL DEFAULT 0,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS sync_state`.execute(db);
  await sql`DROP TABLE IF EXISTS job`.execute(db);
}
