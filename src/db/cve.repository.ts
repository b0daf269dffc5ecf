/** Reads of the CVE catalog: filtered, ordered, paged lists, one CVE, its changes. */
import { sql, type SqlBool } from 'kysely';
import type { Kysely } from 'kysely';
import type { CveRow, DB } from './schema.ts';
import { PreparedQuery } from './prepared.ts';
import { CATALOG_VERSION, CatalogVersion } from './catalog-version.ts';
import { cveConditions, sortExpression, type CveFilters } from './cve-list-conditions.ts';
import { ORDER, type CveOrdering } from '../domain/cve-list.ts';
import type { SourceDocument } from '../domain/cve.ts';

/** The columns of `CveRow`, named (a prepared statement never selects `*`). */
const CVE_COLUMNS = [
  'cve_id',
  'state',
  'title',
  'description',
  'created_at',
  'updated_at',
  'metrics',
  'cvss20',
  'cvss30',
  'cvss31',
  'cvss40',
  'kev',
  'epss',
  'vendors',
  'weaknesses',
  'cpes',
  'references',
  'nvd_configurations',
  'providers',
  'inserted_at',
  'modified_at',
] as const satisfies readonly (keyof CveRow)[];

export class CveRepository {
  private readonly byId: PreparedQuery<CveRow & { catalog_version: number }, [cveId: string]>;

  private readonly version: CatalogVersion;

  constructor(private readonly db: Kysely<DB>) {
    this.version = new CatalogVersion(db);
    this.byId = new PreparedQuery(
      db,
      db
        .selectFrom('cve')
        .select(CVE_COLUMNS)
        .select(CATALOG_VERSION.as('catalog_version'))
        .where('cve_id', '=', ''),
    );
  }

  /**
   * The ids of the first `limit` CVEs of a list in its order, read through the ordering index alone:
   * one snapshot of what an export holds (its rows are then read by `exportRows`).
   */
  async listIds(filters: CveFilters, ordering: CveOrdering, limit: number): Promise<string[]> {
    const { columns: sortKeys, direction } = ORDER[ordering];
    let query = this.db
      .selectFrom('cve')
      .select('cve_id')
      .where((eb) => eb.and(cveConditions(eb, filters)));
    for (const key of sortKeys) query = query.orderBy(sortExpression(key), direction);
    return (await query.limit(limit).execute()).map((r) => r.cve_id);
  }

  /** The exported columns of some CVEs (a chunk of `listIds`), in no particular order. */
  exportRows(cveIds: readonly string[]) {
    return this.db
      .selectFrom('cve')
      .select([
        'cve_id',
        'title',
        'description',
        'created_at',
        'updated_at',
        'cvss20',
        'cvss30',
        'cvss31',
        'cvss40',
        'kev',
        'epss',
        'vendors',
        'weaknesses',
      ])
      .where(sql<SqlBool>`cve_id = ANY(${[...cveIds]}::text[])`)
      .execute();
  }

  /** The catalog's version (src/db/catalog-version.ts). */
  catalogVersion(): Promise<number> {
    return this.version.read();
  }

  /** NVD's record of a CVE as the importer kept it (`{format, record}`), for API v1's raw_nvd_data. */
  async nvdRecord(cveId: string): Promise<Record<string, unknown> | undefined> {
    const row = await this.db
      .selectFrom('cve_source')
      .select('raw')
      .where('cve_id', '=', cveId)
      .where('provider', '=', 'nvd')
      .executeTakeFirst();
    return row?.raw ?? undefined;
  }

  /** The CVE 5 statements of a CVE (`mitre`, `vulnrichment`) by provider: what its affected entries come from. */
  async cve5Statements(cveId: string): Promise<Map<string, SourceDocument>> {
    const rows = await this.db
      .selectFrom('cve_source')
      .select(['provider', 'data'])
      .where('cve_id', '=', cveId)
      .where('provider', 'in', ['mitre', 'vulnrichment'])
      .execute();
    return new Map(rows.map((r) => [r.provider, r.data as unknown as SourceDocument]));
  }

  /**
   * One CVE with every column the API shows (not its search text) and the catalog version it was
   * read at: a prepared statement.
   */
  findOne(cveId: string): Promise<(CveRow & { catalog_version: number }) | undefined> {
    return this.byId.executeTakeFirst(cveId);
  }

  /** Which providers have a statement about the CVE, when each was last written, and the metrics each states. */
  sourcesOf(cveId: string) {
    return this.db
      .selectFrom('cve_source')
      .select([
        'provider',
        'updated_at',
        sql<Record<string, unknown>>`coalesce(data->'metrics', '{}'::jsonb)`.as('metrics'),
        sql<boolean>`coalesce(data->>'description', '') <> ''`.as('has_description'),
        sql<string | null>`data->>'descriptionLang'`.as('description_lang'),
      ])
      .where('cve_id', '=', cveId)
      .execute();
  }

  /** One provider's statement about a CVE: as normalized (`data`) and the upstream record when kept (`raw`). */
  sourceRecord(cveId: string, provider: string) {
    return this.db
      .selectFrom('cve_source')
      .select(['provider', 'data', 'raw', 'updated_at'])
      .where('cve_id', '=', cveId)
      .where('provider', '=', provider)
      .executeTakeFirst();
  }

  /** A page of a CVE's changes with what each changed, newest first. */
  listChangesWithData(cveId: string, limit: number, offset: number) {
    return this.db
      .selectFrom('cve_change')
      .select(['id', 'created_at', 'cve_id', 'types', 'data'])
      .where('cve_id', '=', cveId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  async exists(cveId: string): Promise<boolean> {
    return (
      (await this.db.selectFrom('cve').select('cve_id').where('cve_id', '=', cveId).executeTakeFirst()) !==
      undefined
    );
  }

  async countChanges(cveId: string): Promise<number> {
    const row = await this.db
      .selectFrom('cve_change')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('cve_id', '=', cveId)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  listChanges(cveId: string, limit: number, offset: number) {
    return this.db
      .selectFrom('cve_change')
      .select(['id', 'created_at', 'cve_id', 'types'])
      .where('cve_id', '=', cveId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  findChange(cveId: string, id: string) {
    return this.db
      .selectFrom('cve_change')
      .selectAll()
      .where('cve_id', '=', cveId)
      .where('id', '=', sql<string>`${id}::uuid`)
      .executeTakeFirst();
  }
}
