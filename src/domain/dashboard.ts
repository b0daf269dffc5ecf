/**
 * The project dashboard and the organization overview (docs/web-ui.md, "Projects: dashboard"): what
 * changed for a project since a moment (its feed, also an Atom feed), counts by triage status and
 * severity, open KEV CVEs, and who holds the open CVEs. Pure types and rules; no I/O.
 */
import { CVSS_LEVELS, cvssFilterLevelOf, type CvssLevel } from './cvss.ts';
import { isOpenStatus, NO_STATUS, TRIAGE_STATUSES, type TriageStatus } from './triage.ts';

/** A first visit's feed starts this long ago; the Atom feed always covers this long. */
export const FEED_DAYS = 7;
/** Views of a dashboard closer together than this are one visit: a reload keeps its feed. */
export const VISIT_GAP_MS = 30 * 60_000;
/** CVEs listed in a dashboard's feed (the latest changed first); the rest are counted. */
export const FEED_MAX_CVES = 50;
/** Entries of an Atom feed (the latest changes). */
export const ATOM_MAX_ENTRIES = 100;
/** Recorded changes read for one feed at most (the latest): a bound on a busy week's cost. */
export const FEED_MAX_CHANGES = 1000;

/** Readable names of the project events (domain/automation.ts's EVENT_TYPES). */
export const EVENT_LABELS: Record<string, string> = {
  cve_enters_project: 'entered the project',
  cvss_increased: 'CVSS increased',
  cvss_decreased: 'CVSS decreased',
  epss_increased: 'EPSS increased',
  epss_decreased: 'EPSS decreased',
  kev_added: 'added to KEV',
  new_vendor: 'new vendor',
  new_product: 'new product',
  description_changed: 'description changed',
  title_changed: 'title changed',
  new_reference: 'new reference',
  new_weakness: 'new weakness',
  affected_changed: 'affected versions changed',
  cve_affects_component: 'affects an inventory component',
};

export const eventLabel = (type: string): string => EVENT_LABELS[type] ?? type.replaceAll('_', ' ');

/** A CVE as a feed shows it. */
export interface FeedCveFacts {
  cve_id: string;
  title: string | null;
  description: string | null;
  cvss31: number | null;
  highest_cvss: number | null;
  kev: boolean;
}

/** One recorded change of a project's CVE, or one of its inventory events, with the events it brought to the project. */
export interface FeedChange extends FeedCveFacts {
  /** Null for an inventory event. */
  change_id: string | null;
  /** The inventory event's seq; null for a change. */
  event_seq: number | null;
  changed_at: Date;
  /** Event types (EVENT_LABELS), in the order the change brought them. */
  events: string[];
}

/** A CVE of a dashboard's feed: its changes in the window folded into one row. */
export interface FeedCve extends FeedCveFacts {
  /** The latest change's time. */
  changed_at: Date;
  /** Distinct event types over its changes, oldest first. */
  events: string[];
  changes: number;
}

/** A dashboard's feed: the CVEs that changed for the project since `since`, latest first. */
export interface DashboardFeed {
  since: Date;
  /** True on a user's first visit (the feed is the last FEED_DAYS days). */
  firstVisit: boolean;
  cves: FeedCve[];
  /** CVEs that changed in the window, listed or not. */
  total: number;
  /** More than FEED_MAX_CHANGES changes: the feed holds the latest only. */
  truncated: boolean;
}

/** Folds changes (any order) into one row per CVE, latest changed first. */
export function foldChanges(changes: readonly FeedChange[]): FeedCve[] {
  const byCve = new Map<string, FeedCve>();
  const sorted = [...changes].sort((a, b) => a.changed_at.getTime() - b.changed_at.getTime());
  for (const c of sorted) {
    const { change_id: _id, event_seq: _seq, changed_at, events, ...facts } = c;
    const row = byCve.get(c.cve_id);
    if (!row) {
      byCve.set(c.cve_id, { ...facts, changed_at, events: [...new Set(events)], changes: 1 });
      continue;
    }
    row.changed_at = changed_at;
    row.changes++;
    for (const e of events) if (!row.events.includes(e)) row.events.push(e);
  }
  return [...byCve.values()].sort(
    (a, b) => b.changed_at.getTime() - a.changed_at.getTime() || a.cve_id.localeCompare(b.cve_id),
  );
}

