/**
 * Triage of a project's CVEs (docs/api-v2.md): eight statuses with no prescribed order. Any status may move
 * to any other (a triage team's order is its own); a CVE without a tracker entry has no status.
 */
export const TRIAGE_STATUSES = [
  'to_evaluate',
  'pending_review',
  'analysis_in_progress',
  'remediation_in_progress',
  'evaluated',
  'resolved',
  'not_applicable',
  'risk_accepted',
] as const;

export type TriageStatus = (typeof TRIAGE_STATUSES)[number];

/**
 * A triage status as people read it (`to_evaluate` → "To evaluate", `evaluated` → "Evaluated"); a
 * CVE without one, or the `no_status` filter value, is "No status". Pages, messages and the web
 * UI's CSV files show this; forms' values and the APIs keep the status itself.
 */
export function statusLabel(status: string | null): string {
  if (status === null || status === NO_STATUS) return 'No status';
  const words = status.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The list filter value for CVEs without a status (untracked, or tracked with the status cleared). */
export const NO_STATUS = 'no_status';

/** At most this many CVEs in one bulk tracker update. */
export const MAX_BULK_CVES = 1000;

export const COMMENT_MAX_LENGTH = 10_000;

/**
 * The statuses that close a CVE for the team (fixed, or decided not to fix): the dashboards' "open"
 * CVEs and "KEV not yet fixed" are those without a status or with any other status.
 */
export const CLOSED_STATUSES: readonly TriageStatus[] = ['resolved', 'not_applicable', 'risk_accepted'];

/** Whether a CVE with this status (null: none) is still open. */
export const isOpenStatus = (status: string | null): boolean =>
  status === null || !(CLOSED_STATUSES as readonly string[]).includes(status);
