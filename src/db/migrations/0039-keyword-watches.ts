import { sql, type Kysely } from 'kysely';

/**
 * Keyword watches (issue 30): a project's keywords (`project_keyword`, at most 100, each stored
 * normalized: trimmed, blanks collapsed, lower case), and the CVEs each watched keyword matches
 * (`cve_keyword`: one row per keyword and CVE, with where it matched), shared by every project that
 * watches the keyword. A project's CVE list is the CVEs carrying a subscribed key plus those of its
 * keywords' rows. `cve_keyword` holds rows only for keywords some project watches: the keywords PUT
 * fills a newly watched keyword's rows from the catalog and drops an unwatched keyword's; the event
 * processor keeps them for every recorded change (docs/catalog.md, "Keyword watches").
 * `project_keyword` moves the project's list version like `project_subscription` (migration 0010).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE project_keyword (
      project_id uuid NOT NULL REFERENCES project(id) ON DELETE CASCADE,
      keyword text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, keyword)
    )`.execute(db);
  await sql`CREATE INDEX project_keyword_keyword ON project_keyword (keyword)`.execute(db);
  await sql`
    CREATE TABLE cve_keyword (
      keyword text NOT NULL,
      cve_id text NOT NULL REFERENCES cve(cve_id) ON DELETE CASCADE,
      fields text[] NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (keyword, cve_id)
    )`.execute(db);
  await sql`CREATE INDEX cve_keyword_cve ON cve_keyword (cve_id)`.execute(db);
  for (const [name, event, ref] of [
    ['inserted', 'INSERT', 'NEW TABLE AS new_rows'],
    ['updated', 'UPDATE', 'OLD TABLE AS old_rows NEW TABLE AS new_rows'],
    ['deleted', 'DELETE', 'OLD TABLE AS old_rows'],
  ] as const)
    await sql`
      CREATE TRIGGER ${sql.raw(`project_keyword_${name}`)} AFTER ${sql.raw(event)} ON project_keyword
      REFERENCING ${sql.raw(ref)}
      FOR EACH STATEMENT EXECUTE FUNCTION project_list_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS cve_keyword`.execute(db);
  await sql`DROP TABLE IF EXISTS project_keyword`.execute(db);
}
