/**
 * From recorded changes to alert automations and deliveries (docs/notifications.md).
 *
 * The processor reads the change stream (and the EPSS moves) from a cursor kept in the database, a
 * chunk at a time; each chunk is one transaction that matches its items to the projects with alert
 * automations in one set-based statement, runs those automations (their executions, tracker moves,
 * reports and queued deliveries) and advances the cursor. So every change is matched once, an
 * interrupted run leaves nothing half done, and two workers never process the same chunk (the cursor
 * row is locked). Nothing is written per (project, change): a report derives its CVEs from the
 * recorded changes of its period (ReportService), and the deliveries of a chunk share one stored copy
 * of each CVE entry (DeliveryService).
 */
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { EventRepository, type EventStream, type StreamItem } from '../db/event.repository.ts';
import { AutomationRepository, type NewExecution } from '../db/automation.repository.ts';
import type { AutomationRow } from '../domain/automation.ts';
import { NotificationRepository, type NotificationRow } from '../db/notification.repository.ts';
import { ReportRepository } from '../db/report.repository.ts';
import {
  conditionsHold,
  triggersFire,
  type AutomationAction,
  type AutomationConfiguration,
  type ProjectEventEntry,
} from '../domain/automation.ts';
import type { CveFacts } from '../domain/cve-facts.ts';
import { executionCve, type ExecutionCve } from '../domain/automation-execution.ts';
import {
  concernsProjects,
  itemEvents,
  keyFlags,
  type KeyFlag,
  type ProjectMatch,
} from '../domain/project-events.ts';
import { buildReport, newReportLink } from '../domain/report.ts';
import { keywordFlags } from './keyword-events.ts';
import { inventoryFlags } from './inventory-events.ts';
import { inventoryFlagKey } from '../domain/inventory.ts';
import type { NotificationChange } from '../notifications/payload.ts';
import type { DeliveryRequest, DeliveryService } from './delivery.service.ts';
import type { TrackerAutomation } from './tracker-automation.service.ts';
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
  /** (project, item) pairs matched for projects with alert automations. */
  events: number;
  executions: number;
  deliveries: number;
}

/** One item as a project sees it: one object per (item, enters), shared by the projects that see it so. */
interface MatchedEvent {
  item: StreamItem;
  enters: boolean;
  events: ProjectEventEntry[];
  types: string[];
}

const CHUNK = 1000;
const EPSS_MOVES_KEPT_MS = 30 * 86_400_000;

/**
 * What a chunk's items bring, computed once per (item, enters) and shared by the projects that see
 * it so; likewise each CVE's payload entry per combination of its events (the deliveries store each
 * distinct entry once).
 */
class Chunk {
  private readonly events = new Map<number, MatchedEvent>();
  private readonly single = new Map<MatchedEvent, NotificationChange>();
  private readonly entries = new Map<string, NotificationChange>();

  constructor(readonly bySeq: ReadonlyMap<number, StreamItem>) {}

  event(seq: number, enters: boolean): MatchedEvent {
    const key = seq * 2 + (enters ? 1 : 0);
    let e = this.events.get(key);
    if (!e) {
      const item = this.bySeq.get(seq)!;
      const events = itemEvents(item, enters);
      e = { item, enters, events, types: events.map((x) => x.type) };
      this.events.set(key, e);
    }
    return e;
  }

  /** One payload entry per CVE, its events in order. */
  payloadChanges(matched: readonly MatchedEvent[]): NotificationChange[] {
    const byCve = new Map<string, MatchedEvent[]>();
    for (const e of matched) {
      const list = byCve.get(e.item.cveId);
      if (list) list.push(e);
      else byCve.set(e.item.cveId, [e]);
    }
    const out: NotificationChange[] = [];
    for (const [cveId, list] of byCve) {
      const entry = list.length === 1 ? this.single.get(list[0]!) : this.entries.get(entryKey(list));
      if (entry) {
        out.push(entry);
        continue;
      }
      const made = { cve: payloadCve(cveId, list[0]!.item.cve), events: list.flatMap((e) => e.events) };
      if (list.length === 1) this.single.set(list[0]!, made);
      else this.entries.set(entryKey(list), made);
      out.push(made);
    }
    return out;
  }
}

