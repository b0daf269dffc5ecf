/**
 * API v1's reports and alerts (legacy shape, docs/api-v1.md): the reports of the projects of the
 * organizations a user has joined, found by their 12-character link; an alert is one CVE of a report.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { ReportRepository, type ReportItemRow } from '../db/report.repository.ts';
import type { ReportRow } from '../domain/report.ts';
import { UserScopeRepository } from '../db/user-scope.repository.ts';
import { AppError } from '../domain/errors.ts';
import { v1AlertEvents, v1EventTypes, type V1AlertEvent } from '../domain/v1-alerts.ts';
import { assertPageInRange, offsetOf, type PageRequest } from '../domain/paging.ts';

export interface V1Alert {
  item: ReportItemRow;
  /** v1 event types of the CVE's changes in the report. */
  filters: string[];
}

const LINK = /^[A-Z0-9]{12}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class ApiV1ReportService {
  private readonly reports: ReportRepository;
  private readonly scope: UserScopeRepository;

  constructor(db: Kysely<DB>) {
    this.reports = new ReportRepository(db);
    this.scope = new UserScopeRepository(db);
  }

  /** One page of the user's reports, newest first, each with the vendor keys its CVEs matched. */
  async list(userId: string, page: PageRequest): Promise<{ report: ReportRow; keys: string[] }[]> {
    const projectIds = await this.scope.projectIds(userId);
    assertPageInRange(page, await this.reports.countForProjects(projectIds));
    const rows = await this.reports.listForProjects(projectIds, page.pageSize, offsetOf(page));
    const keys = await this.reports.matchedKeys(rows.map((r) => r.id));
    return rows.map((report) => ({ report, keys: keys.get(report.id) ?? [] }));
  }

  /** The user's report with this link, with every alert; 404 for anyone else's. */
  async get(userId: string, link: string): Promise<{ report: ReportRow; keys: string[]; alerts: V1Alert[] }> {
    const report = await this.find(userId, link);
    const alerts = await this.alertsOf(await this.reports.items(report.id));
    const keys = await this.reports.matchedKeys([report.id]);
    return { report, keys: keys.get(report.id) ?? [], alerts };
  }

  async listAlerts(userId: string, link: string, page: PageRequest): Promise<V1Alert[]> {
    const report = await this.find(userId, link);
    assertPageInRange(page, await this.reports.countItems(report.id));
    return this.alertsOf(await this.reports.items(report.id, page.pageSize, offsetOf(page)));
  }

  async alert(userId: string, link: string, id: string): Promise<V1AlertEvent[]> {
    const report = await this.find(userId, link);
    const item = UUID.test(id) ? await this.reports.item(report.id, id) : undefined;
    if (!item) throw new AppError('not_found');
    return v1AlertEvents(item.cve_id, await this.reports.changes(item.change_ids));
  }

  private async alertsOf(items: ReportItemRow[]): Promise<V1Alert[]> {
    const changes = await this.reports.changes(items.flatMap((i) => i.change_ids));
    return items.map((item) => ({
      item,
      filters: v1EventTypes(changes.filter((c) => item.change_ids.includes(c.id)).map((c) => c.types)),
    }));
  }

  private async find(userId: string, link: string): Promise<ReportRow> {
    const report = LINK.test(link) ? await this.reports.findByLink(link) : undefined;
    if (!report || !(await this.scope.projectIds(userId)).includes(report.project_id))
      throw new AppError('not_found');
    return report;
  }
}
