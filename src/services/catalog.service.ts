/** Reading the catalog: CVEs with filters, one CVE and its changes, vendors, products, weaknesses. */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { CveRepository } from '../db/cve.repository.ts';
import type { CveFilters } from '../db/cve-list-conditions.ts';
import { type CveCursor, type CveOrdering } from '../domain/cve-list.ts';
import { catalogName, splitVendorKey, vendorKey } from '../domain/cpe.ts';
import { CveListRepository, type CveListRow } from '../db/cve-list.repository.ts';
import { VendorRepository } from '../db/vendor.repository.ts';
import { WeaknessRepository } from '../db/weakness.repository.ts';
import { AppError } from '../domain/errors.ts';
import { MERGE_ORDER } from '../domain/cve.ts';
import { affectedSourcesOf, type AffectedSource } from '../domain/affected.ts';
import type { CatalogCve } from '../domain/cve-facts.ts';
import type { ChangeEntry as CveChangeEntry } from '../domain/cve-change.ts';
import type { ListCache } from './list-cache.ts';
import { CveListReader, type CountedRows } from './cve-list-reader.ts';
import { browseKeyset, type CveBrowsePage } from './cve-browse.ts';
import { exportIds, inChunks, type CveExport, type CveExportRow } from './cve-export.ts';
import { QueryCompiler } from './query-compiler.ts';
import { assertPageInRange, offsetOf, type PageRequest } from '../domain/paging.ts';

/**
 * Whose CVE list: a vendor's, a product's (`vendor` and `product`) or a weakness's. Each must be in the
 * catalog (else 404 `not_found`); its list is the catalog's CVEs that carry it.
 */
export type CveListOwner = { vendor: string; product?: string | undefined } | { weakness: string };

/** What a CVE list adds to its filters. */
export interface CveListOptions {
  /** The advanced query as the client wrote it; the projects it names are `organizationId`'s. */
  q?: { text: string | undefined; organizationId: string } | undefined;
  owner?: CveListOwner | undefined;
}

export { CVE_COUNT_CAP, type CveBrowsePage } from './cve-browse.ts';

/** Where the global search box sends a query. */
export type SearchTarget =
  | { kind: 'cve'; cveId: string }
  | { kind: 'vendor'; vendor: string }
  | { kind: 'product'; vendor: string; product: string }
  | { kind: 'search'; text: string };

/** Subscription candidates count the CVEs published or changed in this many days. */
export const RECENT_DAYS = 30;
/** Recent counts stop at this many (shown as "1,000+"): the index range read is bounded. */
export const RECENT_COUNT_CAP = 1000;

/** A vendor or product, with how many CVEs it has and how many it brought in the last RECENT_DAYS. */
export interface KeyCounts {
  vendor: string;
  product?: string | undefined;
  /** `vendor` or `vendor$PRODUCT$product`. */
  key: string;
  cveCount: number;
  /** CVEs published or changed in the last RECENT_DAYS days, at most RECENT_COUNT_CAP. */
  recentCount: number;
}

const CVE_ID_TEXT = /^(cve-)?\d{4}-\d{4,}$/i;
/** A change of a CVE as its page shows it. */
export interface CveChangeRecord {
  id: string;
  created_at: Date;
  cve_id: string;
  types: string[];
  data: CveChangeEntry[];
}

/** A CVE as its detail shows it: the merged row, the catalog version it was read at, its affected entries. */
export type CveWithAffected = CatalogCve & { catalog_version: number; affected: AffectedSource[] };

/** What a CVE's page shows (CatalogService.cvePage). */
export interface CvePage {
  cve: CveWithAffected;
  /** The providers with a statement about the CVE, in merge order, with when each was last written. */
  sources: { provider: string; updated_at: Date; metrics: Record<string, unknown> }[];
  /**
   * The description's language tag (`en`, `en-US`…), as the record that gave the description (the
   * first in merge order that has one, as the merge picks it) states it; null when it states none.
   */
  descriptionLang: string | null;
  /** The names of the CVE's CWEs the catalog knows. */
  weaknessNames: Map<string, string>;
  changes: { count: number; items: CveChangeRecord[] };
}

