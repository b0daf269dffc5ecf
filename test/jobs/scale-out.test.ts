/**
 * Scale-out on a PostgreSQL server: three real `vulntrack worker` processes share one queue. Every
 * job of a burst runs exactly once; a job whose worker is killed (-9) mid-run is taken over by
 * another once its lease expires; a scheduled tick enqueues one job however many schedulers run, and
 * with three worker processes syncing a local upstream, each tick downloads and imports once.
 * Needs TEST_DATABASE_URL (skipped without it).
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createServerDatabase, serverUrl } from '../helpers/databases.ts';
import { startCli, waitForOutput } from '../helpers/cli.ts';
import { startUpstream, type UpstreamServer } from '../helpers/upstream-server.ts';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { JobRepository } from '../../src/db/job.repository.ts';
import { Scheduler, syncSchedules } from '../../src/jobs/scheduler.ts';

if (!serverUrl) console.log('scale-out tests SKIPPED: set TEST_DATABASE_URL=postgres://… to run them');

async function waitFor<T>(fn: () => Promise<T | undefined | false>, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!serverUrl)('scale-out on PostgreSQL', () => {
  let server: { url: string; drop: () => Promise<void> };
  let database: Database;
  let repo: JobRepository;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    server = await createServerDatabase();
    database = await openDatabase({ url: server.url, poolSize: 4 });
    repo = new JobRepository(database.db);
    const env = {
      DATABASE_URL: server.url,
      VULNTRACK_SECRET: 'scale-out-test-secret-0123456789abcdef',
      WORKER_CONCURRENCY: '8',
      JOB_LEASE_SECONDS: '2',
      JOB_POLL_INTERVAL_MS: '250',
      SYNC_SOURCES: 'none',
    };
    for (let i = 0; i < 3; i++) workers.push(startCli(['worker'], env));
    await Promise.all(workers.map((w) => waitForOutput(w, /job worker \S+ started/, 45_000)));
  });

  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await database?.close();
    await server?.drop();
  });

  /** Jobs not yet succeeded among `ids`. */
  const unfinished = async (ids: number[]) =>
    Number(
      (
        await database.db
          .selectFrom('job')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('id', 'in', ids)
          .where('status', '!=', 'succeeded')
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('runs every job of a 2,000-job burst exactly once across three workers', async () => {
    const n = 2_000;
    const ids = await repo.enqueue(
      Array.from({ length: n }, () => ({ name: 'noop', payload: { record: true } })),
    );
    await waitFor(async () => (await unfinished(ids)) === 0, 40_000);
    const rows = await database.db
      .selectFrom('job')
      .select(['attempts', 'payload'])
      .where('id', 'in', ids)
      .execute();
    expect(rows).toHaveLength(n);
    const byWorker = new Map<string, number>();
    for (const r of rows) {
      const runs = (r.payload as { runs: string[] }).runs;
      expect(r.attempts).toBe(1);
      expect(runs).toHaveLength(1);
      byWorker.set(runs[0]!, (byWorker.get(runs[0]!) ?? 0) + 1);
    }
    // All three processes took part.
    expect(byWorker.size).toBe(3);
  }, 60_000);

  it('hands the job of a worker killed with -9 to another worker once the lease expires', async () => {
    const [id] = await repo.enqueue([{ name: 'noop', payload: { delayMs: 3_000, record: true } }]);
    const first = await waitFor(async () => {
      const row = await repo.get(id!);
      return row?.status === 'running' && row.locked_by ? row.locked_by : undefined;
    }, 10_000);
    const pid = Number(first.split(':')[1]);
    const victim = workers.find((w) => w.pid === pid);
    expect(victim).toBeDefined();
    const killedAt = Date.now();
    victim!.kill('SIGKILL');

    const done = await waitFor(async () => {
      const row = await repo.get(id!);
      return row?.status === 'succeeded' ? row : undefined;
    }, 20_000);
    const runs = (done.payload as { runs: string[] }).runs;
    expect(runs).toHaveLength(2);
    expect(runs[0]).toBe(first);
    expect(runs[1]).not.toBe(first);
    expect(done.locked_by).toBe(runs[1]);
    expect(done.attempts).toBe(2);
    // Taken over after the 2 s lease, not before: started again ≥ ~2 s after the kill, then ran 3 s.
    expect(done.finished_at!.getTime() - killedAt).toBeGreaterThan(3_000);
  }, 40_000);

  it('enqueues each source once per scheduled tick with three schedulers running', async () => {
    const databases = await Promise.all([1, 2, 3].map(() => openDatabase({ url: server.url, poolSize: 2 })));
    // Every 2 seconds (a 6-field pattern); the jobs are scheduled for later so no worker runs them.
    const patterns = { cve5: '*/2 * * * * *', nvd: '*/2 * * * * *', kev: '', epss: '', cwe: '' };
    const schedulers = databases.map((d) => {
      const r = new JobRepository(d.db);
      const schedules = syncSchedules(['cve5', 'nvd'], patterns).map((s) => ({
        ...s,
        job: (tick: Date) => ({ ...s.job(tick), queue: 'scheduled-test' }),
      }));
      return new Scheduler((jobs) => r.enqueue(jobs), schedules);
    });
    try {
      for (const s of schedulers) s.start();
      await new Promise((r) => setTimeout(r, 5_000));
    } finally {
      for (const s of schedulers) s.stop();
      await Promise.all(databases.map((d) => d.close()));
    }
    const { rows } = await sql<{ source: string; ticks: number; jobs: number }>`
      SELECT payload->>'source' AS source, count(DISTINCT dedupe_key)::int AS ticks, count(*)::int AS jobs
        FROM job WHERE queue = 'scheduled-test' GROUP BY 1 ORDER BY 1`.execute(database.db);
    expect(rows.map((r) => r.source)).toEqual(['cve5', 'nvd']);
    for (const r of rows) {
      expect(r.ticks).toBeGreaterThanOrEqual(2);
      expect(r.jobs).toBe(r.ticks);
    }
  }, 30_000);
});

