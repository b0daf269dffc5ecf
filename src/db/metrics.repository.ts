/** Queries behind /metrics, run at scrape time: jobs by name and status, and their run times. */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

export interface JobStatusCount {
  name: string;
  status: string;
  count: number;
  /** Sum of (finished_at − started_at) over the finished jobs of this name and status, in seconds. */
  runSeconds: number;
}

export class MetricsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Jobs in the table by name and status (one grouped scan; the table is pruned by the queue). */
  async jobCounts(): Promise<JobStatusCount[]> {
    const rows = await sql<{ name: string; status: string; n: number; seconds: number | null }>`
      SELECT name, status, count(*)::int AS n,
             sum(extract(epoch FROM finished_at - started_at))::float8 AS seconds
      FROM job GROUP BY name, status`.execute(this.db);
    return rows.rows.map((r) => ({
      name: r.name,
      status: r.status,
      count: Number(r.n),
      runSeconds: Number(r.seconds ?? 0),
    }));
  }

  /** Changes recorded after the event processor's cursor (an index range on cve_change.seq). */
  async pendingEvents(): Promise<number> {
    const row = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM cve_change
       WHERE seq > (SELECT seq FROM event_cursor WHERE stream = 'changes')`.execute(this.db);
    return Number(row.rows[0]?.n ?? 0);
  }
}