const sortByMergeOrder = <T extends { provider: string }>(rows: T[]): T[] => {
  const rank = (p: string) => {
    const i = (MERGE_ORDER as readonly string[]).indexOf(p);
    return i < 0 ? MERGE_ORDER.length : i;
  };
  return [...rows].sort(
    (a, b) => rank(a.provider) - rank(b.provider) || a.provider.localeCompare(b.provider),
  );
};

export class CatalogService {
  private readonly cves: CveRepository;
  private readonly lists: CveListRepository;
  private readonly reader: CveListReader;
  private readonly query: QueryCompiler;
  private readonly vendors: VendorRepository;
  private readonly weaknesses: WeaknessRepository;

  constructor(
    db: Kysely<DB>,
    private readonly cache: ListCache,
  ) {
    this.cves = new CveRepository(db);
    this.lists = new CveListRepository(db);
    this.reader = new CveListReader(this.lists, cache);
    this.query = new QueryCompiler(db);
    this.vendors = new VendorRepository(db);
    this.weaknesses = new WeaknessRepository(db);
  }

  /**
   * A page of CVEs: `filters`, the owner's and those of the advanced query. `countKey` names the list
   * (its filters as the client sent them, its owner, its organization) so its count can be cached;
   * undefined when the list depends on more than the catalog (a user's tags) and nothing is cached.
   * Throws 404 for an owner the catalog lacks, 400 for a malformed query.
   */
  async listCves(
    filters: CveFilters,
    ordering: CveOrdering,
    page: PageRequest,
    countKey: string | undefined,
    options: CveListOptions = {},
  ): Promise<CountedRows<CveListRow>> {
    const all = await this.filtersOf(filters, options);
    return this.reader.read({ filters: all, countKey }, ordering, page, (window) =>
      this.lists.page(all, ordering, window),
    );
  }

  /**
   * A keyset page of CVEs for the web UI (`filters`, the owner's and the query's), from `cursor`,
   * with the list's count capped at CVE_COUNT_CAP (cached per catalog version under `countKey`, as
   * listCves' counts are; undefined: not cached). Throws 400 for a malformed query.
   */
  async browseCves(
    filters: CveFilters,
    ordering: CveOrdering,
    cursor: CveCursor | undefined,
    limit: number,
    countKey: string | undefined,
    options: CveListOptions = {},
  ): Promise<CveBrowsePage> {
    const all = await this.filtersOf(filters, options);
    return browseKeyset(this.lists, this.cache, all, ordering, cursor, limit, countKey);
  }

  /** Every CVE of a list, in its order, for an export (at most CVE_EXPORT_MAX, else a 400). */
  async exportCves(
    filters: CveFilters,
    ordering: CveOrdering,
    countKey: string | undefined,
    options: CveListOptions = {},
  ): Promise<CveExport<CveExportRow>> {
    const all = await this.filtersOf(filters, options);
    const count = () => this.reader.count({ filters: all, countKey });
    const ids = await exportIds(this.cves, all, ordering, count);
    return { count: ids.length, rows: inChunks(ids, (chunk) => this.cves.exportRows(chunk)) };
  }

  /** The repository filters of a list: the owner's (checked first) and the query's over `filters`. */
  private async filtersOf(filters: CveFilters, { q, owner }: CveListOptions): Promise<CveFilters> {
    const byOwner = owner ? await this.ownerFilters(owner) : {};
    const byQuery = q ? await this.query.compile(q.text, q.organizationId) : {};
    return { ...filters, ...byOwner, ...byQuery };
  }

  private async ownerFilters(owner: CveListOwner): Promise<Partial<CveFilters>> {
    if ('weakness' in owner) return { weakness: (await this.getWeakness(owner.weakness)).cwe_id };
    if (owner.product === undefined) return { vendor: (await this.getVendor(owner.vendor)).name };
    const product = await this.getProduct(owner.vendor, owner.product);
    return { vendor: owner.vendor, product: product.name };
  }

  /**
   * One CVE as the catalog lists it, with its affected entries read from its CVE 5 statements (they
   * are not part of the merged row); 404 `not_found` when the catalog does not list it.
   */
  async getCve(cveId: string): Promise<CveWithAffected> {
    const [cve, statements] = await Promise.all([this.cves.findOne(cveId), this.cves.cve5Statements(cveId)]);
    if (!cve) throw new AppError('not_found');
    return { ...cve, affected: affectedSourcesOf(statements) };
  }

