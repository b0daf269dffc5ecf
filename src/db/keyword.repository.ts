/**
 * Keyword watches (migration 0039): a project's keywords, and the CVEs each watched keyword matches
 * (`cve_keyword`, shared by the projects that watch it). What matches is decided by the domain's
 * `KeywordMatcher`; the SQL here only reads candidate texts and writes the result.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';
import { keywordProbe, type KeywordField, type KeywordTexts } from '../domain/keywords.ts';
import { containsPattern } from './cve-search.ts';

type Executor = Kysely<DB> | Transaction<DB>;

/** The providers whose statements hold the CNA's and ADPs' affected vendor and product names. */
const AFFECTED_PROVIDERS = ['mitre', 'vulnrichment'];
/** CVE texts are read this many at a time. */
const TEXT_CHUNK = 1000;
/**
 * Serializes the keywords PUT's catalog scan with the event processor's upkeep of `cve_keyword`, so
 * a keyword watched while a chunk of changes is processed is neither missed by both nor matched twice.
 */
const KEYWORDS_LOCK = 0x6b657977; // 'keyw'

/** A keyword's match on one CVE. */
export interface KeywordMatchRow {
  keyword: string;
  cveId: string;
  fields: KeywordField[];
}

export interface CveTexts extends KeywordTexts {
  cveId: string;
}

export class KeywordRepository {
  constructor(private readonly db: Executor) {}

