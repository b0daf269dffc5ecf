/**
 * Reports (docs/notifications.md): for each enabled report automation, one report per period (daily or weekly at
 * its hour, in its time zone) listing every CVE of the project that changed in the period (that meets
 * the automation's conditions) with its changes, highest CVSS and counts by severity; delivered
 * through the automation's notifications, and recorded as an execution.
 */
import { executionCve } from '../domain/automation-execution.ts';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AutomationRepository } from '../db/automation.repository.ts';
import type { AutomationRow } from '../domain/automation.ts';
import { EventRepository } from '../db/event.repository.ts';
import { NotificationRepository } from '../db/notification.repository.ts';
import { ReportRepository } from '../db/report.repository.ts';
import type { PeriodEvent, ReportPeriodType, ReportRow } from '../domain/report.ts';
import type { CveFacts } from '../domain/cve-facts.ts';
import { conditionsHold, type AutomationConfiguration } from '../domain/automation.ts';
import { AppError } from '../domain/errors.ts';
import { periodEvents } from '../domain/project-events.ts';
import type { ReportFrequency } from '../domain/automation.ts';
import { severityOf, type Severity } from '../domain/cvss.ts';
import { buildReport, lastPeriod, newReportLink } from '../domain/report.ts';
import { assertPageInRange, offsetOf, type PageRequest } from '../domain/paging.ts';
import type { DeliveryRequest, DeliveryService } from './delivery.service.ts';
import type { ProjectService } from './project.service.ts';
import type { TrackerAutomation } from './tracker-automation.service.ts';
import {
  conditionSubject,
  notificationRefusal,
  payloadCve,
  trackerAction,
  type ActionResult,
} from './automation-actions.ts';

/** The job that makes the reports whose period has ended (queued by the scheduler every minute). */
export const REPORTS_DUE_JOB = 'reports.due';

/** One CVE of a report: its facts now, what matched, and the period's events and changes. */
export interface ReportCve {
  cve_id: string;
  /** The CVE's dates and description, as a CVE list item shows them (null: no longer in the catalog). */
  created_at: Date | null;
  updated_at: Date | null;
  description: string | null;
  title: string | null;
  cvss31: number | null;
  highest_cvss: number | null;
  kev: boolean;
  epss: number | null;
  matched_keys: string[];
  event_types: string[];
  events: { type: string; details: unknown }[];
  changes: { id: string; created_at: Date; types: string[]; data: unknown[] }[];
}

/**
 * What became of one of a report's notifications: `sent`, `queued` (a delivery waiting for its
 * turn or its next attempt), `failed` (its attempts ran out, or the action could not send) or
 * `not_sent` (skipped: the notification is disabled, or the period had no change); `reason` says why.
 */
export interface ReportSend {
  notification: string;
  status: 'sent' | 'queued' | 'failed' | 'not_sent';
  reason: string | null;
}

/** A report with its CVEs. */
export interface ReportDetail {
  report: ReportRow;
  cves: ReportCve[];
}

const DAY_MS = 86_400_000;

/** One CVE of a project's week in the organization's weekly report. */
export interface WeekCve {
  cve_id: string;
  title: string | null;
  highest_cvss: number | null;
  kev: boolean;
  /** It entered the project in the week. */
  entered: boolean;
  /** CISA added it to KEV in the week. */
  kev_added: boolean;
  /** Its triage status in the project now (null: none). */
  status: string | null;
}

/** One project's week: the CVEs that entered or changed, counted by severity and triage status. */
export interface WeekProject {
  name: string;
  cves: WeekCve[];
  entered: number;
  changed: number;
  kev_added: number;
  severity_counts: Record<Severity, number>;
  /** By triage status, `no_status` for CVEs without one. */
  status_counts: Record<string, number>;
}

/** The organization's week across its active projects; totals count each CVE once. */
export interface OrganizationWeek {
  period: { start: Date; end: Date };
  projects: WeekProject[];
  totals: { cves: number; entered: number; kev_added: number; severity_counts: Record<Severity, number> };
}

const noSeverities = (): Record<Severity, number> => ({ critical: 0, high: 0, medium: 0, low: 0, none: 0 });

