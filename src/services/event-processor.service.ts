/**
 * From recorded changes to project events, alert automations and deliveries (SPEC §7).
 *
 * The processor reads the change stream (and the EPSS moves) from a cursor kept in the database, a
 * chunk at a time; each chunk is one transaction that matches its items to projects in one set-based
 * statement, writes the project events, runs the alert automations of the projects concerned (their
 * executions, tracker moves, reports and queued deliveries) and advances the cursor. So every change
 * is matched once, an interrupted run leaves nothing half done, and two workers never process the same
 * chunk (the cursor row is locked).
 */
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import {
  EventRepository,
  type EventStream,
  type NewProjectEvent,
  type StreamItem,
} from '../db/event.repository.ts';
import { AutomationRepository, type AutomationRow, type NewExecution } from '../db/automation.repository.ts';
import { NotificationRepository, type NotificationRow } from '../db/notification.repository.ts';
import { ReportRepository } from '../db/report.repository.ts';
import {
  conditionsHold,
  eventsOfChange,
  eventsOfEpssMove,
  type AutomationConfiguration,
  type ProjectEventEntry,
} from '../domain/automation.ts';
import type { ChangeEntry } from '../domain/cve-change.ts';
import { buildReport, newReportLink } from '../domain/report.ts';
import type { NotificationChange } from '../notifications/payload.ts';
import type { DeliveryRequest, DeliveryService } from './delivery.service.ts';
import type { TrackerService } from './tracker.service.ts';
import {
  conditionSubject,
  notificationRefusal,
  payloadCve,
  trackerAction,
  type ActionResult,
} from './automation-actions.ts';

export const PROCESS_EVENTS_JOB = 'events.process';

export interface ProcessReport {
  /** Changes and EPSS moves read. */
  items: number;
  /** Project events written. */
  events: number;
  executions: number;
  deliveries: number;
}

interface MatchedEvent extends NewProjectEvent {
  item: StreamItem;
}

const CHUNK = 1000;
const EPSS_MOVES_KEPT_MS = 30 * 86_400_000;

function vendorsEntry(entries: readonly ChangeEntry[]): { added: string[]; removed: string[] } {
  const entry = entries.find((e) => e.type === 'vendors');
  const d = (entry?.details ?? {}) as { added?: string[]; removed?: string[] };
  return { added: d.added ?? [], removed: d.removed ?? [] };
}

export class EventProcessor {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly tracker: TrackerService,
    private readonly deliveries: DeliveryService,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Processes everything recorded so far, chunk by chunk. */
  async processPending(): Promise<ProcessReport> {
    const total: ProcessReport = { items: 0, events: 0, executions: 0, deliveries: 0 };
    for (const stream of ['changes', 'epss'] as const) {
      for (;;) {
        const r = await this.db.transaction().execute((tx) => this.processChunk(tx, stream));
        total.items += r.items;
        total.events += r.events;
        total.executions += r.executions;
        total.deliveries += r.deliveries;
        if (r.items < CHUNK) break;
      }
    }
    return total;
  }

  private async processChunk(tx: Transaction<DB>, stream: EventStream): Promise<ProcessReport> {
    const repo = new EventRepository(tx);
    const from = await repo.lockCursor(stream);
    const items = await repo.readChunk(stream, from, CHUNK);
    const report: ProcessReport = { items: items.length, events: 0, executions: 0, deliveries: 0 };
    if (!items.length) return report;

    // A rejected CVE leaves every project; only the rejection itself is news.
    const relevant = items.filter(
      (i) => i.cve.state !== 'REJECTED' || (!i.epss && i.entries.some((e) => e.type === 'state')),
    );
    const matches = await repo.matchProjects(
      relevant.map((i) => ({ seq: i.seq, keys: i.cve.vendors, removed: vendorsEntry(i.entries).removed })),
    );
    const bySeq = new Map(items.map((i) => [i.seq, i]));
    // A change brings the same events to every project it matches, but for "enters the project":
    // computed once per (change, enters), and shared, so the rows send one copy of them.
    const changeEvents = new Map<string, ProjectEventEntry[]>();
    const events: MatchedEvent[] = [];
    for (const m of matches) {
      const item = bySeq.get(m.seq)!;
      if (!m.keysNow.length) continue; // the CVE left this project
      let entries: ProjectEventEntry[];
      if (item.epss) {
        entries = eventsOfEpssMove(item.epss.old, item.epss.new);
        if (!entries.length) continue;
      } else {
        const created = item.entries.some((e) => e.type === 'created');
        const { added } = vendorsEntry(item.entries);
        const before = [...m.keysNow.filter((k) => !added.includes(k)), ...m.keysRemoved];
        const enters = created || before.length === 0;
        const key = `${item.seq} ${enters}`;
        entries = changeEvents.get(key) ?? eventsOfChange(item.entries, enters);
        changeEvents.set(key, entries);
      }
      events.push({
        item,
        project_id: m.projectId,
        cve_id: item.cveId,
        change_id: item.changeId,
        changed_at: item.changedAt,
        types: entries.map((e) => e.type),
        matched_keys: m.keysNow,
        events: entries,
      });
    }
    await repo.insertEvents(events.map(({ item: _item, ...row }) => row));
    report.events = events.length;

    const automations = await new AutomationRepository(tx).enabledAlerts([
      ...new Set(events.map((e) => e.project_id)),
    ]);
    if (automations.length) {
      const { executions, deliveries } = await this.runAlerts(tx, repo, automations, events);
      report.executions = executions;
      report.deliveries = deliveries;
    }
    await repo.advanceCursor(stream, items.at(-1)!.seq);
    // EPSS moves are only this processor's input: a month of them is kept for inspection.
    if (stream === 'epss')
      await repo.purgeEpssMoves(items.at(-1)!.seq, new Date(Date.now() - EPSS_MOVES_KEPT_MS));
    return report;
  }

