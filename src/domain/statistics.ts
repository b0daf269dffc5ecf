/**
 * The catalog's statistics (the Statistics page): computed by the `statistics.compute` job, stored,
 * and read as stored, never per request. Pure types and calendar helpers.
 */

/** Severity by the best CVSS score of a CVE (v4.0, else v3.1, v3.0, v2.0), `unscored` without one. */
export const SEVERITY_BANDS = ['critical', 'high', 'medium', 'low', 'none', 'unscored'] as const;
export type SeverityBand = (typeof SEVERITY_BANDS)[number];

export interface CountBy<K extends string | number> {
  key: K;
  count: number;
}

export interface CatalogStatistics {
  /** Published CVEs in the catalog (REJECTED ones are counted apart). */
  published: number;
  rejected: number;
  /** Published CVEs by the year of their publication, oldest first. */
  byYear: CountBy<number>[];
  /** Published CVEs by month of publication (`YYYY-MM`, UTC), the last 24 months, oldest first, empty months included. */
  byMonth: CountBy<string>[];
  bySeverity: CountBy<SeverityBand>[];
  /** CVEs in CISA's KEV catalog. */
  kev: number;
  /** KEV additions by the month of their `dateAdded`, the last 24 months, oldest first. */
  kevByMonth: CountBy<string>[];
  /** The vendors with the most CVEs, most first. */
  topVendors: CountBy<string>[];
}

export interface StoredStatistics {
  computedAt: Date;
  /** How long the computation took. */
  durationMs: number;
  statistics: CatalogStatistics;
}

export const STATISTICS_MONTHS = 24;
export const TOP_VENDORS = 15;

/** `YYYY-MM` of a date in UTC. */
export const monthKey = (date: Date) => date.toISOString().slice(0, 7);

/** The `count` months up to and including the month of `now` (UTC), oldest first, as `YYYY-MM`. */
export function lastMonths(now: Date, count: number): string[] {
  const months: string[] = [];
  for (let i = count - 1; i >= 0; i--) {
    months.push(monthKey(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1))));
  }
  return months;
}

/** Counts by month laid over `months`: a month without a row counts 0; rows outside are dropped. */
export function fillMonths(months: string[], rows: CountBy<string>[]): CountBy<string>[] {
  const counts = new Map(rows.map((r) => [r.key, r.count]));
  return months.map((key) => ({ key, count: counts.get(key) ?? 0 }));
}