/** How many of a project's CVEs have a CVSS 3.1 score and KEV flag (the catalog's part). */
export interface CatalogCell {
  cvss31: number | null;
  kev: boolean;
  count: number;
}

/** How many of a project's CVEs with a triage status have a (status, score, KEV) combination. */
export interface CountCell extends CatalogCell {
  status: string | null;
}

export type StatusKey = TriageStatus | typeof NO_STATUS;

export interface DashboardCounts {
  /** The project's CVEs (REJECTED ones excepted). */
  total: number;
  /** Every status (and `no_status`), zero included, in TRIAGE_STATUSES order. */
  byStatus: { status: StatusKey; count: number }[];
  /** Every level of the tracker's `cvss` filter, zero included, critical first. */
  bySeverity: { level: CvssLevel; count: number }[];
  /** Open CVEs (no status, or not a closed one) by level. */
  openBySeverity: Record<CvssLevel, number>;
  /** KEV CVEs still open. */
  kevOpen: number;
}

/** The level of the tracker's `cvss` filter (CVSS 3.1) of a score; `empty` without one. */
export const levelOf = (cvss31: number | null): CvssLevel => cvssFilterLevelOf(cvss31);

/**
 * Counts by status, by severity, open by severity and open KEV: `catalog` groups every CVE of the
 * project, `tracked` those with a status (the rest have none, and are open).
 */
export function countsOf(catalog: readonly CatalogCell[], tracked: readonly CountCell[]): DashboardCounts {
  const status = new Map<string, number>();
  const severity = new Map<CvssLevel, number>();
  const openBySeverity = Object.fromEntries(CVSS_LEVELS.map((l) => [l, 0])) as Record<CvssLevel, number>;
  let total = 0;
  let kevOpen = 0;
  for (const cell of catalog) {
    const level = levelOf(cell.cvss31);
    total += cell.count;
    severity.set(level, (severity.get(level) ?? 0) + cell.count);
    openBySeverity[level] += cell.count;
    if (cell.kev) kevOpen += cell.count;
  }
  let withStatus = 0;
  for (const cell of tracked) {
    if (cell.status === null) continue;
    withStatus += cell.count;
    status.set(cell.status, (status.get(cell.status) ?? 0) + cell.count);
    if (!isOpenStatus(cell.status)) {
      openBySeverity[levelOf(cell.cvss31)] -= cell.count;
      if (cell.kev) kevOpen -= cell.count;
    }
  }
  status.set(NO_STATUS, total - withStatus);
  return {
    total,
    byStatus: ([NO_STATUS, ...TRIAGE_STATUSES] as StatusKey[]).map((s) => ({
      status: s,
      count: status.get(s) ?? 0,
    })),
    bySeverity: [...CVSS_LEVELS].reverse().map((level) => ({ level, count: severity.get(level) ?? 0 })),
    openBySeverity,
    kevOpen,
  };
}

/** A member holding open CVEs of a project (or of an organization's projects). */
export interface AssigneeCount {
  email: string;
  username: string;
  open: number;
}

/** An open CVE assigned to the member looking, in one of the organization's active projects. */
export interface AssignedCve {
  project: string;
  cveId: string;
  title: string | null;
  cvss31: number | null;
  kev: boolean;
  status: string | null;
}

/** A KEV CVE of the project not yet fixed. */
export interface OpenKevCve extends FeedCveFacts {
  status: string | null;
  assignee: string | null;
}

/** One project of the organization overview. */
export interface ProjectOverview {
  name: string;
  subscriptions: number;
  /** CVEs of the project published in the last FEED_DAYS days. */
  newThisWeek: number;
  openBySeverity: Record<CvssLevel, number>;
  open: number;
  kevOpen: number;
  /**
   * CVEs of the project that entered or changed since the member looking last visited its dashboard
   * (`since`: where its "Since your last visit" would start if opened now), counted as it counts
   * them; never opened: the last FEED_DAYS days (`visited` false). `more`: a busy period, counted
   * over its latest changes only.
   */
  sinceVisit: { count: number; since: Date; visited: boolean; more: boolean };
}

const SUMMARY_MAX = 140;

/** A CVE's title, else the start of its description. */
export function cveSummary(cve: Pick<FeedCveFacts, 'title' | 'description'>): string {
  const text = cve.title ?? cve.description ?? '';
  return text.length > SUMMARY_MAX ? `${text.slice(0, SUMMARY_MAX - 1)}…` : text;
}