describe.skipIf(!serverUrl)('scheduled sync with three worker processes on PostgreSQL', () => {
  let server: { url: string; drop: () => Promise<void> };
  let database: Database;
  let upstream: UpstreamServer;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    const kev = fs.readFileSync('test/fixtures/kev/known_exploited_vulnerabilities-excerpt.json');
    upstream = await startUpstream(() => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: kev,
    }));
    server = await createServerDatabase();
    database = await openDatabase({ url: server.url, poolSize: 2 });
    const env = {
      DATABASE_URL: server.url,
      VULNTRACK_SECRET: 'scale-out-test-secret-0123456789abcdef',
      JOB_POLL_INTERVAL_MS: '250',
      SYNC_SOURCES: 'kev',
      // Every 3 seconds (croner's 6-field pattern with seconds).
      SYNC_SCHEDULE_KEV: '*/3 * * * * *',
      KEV_URL: `${upstream.base}/known_exploited_vulnerabilities.json`,
    };
    for (let i = 0; i < 3; i++) workers.push(startCli(['worker'], env));
    await Promise.all(workers.map((w) => waitForOutput(w, /job worker \S+ started/, 45_000)));
  });

  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await upstream?.close();
    await database?.close();
    await server?.drop();
  });

  it('runs each scheduled tick once: one sync job and one download per tick, whatever the worker', async () => {
    await new Promise((r) => setTimeout(r, 10_000));
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(workers.map((w) => (w.exitCode === null ? once(w, 'exit') : undefined)));
    const jobs = await database.db
      .selectFrom('job')
      .select(['dedupe_key', 'status', 'attempts', 'locked_by'])
      .where('name', '=', 'sync')
      .execute();
    const ticks = new Set(jobs.map((j) => j.dedupe_key));
    expect(ticks.size).toBeGreaterThanOrEqual(2);
    expect(jobs.length).toBe(ticks.size);
    const ran = jobs.filter((j) => j.status === 'succeeded');
    expect(ran.length).toBeGreaterThanOrEqual(2);
    for (const j of ran) expect(j.attempts).toBe(1);
    // Each round that ran downloaded the catalog once (conditional or not); none twice.
    expect(upstream.log.length).toBe(ran.length);
    // The excerpt's 4 KEV entries are stored (their CVEs enter the catalog with their records).
    const imported = await database.db
      .selectFrom('cve_source')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('provider', '=', 'cisa')
      .executeTakeFirstOrThrow();
    expect(Number(imported.n)).toBe(4);
  }, 90_000);
});