const entryKey = (list: readonly MatchedEvent[]) =>
  list.map((e) => `${e.item.seq}${e.enters ? '+' : ''}`).join(' ');

/** True when the tree holds for every CVE whatever it is (the empty AND), so nothing need be read. */
const alwaysHolds = (c: AutomationConfiguration['conditions']) => c.operator === 'AND' && !c.children.length;

export class EventProcessor {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly trackerAutomation: TrackerAutomation,
    private readonly deliveries: DeliveryService,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Processes everything recorded so far, chunk by chunk. */
  async processPending(): Promise<ProcessReport> {
    const total: ProcessReport = { items: 0, events: 0, executions: 0, deliveries: 0 };
    // The inventory stream last: the changes' chunks record what inventories newly find.
    for (const stream of ['changes', 'epss', 'inventory'] as const) {
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
    const all = await repo.readChunk(stream, from, CHUNK);
    const report: ProcessReport = { items: all.length, events: 0, executions: 0, deliveries: 0 };
    if (!all.length) return report;
    // Imported history (OpenCVE's KB) happened before it came here: passed over, the cursor moves on.
    const items = all.filter((i) => !i.imported);

    // An inventory item concerns its one project (it enters it unless listed there otherwise).
    const flagsOf =
      stream === 'inventory'
        ? (i: StreamItem) =>
            i.inventory
              ? [{ key: inventoryFlagKey(i.inventory.projectId), now: true, before: !i.inventory.enters }]
              : []
        : await this.catalogFlags(tx, stream, all);
    const matches = await repo.alertMatches(
      items.filter(concernsProjects).map((i) => ({ seq: i.seq, flags: flagsOf(i) })),
    );
    report.events = matches.reduce((n, m) => n + m.seqs.length, 0);
    if (matches.length) {
      const automations = await new AutomationRepository(tx).enabledAlerts(matches.map((m) => m.projectId));
      const chunk = new Chunk(new Map(items.map((i) => [i.seq, i])));
      const { executions, deliveries } = await this.runAlerts(tx, repo, chunk, automations, matches);
      report.executions = executions;
      report.deliveries = deliveries;
    }
    await repo.advanceCursor(stream, all.at(-1)!.seq);
    // EPSS moves are only this processor's input (and reports'): a month of them is kept.
    if (stream === 'epss')
      await repo.purgeEpssMoves(all.at(-1)!.seq, new Date(Date.now() - EPSS_MOVES_KEPT_MS));
    return report;
  }

  /**
   * The flags of a chunk of catalog changes or EPSS moves: the CVE's vendor keys, its watched
   * keywords' and its inventories' (both kept for every item, imported history included:
   * `cve_keyword` and the findings follow the catalog).
   */
  private async catalogFlags(
    tx: Transaction<DB>,
    stream: EventStream,
    all: readonly StreamItem[],
  ): Promise<(i: StreamItem) => KeyFlag[]> {
    const byKeyword = await keywordFlags(tx, stream, all);
    const byInventory = await inventoryFlags(tx, stream, all);
    return (i) => [...keyFlags(i), ...(byKeyword.get(i.seq) ?? []), ...(byInventory.get(i.seq) ?? [])];
  }

  /**
   * Runs the chunk's alert automations: what they read is read once for all of them (AlertReads),
   * then each automation that matched events runs its actions in order, one function per action.
   * The deliveries are queued together and each execution records the ones it queued.
   */
  private async runAlerts(
    tx: Transaction<DB>,
    repo: EventRepository,
    chunk: Chunk,
    automations: AutomationRow[],
    matches: ProjectMatch[],
  ): Promise<{ executions: number; deliveries: number }> {
    const reads = await readForAlerts(tx, repo, chunk, automations, matches);
    const now = this.now();
    const executions: NewExecution[] = [];
    const requests: DeliveryRequest[] = [];
    const runs = automations.flatMap((a) => alertRun(reads, a, now) ?? []);
    // Each execution keeps its matched CVEs with the subscriptions they matched: the keys of the
    // projects that ran and were not read for a report yet.
    const missing = [...new Set(runs.map((r) => r.automation.project_id))].filter(
      (id) => !reads.keys.has(id),
    );
    for (const [id, keys] of await repo.subscribedKeys(missing)) reads.keys.set(id, keys);
    for (const run of runs) {
      const { automation } = run;
      const results: ActionResult[] = [];
      let reportId: string | null = null;
      for (const action of run.config.actions) {
        switch (action.type) {
          case 'send_notification':
            results.push(sendNotification(reads, run, action, requests));
            break;
          case 'assign_user':
          case 'change_status':
            results.push(
              await trackerAction(
                this.trackerAutomation,
                tx,
                automation,
                run.project.organizationId,
                action,
                run.cveIds,
              ),
            );
            break;
          case 'generate_report': {
            const result = await generateReport(tx, reads, run, now);
            reportId = result.details.report as string | null;
            results.push(result);
            break;
          }
        }
      }
      executions.push({
        automation_id: automation.id,
        window_start: run.window.start,
        window_end: run.window.end,
        matched_cves_count: run.cveIds.length,
        results,
        report_id: reportId,
        cves: executionCves(run, reads.keys.get(automation.project_id) ?? new Set()),
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

type ProjectInfo = { name: string; organizationId: string; organization: string };

/** What the chunk's alert automations read, once for all of them. */
interface AlertReads {
  chunk: Chunk;
  /** The events of each project. */
  byProject: Map<string, MatchedEvent[]>;
  /** Tracker entries by `${projectId} ${cveId}`, only of projects whose conditions may read them. */
  tracker: Map<string, { status: string | null; assignee: string | null }>;
  /** Subscribed keys, only of projects that make a report. */
  keys: Map<string, Set<string>>;
  projects: Map<string, ProjectInfo>;
  /** Notifications by `${projectId} ${name}`. */
  notifications: Map<string, NotificationRow>;
}

/** One automation's run: the events it matched, their window, their CVEs and their payload entries. */
interface AlertRun {
  automation: AutomationRow;
  config: AutomationConfiguration;
  project: ProjectInfo;
  matched: MatchedEvent[];
  window: { start: Date; end: Date };
  cveIds: string[];
  changes: NotificationChange[];
}

const configOf = (a: AutomationRow) => a.configuration as unknown as AutomationConfiguration;

async function readForAlerts(
  tx: Transaction<DB>,
  repo: EventRepository,
  chunk: Chunk,
  automations: AutomationRow[],
  matches: ProjectMatch[],
): Promise<AlertReads> {
  const byProject = new Map<string, MatchedEvent[]>();
  for (const m of matches)
    byProject.set(
      m.projectId,
      m.seqs.map((seq, i) => chunk.event(seq, m.enters[i]!)),
    );
  const projectIds = [...new Set(automations.map((a) => a.project_id))];
  // Tracker entries only where a condition may read them, and subscribed keys only where a report is made.
  const conditional = new Set(
    automations.filter((a) => !alwaysHolds(configOf(a).conditions)).map((a) => a.project_id),
  );
  const tracker = await repo.trackerStates(
    [...conditional].flatMap((projectId) =>
      (byProject.get(projectId) ?? []).map((e) => ({ projectId, cveId: e.item.cveId })),
    ),
  );
  const keys = await repo.subscribedKeys(
    automations
      .filter((a) => configOf(a).actions.some((x) => x.type === 'generate_report'))
      .map((a) => a.project_id),
  );
  const projects = await repo.projectInfo(projectIds);
  const notifications = new Map<string, NotificationRow>();
  for (const n of await new NotificationRepository(tx).forProjects(projectIds, tx))
    notifications.set(`${n.project_id} ${n.name}`, n);
  return { chunk, byProject, tracker, keys, projects, notifications };
}

/** The run of `automation` over the events of its project its triggers and conditions match; undefined for none. */
function alertRun(reads: AlertReads, automation: AutomationRow, now: Date): AlertRun | undefined {
  const config = configOf(automation);
  const triggers = new Set<string>(config.triggers);
  const always = alwaysHolds(config.conditions);
  const matched = (reads.byProject.get(automation.project_id) ?? []).filter((e) => {
    if (!triggersFire(triggers, e.types)) return false;
    if (always) return true;
    return conditionsHold(
      config.conditions,
      conditionSubject(e.item.cve, reads.tracker.get(`${automation.project_id} ${e.item.cveId}`)),
      now,
    );
  });
  if (!matched.length) return undefined;
  let start = Infinity;
  let end = -Infinity;
  for (const e of matched) {
    start = Math.min(start, e.item.changedAt.getTime());
    end = Math.max(end, e.item.changedAt.getTime());
  }
  return {
    automation,
    config,
    project: reads.projects.get(automation.project_id)!,
    matched,
    window: { start: new Date(start), end: new Date(end) },
    cveIds: [...new Set(matched.map((e) => e.item.cveId))],
    changes: reads.chunk.payloadChanges(matched),
  };
}

/** The execution's table of matched CVEs, one row per CVE as it is in this chunk. */
function executionCves(run: AlertRun, subscribed: ReadonlySet<string>): ExecutionCve[] {
  const rows = new Map<string, ExecutionCve>();
  for (const e of run.matched) rows.set(e.item.cveId, executionCve(e.item.cve, subscribed));
  return [...rows.values()];
}

/** `send_notification`: a delivery request added to `requests` (queued with the chunk's others). */
function sendNotification(
  reads: AlertReads,
  run: AlertRun,
  action: AutomationAction,
  requests: DeliveryRequest[],
): ActionResult {
  const { automation, project, cveIds } = run;
  const n = reads.notifications.get(`${automation.project_id} ${String(action.value)}`);
  const refusal = notificationRefusal(action, n);
  if (refusal) return refusal;
  requests.push({
    notification: n!,
    kind: 'alert',
    organization: project.organization,
    project: project.name,
    title: `${automation.name}: ${cveIds.length === 1 ? cveIds[0] : `${cveIds.length} CVEs`} in ${project.name}`,
    period: run.window,
    changes: run.changes,
  });
  return { action: action.type, status: 'success', details: { notification: n!.name } };
}

/** `generate_report`: a report of the matched events, from the window's start to now (`details.report`: its id). */
async function generateReport(
  tx: Transaction<DB>,
  reads: AlertReads,
  run: AlertRun,
  now: Date,
): Promise<ActionResult> {
  const { automation } = run;
  const subscribed = reads.keys.get(automation.project_id) ?? new Set<string>();
  const content = buildReport(
    run.matched.map((e) => ({
      cve_id: e.item.cveId,
      change_id: e.item.changeId,
      types: e.types,
      matched_keys: e.item.cve.vendors.filter((k) => subscribed.has(k)),
      events: e.events,
      highest_cvss: highestCvss(e.item.cve),
    })),
  );
  const report = await new ReportRepository(tx).create(
    {
      link: newReportLink(),
      project_id: automation.project_id,
      automation_id: automation.id,
      period_start: run.window.start,
      period_end: now,
      summary: content.summary,
    },
    content.items,
    tx,
  );
  return {
    action: 'generate_report',
    status: report ? 'success' : 'skipped',
    details: { report: report?.id ?? null },
  };
}

export function highestCvss(cve: Pick<CveFacts, 'cvss20' | 'cvss30' | 'cvss31' | 'cvss40'>): number | null {
  const scores = [cve.cvss20, cve.cvss30, cve.cvss31, cve.cvss40].filter((s): s is number => s !== null);
  return scores.length ? Math.max(...scores) : null;
}
