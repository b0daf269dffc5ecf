/** Reading an organization's audit log (entries are written by the services that make the changes). */
import type { Kysely, Selectable } from 'kysely';
import type { AuditLogTable, DB } from '../db/schema.ts';
import { AuditRepository, type AuditFilter } from '../db/audit.repository.ts';
import { assertPageInRange, offsetOf, type PageRequest } from '../domain/paging.ts';

export type AuditLogRow = Selectable<AuditLogTable>;

export class AuditService {
  private readonly audit: AuditRepository;

  constructor(db: Kysely<DB>) {
    this.audit = new AuditRepository(db);
  }

  /** Entries of the organization, newest first. */
  async list(
    organizationId: string,
    filter: AuditFilter,
    page: PageRequest,
  ): Promise<{ count: number; items: AuditLogRow[] }> {
    const count = await this.audit.count(organizationId, filter);
    assertPageInRange(page, count);
    return { count, items: await this.audit.list(organizationId, filter, page.pageSize, offsetOf(page)) };
  }

  /** A page of entries with the actors, actions and resource types the log holds (the web filters' choices). */
  async browse(organizationId: string, filter: AuditFilter, page: PageRequest) {
    const [listed, facets] = [
      await this.list(organizationId, filter, page),
      await this.audit.facets(organizationId),
    ];
    return { ...listed, facets };
  }
}
