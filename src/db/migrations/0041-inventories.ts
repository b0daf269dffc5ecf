import { sql, type Kysely } from 'kysely';

/**
 * Inventories (issue 33, docs/inventories.md): a project's SBOMs, one per name (`inventory`), each a
 * list of components (`inventory_component`, in the document's order), each component's lookup keys
 * (`inventory_component_key`: its vendor keys `vendor$PRODUCT$product` and `name <package name>`,
 * indexed by key, so a changed CVE finds the components sharing its keys without a scan), and the
 * findings (`inventory_finding`: a component, a CVE that affects its version, and the rules that say
 * so). `inventory_cve` is what a project sees of them: one row per (inventory, CVE) found, kept when
 * an upload resolves it (`resolved_at`, `resolution`: nothing is deleted), and it makes the CVE one
 * of the project's (moving the project's list version like `project_keyword`). `inventory_event`
 * is the event processor's third stream: a CVE an inventory brings into a project.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE inventory (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      project_id uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
      name text NOT NULL,
      format text NOT NULL,
      spec_version text NOT NULL,
      component_count integer NOT NULL,
      uploaded_at timestamptz NOT NULL DEFAULT now(),
      uploaded_by text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (project_id, name)
    )`.execute(db);
  await sql`
    CREATE TABLE inventory_component (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      inventory_id uuid NOT NULL REFERENCES inventory(id) ON DELETE CASCADE,
      position integer NOT NULL,
      name text NOT NULL,
      version text,
      purl text,
      cpe text,
      supplier text,
      ref text,
      UNIQUE (inventory_id, position)
    )`.execute(db);
  await sql`
    CREATE TABLE inventory_component_key (
      component_id bigint NOT NULL REFERENCES inventory_component(id) ON DELETE CASCADE,
      key text NOT NULL,
      PRIMARY KEY (key, component_id)
    )`.execute(db);
  await sql`CREATE INDEX inventory_component_key_component ON inventory_component_key (component_id)`.execute(
    db,
  );
  await sql`
    CREATE TABLE inventory_finding (
      component_id bigint NOT NULL REFERENCES inventory_component(id) ON DELETE CASCADE,
      cve_id text NOT NULL REFERENCES cve(cve_id) ON DELETE CASCADE,
      rules jsonb NOT NULL,
      found_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (component_id, cve_id)
    )`.execute(db);
  await sql`CREATE INDEX inventory_finding_cve ON inventory_finding (cve_id)`.execute(db);
  await sql`
    CREATE TABLE inventory_cve (
      inventory_id uuid NOT NULL REFERENCES inventory(id) ON DELETE CASCADE,
      project_id uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
      cve_id text NOT NULL REFERENCES cve(cve_id) ON DELETE CASCADE,
      found_at timestamptz NOT NULL DEFAULT now(),
      resolved_at timestamptz,
      resolution jsonb,
      PRIMARY KEY (inventory_id, cve_id)
    )`.execute(db);
  await sql`CREATE INDEX inventory_cve_project ON inventory_cve (project_id, cve_id)`.execute(db);
  await sql`CREATE INDEX inventory_cve_cve ON inventory_cve (cve_id)`.execute(db);
  for (const [name, event, ref] of [
    ['inserted', 'INSERT', 'NEW TABLE AS new_rows'],
    ['updated', 'UPDATE', 'OLD TABLE AS old_rows NEW TABLE AS new_rows'],
    ['deleted', 'DELETE', 'OLD TABLE AS old_rows'],
  ] as const)
    await sql`
      CREATE TRIGGER ${sql.raw(`inventory_cve_${name}`)} AFTER ${sql.raw(event)} ON inventory_cve
      REFERENCING ${sql.raw(ref)}
      FOR EACH STATEMENT EXECUTE FUNCTION project_list_changed()`.execute(db);
  await sql`
    CREATE TABLE inventory_event (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
      cve_id text NOT NULL REFERENCES cve(cve_id) ON DELETE CASCADE,
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`INSERT INTO event_cursor (stream, seq) VALUES ('inventory', 0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM event_cursor WHERE stream = 'inventory'`.execute(db);
  for (const t of [
    'inventory_event',
    'inventory_cve',
    'inventory_finding',
    'inventory_component_key',
    'inventory_component',
    'inventory',
  ])
    await sql`DROP TABLE IF EXISTS ${sql.table(t)}`.execute(db);
}
