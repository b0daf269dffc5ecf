import { sql, type Kysely } from 'kysely';

/**
 * From a CVE change to the right people: changes matched to projects (events), notification
 * channels, automations and their executions, reports, deliveries with their attempts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // A gap-free order of changes for the event processor's cursor. Changes are written by import
  // batches that hold the catalog write lock, so they commit in `seq` order.
  await sql`ALTER TABLE cve_change ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY`.execute(db);
  await sql`CREATE UNIQUE INDEX cve_change_seq_idx ON cve_change (seq)`.execute(db);

  // EPSS is not a change (docs/catalog.md), but a move of the score is what EPSS triggers watch.
  await sql`
    CREATE TABLE epss_move (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      cve_id text NOT NULL,
      old_score double precision,
      new_score double precision NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);

  // Where the event processor stands in each stream. An existing catalog's history is not replayed
  // as notifications: the cursor starts at its end.
  await sql`
    CREATE TABLE event_cursor (
      stream text PRIMARY KEY,
      seq bigint NOT NULL DEFAULT 0,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`
    INSERT INTO event_cursor (stream, seq)
    VALUES ('changes', (SELECT coalesce(max(seq), 0) FROM cve_change)), ('epss', 0)`.execute(db);

  // One row per (project, change) matched through the project's subscriptions.
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

  await sql`
    CREATE TABLE notification (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
      name text NOT NULL,
      type text NOT NULL CHECK (type IN ('email', 'webhook', 'slack', 'teams')),
      is_enabled boolean NOT NULL DEFAULT true,
      configuration jsonb NOT NULL,
      secrets text NOT NULL,
      email_status text CHECK (email_status IN ('confirmed', 'pending', 'unsubscribed')),
      email_token_hash text UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (project_id, name)
    )`.execute(db);

  await sql`
    CREATE TABLE automation (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
      name text NOT NULL,
      is_enabled boolean NOT NULL DEFAULT true,
      trigger_type text NOT NULL CHECK (trigger_type IN ('alert', 'report')),
      frequency text CHECK (frequency IN ('daily', 'weekly')),
      schedule_time text,
      schedule_timezone text,
      schedule_weekday integer,
      configuration jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (project_id, name)
    )`.execute(db);
  await sql`CREATE INDEX automation_report_idx ON automation (trigger_type) WHERE is_enabled`.execute(db);

  await sql`
    CREATE TABLE report (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      link text NOT NULL UNIQUE,
      project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
      automation_id uuid REFERENCES automation (id) ON DELETE SET NULL,
      period_start timestamptz NOT NULL,
      period_end timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      summary jsonb NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX report_project_idx ON report (project_id, created_at DESC)`.execute(db);
  // One scheduled report per automation and period (an alert's generate_report has no period of its own).
  await sql`CREATE UNIQUE INDEX report_period_idx ON report (automation_id, period_start, period_end)`.execute(
    db,
  );

  // One CVE of a report (API v1 calls it an alert): the keys that matched, its events, its changes.
  await sql`
    CREATE TABLE report_item (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      report_id uuid NOT NULL REFERENCES report (id) ON DELETE CASCADE,
      cve_id text NOT NULL,
      matched_keys text[] NOT NULL,
      event_types text[] NOT NULL,
      change_ids uuid[] NOT NULL,
      events jsonb NOT NULL,
      highest_cvss double precision,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX report_item_report_idx ON report_item (report_id, cve_id)`.execute(db);

  await sql`
    CREATE TABLE automation_execution (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      automation_id uuid NOT NULL REFERENCES automation (id) ON DELETE CASCADE,
      executed_at timestamptz NOT NULL DEFAULT now(),
      window_start timestamptz NOT NULL,
      window_end timestamptz NOT NULL,
      matched_cves_count integer NOT NULL,
      results jsonb NOT NULL,
      report_id uuid REFERENCES report (id) ON DELETE SET NULL
    )`.execute(db);
  await sql`CREATE INDEX automation_execution_idx ON automation_execution (automation_id, executed_at DESC)`.execute(
    db,
  );

  await sql`
    CREATE TABLE delivery (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      notification_id uuid NOT NULL REFERENCES notification (id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('alert', 'report', 'test')),
      payload jsonb NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'dead')),
      attempts jsonb NOT NULL DEFAULT '[]',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX delivery_notification_idx ON delivery (notification_id, created_at DESC)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'delivery',
    'automation_execution',
    'report_item',
    'report',
    'automation',
    'notification',
    'project_event',
    'event_cursor',
    'epss_move',
  ]) {
    await sql`DROP TABLE IF EXISTS ${sql.table(t)}`.execute(db);
  }
  await sql`ALTER TABLE cve_change DROP COLUMN IF EXISTS seq`.execute(db);
}
