/**
 * The job queue on both databases: claims, SKIP LOCKED, retries and the dead letter, dedupe keys,
 * lease takeover, LISTEN wake-ups and the worker's stop. Each test uses a queue of its own, so the
 * tests share one database without seeing each other's jobs.
 */
import { expect, it, describe } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.ts';
import { JobRepository } from '../../src/db/job.repository.ts';
import { JobService } from '../../src/services/job.service.ts';
import { Worker, retryDelay, type JobHandler, type WorkerOptions } from '../../src/jobs/worker.ts';
import { handleNoop, handleSync } from '../../src/jobs/handlers.ts';
import { HealthService } from '../../src/services/health.service.ts';

async function waitFor<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const fast = { concurrency: 4, leaseMs: 5_000, pollIntervalMs: 50, retryBaseMs: 20, retryMaxMs: 100 };

describe('retryDelay', () => {
  it('doubles from the base, is capped, and jitters between half and all of it', () => {
    expect(retryDelay(1, 30_000, 3_600_000, () => 1)).toBe(30_000);
    expect(retryDelay(1, 30_000, 3_600_000, () => 0)).toBe(15_000);
    expect(retryDelay(3, 30_000, 3_600_000, () => 1)).toBe(120_000);
    expect(retryDelay(20, 30_000, 3_600_000, () => 1)).toBe(3_600_000);
  });
});