export class ReportService {
  private readonly reports: ReportRepository;
  private readonly automations: AutomationRepository;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly projects: ProjectService,
    private readonly trackerAutomation: TrackerAutomation,
    private readonly deliveries: DeliveryService,
  ) {
    this.reports = new ReportRepository(db);
    this.automations = new AutomationRepository(db);
  }

  /** The project's reports, newest first; only those of `periodType` when given. */
  async list(organizationId: string, projectName: string, page: PageRequest, periodType?: ReportPeriodType) {
    const project = await this.projects.findActive(organizationId, projectName);
    const count = await this.reports.count(project.id, periodType);
    assertPageInRange(page, count);
    return {
      count,
      items: await this.reports.list(project.id, page.pageSize, offsetOf(page), periodType),
    };
  }

  async get(organizationId: string, projectName: string, id: string): Promise<ReportDetail> {
    const project = await this.projects.findActive(organizationId, projectName);
    const row = /^[0-9a-f-]{36}$/.test(id) ? await this.reports.find(project.id, id) : undefined;
    if (!row) throw new AppError('not_found');
    return this.detail(row);
  }

  /**
   * What became of each notification a report (one `get` returned, so already checked to be the
   * project's) was sent through (ReportSend), in action order.
   */
  async sends(report: ReportRow): Promise<ReportSend[]> {
    return (await this.reports.sends(report.id)).map(({ result, delivery }) => {
      const { details } = result;
      const notification = String(details.notification ?? '–');
      const why = (value: unknown) => (typeof value === 'string' ? value : null);
      if (result.status === 'skipped') {
        const reason = details.reason === 'disabled' ? 'the notification is disabled' : why(details.reason);
        return { notification, status: 'not_sent', reason };
      }
      if (result.status === 'failed' || !delivery)
        return { notification, status: 'failed', reason: why(details.error) };
      if (delivery.status === 'succeeded') return { notification, status: 'sent', reason: null };
      if (delivery.status === 'pending') return { notification, status: 'queued', reason: delivery.error };
      return { notification, status: 'failed', reason: delivery.error };
    });
  }

  async detail(row: ReportRow): Promise<ReportDetail> {
    const items = await this.reports.items(row.id);
    const changes = await this.reports.changes(items.flatMap((i) => i.change_ids));
    const cves = await this.reports.cveSummaries(items.map((i) => i.cve_id));
    const dates = await this.reports.cveDates(items.map((i) => i.cve_id));
    return {
      report: row,
      cves: items.map((i) => {
        const cve = cves.get(i.cve_id);
        return {
          cve_id: i.cve_id,
          created_at: dates.get(i.cve_id)?.created_at ?? null,
          updated_at: dates.get(i.cve_id)?.updated_at ?? null,
          description: cve?.description ?? null,
          title: cve?.title ?? null,
          cvss31: cve?.cvss31 ?? null,
          highest_cvss: i.highest_cvss,
          kev: cve?.kev ?? false,
          epss: cve?.epss ?? null,
          matched_keys: i.matched_keys,
          event_types: i.event_types,
          events: i.events,
          changes: changes
            .filter((c) => c.cve_id === i.cve_id && i.change_ids.includes(c.id))
            .map((c) => ({ id: c.id, created_at: c.created_at, types: c.types, data: c.data })),
        };
      }),
    };
  }

  /**
   * The organization-wide report of `period` (a week): for each active project, what a report of
   * that period would list (the same derivation as the project's reports, with no automation's
   * conditions), which CVEs entered it, which CISA added to KEV, by severity and triage status.
   * One derivation per project (docs/decisions.md has the measurement), then one statement for the
   * CVEs' facts and one for their tracker states.
   */
  async organizationWeek(
    organizationId: string,
    period: { start: Date; end: Date },
  ): Promise<OrganizationWeek> {
    const projects = [];
    for (let page = 1; ; page++) {
      const { count, items } = await this.projects.list(organizationId, { page, pageSize: 100 });
      projects.push(...items.filter((p) => p.active));
      if (page * 100 >= count) break;
    }
    projects.sort((a, b) => a.name.localeCompare(b.name));
    const perProject = [];
    for (const project of projects) {
      const { keys, items } = await this.reports.periodItems(project.id, period.start, period.end);
      perProject.push({ project, items: buildReport(periodEvents(items, keys)).items });
    }
    const ids = [...new Set(perProject.flatMap((p) => p.items.map((i) => i.cve_id)))];
    const facts = await this.reports.cveSummaries(ids);
    const tracker = await new EventRepository(this.db).trackerStates(
      perProject.flatMap((p) => p.items.map((i) => ({ projectId: p.project.id, cveId: i.cve_id }))),
    );
    const totals = { cves: ids.length, entered: new Set<string>(), kev: new Set<string>() };
    const severity = noSeverities();
    const highest = new Map(
      perProject.flatMap((p) => p.items.map((i) => [i.cve_id, i.highest_cvss] as const)),
    );
    for (const id of ids) severity[severityOf(highest.get(id) ?? null)]++;
    const weekProjects = perProject.map(({ project, items }): WeekProject => {
      const cves = items.map((i): WeekCve => {
        const cve = facts.get(i.cve_id);
        const types = new Set(i.events.map((e) => e.type));
        return {
          cve_id: i.cve_id,
          title: cve?.title ?? null,
          highest_cvss: i.highest_cvss,
          kev: cve?.kev ?? false,
          entered: types.has('cve_enters_project'),
          kev_added: types.has('kev_added'),
          status: tracker.get(`${project.id} ${i.cve_id}`)?.status ?? null,
        };
      });
      const severityCounts = noSeverities();
      const statusCounts: Record<string, number> = {};
      for (const c of cves) {
        severityCounts[severityOf(c.highest_cvss)]++;
        const status = c.status ?? 'no_status';
        statusCounts[status] = (statusCounts[status] ?? 0) + 1;
        if (c.entered) totals.entered.add(c.cve_id);
        if (c.kev_added) totals.kev.add(c.cve_id);
      }
      return {
        name: project.name,
        cves,
        entered: cves.filter((c) => c.entered).length,
        changed: cves.filter((c) => !c.entered).length,
        kev_added: cves.filter((c) => c.kev_added).length,
        severity_counts: severityCounts,
        status_counts: statusCounts,
      };
    });
    return {
      period,
      projects: weekProjects,
      totals: {
        cves: totals.cves,
        entered: totals.entered.size,
        kev_added: totals.kev.size,
        severity_counts: severity,
      },
    };
  }

  /** Generates every report whose period has ended (the `reports.due` job, every minute). */
  async runDue(now = new Date()): Promise<number> {
    let made = 0;
    for (const automation of await this.automations.enabledReports()) {
      const period = lastPeriod(scheduleOf(automation), now);
      // No report for a period that ended before the automation existed.
      if (period.end.getTime() <= new Date(automation.created_at).getTime()) continue;
      if (await this.generate(automation, automation.organization_id, period, now)) made++;
    }
    return made;
  }

  /**
   * `POST …/automations/<name>/run`: a report from the end of the last one (or one period back) to
   * now, generated and delivered at once.
   */
  async runNow(
    organizationId: string,
    automation: AutomationRow,
    now = new Date(),
  ): Promise<string | undefined> {
    if (automation.trigger_type !== 'report') return undefined;
    const last = await this.reports.lastPeriodEnd(automation.id);
    const span = automation.frequency === 'weekly' ? 7 * DAY_MS : DAY_MS;
    const start = last && last < now ? last : new Date(now.getTime() - span);
    return this.generate(automation, organizationId, { start, end: now }, now);
  }

  /**
   * The report of `automation` for `period`, with its execution and deliveries, in one transaction;
   * undefined when that period's report exists already (another worker made it).
   */
  async generate(
    automation: AutomationRow,
    organizationId: string,
    period: { start: Date; end: Date },
    now: Date,
  ): Promise<string | undefined> {
    return this.db.transaction().execute(async (tx) => {
      const reports = new ReportRepository(tx);
      if (await reports.exists(automation.id, period.start, period.end)) return undefined;
      const config = automation.configuration as unknown as AutomationConfiguration;
      const { kept, cves } = await this.periodMatches(
        automation.project_id,
        config.conditions,
        period,
        now,
        tx,
      );
      const content = buildReport(kept);
      const report = await reports.create(
        {
          link: newReportLink(),
          project_id: automation.project_id,
          automation_id: automation.id,
          period_start: period.start,
          period_end: period.end,
          summary: content.summary,
        },
        content.items,
        tx,
      );
      if (!report) return undefined;
      const results = await this.act(tx, automation, organizationId, report, content.items, cves);
      await new AutomationRepository(tx).insertExecutions(
        [
          {
            automation_id: automation.id,
            window_start: period.start,
            window_end: period.end,
            matched_cves_count: content.items.length,
            results,
            report_id: report.id,
            cves: content.items.flatMap((i) => {
              const cve = cves.get(i.cve_id);
              return cve ? [executionCve(cve, new Set(i.matched_keys))] : [];
            }),
          },
        ],
        tx,
      );
      return report.id;
    });
  }

  /**
   * What the project's recorded changes and EPSS moves of `period` brought it (`periodEvents`), kept
   * when the CVE meets `conditions` as it is now (with its tracker entry), and the facts of their
   * CVEs: what a report lists, and what an automation's dry run evaluates (AutomationService.dryRun).
   */
  async periodMatches(
    projectId: string,
    conditions: AutomationConfiguration['conditions'],
    period: { start: Date; end: Date },
    now: Date,
    tx: Kysely<DB> | Transaction<DB> = this.db,
    { sinceProjectCreation = true }: { sinceProjectCreation?: boolean } = {},
  ): Promise<{ kept: PeriodEvent[]; cves: Map<string, CveFacts> }> {
    const reports = new ReportRepository(tx);
    const { keys, items } = await reports.periodItems(
      projectId,
      period.start,
      period.end,
      tx,
      sinceProjectCreation,
    );
    const events = periodEvents(items, keys);
    const tracker = await new EventRepository(tx).trackerStates(
      events.map((e) => ({ projectId, cveId: e.cve_id })),
    );
    const cves = await reports.cveSummaries([...new Set(events.map((e) => e.cve_id))], tx);
    const kept = events.filter((e) => {
      const cve = cves.get(e.cve_id);
      if (!cve) return false;
      return conditionsHold(conditions, conditionSubject(cve, tracker.get(`${projectId} ${e.cve_id}`)), now);
    });
    return { kept, cves };
  }

  private async act(
    tx: Transaction<DB>,
    automation: AutomationRow,
    organizationId: string,
    report: ReportRow,
    items: ReturnType<typeof buildReport>['items'],
    cves: Awaited<ReturnType<ReportRepository['cveSummaries']>>,
  ) {
    const config = automation.configuration as unknown as AutomationConfiguration;
    const info = (await new EventRepository(tx).projectInfo([automation.project_id])).get(
      automation.project_id,
    )!;
    const notifications = await new NotificationRepository(tx).forProjects([automation.project_id], tx);
    const results: ActionResult[] = [];
    const cveIds = items.map((i) => i.cve_id);
    for (const action of config.actions) {
      switch (action.type) {
        case 'generate_report':
          results.push({ action: action.type, status: 'success', details: { report: report.id } });
          break;
        case 'send_notification': {
          const n = notifications.find((x) => x.name === action.value);
          const refusal = notificationRefusal(action, n);
          if (refusal) {
            results.push(refusal);
          } else if (!items.length) {
            results.push({
              action: action.type,
              status: 'skipped',
              details: { notification: n!.name, reason: 'no changes in the period' },
            });
          } else {
            const request: DeliveryRequest = {
              notification: n!,
              kind: 'report',
              organization: info.organization,
              project: info.name,
              title: `${automation.name}: ${items.length} CVE${items.length === 1 ? '' : 's'} changed in ${info.name}`,
              period: { start: report.period_start, end: report.period_end },
              changes: items.map((i) => ({
                cve: payloadCve(i.cve_id, cves.get(i.cve_id)!),
                events: i.events,
              })),
            };
            const [delivery] = await this.deliveries.queue(tx, [request]);
            results.push({
              action: action.type,
              status: 'success',
              details: { notification: n!.name, delivery },
            });
          }
          break;
        }
        case 'assign_user':
        case 'change_status':
          results.push(
            await trackerAction(this.trackerAutomation, tx, automation, organizationId, action, cveIds),
          );
          break;
      }
    }
    return results;
  }
}

function scheduleOf(a: AutomationRow) {
  return {
    frequency: (a.frequency ?? 'daily') as ReportFrequency,
    time: a.schedule_time ?? '08:00',
    timezone: a.schedule_timezone ?? 'UTC',
    weekday: a.schedule_weekday,
  };
}