  /** Holds the keywords lock until the transaction ends. */
  async lock(tx: Transaction<DB>): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(${KEYWORDS_LOCK})`.execute(tx);
  }

  /** The project's keywords, sorted. */
  async keywords(projectId: string, tx: Executor = this.db): Promise<string[]> {
    const rows = await tx
      .selectFrom('project_keyword')
      .select('keyword')
      .where('project_id', '=', projectId)
      .orderBy('keyword')
      .execute();
    return rows.map((r) => r.keyword);
  }

  /** Makes the project's keywords exactly `keywords` (normalized), returning what changed. */
  async replace(
    projectId: string,
    keywords: readonly string[],
    tx: Transaction<DB>,
  ): Promise<{ added: string[]; removed: string[] }> {
    const removed = await sql<{ keyword: string }>`
      DELETE FROM project_keyword
       WHERE project_id = ${projectId} AND NOT (keyword = ANY(${[...keywords]}::text[]))
      RETURNING keyword`.execute(tx);
    const added = await sql<{ keyword: string }>`
      INSERT INTO project_keyword (project_id, keyword)
      SELECT ${projectId}, k FROM unnest(${[...keywords]}::text[]) AS k
      ON CONFLICT DO NOTHING
      RETURNING keyword`.execute(tx);
    return {
      added: added.rows.map((r) => r.keyword).sort(),
      removed: removed.rows.map((r) => r.keyword).sort(),
    };
  }

  /** Of `keywords`, those watched by no project other than `projectId`. */
  async watchedOnlyBy(projectId: string, keywords: readonly string[], tx: Executor): Promise<string[]> {
    if (!keywords.length) return [];
    const rows = await sql<{ keyword: string }>`
      SELECT k AS keyword FROM unnest(${[...keywords]}::text[]) AS k
       WHERE NOT EXISTS (SELECT 1 FROM project_keyword pk WHERE pk.keyword = k AND pk.project_id <> ${projectId})`.execute(
      tx,
    );
    return rows.rows.map((r) => r.keyword);
  }

  /** Every keyword some project watches. */
  async watched(tx: Executor = this.db): Promise<string[]> {
    const rows = await sql<{ keyword: string }>`SELECT DISTINCT keyword FROM project_keyword`.execute(tx);
    return rows.rows.map((r) => r.keyword);
  }

  /** Drops the matches of keywords no project watches any more. */
  async forget(keywords: readonly string[], tx: Executor): Promise<void> {
    if (!keywords.length) return;
    await sql`DELETE FROM cve_keyword WHERE keyword = ANY(${[...keywords]}::text[])`.execute(tx);
  }

  /**
   * The CVEs whose searchable text (id, title, description, vendor keys: migration 0014) or CNA/ADP
   * affected names contain one of the keywords' longest words: a superset of those the keywords
   * match, for `KeywordMatcher` to decide. One pass over the catalog for all of them (`LIKE ANY`):
   * a new keyword of 2 letters has no trigram to look up, and the affected names are read from the
   * statements, so each pass reads the catalog (1.2 s for one keyword on the benchmark's 44,130 CVEs,
   * under load; docs/catalog.md).
   */
  async candidates(keywords: readonly string[], tx: Executor): Promise<string[]> {
    if (!keywords.length) return [];
    const patterns = [...new Set(keywords.map((k) => containsPattern(keywordProbe(k))))];
    const rows = await sql<{ cve_id: string }>`
      SELECT cve_id FROM cve WHERE search_text LIKE ANY(${patterns}::text[])
      UNION
      SELECT cve_id FROM cve_source
       WHERE provider = ANY(${AFFECTED_PROVIDERS}::text[])
         AND lower((data->'affected')::text) LIKE ANY(${patterns}::text[])`.execute(tx);
    return rows.rows.map((r) => r.cve_id);
  }

  /** The texts a keyword is matched against, of each of the CVEs (read TEXT_CHUNK at a time). */
  async *texts(cveIds: readonly string[], tx: Executor): AsyncGenerator<CveTexts[]> {
    for (let i = 0; i < cveIds.length; i += TEXT_CHUNK) {
      const ids = cveIds.slice(i, i + TEXT_CHUNK);
      const rows = await sql<{
        cve_id: string;
        title: string | null;
        description: string | null;
        affected: { vendor?: unknown; product?: unknown }[] | null;
      }>`
        SELECT c.cve_id, c.title, c.description,
               (SELECT jsonb_agg(e) FROM cve_source s
                  CROSS JOIN LATERAL jsonb_array_elements(
                    CASE WHEN jsonb_typeof(s.data->'affected') = 'array' THEN s.data->'affected' ELSE '[]' END) e
                 WHERE s.cve_id = c.cve_id AND s.provider = ANY(${AFFECTED_PROVIDERS}::text[])) AS affected
          FROM cve c WHERE c.cve_id = ANY(${ids}::text[])`.execute(tx);
      yield rows.rows.map((r) => {
        const names = (k: 'vendor' | 'product') =>
          (r.affected ?? []).map((e) => e[k]).filter((v): v is string => typeof v === 'string');
        return {
          cveId: r.cve_id,
          title: r.title,
          description: r.description,
          vendors: names('vendor'),
          products: names('product'),
        };
      });
    }
  }

  /** Adds matches (a newly watched keyword's); those already there are kept as they are. */
  async insertMatches(rows: readonly KeywordMatchRow[], tx: Executor): Promise<void> {
    if (!rows.length) return;
    await sql`
      INSERT INTO cve_keyword (keyword, cve_id, fields)
      SELECT x.keyword, x.cve_id, ARRAY(SELECT jsonb_array_elements_text(x.fields))
        FROM jsonb_to_recordset(${JSON.stringify(rows.map((r) => ({ keyword: r.keyword, cve_id: r.cveId, fields: r.fields })))}::jsonb)
             AS x(keyword text, cve_id text, fields jsonb)
      ON CONFLICT DO NOTHING`.execute(tx);
  }

  /** The stored matches of the CVEs. */
  async matchesOf(cveIds: readonly string[], tx: Executor): Promise<KeywordMatchRow[]> {
    if (!cveIds.length) return [];
    const rows = await tx
      .selectFrom('cve_keyword')
      .select(['keyword', 'cve_id', 'fields'])
      .where(sql<boolean>`cve_id = ANY(${[...cveIds]}::text[])`)
      .execute();
    return rows.map((r) => ({ keyword: r.keyword, cveId: r.cve_id, fields: r.fields as KeywordField[] }));
  }

  /**
   * Makes the stored matches of the CVEs exactly `rows` (their fields updated), and moves the list
   * version of each project watching a keyword whose CVEs changed.
   */
  async setMatches(
    cveIds: readonly string[],
    rows: readonly KeywordMatchRow[],
    changedKeywords: readonly string[],
    tx: Executor,
  ): Promise<void> {
    if (!cveIds.length) return;
    const json = JSON.stringify(rows.map((r) => ({ keyword: r.keyword, cve_id: r.cveId, fields: r.fields })));
    await sql`
      DELETE FROM cve_keyword k
       WHERE k.cve_id = ANY(${[...cveIds]}::text[])
         AND NOT EXISTS (SELECT 1 FROM jsonb_to_recordset(${json}::jsonb) AS x(keyword text, cve_id text)
                          WHERE x.keyword = k.keyword AND x.cve_id = k.cve_id)`.execute(tx);
    if (rows.length)
      await sql`
        INSERT INTO cve_keyword (keyword, cve_id, fields)
        SELECT x.keyword, x.cve_id, ARRAY(SELECT jsonb_array_elements_text(x.fields))
          FROM jsonb_to_recordset(${json}::jsonb) AS x(keyword text, cve_id text, fields jsonb)
        ON CONFLICT (keyword, cve_id) DO UPDATE SET fields = EXCLUDED.fields
          WHERE cve_keyword.fields IS DISTINCT FROM EXCLUDED.fields`.execute(tx);
    if (changedKeywords.length)
      await sql`
        UPDATE project SET list_version = list_version + 1
         WHERE id IN (SELECT project_id FROM project_keyword WHERE keyword = ANY(${[...changedKeywords]}::text[]))`.execute(
        tx,
      );
  }

  /**
   * The projects (with alert automations, active) watching any of `keywords`, each with those it
   * watches: the event processor's keyword side of `alertMatches`.
   */
  async alertWatchers(
    keywords: readonly string[],
    tx: Executor,
  ): Promise<{ projectId: string; keywords: string[] }[]> {
    if (!keywords.length) return [];
    const rows = await sql<{ project_id: string; keywords: string[] }>`
      SELECT k.project_id, array_agg(k.keyword) AS keywords
        FROM project_keyword k
        JOIN (SELECT DISTINCT a.project_id FROM automation a JOIN project p ON p.id = a.project_id
               WHERE p.active AND a.is_enabled AND a.trigger_type = 'alert') e ON e.project_id = k.project_id
       WHERE k.keyword = ANY(${[...keywords]}::text[])
       GROUP BY k.project_id`.execute(tx);
    return rows.rows.map((r) => ({ projectId: r.project_id, keywords: r.keywords }));
  }

  /** The project's keywords that match the CVE, with where and since when (the "why" answer). */
  async projectMatches(
    projectIds: readonly string[],
    cveId: string,
  ): Promise<
    { projectId: string; keyword: string; fields: KeywordField[]; since: Date; watchedSince: Date }[]
  > {
    if (!projectIds.length) return [];
    const rows = await sql<{
      project_id: string;
      keyword: string;
      fields: KeywordField[];
      since: Date;
      watched_since: Date;
    }>`
      SELECT pk.project_id, pk.keyword, ck.fields, ck.created_at AS since, pk.created_at AS watched_since
        FROM project_keyword pk JOIN cve_keyword ck ON ck.keyword = pk.keyword AND ck.cve_id = ${cveId}
       WHERE pk.project_id = ANY(${[...projectIds]}::uuid[])
       ORDER BY pk.keyword`.execute(this.db);
    return rows.rows.map((r) => ({
      projectId: r.project_id,
      keyword: r.keyword,
      fields: r.fields,
      since: new Date(r.since),
      watchedSince: new Date(r.watched_since),
    }));
  }
}
