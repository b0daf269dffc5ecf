import { sql, type Kysely } from 'kysely';

/**
 * The catalog lists a CVE once a record provider has published it (docs/catalog.md), and its dates
 * are its record's. Catalogs written before listed CVEs known only from a KEV entry, dated by it,
 * and moved `updated_at` of a CVE with a record to its KEV `dateAdded` when CISA listed it.
 *
 * - A CVE without a record statement leaves the catalog: its merged row (and so its `cve_vendor`
 *   rows, by trigger) and its change history go; its statements stay, and merge in when the record
 *   arrives, recorded then as the CVE's creation. Its merged row has no vendor keys (KEV entries and
 *   EPSS scores name none), so no project lists it, and no tracker entry, comment, report or event
 *   can refer to it; a user's own tags on it (which need no project) are kept and apply again when it
 *   is listed.
 * - A CVE with a KEV statement gets its dates again from its record statements alone.
 *
 * The providers are written out: this migration must keep meaning what it meant when written.
 */
const RECORD_PROVIDERS = ['mitre', 'vulnrichment', 'nvd', 'redhat', 'enrichment'];

export async function up(db: Kysely<unknown>): Promise<void> {
  const unpublished = sql`(SELECT c.cve_id FROM cve c
     WHERE NOT EXISTS (SELECT 1 FROM cve_source s
                        WHERE s.cve_id = c.cve_id AND s.provider = ANY(${RECORD_PROVIDERS}::text[])))`;
  // The history first: it is found through the merged rows.
  await sql`DELETE FROM cve_change WHERE cve_id IN ${unpublished}`.execute(db);
  await sql`DELETE FROM cve WHERE cve_id IN ${unpublished}`.execute(db);

  await sql`
    UPDATE cve c SET created_at = coalesce(d.created, d.updated, c.created_at),
                     updated_at = coalesce(d.updated, d.created, c.updated_at),
                     modified_at = now()
      FROM (SELECT s.cve_id,
                   min((s.data->>'created')::timestamptz) AS created,
                   max(coalesce(s.data->>'updated', s.data->>'created')::timestamptz) AS updated
              FROM cve_source s
             WHERE s.provider = ANY(${RECORD_PROVIDERS}::text[])
               AND s.cve_id IN (SELECT cve_id FROM cve_source WHERE provider = 'cisa')
             GROUP BY s.cve_id) d
     WHERE c.cve_id = d.cve_id
       AND (c.created_at, c.updated_at) IS DISTINCT FROM
           (coalesce(d.created, d.updated, c.created_at), coalesce(d.updated, d.created, c.updated_at))`.execute(
    db,
  );

  // Cached list counts are keyed by the catalog version.
  await sql`UPDATE catalog_state SET version = version + 1 WHERE id = 1`.execute(db);
}

/** Nothing to undo: the rows removed were derived from statements that are all kept. */
export async function down(): Promise<void> {}
