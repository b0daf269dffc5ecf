/**
 * Automation executions as OpenCVE 3.1 shows them (docs/api-v2.md): each run keeps a table of the
 * CVEs it matched, with the scores they had then (`cves_table_data`), and the API derives the
 * summary (`impact_summary`) from it; each per-action result has a type and a label. Pure, no I/O.
 */
import { createHash } from 'node:crypto';
import type { CveFacts } from './cve-facts.ts';
import { severityOf } from './cvss.ts';

/** One CVE matched by a run, as it was when the run happened. */
export interface ExecutionCve {
  cve_id: string;
  kev: boolean;
  epss: number | null;
  cvss_20: number | null;
  cvss_30: number | null;
  cvss_31: number | null;
  cvss_40: number | null;
  /** The project's subscriptions (vendor keys) the CVE matched. */
  matched_vendors_or_products: string[];
}

/** The row of `cve` in the execution's table; `subscribed` holds the project's vendor keys. */
export function executionCve(cve: CveFacts, subscribed: ReadonlySet<string>): ExecutionCve {
  return {
    cve_id: cve.cve_id,
    kev: cve.kev,
    epss: cve.epss,
    cvss_20: cve.cvss20,
    cvss_30: cve.cvss30,
    cvss_31: cve.cvss31,
    cvss_40: cve.cvss40,
    matched_vendors_or_products: cve.vendors.filter((k) => subscribed.has(k)).sort(),
  };
}

const VERSIONS = ['cvss_40', 'cvss_31', 'cvss_30', 'cvss_20'] as const;
type ScoreVersion = (typeof VERSIONS)[number];

/** EPSS bands of `epss_distribution`: low below 0.1, medium from 0.1, high from 0.5. */
export const EPSS_MEDIUM = 0.1;
export const EPSS_HIGH = 0.5;

export interface ImpactSummary {
  cves_count: number;
  kev_count: number;
  /** Percent of the CVEs in KEV, rounded to a whole number. */
  kev_percent: number;
  /** Over the CVEs with an EPSS score, rounded to 5 decimals; 0 when none has one. */
  epss_avg: number;
  epss_max: number;
  /** Over each CVE's highest score of any CVSS version, rounded to 1 decimal; null when none has one. */
  average_cvss: number | null;
  highest_cvss: number | null;
  highest_cvss_version: ScoreVersion | null;
  cvss_distribution: { Low: number; Medium: number; High: number; Critical: number };
  epss_distribution: { low: number; medium: number; high: number };
  /** The matched subscriptions by how many CVEs matched each, most first (then by name), at most 10. */
  top_vendors_products: { name: string; count: number }[];
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/** A CVE's highest score over the CVSS versions, with that version (the newest on a tie). */
function highest(cve: ExecutionCve): { score: number; version: ScoreVersion } | undefined {
  let best: { score: number; version: ScoreVersion } | undefined;
  for (const version of VERSIONS) {
    const score = cve[version];
    if (score !== null && (best === undefined || score > best.score)) best = { score, version };
  }
  return best;
}

/** The summary of a run's CVE table (the fields of OpenCVE's `impact_summary`). */
export function impactSummary(cves: readonly ExecutionCve[]): ImpactSummary {
  const cvss = { Low: 0, Medium: 0, High: 0, Critical: 0 };
  const epssBands = { low: 0, medium: 0, high: 0 };
  const scores: number[] = [];
  let top: { score: number; version: ScoreVersion } | undefined;
  const epss: number[] = [];
  const matched = new Map<string, number>();
  for (const cve of cves) {
    const best = highest(cve);
    if (best) {
      scores.push(best.score);
      if (!top || best.score > top.score) top = best;
      const severity = severityOf(best.score);
      if (severity === 'low') cvss.Low += 1;
      else if (severity === 'medium') cvss.Medium += 1;
      else if (severity === 'high') cvss.High += 1;
      else if (severity === 'critical') cvss.Critical += 1;
    }
    if (cve.epss !== null) {
      epss.push(cve.epss);
      if (cve.epss >= EPSS_HIGH) epssBands.high += 1;
      else if (cve.epss >= EPSS_MEDIUM) epssBands.medium += 1;
      else epssBands.low += 1;
    }
    for (const key of cve.matched_vendors_or_products) matched.set(key, (matched.get(key) ?? 0) + 1);
  }
  const kev = cves.filter((c) => c.kev).length;
  return {
    cves_count: cves.length,
    kev_count: kev,
    kev_percent: cves.length ? Math.round((kev / cves.length) * 100) : 0,
    epss_avg: epss.length ? round(epss.reduce((a, b) => a + b, 0) / epss.length, 5) : 0,
    epss_max: epss.length ? Math.max(...epss) : 0,
    average_cvss: scores.length ? round(scores.reduce((a, b) => a + b, 0) / scores.length, 1) : null,
    highest_cvss: top?.score ?? null,
    highest_cvss_version: top?.version ?? null,
    cvss_distribution: cvss,
    epss_distribution: epssBands,
    top_vendors_products: [...matched]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 10)
      .map(([name, count]) => ({ name, count })),
  };
}

/** OpenCVE's `output_type` and `label` of each of our action types. */
const OUTPUTS: Record<string, { output_type: string; label: string }> = {
  send_notification: { output_type: 'notification_sent', label: 'Notification sent' },
  assign_user: { output_type: 'assignment', label: 'CVEs assigned' },
  change_status: { output_type: 'status_change', label: 'Status changed' },
  generate_report: { output_type: 'report', label: 'Report generated' },
};

/** The `output_type` and `label` of a result of `action` (an unknown action is shown as itself). */
export function resultOutput(action: string): { output_type: string; label: string } {
  return OUTPUTS[action] ?? { output_type: action, label: action };
}

/**
 * The id of the `index`th result of an execution: results are kept inside their execution, so each
 * gets a UUID derived from the execution's (name-based, RFC 9562 version 5 layout), the same on every read.
 */
export function resultId(executionId: string, index: number): string {
  const hash = createHash('sha1').update(`${executionId}/result/${index}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Lower-case English weekday names, Sunday first (index = cron's day of week, 0 Sunday). */
export const WEEKDAYS = [
  'sunday',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A weekday given by name (OpenCVE's form) or by number (0 Sunday … 6 Saturday) as its number. */
export function weekdayNumber(value: Weekday | number): number {
  return typeof value === 'number' ? value : WEEKDAYS.indexOf(value);
}

/** How many conditions (leaves) a condition tree holds: OpenCVE's `conditions_count`. */
export function conditionsCount(node: unknown): number {
  if (!node || typeof node !== 'object') return 0;
  const children = (node as { children?: unknown }).children;
  if (Array.isArray(children)) return children.reduce<number>((n, child) => n + conditionsCount(child), 0);
  return 'type' in node ? 1 : 0;
}