describeEachDatabase('job queue', (use, backend) => {
  const repo = () => new JobRepository(use().db);
  const worker = (
    queue: string,
    handlers: Record<string, JobHandler>,
    options: Partial<WorkerOptions> = {},
  ) => new Worker({ repository: repo(), handlers, queue, ...fast, ...options });

  it('enqueues, claims and completes a job', async () => {
    const [id] = await repo().enqueue([{ name: 'noop', queue: 'basic', payload: { a: 1 } }]);
    const claimed = await repo().claim('w1', 10, 60_000, 'basic');
    expect(claimed).toEqual([{ id, name: 'noop', payload: { a: 1 }, attempt: 1, maxAttempts: 5 }]);
    expect(await repo().claim('w2', 10, 60_000, 'basic')).toEqual([]);
    expect(await repo().complete('w1', [id!])).toEqual([id]);
    const row = await repo().get(id!);
    expect(row).toMatchObject({ status: 'succeeded', attempts: 1, locked_by: 'w1', lease_until: null });
    expect(row?.finished_at).toBeInstanceOf(Date);
  });

  it('never hands the same job to two concurrent claimers (SKIP LOCKED)', async () => {
    const n = 300;
    await repo().enqueue(
      Array.from({ length: n }, (_, i) => ({ name: 'noop', queue: 'skip', payload: { i } })),
    );
    const claimer = async (workerId: string) => {
      const ids: number[] = [];
      for (;;) {
        const jobs = await repo().claim(workerId, 7, 60_000, 'skip');
        if (jobs.length === 0) return ids;
        ids.push(...jobs.map((j) => j.id));
      }
    };
    const results = await Promise.all(['a', 'b', 'c'].map(claimer));
    const all = results.flat();
    expect(all).toHaveLength(n);
    expect(new Set(all).size).toBe(n);
    if (backend === 'postgres') expect(results.every((r) => r.length > 0)).toBe(true);
  });

  it('does not claim a job before its run_at', async () => {
    await repo().enqueue([{ name: 'noop', queue: 'later', runAt: new Date(Date.now() + 60_000) }]);
    expect(await repo().claim('w', 10, 60_000, 'later')).toEqual([]);
  });

  it('retries a failed job after a backoff, then marks it dead with its last error', async () => {
    const [id] = await repo().enqueue([{ name: 'noop', queue: 'backoff', maxAttempts: 3 }]);
    const [job] = await repo().claim('w', 1, 60_000, 'backoff');
    expect(await repo().fail('w', job!.id, 'boom 1', 60_000)).toBe('pending');
    const row = await repo().get(id!);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_error: 'boom 1', locked_by: null });
    expect(row!.run_at.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect(await repo().claim('w', 1, 60_000, 'backoff')).toEqual([]);

    // Through a worker: attempts 2 and 3 fail quickly (20 ms backoff), then the job is dead.
    await use().db.updateTable('job').set({ run_at: new Date() }).where('id', '=', id!).execute();
    let calls = 0;
    const w = worker('backoff', {
      noop: async (_p, ctx) => {
        calls++;
        throw new Error(`boom ${ctx.attempt}`);
      },
    });
    await w.start();
    const dead = await waitFor(async () => {
      const r = await repo().get(id!);
      return r?.status === 'dead' ? r : undefined;
    });
    await w.stop();
    expect(calls).toBe(2);
    expect(dead).toMatchObject({ attempts: 3, max_attempts: 3, last_error: 'boom 3', locked_by: w.workerId });
    expect(dead.finished_at).toBeInstanceOf(Date);

    // An operator puts it back: it runs again with fresh attempts.
    expect(await repo().retry(id!)).toBe(true);
    expect(await repo().retry(id!)).toBe(false);
    expect(await repo().get(id!)).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('tells onFinished the outcome and duration of every attempt (the job metrics)', async () => {
    await repo().enqueue([
      { name: 'ok', queue: 'finished' },
      { name: 'bad', queue: 'finished', maxAttempts: 2 },
    ]);
    const seen: [string, string][] = [];
    const w = worker(
      'finished',
      {
        ok: async () => {},
        bad: async () => {
          throw new Error('nope');
        },
      },
      { onFinished: (name, status, seconds) => seconds >= 0 && seen.push([name, status]) },
    );
    await w.start();
    await waitFor(async () => (seen.length >= 3 ? true : undefined));
    await w.stop();
    expect(seen.sort()).toEqual([
      ['bad', 'dead'],
      ['bad', 'pending'],
      ['ok', 'succeeded'],
    ]);
    // The tests share one database: leave no dead job for the ones that count jobs by status.
    await use().db.deleteFrom('job').where('queue', '=', 'finished').execute();
  });

  it('fails a job at once when no handler knows it', async () => {
    const [id] = await repo().enqueue([{ name: 'nobody-knows', queue: 'unknown' }]);
    const w = worker('unknown', {});
    await w.start();
    const row = await waitFor(async () => {
      const r = await repo().get(id!);
      return r?.status === 'failed' ? r : undefined;
    });
    await w.stop();
    expect(row).toMatchObject({ attempts: 1, last_error: 'no handler for job "nobody-knows"' });
  });

  it('enqueues a job once per dedupe key, whatever its state', async () => {
    const first = await repo().enqueue([{ name: 'noop', queue: 'dedupe', dedupeKey: 'tick:1' }]);
    expect(first).toHaveLength(1);
    expect(await repo().enqueue([{ name: 'noop', queue: 'dedupe', dedupeKey: 'tick:1' }])).toEqual([]);
    const [job] = await repo().claim('w', 1, 60_000, 'dedupe');
    await repo().complete('w', [job!.id]);
    expect(await repo().enqueue([{ name: 'noop', queue: 'dedupe', dedupeKey: 'tick:1' }])).toEqual([]);
    expect(await repo().enqueue([{ name: 'noop', queue: 'dedupe', dedupeKey: 'tick:2' }])).toHaveLength(1);
    const rows = await use().db.selectFrom('job').select('id').where('queue', '=', 'dedupe').execute();
    expect(rows).toHaveLength(2);
  });

  it('lets another worker take over a running job once its lease has expired', async () => {
    const [id] = await repo().enqueue([{ name: 'noop', queue: 'lease' }]);
    expect(await repo().claim('w1', 1, 300, 'lease')).toHaveLength(1);
    expect(await repo().claim('w2', 1, 300, 'lease')).toEqual([]);
    await new Promise((r) => setTimeout(r, 400));
    const [taken] = await repo().claim('w2', 1, 60_000, 'lease');
    expect(taken).toMatchObject({ id, attempt: 2 });
    // The first worker lost the job: its late outcome changes nothing.
    expect(await repo().complete('w1', [id!])).toEqual([]);
    expect(await repo().fail('w1', id!, 'late', 0)).toBeUndefined();
    expect(await repo().renewLeases('w1', [id!], 60_000)).toEqual([]);
    expect(await repo().complete('w2', [id!])).toEqual([id]);
    expect(await repo().get(id!)).toMatchObject({ status: 'succeeded', locked_by: 'w2' });
  });

  it('renews the lease of a long job so that nobody takes it over', async () => {
    const [id] = await repo().enqueue([{ name: 'noop', queue: 'heartbeat', payload: { delayMs: 1_000 } }]);
    const w = worker('heartbeat', { noop: handleNoop(new JobService(use().db)) }, { leaseMs: 300 });
    await w.start();
    await waitFor(async () => (await repo().get(id!))?.status === 'running');
    await new Promise((r) => setTimeout(r, 600));
    expect(await repo().claim('thief', 1, 60_000, 'heartbeat')).toEqual([]);
    await waitFor(async () => (await repo().get(id!))?.status === 'succeeded');
    await w.stop();
    expect(await repo().get(id!)).toMatchObject({ attempts: 1 });
  });

  it('wakes on NOTIFY: a job is picked up well before the poll interval', async () => {
    const w = worker('wake', { noop: async () => {} }, { pollIntervalMs: 10_000, listen: use().listen });
    await w.start();
    // Let the first (empty) claim pass, so the worker is waiting on its 10 s poll.
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const [id] = await repo().enqueue([{ name: 'noop', queue: 'wake' }]);
    await waitFor(async () => (await repo().get(id!))?.status === 'succeeded', 5_000);
    const latency = Date.now() - started;
    await w.stop();
    expect(latency).toBeLessThan(1_000);
  });

  it('keeps running its jobs when a NOTIFY arrives while every slot is busy', async () => {
    // A wake-up with no free slot once made the loop spin on resolved promises: the running job's
    // I/O was never serviced and it never finished (found by the notifications benchmark).
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const w = worker(
      'full',
      { slow: () => gate.then(() => new Promise((r) => setTimeout(r, 20))), noop: async () => {} },
      { concurrency: 1, pollIntervalMs: 10_000, listen: use().listen },
    );
    await w.start();
    const [slow] = await repo().enqueue([{ name: 'slow', queue: 'full' }]);
    await waitFor(async () => (await repo().get(slow!))?.status === 'running');
    const [next] = await repo().enqueue([{ name: 'noop', queue: 'full' }]); // NOTIFY, no free slot
    await new Promise((r) => setTimeout(r, 100));
    release();
    await waitFor(async () => (await repo().get(slow!))?.status === 'succeeded', 5_000);
    // The freed slot claims the job the wake-up announced, well before the 10 s poll.
    await waitFor(async () => (await repo().get(next!))?.status === 'succeeded', 5_000);
    await w.stop();
  });

  it('runs every job of a burst exactly once with several workers', async () => {
    const service = new JobService(use().db);
    const n = 200;
    const ids = await repo().enqueue(
      Array.from({ length: n }, () => ({ name: 'noop', queue: 'burst', payload: { record: true } })),
    );
    const workers = [1, 2, 3].map(() =>
      worker('burst', { noop: handleNoop(service) }, { listen: use().listen }),
    );
    for (const w of workers) await w.start();
    await waitFor(async () => {
      const left = await use()
        .db.selectFrom('job')
        .select('id')
        .where('queue', '=', 'burst')
        .where('status', '!=', 'succeeded')
        .limit(1)
        .execute();
      return left.length === 0;
    }, 30_000);
    await Promise.all(workers.map((w) => w.stop()));
    const rows = await use()
      .db.selectFrom('job')
      .select(['id', 'attempts', 'payload'])
      .where('id', 'in', ids)
      .execute();
    expect(rows).toHaveLength(n);
    for (const r of rows) {
      expect(r.attempts).toBe(1);
      expect((r.payload as { runs: string[] }).runs).toHaveLength(1);
    }
  });

  it('hands unfinished jobs back when it stops', async () => {
    const [id] = await repo().enqueue([{ name: 'noop', queue: 'stop', payload: { delayMs: 60_000 } }]);
    const w = worker('stop', { noop: handleNoop(new JobService(use().db)) }, { stopTimeoutMs: 100 });
    await w.start();
    await waitFor(async () => (await repo().get(id!))?.status === 'running');
    await w.stop();
    expect(await repo().get(id!)).toMatchObject({ status: 'pending', attempts: 0, locked_by: null });
  });

  it('runs sync jobs through the sync service, skipping a round while the same source still runs', async () => {
    const jobs = new JobService(use().db);
    const calls: string[] = [];
    const sync = { run: async (source: string) => (calls.push(source), { durationMs: 1 }) as never };
    // Another worker is in the middle of a cve5 round.
    const [busy] = await repo().enqueue([{ name: 'sync', queue: 'sync', payload: { source: 'cve5' } }]);
    await repo().claim('elsewhere', 1, 60_000, 'sync');
    const ids = await repo().enqueue([
      { name: 'sync', queue: 'sync', payload: { source: 'cve5' } },
      { name: 'sync', queue: 'sync', payload: { source: 'kev' } },
      { name: 'sync', queue: 'sync', payload: { source: 'nope' } },
    ]);
    const w = worker('sync', { sync: handleSync({ jobs, sync }) });
    await w.start();
    const rows = await waitFor(async () => {
      const r = await Promise.all(ids.map((id) => repo().get(id)));
      return r.every((x) => x?.status === 'succeeded' || x?.status === 'failed') ? r : undefined;
    });
    await w.stop();
    expect(calls).toEqual(['kev']);
    expect(rows.map((r) => r?.status)).toEqual(['succeeded', 'succeeded', 'failed']);
    expect(rows[2]?.last_error).toBe('sync: unknown source "nope"');
    await repo().complete('elsewhere', [busy!]);
  });

  it('counts jobs by status and reports the oldest waiting job', async () => {
    const service = new JobService(use().db);
    await repo().enqueue([{ name: 'noop', queue: 'stats-never-claimed' }]);
    const overview = await service.overview();
    expect(overview.counts.pending).toBeGreaterThan(0);
    expect(overview.counts.succeeded).toBeGreaterThan(0);
    expect(overview.counts.dead).toBe(0);
    expect(overview.failed.map((j) => j.name)).toEqual(['sync', 'nobody-knows']);
    expect(overview.oldest_pending_seconds).toBeGreaterThanOrEqual(0);
    const readiness = await new HealthService(use().db, use().kind).readiness();
    expect(readiness.jobs?.counts).toEqual(overview.counts);
    expect(readiness.jobs?.oldest_pending_seconds).toBeGreaterThanOrEqual(0);
  });
});
