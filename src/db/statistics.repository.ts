/**
 * The catalog statistics' SQL: counts over the whole catalog (a few sequential scans: run by the
 * `statistics.compute` job, never per request) and the stored result (table `computed_result`).
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';
import { PRODUCT_SEPARATOR } from '../domain/cpe.ts';
import type { CountBy, SeverityBand } from '../domain/statistics.ts';

export interface StatisticsCounts {
  published: number;
  rejected: number;
  kev: number;
  byYear: CountBy<number>[];
  byMonth: CountBy<string>[];
  bySeverity: CountBy<SeverityBand>[];
  kevByMonth: CountBy<string>[];
  topVendors: CountBy<string>[];
}

export class StatisticsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Every count of the statistics; months from `since` (the first day of the first month, UTC). */
  async counts(since: Date, topVendors: number): Promise<StatisticsCounts> {
    const db = this.db;
    const totals = await sql<{ published: number; rejected: number; kev: number }>`
      SELECT count(*) FILTER (WHERE state <> 'REJECTED')::int AS published,
             count(*) FILTER (WHERE state = 'REJECTED')::int AS rejected,
             count(*) FILTER (WHERE kev)::int AS kev
        FROM cve`.execute(db);
    const byYear = await sql<{ key: number; count: number }>`
      SELECT extract(year FROM created_at AT TIME ZONE 'UTC')::int AS key, count(*)::int AS count
        FROM cve WHERE state <> 'REJECTED'
       GROUP BY 1 ORDER BY 1`.execute(db);
    const byMonth = await sql<{ key: string; count: number }>`
      SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS key, count(*)::int AS count
        FROM cve WHERE state <> 'REJECTED' AND created_at >= ${since}
       GROUP BY 1 ORDER BY 1`.execute(db);
    const bySeverity = await sql<{ key: SeverityBand; count: number }>`
      SELECT CASE
               WHEN s IS NULL THEN 'unscored'
               WHEN s >= 9 THEN 'critical'
               WHEN s >= 7 THEN 'high'
               WHEN s >= 4 THEN 'medium'
               WHEN s > 0 THEN 'low'
               ELSE 'none'
             END AS key,
             count(*)::int AS count
        FROM (SELECT coalesce(cvss40, cvss31, cvss30, cvss20) AS s FROM cve WHERE state <> 'REJECTED') best
       GROUP BY 1`.execute(db);
    // KEV's dateAdded is written as an ISO date-time in UTC (sources/kev, cve5 ADP): its first 7 characters are the month.
    const kevByMonth = await sql<{ key: string; count: number }>`
      SELECT left(metrics->'kev'->'data'->>'dateAdded', 7) AS key, count(*)::int AS count
        FROM cve
       WHERE kev AND metrics->'kev'->'data'->>'dateAdded' >= ${since.toISOString().slice(0, 10)}
       GROUP BY 1 ORDER BY 1`.execute(db);
    const vendors = await sql<{ key: string; count: number }>`
      SELECT vendor_key AS key, count(*)::int AS count
        FROM cve_vendor
       WHERE strpos(vendor_key, ${PRODUCT_SEPARATOR}) = 0
       GROUP BY vendor_key
       ORDER BY count(*) DESC, vendor_key
       LIMIT ${topVendors}`.execute(db);
    return {
      ...totals.rows[0]!,
      byYear: byYear.rows,
      byMonth: byMonth.rows,
      bySeverity: bySeverity.rows,
      kevByMonth: kevByMonth.rows,
      topVendors: vendors.rows,
    };
  }

  async save(name: string, data: unknown, computedAt: Date, durationMs: number): Promise<void> {
    await this.db
      .insertInto('computed_result')
      .values({ name, data: JSON.stringify(data), computed_at: computedAt, duration_ms: durationMs })
      .onConflict((oc) =>
        oc.column('name').doUpdateSet({
          data: (eb) => eb.ref('excluded.data'),
          computed_at: (eb) => eb.ref('excluded.computed_at'),
          duration_ms: (eb) => eb.ref('excluded.duration_ms'),
        }),
      )
      .execute();
  }

  load(name: string) {
    return this.db
      .selectFrom('computed_result')
      .select(['data', 'computed_at', 'duration_ms'])
      .where('name', '=', name)
      .executeTakeFirst();
  }
}