  /**
   * Everything a CVE's page shows, in one call: the merged view, which providers made statements
   * (and when), the names of its CWEs, and a page of its change history with each change's data.
   * 404 `not_found` for a CVE the catalog does not list, or a history page past the last.
   */
  async cvePage(cveId: string, history: PageRequest): Promise<CvePage> {
    const cve = await this.getCve(cveId);
    const [sources, weaknessNames, count] = await Promise.all([
      this.cves.sourcesOf(cveId),
      this.weaknesses.names(cve.weaknesses),
      this.cves.countChanges(cveId),
    ]);
    assertPageInRange(history, count);
    const items = await this.cves.listChangesWithData(cveId, history.pageSize, offsetOf(history));
    const ordered = sortByMergeOrder(sources);
    return {
      cve,
      sources: ordered.map(({ has_description: _, description_lang: __, ...s }) => s),
      descriptionLang: ordered.find((s) => s.has_description)?.description_lang ?? null,
      weaknessNames,
      changes: { count, items: items.map((c) => ({ ...c, data: c.data as CveChangeEntry[] })) },
    };
  }

  /** One provider's statement about a CVE, with the upstream record when the importer kept it; 404 without one. */
  async sourceRecord(cveId: string, provider: string) {
    const row = /^[a-z0-9_-]{1,40}$/.test(provider)
      ? await this.cves.sourceRecord(cveId, provider)
      : undefined;
    if (!row) throw new AppError('not_found');
    return row;
  }

  async listChanges(cveId: string, page: PageRequest) {
    if (!(await this.cves.exists(cveId))) throw new AppError('not_found');
    const count = await this.cves.countChanges(cveId);
    assertPageInRange(page, count);
    return { count, items: await this.cves.listChanges(cveId, page.pageSize, offsetOf(page)) };
  }

  /** NVD's record of a CVE as the importer kept it (`{format, record}`), for API v1's raw_nvd_data. */
  nvdRecord(cveId: string): Promise<Record<string, unknown> | undefined> {
    return this.cves.nvdRecord(cveId);
  }

  async getChange(cveId: string, id: string) {
    const change = await this.cves.findChange(cveId, id);
    if (!change) throw new AppError('not_found');
    return change;
  }

  async listVendors(search: string | undefined, page: PageRequest) {
    const count = await this.vendors.countVendors(search);
    assertPageInRange(page, count);
    return { count, items: await this.vendors.listVendors(search, page.pageSize, offsetOf(page)) };
  }

  async getVendor(name: string) {
    const vendor = await this.vendors.findVendor(name);
    if (!vendor) throw new AppError('not_found');
    return vendor;
  }

  async listProducts(vendorName: string, search: string | undefined, page: PageRequest) {
    const vendor = await this.getVendor(vendorName);
    const count = await this.vendors.countProducts(vendor.id, search);
    assertPageInRange(page, count);
    return {
      count,
      items: await this.vendors.listProducts(vendor.id, search, page.pageSize, offsetOf(page)),
    };
  }

  async getProduct(vendorName: string, productName: string) {
    const vendor = await this.getVendor(vendorName);
    const product = await this.vendors.findProduct(vendor.id, productName);
    if (!product) throw new AppError('not_found');
    return product;
  }

  async listWeaknesses(search: string | undefined, page: PageRequest) {
    const count = await this.weaknesses.count(search);
    assertPageInRange(page, count);
    return { count, items: await this.weaknesses.list(search, page.pageSize, offsetOf(page)) };
  }

  async getWeakness(cweId: string) {
    const weakness = await this.weaknesses.find(cweId);
    if (!weakness) throw new AppError('not_found');
    return weakness;
  }

  /** Vendors by name after `after`, with product and CVE counts; one more than `limit` says there are more. */
  browseVendors(search: string | undefined, after: string | undefined, limit: number) {
    return this.vendors.browseVendors(search, after, limit);
  }

  /** A vendor (404 when unknown), its CVE count and its products after `after` with their CVE counts. */
  async browseProducts(
    vendorName: string,
    search: string | undefined,
    after: string | undefined,
    limit: number,
  ) {
    const vendor = await this.getVendor(vendorName);
    const [cveCount, products] = [
      await this.vendors.cveCount(vendor.name),
      await this.vendors.browseProducts(vendor, search, after, limit),
    ];
    return { vendor, cveCount, products };
  }

