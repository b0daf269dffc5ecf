/** Reading the catalog: CVEs with filters, one CVE and its changes, vendors, products, weaknesses. */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { CveRepository, type CveFilters, type CveOrdering } from '../db/cve.repository.ts';
import { CveListRepository, type CveListRow } from '../db/cve-list.repository.ts';
import { VendorRepository } from '../db/vendor.repository.ts';
import { WeaknessRepository } from '../db/weakness.repository.ts';
import { AppError } from '../domain/errors.ts';
import type { ListCache } from './list-cache.ts';
import { CveListReader, type CountedRows } from './cve-list-reader.ts';
import { exportIds, inChunks, type CveExport, type CveExportRow } from './cve-export.ts';
import { assertPageInRange, offsetOf, type PageRequest } from '../domain/paging.ts';

export class CatalogService {
  readonly cves: CveRepository;
  private readonly lists: CveListRepository;
  private readonly reader: CveListReader;
  private readonly vendors: VendorRepository;
  private readonly weaknesses: WeaknessRepository;

  constructor(db: Kysely<DB>, cache: ListCache) {
    this.cves = new CveRepository(db);
    this.lists = new CveListRepository(db);
    this.reader = new CveListReader(this.lists, cache);
    this.vendors = new VendorRepository(db);
    this.weaknesses = new WeaknessRepository(db);
  }

  /** A page of CVEs. `countKey` names the filters (as the client sent them) so the count can be cached. */
  listCves(
    filters: CveFilters,
    ordering: CveOrdering,
    page: PageRequest,
    countKey: string,
  ): Promise<CountedRows<CveListRow>> {
    return this.reader.read({ filters, countKey }, ordering, page, (window) =>
      this.lists.page(filters, ordering, window),
    );
  }

  /** Every CVE of a list, in its order, for an export (at most CVE_EXPORT_MAX, else a 400). */
  async exportCves(
    filters: CveFilters,
    ordering: CveOrdering,
    countKey: string,
  ): Promise<CveExport<CveExportRow>> {
    const count = () => this.reader.count({ filters, countKey });
    const ids = await exportIds(this.cves, filters, ordering, count);
    return { count: ids.length, rows: inChunks(ids, (chunk) => this.cves.exportRows(chunk)) };
  }

  async getCve(cveId: string) {
    const cve = await this.cves.findOne(cveId);
    if (!cve) throw new AppError('not_found');
    return cve;
  }

  async listChanges(cveId: string, page: PageRequest) {
    if (!(await this.cves.exists(cveId))) throw new AppError('not_found');
    const count = await this.cves.countChanges(cveId);
    assertPageInRange(page, count);
    return { count, items: await this.cves.listChanges(cveId, page.pageSize, offsetOf(page)) };
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

  /** Which of these vendor keys the catalog knows. */
  existingVendorKeys(keys: string[]): Promise<Set<string>> {
    return this.vendors.existingKeys(keys);
  }
}
