/**
 * What inventory matching reads (`POST /api/v2/match`): candidate CVEs from indexes only (the
 * `cve_vendor` keys, the CNA's package and product names of migration 0034), then the matching data
 * of those CVEs (NVD's configurations on `cve`, the CNA's `affected[]` of the `mitre` statement) by
 * primary key.
 */
import { sql, type Kysely } from 'kysely';
import type { AffectedProduct, NvdConfiguration } from '../domain/cve.ts';
import type { MatchableCve } from '../domain/inventory-match.ts';
import type { DB } from './schema.ts';

/** The indexed expression of migration 0034: the CNA statement's package and product names, lower-cased. */
const CNA_NAMES_SQL = sql`(lower((jsonb_path_query_array(data, '$.affected[*].packageName')
                                || jsonb_path_query_array(data, '$.affected[*].product'))::text)::jsonb)`;

/** What changes whenever a CVE's matching rows are rewritten: the `xmin` of its row and of its CNA statement. */
const TOKEN_SQL = sql<string>`c.xmin::text || ':' || coalesce(s.xmin::text, '-')`;

/** These CVEs (`c`) unless REJECTED, with their CNA statement (`s`) when they have one. */
const publishedWithStatement = (cveIds: readonly string[]) => sql`
  FROM cve c LEFT JOIN cve_source s ON s.cve_id = c.cve_id AND s.provider = 'mitre'
  WHERE c.cve_id = ANY(${[...cveIds]}::text[]) AND c.state <> 'REJECTED'`;

/** Ids read per statement when a call has many candidates. */
const MATCHABLE_SLICE = 8000;

export class InventoryMatchRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** The CVE ids listed under each of the vendor keys (`vendor$PRODUCT$product`), one index range each. */
  async cveIdsByKey(keys: readonly string[]): Promise<Map<string, string[]>> {
    const byKey = new Map<string, string[]>();
    if (!keys.length) return byKey;
    const rows = await sql<{ vendor_key: string; cve_id: string }>`
      SELECT vendor_key, cve_id FROM cve_vendor WHERE vendor_key = ANY(${[...keys]}::text[])`.execute(
      this.db,
    );
    for (const r of rows.rows) {
      const list = byKey.get(r.vendor_key);
      if (list) list.push(r.cve_id);
      else byKey.set(r.vendor_key, [r.cve_id]);
    }
    return byKey;
  }

  /**
   * The CVEs whose CNA names one of these (lower case) as an `affected[]` entry's packageName or
   * product (the index of migration 0034), by name.
   */
  async cveIdsByCnaName(names: readonly string[]): Promise<Map<string, string[]>> {
    const byName = new Map<string, string[]>();
    if (!names.length) return byName;
    // One index probe per name (a lateral join), which also says which name found each CVE: the
    // planner, unable to estimate an overlap with a long list, would rather scan every statement.
    const rows = await sql<{ name: string; cve_id: string }>`
      SELECT n.name, s.cve_id
      FROM unnest(${[...names]}::text[]) AS n(name)
      CROSS JOIN LATERAL (
        SELECT cve_id FROM cve_source
        WHERE provider = 'mitre' AND ${CNA_NAMES_SQL} ? n.name
      ) s`.execute(this.db);
    for (const r of rows.rows) {
      const list = byName.get(r.name);
      if (list) list.push(r.cve_id);
      else byName.set(r.name, [r.cve_id]);
    }
    return byName;
  }

  /**
   * NVD's configurations and the CNA's affected products of published CVEs, by id, each with the
   * token of the rows read (see `tokens`). A long list is read in slices on several pooled
   * connections at once, so the server decompresses and sends them on more than one core while this
   * process parses what has arrived.
   */
  async matchable(cveIds: readonly string[]): Promise<{ cve: MatchableCve; token: string }[]> {
    return (await this.sliced(cveIds, (ids) => this.matchableSlice(ids))).flat();
  }

  /**
   * A token of each published CVE's matching rows (`cve` and its `mitre` statement): their `xmin`,
   * which any rewrite of either row changes. REJECTED or unknown ids are left out.
   */
  async tokens(cveIds: readonly string[]): Promise<Map<string, string>> {
    const slices = await this.sliced(cveIds, async (ids) => {
      const rows = await sql<{ cve_id: string; token: string }>`
        SELECT c.cve_id, ${TOKEN_SQL} AS token
        ${publishedWithStatement(ids)}`.execute(this.db);
      return rows.rows;
    });
    return new Map(slices.flat().map((r) => [r.cve_id, r.token]));
  }

  private async sliced<T>(
    cveIds: readonly string[],
    read: (ids: readonly string[]) => Promise<T>,
  ): Promise<T[]> {
    if (!cveIds.length) return [];
    const slices: (readonly string[])[] = [];
    for (let i = 0; i < cveIds.length; i += MATCHABLE_SLICE)
      slices.push(cveIds.slice(i, i + MATCHABLE_SLICE));
    return Promise.all(slices.map(read));
  }

  private async matchableSlice(cveIds: readonly string[]): Promise<{ cve: MatchableCve; token: string }[]> {
    const rows = await sql<{ cve_id: string; token: string; nvd_configurations: unknown; affected: unknown }>`
      SELECT c.cve_id, ${TOKEN_SQL} AS token, c.nvd_configurations, s.data->'affected' AS affected
      ${publishedWithStatement(cveIds)}`.execute(this.db);
    return rows.rows.map((r) => ({
      token: r.token,
      cve: {
        cveId: r.cve_id,
        nvdConfigurations: Array.isArray(r.nvd_configurations)
          ? (r.nvd_configurations as NvdConfiguration[])
          : null,
        affected: Array.isArray(r.affected) ? (r.affected as AffectedProduct[]) : null,
      },
    }));
  }
}
