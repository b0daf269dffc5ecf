import { sql, type Kysely } from 'kysely';

/**
 * The web UI's CVE list: saved views (a name and the list's query string), a user's own or shared
 * with an organization's members; and each weakness's CVE count, kept by triggers on `cve` so the
 * weaknesses page shows counts without counting a CWE's CVEs per request (CWE-79 alone is ~10 % of
 * the catalog, and `cve.weaknesses` has no index a count could be read from alone).
 *
 * And the KEV CVEs in each list order (partial indexes, ~0.5 % of the catalog): `kev=true`, the list's
 * first example, otherwise walks the ordering index over the whole catalog to find a page (on a
 * 300k catalog with `kev=true AND cvss31>=9`: 0.9 s a page; bench/web-lists.ts). KEV changes
 * rarely, so the indexes cost imports next to nothing.
 *
 * The counting triggers are per statement with transition tables, like `cve_vendor`'s (migration
 * 0009): an import batch of 500 rows is one set operation. Import batches hold the catalog's advisory
 * lock, so two never update the same counts at once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE saved_view (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
      organization_id uuid REFERENCES organization(id) ON DELETE CASCADE,
      name text NOT NULL,
      query text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX saved_view_private_name ON saved_view (user_id, name) WHERE organization_id IS NULL`.execute(
    db,
  );
  await sql`CREATE UNIQUE INDEX saved_view_org_name ON saved_view (organization_id, name) WHERE organization_id IS NOT NULL`.execute(
    db,
  );

  await sql`CREATE INDEX cve_kev_updated_idx ON cve (updated_at DESC, cve_id DESC) WHERE kev`.execute(db);
  await sql`CREATE INDEX cve_kev_created_idx ON cve (created_at DESC, cve_id DESC) WHERE kev`.execute(db);
  await sql`CREATE INDEX cve_kev_id_idx ON cve (cve_id) WHERE kev`.execute(db);

  await sql`
    CREATE TABLE weakness_cve_count (
      cwe_id text PRIMARY KEY,
      cve_count integer NOT NULL
    )`.execute(db);
  // One function for the three events: the old rows' weaknesses count -1, the new rows' +1.
  await sql`
    CREATE FUNCTION weakness_cve_count_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO weakness_cve_count (cwe_id, cve_count)
        SELECT w, count(*)::int FROM (SELECT DISTINCT r.cve_id, w FROM new_rows r CROSS JOIN LATERAL unnest(r.weaknesses) AS w) d
        GROUP BY w
        ON CONFLICT (cwe_id) DO UPDATE SET cve_count = weakness_cve_count.cve_count + excluded.cve_count;
      ELSIF TG_OP = 'DELETE' THEN
        UPDATE weakness_cve_count c SET cve_count = c.cve_count - d.n
        FROM (SELECT w, count(*)::int AS n
                FROM (SELECT DISTINCT r.cve_id, w FROM old_rows r CROSS JOIN LATERAL unnest(r.weaknesses) AS w) x
               GROUP BY w) d
        WHERE c.cwe_id = d.w;
      ELSE
        INSERT INTO weakness_cve_count (cwe_id, cve_count)
        SELECT w, sum(n)::int FROM (
          SELECT DISTINCT r.cve_id, w, 1 AS n FROM new_rows r CROSS JOIN LATERAL unnest(r.weaknesses) AS w
          UNION ALL
          SELECT DISTINCT r.cve_id, w, -1 FROM old_rows r CROSS JOIN LATERAL unnest(r.weaknesses) AS w
        ) d
        GROUP BY w HAVING sum(n) <> 0
        ON CONFLICT (cwe_id) DO UPDATE SET cve_count = weakness_cve_count.cve_count + excluded.cve_count;
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER weakness_cve_count_inserted AFTER INSERT ON cve REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION weakness_cve_count_changed()`.execute(db);
  await sql`
    CREATE TRIGGER weakness_cve_count_updated AFTER UPDATE ON cve REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION weakness_cve_count_changed()`.execute(db);
  await sql`
    CREATE TRIGGER weakness_cve_count_deleted AFTER DELETE ON cve REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION weakness_cve_count_changed()`.execute(db);
  await sql`
    INSERT INTO weakness_cve_count (cwe_id, cve_count)
    SELECT w, count(DISTINCT c.cve_id)::int FROM cve c CROSS JOIN LATERAL unnest(c.weaknesses) AS w GROUP BY w`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const event of ['inserted', 'updated', 'deleted']) {
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(`weakness_cve_count_${event}`)} ON cve`.execute(db);
  }
  await sql`DROP FUNCTION IF EXISTS weakness_cve_count_changed()`.execute(db);
  await sql`DROP TABLE IF EXISTS weakness_cve_count`.execute(db);
  for (const index of ['cve_kev_updated_idx', 'cve_kev_created_idx', 'cve_kev_id_idx'])
    await sql`DROP INDEX IF EXISTS ${sql.raw(index)}`.execute(db);
  await sql`DROP TABLE IF EXISTS saved_view`.execute(db);
}