  private async runAlerts(
    tx: Transaction<DB>,
    repo: EventRepository,
    automations: AutomationRow[],
    events: MatchedEvent[],
  ): Promise<{ executions: number; deliveries: number }> {
    const withAutomations = new Set(automations.map((a) => a.project_id));
    const projectIds = [...withAutomations];
    const byProject = new Map<string, MatchedEvent[]>();
    for (const e of events) {
      if (!withAutomations.has(e.project_id)) continue;
      const list = byProject.get(e.project_id);
      if (list) list.push(e);
      else byProject.set(e.project_id, [e]);
    }
    const pairs = [...byProject.values()].flat().map((e) => ({ projectId: e.project_id, cveId: e.cve_id }));
    const tracker = await repo.trackerStates(pairs);
    const projects = await repo.projectInfo(projectIds);
    const notifications = new Map<string, NotificationRow>();
    for (const n of await new NotificationRepository(tx).forProjects(projectIds, tx))
      notifications.set(`${n.project_id} ${n.name}`, n);

    const now = this.now();
    const executions: NewExecution[] = [];
    const requests: DeliveryRequest[] = [];
    for (const automation of automations) {
      const config = automation.configuration as unknown as AutomationConfiguration;
      const project = projects.get(automation.project_id)!;
      const matched = (byProject.get(automation.project_id) ?? []).filter((e) => {
        if (!e.types.some((t) => (config.triggers as string[]).includes(t))) return false;
        return conditionsHold(
          config.conditions,
          conditionSubject(e.item.cve, tracker.get(`${e.project_id} ${e.cve_id}`)),
          now,
        );
      });
      if (!matched.length) continue;

      const window = {
        start: new Date(Math.min(...matched.map((e) => e.changed_at.getTime()))),
        end: new Date(Math.max(...matched.map((e) => e.changed_at.getTime()))),
      };
      const cveIds = [...new Set(matched.map((e) => e.cve_id))];
      const changes = payloadChanges(matched);
      const results: ActionResult[] = [];
      let reportId: string | null = null;
      for (const action of config.actions) {
        switch (action.type) {
          case 'send_notification': {
            const n = notifications.get(`${automation.project_id} ${String(action.value)}`);
            const refusal = notificationRefusal(action, n);
            if (refusal) {
              results.push(refusal);
              break;
            }
            requests.push({
              notification: n!,
              kind: 'alert',
              organization: project.organization,
              project: project.name,
              title: `${automation.name}: ${cveIds.length === 1 ? cveIds[0] : `${cveIds.length} CVEs`} in ${project.name}`,
              period: window,
              changes,
            });
            results.push({ action: action.type, status: 'success', details: { notification: n!.name } });
            break;
          }
          case 'assign_user':
          case 'change_status':
            results.push(
              await trackerAction(this.tracker, tx, automation, project.organizationId, action, cveIds),
            );
            break;
          case 'generate_report': {
            const content = buildReport(
              matched.map((e) => ({ ...e, highest_cvss: highestCvss(e.item.cve) })),
            );
            const report = await new ReportRepository(tx).create(
              {
                link: newReportLink(),
                project_id: automation.project_id,
                automation_id: automation.id,
                period_start: window.start,
                period_end: now,
                summary: content.summary,
              },
              content.items,
              tx,
            );
            reportId = report?.id ?? null;
            results.push({
              action: action.type,
              status: report ? 'success' : 'skipped',
              details: { report: reportId },
            });
            break;
          }
        }
      }
      executions.push({
        automation_id: automation.id,
        window_start: window.start,
        window_end: window.end,
        matched_cves_count: cveIds.length,
        results,
        report_id: reportId,
      });
    }
    const ids = await this.deliveries.queue(tx, requests);
    // Each execution says which delivery its send_notification actions queued.
    let next = 0;
    for (const e of executions)
      for (const r of e.results as ActionResult[])
        if (r.action === 'send_notification' && r.status === 'success') r.details.delivery = ids[next++];
    await new AutomationRepository(tx).insertExecutions(executions, tx);
    return { executions: executions.length, deliveries: ids.length };
  }
}

export function highestCvss(
  cve: Pick<StreamItem['cve'], 'cvss20' | 'cvss30' | 'cvss31' | 'cvss40'>,
): number | null {
  const scores = [cve.cvss20, cve.cvss30, cve.cvss31, cve.cvss40].filter((s): s is number => s !== null);
  return scores.length ? Math.max(...scores) : null;
}

/** One payload entry per CVE, its events in order. */
function payloadChanges(events: readonly MatchedEvent[]): NotificationChange[] {
  const byCve = new Map<string, NotificationChange>();
  for (const e of events) {
    const entry = byCve.get(e.cve_id) ?? { cve: payloadCve(e.cve_id, e.item.cve), events: [] };
    entry.events.push(...e.events);
    byCve.set(e.cve_id, entry);
  }
  return [...byCve.values()];
}
