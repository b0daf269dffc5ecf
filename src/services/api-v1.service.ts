/**
 * The use-cases API v1 adds over the catalog and the projects: what a caller sees (a user: the
 * organizations they have joined; a token: its own), CVE lists with v1's filters (an unknown vendor
 * or product is a 404; a user's own tags), `raw_nvd_data`, and a user's account subscriptions (the
 * union of the subscriptions of their organizations' projects).
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { CveFilters } from '../db/cve-list-conditions.ts';
import { AccountRepository } from '../db/account.repository.ts';
import { VendorRepository } from '../db/vendor.repository.ts';
import { UserScopeRepository } from '../db/user-scope.repository.ts';
import type { V1Caller } from '../domain/actor.ts';
import type { CveListFilters } from '../domain/cve-list.ts';
import { normalizeCweId } from '../domain/cve-id.ts';
import { AppError } from '../domain/errors.ts';
import { rawNvdData, type StoredNvdRecord } from '../domain/nvd11.ts';
import { subscriptionsOfKeys, type SubscriptionSet } from '../domain/subscriptions.ts';
import { assertPageInRange, offsetOf, PageOutOfRangeError, type PageRequest } from '../domain/paging.ts';
import type { CatalogService, CveListOwner } from './catalog.service.ts';
import type { ProjectService } from './project.service.ts';
import type { TagService } from './tag.service.ts';
import type { ProjectCveService } from './project-cves.service.ts';
import { catalogName } from '../domain/cpe.ts';

export interface OrganizationRow {
  id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

/** The filters of a v1 CVE list, as the client sent them (validated). */
export interface V1CveQuery extends Pick<
  CveListFilters,
  'search' | 'vendor' | 'product' | 'weakness' | 'cvss' | 'cvssV3'
> {
  /** A tag of the user's (OpenCVE 1.x). The paged shape filters on `cvss` (v3.1), the legacy one on `cvssV3`. */
  tag?: string | undefined;
}

/** CVE lists of API v1 are newest-updated first, as OpenCVE's. */
const ORDERING = '-updated_at';

export class ApiV1Service {
  private readonly scope: UserScopeRepository;
  private readonly accounts: AccountRepository;
  private readonly vendors: VendorRepository;

  constructor(
    db: Kysely<DB>,
    private readonly catalog: CatalogService,
    private readonly projects: ProjectService,
    private readonly projectCves: ProjectCveService,
    private readonly tags: TagService,
  ) {
    this.scope = new UserScopeRepository(db);
    this.accounts = new AccountRepository(db);
    this.vendors = new VendorRepository(db);
  }

  /** A vendor with the names of all its products (OpenCVE 1.5's `/api/vendors/<vendor>`). */
  async vendorWithProducts(name: string) {
    const vendor = await this.catalog.getVendor(name);
    return { vendor, products: await this.vendors.productNames(vendor.id) };
  }

  /**
   * One page of the products of every vendor (OpenCVE 1.5's `/api/products`), by name. Not counted:
   * an empty page after the first is past the end.
   */
  async listAllProducts(search: string | undefined, page: PageRequest) {
    const items = await this.vendors.listAllProducts(search, page.pageSize, offsetOf(page));
    if (!items.length && page.page > 1) throw new PageOutOfRangeError();
    return items;
  }

  async listOrganizations(
    caller: V1Caller,
    page: PageRequest,
  ): Promise<{ count: number; items: OrganizationRow[] }> {
    if (caller.kind === 'token') {
      const org = await this.tokenOrganization(caller);
      assertPageInRange(page, 1);
      return { count: 1, items: page.page === 1 ? [org] : [] };
    }
    const count = await this.scope.countOrganizations(caller.userId);
    assertPageInRange(page, count);
    return {
      count,
      items: await this.scope.listOrganizations(caller.userId, page.pageSize, offsetOf(page)),
    };
  }

  /** An organization the caller sees; any other (existing or not) is a 404. */
  async getOrganization(caller: V1Caller, name: string): Promise<OrganizationRow> {
    if (caller.kind === 'token') {
      if (name !== caller.token.organizationName) throw new AppError('not_found');
      return this.tokenOrganization(caller);
    }
    const org = await this.scope.findOrganization(caller.userId, name);
    if (!org) throw new AppError('not_found');
    return org;
  }

  async listProjects(caller: V1Caller, orgName: string, page: PageRequest) {
    const org = await this.getOrganization(caller, orgName);
    return this.projects.list(org.id, page);
  }

  async getProject(caller: V1Caller, orgName: string, name: string) {
    const org = await this.getOrganization(caller, orgName);
    return this.projects.get(org.id, name);
  }

  async listProjectCves(caller: V1Caller, orgName: string, projectName: string, page: PageRequest) {
    const org = await this.getOrganization(caller, orgName);
    return this.projectCves.listCves(
      org.id,
      projectName,
      { filters: {}, ordering: ORDERING, countKey: 'v1:project' },
      page,
    );
  }

  /**
   * A page of CVEs with v1's filters, of the whole catalog or of `owner` (a weakness's list: 404 when
   * the catalog lacks it). Counts are cached per catalog version, except with `tag` (tags change
   * without one).
   */
  async listCves(caller: V1Caller, query: V1CveQuery, page: PageRequest, owner?: CveListOwner) {
    const filters = await this.filtersOf(caller, query);
    const countKey = filters.where
      ? undefined
      : JSON.stringify(['v1', Object.entries(filters).sort(([a], [b]) => (a < b ? -1 : 1)), owner ?? null]);
    return this.catalog.listCves(filters, ORDERING, page, countKey, { owner });
  }

  /** One CVE with its `raw_nvd_data` (NVD JSON 1.1 layout). */
  async getCveWithNvdData(cveId: string) {
    const cve = await this.catalog.getCve(cveId);
    const raw = await this.catalog.nvdRecord(cveId);
    const stored =
      raw && (raw.format === '1.1' || raw.format === '2.0') && raw.record && typeof raw.record === 'object'
        ? (raw as unknown as StoredNvdRecord)
        : undefined;
    return { cve, rawNvdData: rawNvdData(stored, cve) };
  }

  /** The union of the subscriptions of every project of the user's organizations. */
  async accountSubscriptions(userId: string): Promise<SubscriptionSet> {
    return subscriptionsOfKeys(await this.scope.subscriptionKeys(userId));
  }

  private async filtersOf(caller: V1Caller, q: V1CveQuery): Promise<CveFilters> {
    const filters: CveFilters = {
      search: q.search?.trim() || undefined,
      weakness: q.weakness ? (normalizeCweId(q.weakness) ?? q.weakness) : undefined,
      cvss: q.cvss,
      cvssV3: q.cvssV3,
    };
    if (q.vendor) {
      // Names in any case, as people type them (`Microsoft` is `microsoft`).
      const vendor = await this.catalog.getVendor(catalogName(q.vendor));
      filters.vendor = vendor.name;
      if (q.product)
        filters.product = (await this.catalog.getProduct(vendor.name, catalogName(q.product))).name;
    }
    if (q.tag !== undefined) {
      // Tags belong to users; an organization token has none.
      if (caller.kind !== 'user') throw new AppError('not_found');
      filters.where = await this.tags.filter(caller.userId, q.tag);
    }
    return filters;
  }

  private async tokenOrganization(caller: Extract<V1Caller, { kind: 'token' }>): Promise<OrganizationRow> {
    const org = await this.accounts.findOrganizationById(caller.token.organizationId);
    if (!org) throw new AppError('not_found');
    return org;
  }
}
