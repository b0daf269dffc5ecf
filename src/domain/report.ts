/**
 * Reports (docs/notifications.md), the pure part: the period a report automation covers, the link of a report,
 * and a report's CVEs and summary from what the period's changes brought to the project.
 */
import { randomInt } from 'node:crypto';
import { Cron } from 'croner';
import type { ProjectEventEntry, ReportFrequency } from './automation.ts';
import { severityOf, type Severity } from './cvss.ts';

export interface ReportSchedule {
  frequency: ReportFrequency;
  /** `HH:MM`, in `timezone`. */
  time: string;
  /** An IANA time zone name. */
  timezone: string;
  /** 0 (Sunday) to 6, weekly only. */
  weekday: number | null;
}

export const SCHEDULE_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/** True when `name` is an IANA time zone this runtime knows. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$|^UTC$/.test(name);
  } catch {
    return false;
  }
}

function cronOf(schedule: ReportSchedule): Cron {
  const [hour, minute] = schedule.time.split(':').map(Number);
  const weekday = schedule.frequency === 'weekly' ? String(schedule.weekday ?? 1) : '*';
  return new Cron(`${minute} ${hour} * * ${weekday}`, { timezone: schedule.timezone, paused: true });
}

/**
 * The last complete period at `now`: from the scheduled time before last to the last scheduled time
 * (local time in the schedule's zone, so a daily report at 08:00 Europe/Paris covers 08:00 to 08:00
 * Paris time, 23 or 25 hours across a DST change).
 */
export function lastPeriod(schedule: ReportSchedule, now: Date): { start: Date; end: Date } {
  const [end, start] = cronOf(schedule).previousRuns(2, now);
  return { start: start!, end: end! };
}

const LINK_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A report's link: 12 upper-case alphanumeric characters (API v1's report id). */
export function newReportLink(): string {
  let out = '';
  for (let i = 0; i < 12; i++) out += LINK_ALPHABET[randomInt(LINK_ALPHABET.length)];
  return out;
}

/** What one change or EPSS move of the period brought to the project (domain/project-events.ts `periodEvents`). */
export interface PeriodEvent {
  cve_id: string;
  change_id: string | null;
  types: string[];
  matched_keys: string[];
  events: ProjectEventEntry[];
  highest_cvss: number | null;
}

export interface ReportCve {
  cve_id: string;
  matched_keys: string[];
  event_types: string[];
  change_ids: string[];
  events: ProjectEventEntry[];
  highest_cvss: number | null;
}

export interface ReportContent {
  items: ReportCve[];
  summary: {
    cves_count: number;
    highest_cvss: number | null;
    severity_counts: Record<Severity, number>;
  };
}

const union = (a: string[], b: readonly string[]) => [...new Set([...a, ...b])].sort();

/** One entry per CVE (its events in order, the keys that matched, its changes) and the summary. */
export function buildReport(events: readonly PeriodEvent[]): ReportContent {
  const byCve = new Map<string, ReportCve>();
  for (const e of events) {
    let item = byCve.get(e.cve_id);
    if (!item) {
      item = {
        cve_id: e.cve_id,
        matched_keys: [],
        event_types: [],
        change_ids: [],
        events: [],
        highest_cvss: e.highest_cvss,
      };
      byCve.set(e.cve_id, item);
    }
    item.matched_keys = union(item.matched_keys, e.matched_keys);
    item.event_types = union(item.event_types, e.types);
    if (e.change_id) item.change_ids.push(e.change_id);
    item.events.push(...e.events);
  }
  const items = [...byCve.values()].sort(
    (a, b) => (b.highest_cvss ?? -1) - (a.highest_cvss ?? -1) || a.cve_id.localeCompare(b.cve_id),
  );
  const counts: Record<Severity, number> = { critical: 0, high: 0, medium: 0, low: 0, none: 0 };
  for (const item of items) counts[severityOf(item.highest_cvss)]++;
  const scores = items.map((i) => i.highest_cvss).filter((s): s is number => s !== null);
  return {
    items,
    summary: {
      cves_count: items.length,
      highest_cvss: scores.length ? Math.max(...scores) : null,
      severity_counts: counts,
    },
  };
}

/** A report of a project for one period. */
export interface ReportRow {
  id: string;
  link: string;
  project_id: string;
  automation_id: string | null;
  automation_name: string | null;
  /** The time zone of its automation's schedule (null: no report automation). */
  automation_timezone: string | null;
  period_start: Date;
  period_end: Date;
  created_at: Date;
  summary: ReportSummary;
}

export interface ReportSummary {
  cves_count: number;
  highest_cvss: number | null;
  severity_counts: Record<'critical' | 'high' | 'medium' | 'low' | 'none', number>;
}

/** A report's period type, as OpenCVE 3.1 names them. */
export type ReportPeriodType = 'daily' | 'weekly';
export const REPORT_PERIOD_TYPES: readonly ReportPeriodType[] = ['daily', 'weekly'];

/**
 * A report covering at least this many days is weekly, any shorter one daily: a weekly period is 7
 * days (an hour less or more across a DST change), a daily one a day, and a report made by an alert
 * automation's `generate_report` covers the minutes of its changes.
 */
export const WEEKLY_MIN_DAYS = 6;

export function reportPeriodType(start: Date, end: Date): ReportPeriodType {
  return end.getTime() - start.getTime() >= WEEKLY_MIN_DAYS * 86_400_000 ? 'weekly' : 'daily';
}

/** The calendar date (`YYYY-MM-DD`) of `at` in `timeZone`: a report's `day` is its period's first. */
export function localDay(at: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}
