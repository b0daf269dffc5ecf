import { sql, type Kysely } from 'kysely';

/** The CVE catalog: merged view, per-provider source documents, change history, vendors, weaknesses. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
  await sql`
    CREATE TABLE cve (
      cve_id text PRIMARY KEY,
      state text NOT NULL DEFAULT 'PUBLISHED',
      title text,
      description text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      metrics jsonb NOT NULL,
      cvss20 double precision,
      cvss30 double precision,
      cvss31 double precision,
      cvss40 double precision,
      kev boolean NOT NULL DEFAULT false,
      epss double precision,
      vendors text[] NOT NULL DEFAULT '{}',
      weaknesses text[] NOT NULL DEFAULT '{}',
      cpes text[] NOT NULL DEFAULT '{}',
      "references" jsonb NOT NULL DEFAULT '[]',
      nvd_configurations jsonb,
      providers text[] NOT NULL DEFAULT '{}',
      search tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', cve_id), 'A') ||
        setweight(to_tsvector('english', coalesce(title, '')), 'B') ||
        setweight(to_tsvector('english', coalesce(description, '')), 'C')
      ) STORED,
      inserted_at timestamptz NOT NULL DEFAULT now(),
      modified_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX cve_updated_idx ON cve (updated_at DESC, cve_id DESC)`.execute(db);
  await sql`CREATE INDEX cve_created_idx ON cve (created_at DESC, cve_id DESC)`.execute(db);
  await sql`CREATE INDEX cve_vendors_idx ON cve USING gin (vendors)`.execute(db);
  await sql`CREATE INDEX cve_weaknesses_idx ON cve USING gin (weaknesses)`.execute(db);
  await sql`CREATE INDEX cve_search_idx ON cve USING gin (search)`.execute(db);

  await sql`
    CREATE TABLE cve_source (
      cve_id text NOT NULL,
      provider text NOT NULL,
      data jsonb NOT NULL,
      raw jsonb,
      hash text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (cve_id, provider)
    )`.execute(db);

  await sql`
    CREATE TABLE cve_change (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      created_at timestamptz NOT NULL DEFAULT now(),
      cve_id text NOT NULL,
      types text[] NOT NULL,
      data jsonb NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX cve_change_cve_idx ON cve_change (cve_id, created_at DESC)`.execute(db);
  await sql`CREATE INDEX cve_change_created_idx ON cve_change (created_at)`.execute(db);

  await sql`
    CREATE TABLE vendor (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX vendor_name_trgm_idx ON vendor USING gin (name gin_trgm_ops)`.execute(db);
  await sql`
    CREATE TABLE product (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      vendor_id uuid NOT NULL REFERENCES vendor (id) ON DELETE CASCADE,
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (vendor_id, name)
    )`.execute(db);
  await sql`CREATE INDEX product_name_trgm_idx ON product USING gin (name gin_trgm_ops)`.execute(db);

  await sql`
    CREATE TABLE weakness (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      cwe_id text NOT NULL UNIQUE,
      name text,
      description text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);

  await sql`
    CREATE TABLE import_run (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      source text NOT NULL,
      started_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      status text NOT NULL,
      counts jsonb NOT NULL DEFAULT '{}',
      problems jsonb NOT NULL DEFAULT '[]'
    )`.execute(db);
  await sql`CREATE INDEX import_run_source_idx ON import_run (source, started_at DESC)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['import_run', 'weakness', 'product', 'vendor', 'cve_change', 'cve_source', 'cve']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(t)}`.execute(db);
  }
}