  /** Weaknesses with CVE counts, most first, after `after`. */
  browseWeaknesses(
    search: string | undefined,
    after: { count: number; cweId: string } | undefined,
    limit: number,
  ) {
    return this.weaknesses.browse(search, after, limit);
  }

  /**
   * Where the global search box sends `text`: a CVE id to the CVE, a vendor's exact name to the
   * vendor, `vendor$PRODUCT$product`, "vendor product" or a product name only one vendor has to
   * the product; anything else to a search of the CVE list.
   */
  async searchTarget(text: string): Promise<SearchTarget> {
    const q = text.trim();
    if (CVE_ID_TEXT.test(q)) return { kind: 'cve', cveId: `CVE-${q.replace(/^cve-/i, '')}` };
    if (q.includes('$PRODUCT$')) {
      const { vendor, product } = splitVendorKey(q);
      if (product !== undefined && (await this.productExists(catalogName(vendor), catalogName(product))))
        return { kind: 'product', vendor: catalogName(vendor), product: catalogName(product) };
      return { kind: 'search', text: q };
    }
    const name = catalogName(q);
    if (name && (await this.vendors.findVendor(name))) return { kind: 'vendor', vendor: name };
    const words = q.split(/\s+/);
    if (words.length >= 2) {
      const vendor = catalogName(words[0]!);
      const product = catalogName(words.slice(1).join(' '));
      if (await this.productExists(vendor, product)) return { kind: 'product', vendor, product };
    }
    if (name) {
      const products = await this.vendors.productsNamed(name, 2);
      if (products.length === 1) return { kind: 'product', ...products[0]! };
    }
    return { kind: 'search', text: q };
  }

  private async productExists(vendorName: string, productName: string): Promise<boolean> {
    const vendor = await this.vendors.findVendor(vendorName);
    return vendor !== undefined && (await this.vendors.findProduct(vendor.id, productName)) !== undefined;
  }

  /** A few CVE ids, vendors and products beginning with `text`, for the search box's suggestions. */
  async suggest(text: string, limit = 5) {
    const q = text.trim();
    if (q.length < 2) return { cves: [], vendors: [], products: [] };
    const idPrefix = /^(cve-?)?\d/i.test(q) ? `CVE-${q.replace(/^cve-?/i, '')}`.toUpperCase() : undefined;
    const cves = idPrefix ? await this.lists.idsStartingWith(idPrefix, limit) : [];
    const { vendors, products } = await this.vendors.suggest(catalogName(q), limit);
    return { cves, vendors, products };
  }

  /**
   * Vendors and products whose names start with `text` (a few of each), as subscription candidates
   * with their CVE counts and those of the last RECENT_DAYS days.
   */
  async subscriptionCandidates(text: string, limit = 8): Promise<KeyCounts[]> {
    const name = catalogName(text.trim());
    if (!name) return [];
    const { vendors, products } = await this.vendors.suggest(name, limit);
    return this.keyCounts([
      ...vendors.map((v) => vendorKey(v)),
      ...products.map((p) => vendorKey(p.vendor, p.product)),
    ]);
  }

  /**
   * The CVE counts of these vendor keys, all time and of the last RECENT_DAYS days (published or
   * changed, capped at RECENT_COUNT_CAP): index ranges of `cve_vendor` only, no read of `cve`.
   */
  async keyCounts(keys: readonly string[], now = new Date()): Promise<KeyCounts[]> {
    const since = new Date(now.getTime() - RECENT_DAYS * 86_400_000);
    const totals = await this.vendors.cveCounts(keys);
    const recent = await this.vendors.recentCounts(keys, since, RECENT_COUNT_CAP);
    return keys.map((key) => ({
      ...splitVendorKey(key),
      key,
      cveCount: totals.get(key) ?? 0,
      recentCount: recent.get(key) ?? 0,
    }));
  }

  /** Which of these vendor keys the catalog knows. */
  existingVendorKeys(keys: string[]): Promise<Set<string>> {
    return this.vendors.existingKeys(keys);
  }
}
