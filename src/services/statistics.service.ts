/**
 * The catalog statistics of the Statistics page: computed by the `statistics.compute` job (hourly,
 * and once at start while none is stored), stored, and read as stored. A page never counts the
 * catalog itself: on 300,000 CVEs the counts take seconds.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { StatisticsRepository } from '../db/statistics.repository.ts';
import {
  fillMonths,
  lastMonths,
  SEVERITY_BANDS,
  STATISTICS_MONTHS,
  TOP_VENDORS,
  type CatalogStatistics,
  type StoredStatistics,
} from '../domain/statistics.ts';

export const COMPUTE_STATISTICS_JOB = 'statistics.compute';
const NAME = 'catalog-statistics';

export class StatisticsService {
  private readonly repository: StatisticsRepository;

  constructor(db: Kysely<DB>) {
    this.repository = new StatisticsRepository(db);
  }

  /** Counts the catalog and stores the result (replacing the last one). */
  async compute(now = new Date()): Promise<StoredStatistics> {
    const started = performance.now();
    const months = lastMonths(now, STATISTICS_MONTHS);
    const since = new Date(`${months[0]}-01T00:00:00Z`);
    const counts = await this.repository.counts(since, TOP_VENDORS);
    const severity = new Map(counts.bySeverity.map((r) => [r.key, r.count]));
    const statistics: CatalogStatistics = {
      published: counts.published,
      rejected: counts.rejected,
      byYear: counts.byYear,
      byMonth: fillMonths(months, counts.byMonth),
      bySeverity: SEVERITY_BANDS.map((key) => ({ key, count: severity.get(key) ?? 0 })),
      kev: counts.kev,
      kevByMonth: fillMonths(months, counts.kevByMonth),
      topVendors: counts.topVendors,
    };
    const durationMs = Math.round(performance.now() - started);
    await this.repository.save(NAME, statistics, now, durationMs);
    return { computedAt: now, durationMs, statistics };
  }

  /** The last statistics computed; undefined until the first computation has finished. */
  async latest(): Promise<StoredStatistics | undefined> {
    const row = await this.repository.load(NAME);
    if (!row) return undefined;
    return {
      computedAt: new Date(row.computed_at),
      durationMs: row.duration_ms,
      statistics: row.data as CatalogStatistics,
    };
  }
}
