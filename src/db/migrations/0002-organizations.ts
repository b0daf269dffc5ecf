import { sql, type Kysely } from 'kysely';

/** Users, organizations and members, API tokens, projects with subscriptions, the tracker, the audit log. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE app_user (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      username text NOT NULL UNIQUE,
      email text NOT NULL UNIQUE,
      password_hash text NOT NULL,
      is_admin boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);

  await sql`
    CREATE TABLE organization (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);

  // A membership is an invitation until it is joined (date_joined set, user_id known).
  await sql`
    CREATE TABLE membership (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
      user_id uuid REFERENCES app_user (id) ON DELETE CASCADE,
      email text NOT NULL,
      role text NOT NULL CHECK (role IN ('owner', 'member')),
      date_invited timestamptz NOT NULL DEFAULT now(),
      date_joined timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, email)
    )`.execute(db);
  await sql`CREATE INDEX membership_user_idx ON membership (user_id)`.execute(db);

  await sql`
    CREATE TABLE api_token (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
      token_id text NOT NULL UNIQUE,
      secret_hash text NOT NULL,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      mode text NOT NULL CHECK (mode IN ('read', 'write')),
      scopes text[] NOT NULL DEFAULT '{}',
      created_by uuid REFERENCES app_user (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz,
      revoked_at timestamptz,
      revoked_by uuid REFERENCES app_user (id) ON DELETE SET NULL
    )`.execute(db);
  await sql`CREATE INDEX api_token_org_idx ON api_token (organization_id)`.execute(db);

  await sql`
    CREATE TABLE project (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, name)
    )`.execute(db);

  // One row per subscribed vendor key: `vendor` or `vendor$PRODUCT$product`, as on cve.vendors.
  await sql`
    CREATE TABLE project_subscription (
      project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
      vendor_key text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, vendor_key)
    )`.execute(db);
  await sql`CREATE INDEX project_subscription_key_idx ON project_subscription (vendor_key)`.execute(db);

  await sql`
    CREATE TABLE tracker_entry (
      project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
      cve_id text NOT NULL,
      status text,
      assignee_id uuid REFERENCES app_user (id) ON DELETE SET NULL,
      assigned_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, cve_id)
    )`.execute(db);

  await sql`
    CREATE TABLE tracker_comment (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
      cve_id text NOT NULL,
      author_type text NOT NULL CHECK (author_type IN ('user', 'token')),
      author_id text NOT NULL,
      author_name text NOT NULL,
      body text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX tracker_comment_idx ON tracker_comment (project_id, cve_id, created_at)`.execute(db);

  await sql`
    CREATE TABLE audit_log (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      actor_type text NOT NULL CHECK (actor_type IN ('user', 'token', 'system')),
      actor_id text,
      actor_name text,
      action text NOT NULL,
      resource_type text NOT NULL,
      resource_id text,
      resource_name text,
      changes jsonb NOT NULL DEFAULT '{}'
    )`.execute(db);
  await sql`CREATE INDEX audit_log_org_idx ON audit_log (organization_id, created_at DESC)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'audit_log',
    'tracker_comment',
    'tracker_entry',
    'project_subscription',
    'project',
    'api_token',
    'membership',
    'organization',
    'app_user',
  ]) {
    await sql`DROP TABLE IF EXISTS ${sql.table(t)}`.execute(db);
  }
}
