/**
 * Deliveries per second: the queued deliveries sent to the local webhook receiver by the real job
 * runtime, either in this process (`startJobs`, what `vulntrack serve` runs) or in `vulntrack
 * worker` processes. Between runs the same deliveries and jobs are set back to pending, so every
 * run sends the same payloads. Throughput = deliveries ÷ (last attempt recorded − first attempt
 * started), both from the delivery rows.
 */
import { sql, type Kysely } from 'kysely';
import pino from 'pino';
import { openDatabase } from '../../src/db/client.ts';
import type { DB } from '../../src/db/schema.ts';
import { servicesFor, startJobs } from '../../src/main.ts';
import { profiled } from '../lib/profiler.ts';
import { startWorkers, stopWorkers } from '../lib/workers.ts';
import { backendCpuReader, processCpuMs } from '../lib/pg-server-cpu.ts';
import { benchConfig, SECRET } from './setup.ts';
import type { ReceiverHandle } from './receiver.ts';

export interface DeliveryRun {
  mode: 'in-process' | 'workers';
  processes: number;
  concurrency: number;
  deliveries: number;
  seconds: number;
  perSecond: number;
  received: number;
  /** TCP connections the receiver accepted during the run. */
  connections: number;
  /** Median and 95th percentile of the attempts' own duration (the HTTP exchange), ms. */
  p50Ms: number;
  p95Ms: number;
  nodeCpuMs: number;
  pgCpuMs: number | undefined;
  problems: string[];
}

/** Puts every delivery and its job back to pending, and drops the other jobs. */
export async function resetDeliveries(db: Kysely<DB>): Promise<number> {
  await sql`DELETE FROM job WHERE name <> 'notifications.deliver'`.execute(db);
  await sql`UPDATE delivery SET status = 'pending', attempts = '[]', updated_at = now()`.execute(db);
  await sql`
    UPDATE job SET status = 'pending', attempts = 0, locked_by = NULL, lease_until = NULL, started_at = NULL,
                   finished_at = NULL, last_error = NULL, run_at = now()`.execute(db);
  await sql`VACUUM ANALYZE job`.execute(db);
  await sql`VACUUM ANALYZE delivery`.execute(db);
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM delivery`.execute(db);
  return rows[0]?.n ?? 0;
}

async function waitUntilDone(db: Kysely<DB>, n: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM delivery WHERE status <> 'pending'`.execute(db);
    if ((rows[0]?.n ?? 0) >= n) return;
    if (Date.now() > until) throw new Error(`only ${rows[0]?.n ?? 0} of ${n} deliveries done in time`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function measureDeliveries(
  url: string,
  database: string,
  receiver: ReceiverHandle,
  run: { mode: 'in-process' | 'workers'; processes: number; concurrency: number },
  /** In-process runs: where to write a CPU profile of the run. */
  profile?: string,
): Promise<DeliveryRun> {
  const control = await openDatabase({ url, poolSize: 2, migrate: false });
  const db = control.db;
  try {
    const n = await resetDeliveries(db);
    const before = await receiver.counts();
    const receivedBefore = before.requests;
    const env = {
      WORKER_CONCURRENCY: String(run.concurrency),
      // Scheduled jobs (report runs, purges, the events safety net) do not run in the measured window.
      LOG_LEVEL: 'info',
    };
    const pgCpu = backendCpuReader(database);
    const pgBefore = pgCpu();
    let nodeCpuMs = 0;
    let pgAfter: number | undefined;
    if (run.mode === 'in-process') {
      const services = servicesFor(
        benchConfig(url, env),
        await openDatabase({ url, migrate: false }),
        SECRET,
      );
      const cpuBefore = process.cpuUsage();
      await profiled(profile, async () => {
        const runtime = await startJobs(services, pino({ level: 'warn' }));
        try {
          await waitUntilDone(db, n, 600_000);
          // Before the runtime's connections close: their backends leave /proc with them.
          pgAfter = pgCpu();
        } finally {
          await runtime.stop();
          await services.close();
        }
      });
      const cpu = process.cpuUsage(cpuBefore);
      nodeCpuMs = (cpu.user + cpu.system) / 1000;
    } else {
      const config = benchConfig(url, env);
      const children = await startWorkers(run.processes, {
        DATABASE_URL: url,
        VULNTRACK_SECRET: SECRET,
        OUTBOUND_ALLOW_PRIVATE: 'true',
        SYNC_SOURCES: 'none',
        WORKER_CONCURRENCY: String(config.worker.concurrency),
        LOG_LEVEL: 'info',
      });
      const before = children.map((c) => processCpuMs(c.pid!) ?? 0);
      try {
        await waitUntilDone(db, n, 600_000);
        pgAfter = pgCpu();
        nodeCpuMs = children.reduce((s, c, i) => s + (processCpuMs(c.pid!) ?? 0) - before[i]!, 0);
      } finally {
        await stopWorkers(children);
      }
    }
    const { rows } = await sql<{
      seconds: number;
      bad: number;
      total: number;
      p50: number;
      p95: number;
    }>`
      SELECT extract(epoch FROM max(updated_at) - min((attempts -> 0 ->> 'at')::timestamptz))::float8 AS seconds,
             count(*) FILTER (WHERE status <> 'succeeded' OR jsonb_array_length(attempts) <> 1)::int AS bad,
             count(*)::int AS total,
             percentile_cont(0.5) WITHIN GROUP (ORDER BY (attempts -> 0 ->> 'duration_ms')::float8) AS p50,
             percentile_cont(0.95) WITHIN GROUP (ORDER BY (attempts -> 0 ->> 'duration_ms')::float8) AS p95
        FROM delivery`.execute(db);
    const r = rows[0]!;
    const after = await receiver.counts();
    const received = after.requests - receivedBefore;
    const problems: string[] = [];
    if (r.bad) problems.push(`${r.bad} deliveries not succeeded at their first attempt`);
    if (received !== n) problems.push(`the receiver got ${received} requests for ${n} deliveries`);
    return {
      ...run,
      deliveries: n,
      seconds: r.seconds,
      perSecond: n / r.seconds,
      received,
      connections: after.connections - before.connections,
      p50Ms: r.p50,
      p95Ms: r.p95,
      nodeCpuMs,
      pgCpuMs: pgBefore !== undefined && pgAfter !== undefined ? pgAfter - pgBefore : undefined,
      problems,
    };
  } finally {
    await control.close();
  }
}
