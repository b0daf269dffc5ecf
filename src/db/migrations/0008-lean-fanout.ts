import { sql, type Kysely } from 'kysely';

/**
 * A busy day's fan-out without copies (bench/RESULTS-notifications.md): matching a change to
 * projects no longer writes a row per (project, change) — a report derives its CVEs from the recorded
 * changes of its period and the project's subscriptions when it is made — and a delivery stores its
 * payload's CVE entries once per distinct entry (`delivery_entry`), referenced in order by the
 * deliveries that carry them, instead of a whole copy per delivery. Deliveries and their entries are
 * kept DELIVERY_RETENTION_DAYS; an entry is always created in the transaction of the deliveries that
 * reference it, so both share `created_at` and expire together.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE project_event`.execute(db);

  // One CVE of a payload (`changes[]`), as JSON text: sent as it is stored.
  await sql`
    CREATE TABLE delivery_entry (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      body text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX delivery_entry_created_idx ON delivery_entry (created_at)`.execute(db);
  // NULL for a delivery written before this migration: its payload holds its changes.
  await sql`ALTER TABLE delivery ADD COLUMN entries bigint[]`.execute(db);
  await sql`CREATE INDEX delivery_created_idx ON delivery (created_at)`.execute(db);

  // Reports read the EPSS moves of their period.
  await sql`CREATE INDEX epss_move_created_idx ON epss_move (created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS epss_move_created_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS delivery_created_idx`.execute(db);
  await sql`ALTER TABLE delivery DROP COLUMN IF EXISTS entries`.execute(db);
  await sql`DROP TABLE IF EXISTS delivery_entry`.execute(db);
  await sql`
    CREATE TABLE project_event (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
      cve_id text NOT NULL,
      change_id uuid,
      changed_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      types text[] NOT NULL,
      matched_keys text[] NOT NULL,
      events jsonb NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX project_event_project_idx ON project_event (project_id, changed_at)`.execute(db);
}
