/**
 * Prometheus metrics (prom-client) on a registry of this service instance: HTTP requests and
 * latencies (observed by a Fastify hook), sync rounds (observed by the sync service), and gauges read
 * at scrape time: jobs by status, sync lag and failures per source, catalog size (cached 30 s).
 */
import type { Kysely } from 'kysely';
import client from 'prom-client';
import { SYNC_SOURCE_NAMES, type SyncSourceName } from '../config.ts';
import { HealthRepository } from '../db/health.repository.ts';
import { MetricsRepository } from '../db/metrics.repository.ts';
import type { DB } from '../db/schema.ts';
import { SyncStateRepository } from '../db/sync-state.repository.ts';

const CATALOG_CACHE_MS = 30_000;

export class MetricsService {
  readonly registry = new client.Registry();
  private readonly httpRequests: client.Counter<'method' | 'route' | 'status'>;
  private readonly httpDuration: client.Histogram<'method' | 'route' | 'status'>;
  private readonly syncRounds: client.Counter<'source' | 'outcome'>;
  private readonly syncDuration: client.Histogram<'source' | 'outcome'>;
  private readonly jobDuration: client.Histogram<'name' | 'status'>;
  private readonly deliveryAttempts: client.Counter<'channel' | 'outcome'>;
  private catalogCache: { at: number; cves: number } | undefined;

  constructor(db: Kysely<DB>, syncSources: readonly SyncSourceName[] = SYNC_SOURCE_NAMES) {
    const repo = new MetricsRepository(db);
    const health = new HealthRepository(db);
    const states = new SyncStateRepository(db);
    const registers = [this.registry];
    client.collectDefaultMetrics({ register: this.registry, prefix: 'vulntrack_' });

    this.httpRequests = new client.Counter({
      name: 'vulntrack_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new client.Histogram({
      name: 'vulntrack_http_request_duration_seconds',
      help: 'HTTP request latency, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.syncRounds = new client.Counter({
      name: 'vulntrack_sync_rounds_total',
      help: 'Sync rounds run by this process, by source and outcome',
      labelNames: ['source', 'outcome'],
      registers,
    });
    this.syncDuration = new client.Histogram({
      name: 'vulntrack_sync_duration_seconds',
      help: 'Duration of sync rounds run by this process, by source and outcome',
      labelNames: ['source', 'outcome'],
      buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
      registers,
    });
    this.jobDuration = new client.Histogram({
      name: 'vulntrack_job_duration_seconds',
      help: 'Duration of jobs run by this process, by job name and final status',
      labelNames: ['name', 'status'],
      buckets: [0.01, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
      registers,
    });

    new client.Gauge({
      name: 'vulntrack_jobs',
      help: 'Jobs in the queue table, by job name and status',
      labelNames: ['name', 'status'],
      registers,
      async collect() {
        this.reset();
        for (const row of await repo.jobCounts()) this.set({ name: row.name, status: row.status }, row.count);
      },
    });
    new client.Gauge({
      name: 'vulntrack_jobs_run_seconds',
      help: 'Total run time of the finished jobs in the queue table, by job name and status',
      labelNames: ['name', 'status'],
      registers,
      async collect() {
        this.reset();
        for (const row of await repo.jobCounts())
          if (row.runSeconds) this.set({ name: row.name, status: row.status }, row.runSeconds);
      },
    });

    const startedAt = Date.now();
    // One read of sync_state serves every per-source gauge of a scrape.
    let statesRead: Promise<Awaited<ReturnType<SyncStateRepository['list']>>> | undefined;
    const readStates = () =>
      (statesRead ??= states.list().finally(() => setTimeout(() => (statesRead = undefined), 0)));
    const perSource = (
      name: string,
      help: string,
      value: (
        s: Awaited<ReturnType<SyncStateRepository['list']>>[number] | undefined,
        now: number,
      ) => number | undefined,
    ) =>
      new client.Gauge({
        name,
        help,
        labelNames: ['source'],
        registers,
        async collect() {
          this.reset();
          const list = await readStates();
          const now = Date.now();
          for (const source of syncSources) {
            const v = value(
              list.find((s) => s.source === source),
              now,
            );
            if (v !== undefined) this.set({ source }, v);
          }
        },
      });
    perSource(
      'vulntrack_sync_lag_seconds',
      'Seconds since the last successful sync of each configured source (since start-up when it never succeeded)',
      (s, now) => (now - (s?.lastSuccessAt?.getTime() ?? startedAt)) / 1000,
    );
    perSource(
      'vulntrack_sync_last_success_timestamp_seconds',
      'Unix time of the last successful sync of each source',
      (s) => (s?.lastSuccessAt ? s.lastSuccessAt.getTime() / 1000 : undefined),
    );
    perSource(
      'vulntrack_sync_consecutive_failures',
      'Failed sync rounds of each source since its last success',
      (s) => s?.consecutiveFailures ?? 0,
    );
    perSource('vulntrack_sync_up', '1 when the last sync round of the source succeeded, else 0', (s) =>
      s ? (s.consecutiveFailures === 0 && s.lastSuccessAt ? 1 : 0) : undefined,
    );

    this.deliveryAttempts = new client.Counter({
      name: 'vulntrack_delivery_attempts_total',
      help: 'Notification delivery attempts made by this process, by channel and outcome (succeeded, failed, retry, dead)',
      labelNames: ['channel', 'outcome'],
      registers,
    });
    new client.Gauge({
      name: 'vulntrack_events_pending',
      help: 'Recorded changes not yet matched to projects (the event processor is behind by this many)',
      registers,
      async collect() {
        this.set(await repo.pendingEvents());
      },
    });

    const cache = () => this.catalogCache;
    const setCache = (cves: number) => (this.catalogCache = { at: Date.now(), cves });
    new client.Gauge({
      name: 'vulntrack_catalog_cves',
      help: 'CVEs in the catalog (counted at most every 30 s)',
      registers,
      async collect() {
        const c = cache();
        this.set(c && Date.now() - c.at < CATALOG_CACHE_MS ? c.cves : setCache(await health.cveCount()).cves);
      },
    });
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  observeSync(source: SyncSourceName, outcome: 'succeeded' | 'failed', seconds: number): void {
    this.syncRounds.inc({ source, outcome });
    this.syncDuration.observe({ source, outcome }, seconds);
  }

  /** For the job worker: one finished job (succeeded, failed, dead). */
  observeDelivery(channel: string, outcome: string): void {
    this.deliveryAttempts.inc({ channel, outcome });
  }

  observeJob(name: string, status: string, seconds: number): void {
    this.jobDuration.observe({ name, status }, seconds);
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
