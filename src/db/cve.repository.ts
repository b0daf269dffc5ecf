/** Reads of the CVE catalog: filtered, ordered, paged lists, one CVE, its changes. */
import { sql, type ExpressionBuilder, type Expression, type SqlBool } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';
import { CVSS_RANGES, LEGACY_CVSS_RANGES, type CvssLevel, type LegacyCvssLevel } from '../domain/cvss.ts';
import { vendorKey } from '../domain/cpe.ts';

export const CVE_ORDERINGS = [
  '-updated_at',
  'updated_at',
  '-created_at',
  'created_at',
  'cve_id',
  '-cve_id',
] as const;
export type CveOrdering = (typeof CVE_ORDERINGS)[number];

export interface CveFilters {
  search?: string | undefined;
  vendor?: string | undefined;
  product?: string | undefined;
  weakness?: string | undefined;
  cvss?: CvssLevel | undefined;
  /** API v1 legacy levels, on the v3.1 score, else the v3.0 one. */
  cvssV3?: LegacyCvssLevel | undefined;
  kev?: boolean | undefined;
  epssGte?: number | undefined;
  createdGte?: Date | undefined;
  updatedGte?: Date | undefined;
  /** CVEs carrying any of these vendor keys (a project's subscriptions). */
  anyVendorKeys?: string[] | undefined;
  excludeRejected?: boolean | undefined;
  /** An extra condition built by the caller (the advanced query). */
  where?: ((eb: ExpressionBuilder<DB, 'cve'>) => Expression<SqlBool>) | undefined;
}

const CVE_ID_FRAGMENT = /^(cve-?)?\d[\d-]*$/i;

function conditions(eb: ExpressionBuilder<DB, 'cve'>, f: CveFilters): Expression<SqlBool>[] {
  const and: Expression<SqlBool>[] = [];
  if (f.search) {
    const term = f.search.trim();
    and.push(
      CVE_ID_FRAGMENT.test(term)
        ? eb('cve_id', 'ilike', `%${term.replace(/[%_\\]/g, '\\$&')}%`)
        : sql<SqlBool>`search @@ plainto_tsquery('english', ${term})`,
    );
  }
  if (f.vendor && f.product) {
    and.push(sql<SqlBool>`vendors @> ARRAY[${vendorKey(f.vendor, f.product)}]::text[]`);
  } else if (f.vendor) {
    and.push(sql<SqlBool>`vendors @> ARRAY[${f.vendor}]::text[]`);
  } else if (f.product) {
    and.push(sql<SqlBool>`vendors && ARRAY(
      SELECT v.name || '$PRODUCT$' || p.name FROM product p JOIN vendor v ON v.id = p.vendor_id WHERE p.name = ${f.product})`);
  }
  if (f.weakness) and.push(sql<SqlBool>`weaknesses @> ARRAY[${f.weakness}]::text[]`);
  if (f.cvss === 'empty') and.push(eb('cvss31', 'is', null));
  else if (f.cvss) {
    const [min, max] = CVSS_RANGES[f.cvss];
    and.push(eb.and([eb('cvss31', '>=', min), eb('cvss31', '<', max)]));
  }
  if (f.cvssV3 === 'none') and.push(eb.and([eb('cvss31', 'is', null), eb('cvss30', 'is', null)]));
  else if (f.cvssV3) {
    const [min, max] = LEGACY_CVSS_RANGES[f.cvssV3];
    and.push(sql<SqlBool>`coalesce(cvss31, cvss30) >= ${min} AND coalesce(cvss31, cvss30) < ${max}`);
  }
  if (f.kev !== undefined) and.push(eb('kev', '=', f.kev));
  if (f.epssGte !== undefined) and.push(eb('epss', '>=', f.epssGte));
  if (f.createdGte) and.push(eb('created_at', '>=', f.createdGte));
  if (f.updatedGte) and.push(eb('updated_at', '>=', f.updatedGte));
  if (f.anyVendorKeys) and.push(sql<SqlBool>`vendors && ${f.anyVendorKeys}::text[]`);
  if (f.excludeRejected) and.push(eb('state', '<>', 'REJECTED'));
  if (f.where) and.push(f.where(eb));
  return and;
}

const ORDER: Record<
  CveOrdering,
  [column: 'updated_at' | 'created_at' | 'cve_id', direction: 'asc' | 'desc']
> = {
  '-updated_at': ['updated_at', 'desc'],
  updated_at: ['updated_at', 'asc'],
  '-created_at': ['created_at', 'desc'],
  created_at: ['created_at', 'asc'],
  cve_id: ['cve_id', 'asc'],
  '-cve_id': ['cve_id', 'desc'],
};

export class CveRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async count(filters: CveFilters): Promise<number> {
    const row = await this.db
      .selectFrom('cve')
      .select(sql<number>`count(*)::int`.as('n'))
      .where((eb) => eb.and(conditions(eb, filters)))
      .executeTakeFirstOrThrow();
    return row.n;
  }

  /**
   * One page of list items, in a deterministic order (ties broken by cve_id). The page's ids are
   * chosen first (through the ordering index, reading no other column), then their rows fetched: a
   * deep page skips index entries instead of 100,000 table rows.
   */
  list(filters: CveFilters, ordering: CveOrdering, limit: number, offset: number) {
    const [column, direction] = ORDER[ordering];
    const sortKeys = column === 'cve_id' ? (['cve_id'] as const) : ([column, 'cve_id'] as const);
    let page = this.db
      .selectFrom('cve')
      .select('cve_id')
      .where((eb) => eb.and(conditions(eb, filters)));
    for (const key of sortKeys) page = page.orderBy(key, direction);
    let rows = this.db
      .selectFrom('cve')
      .select([
        'cve_id',
        'description',
        'title',
        'created_at',
        'updated_at',
        'cvss31',
        'kev',
        'epss',
        'state',
      ])
      .where('cve_id', 'in', page.limit(limit).offset(offset));
    for (const key of sortKeys) rows = rows.orderBy(key, direction);
    return rows.execute();
  }

  /**
   * The ids of the first `limit` CVEs of a list in its order, read through the ordering index alone:
   * one snapshot of what an export holds (its rows are then read by `exportRows`).
   */
  async listIds(filters: CveFilters, ordering: CveOrdering, limit: number): Promise<string[]> {
    const [column, direction] = ORDER[ordering];
    const sortKeys = column === 'cve_id' ? (['cve_id'] as const) : ([column, 'cve_id'] as const);
    let query = this.db
      .selectFrom('cve')
      .select('cve_id')
      .where((eb) => eb.and(conditions(eb, filters)));
    for (const key of sortKeys) query = query.orderBy(key, direction);
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

  /** The catalog's version: bumped by every import batch that changes CVE rows. */
  async catalogVersion(): Promise<number> {
    const row = await this.db
      .selectFrom('catalog_state')
      .select('version')
      .where('id', '=', 1)
      .executeTakeFirst();
    return Number(row?.version ?? 0);
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

  findOne(cveId: string) {
    return this.db.selectFrom('cve').selectAll().where('cve_id', '=', cveId).executeTakeFirst();
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
