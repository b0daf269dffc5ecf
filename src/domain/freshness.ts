/**
 * How current the catalog is (issue 31): per upstream source, when it last advanced, whether it is
 * failing and whether it is stale (not advanced for longer than its "stale after" setting). Pure:
 * the service reads the sync states and the settings, the pages and the alarm draw from this.
 */

/** Each source in people's words, in the order pages list them. */
export const SOURCE_LABELS: Record<string, string> = {
  cve5: 'CVE records (CVE Program)',
  nvd: 'NVD',
  kev: 'CISA KEV',
  epss: 'EPSS',
  cwe: 'CWE',
};

export const sourceLabel = (source: string): string => SOURCE_LABELS[source] ?? source;

/** What the freshness rules need of a source's sync state. */
export interface SyncStateFacts {
  lastSuccessAt: Date | null;
  firstAttemptAt: Date | null;
  lastError: string | null;
  consecutiveFailures: number;
}

export interface SourceFreshness {
  source: string;
  label: string;
  /** In SYNC_SOURCES: the scheduler keeps it current. A source turned off never counts as stale. */
  configured: boolean;
  lastSuccessAt: Date | null;
  /** Failed attempts since the last success. */
  consecutiveFailures: number;
  lastError: string | null;
  /** The "stale after" setting; null: this source never counts as stale. */
  staleAfterMs: number | null;
  /** Configured, with a setting, and not advanced for longer than it (since its first attempt when it never did). */
  stale: boolean;
}

export interface CatalogFreshness {
  /** When this was read (relative times are drawn from here). */
  at: Date;
  /** SYNC_SOURCES=none: no source is kept current. */
  syncOff: boolean;
  /** The configured sources, then any other source that once synced, in SOURCE_LABELS order. */
  sources: SourceFreshness[];
  /** What the catalog holds; read only when sync is off (the banner says it). */
  catalog: { cves: number; lastImportAt: Date | null } | null;
}

/** The freshness of one source at `now`. */
export function sourceFreshness(
  source: string,
  state: SyncStateFacts | undefined,
  configured: boolean,
  staleAfterMs: number | null,
  now: Date,
): SourceFreshness {
  const since = state?.lastSuccessAt ?? state?.firstAttemptAt ?? null;
  return {
    source,
    label: sourceLabel(source),
    configured,
    lastSuccessAt: state?.lastSuccessAt ?? null,
    consecutiveFailures: state?.consecutiveFailures ?? 0,
    lastError: state?.lastError ?? null,
    staleAfterMs,
    stale:
      configured && staleAfterMs !== null && since !== null && now.getTime() - since.getTime() > staleAfterMs,
  };
}

/** The sources the banner names: configured ones that are stale or whose last attempt failed. */
export const troubledSources = (freshness: CatalogFreshness): SourceFreshness[] =>
  freshness.sources.filter((s) => s.configured && (s.stale || s.consecutiveFailures > 0));

/** "12 min ago", "3 h ago", "2 d ago": how long before `now`, rounded down, in one unit. */
export function ago(then: Date, now: Date): string {
  const seconds = Math.max(0, Math.floor((now.getTime() - then.getTime()) / 1000));
  if (seconds < 60) return 'just now';
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} d ago`;
}

/** A duration setting in words, as it is set (in hours) up to a week: "6 h", "48 h", "30 d". */
export function duration(ms: number): string {
  const hours = Math.round(ms / 3_600_000);
  return hours >= 168 && hours % 24 === 0 ? `${hours / 24} d` : `${hours} h`;
}
