/**
 * The worker loop: claims due jobs (FOR UPDATE SKIP LOCKED), runs them with bounded concurrency,
 * renews their leases while they run and records the outcome. It wakes on a NOTIFY from enqueue and
 * polls as a fallback, so a lost notification delays a job by at most one poll interval.
 *
 * Delivery is at least once: a job whose worker dies (or loses its lease) runs again on another
 * worker after the lease expires, so handlers must be safe to repeat.
 */
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import type { Database } from '../db/client.ts';
import {
  DEFAULT_QUEUE,
  JOB_CHANNEL,
  type ClaimedJob,
  type JobRepository,
  type JobStatus,
} from '../db/job.repository.ts';

export interface JobContext {
  id: number;
  name: string;
  /** This attempt's number, from 1. */
  attempt: number;
  maxAttempts: number;
  workerId: string;
  /** Aborted when the worker stops before the job is done or loses the job's lease. */
  signal: AbortSignal;
}

/** Runs one job. Throwing fails this attempt (retried with backoff); it never stops the worker. */
export type JobHandler = (payload: Record<string, unknown>, context: JobContext) => Promise<void>;

/** A failure no retry can fix (bad payload, unknown job): the job becomes `failed` at once. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

type Logger = Pick<pino.Logger, 'debug' | 'info' | 'warn' | 'error'>;

export interface WorkerOptions {
  repository: JobRepository;
  handlers: Record<string, JobHandler>;
  concurrency: number;
  leaseMs: number;
  pollIntervalMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Subscribes to enqueue notifications; without it the worker only polls. */
  listen?: Database['listen'];
  queue?: string;
  workerId?: string;
  logger?: Logger;
  /** How long `stop()` waits for running jobs before handing them back (default 10 s). */
  stopTimeoutMs?: number;
  /** Told of every attempt that ended here (for metrics): its outcome and how long it ran. */
  onFinished?: (name: string, status: JobStatus, seconds: number) => void;
}

/** hostname:pid:random, unique per worker instance; recorded as `job.locked_by`. */
export function newWorkerId(): string {
  return `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/**
 * Delay before attempt `attempt + 1` after attempt `attempt` failed: base · 2^(attempt−1), capped
 * at `max`, with "equal jitter" (between half and all of it) so that jobs failing together spread out.
 */
export function retryDelay(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp / 2 + (random() * exp) / 2);
}

interface Running {
  job: ClaimedJob;
  controller: AbortController;
  done: Promise<void>;
}

/** During a backlog, freed slots are gathered this long (at most) into one claim. */
const CLAIM_GATHER_MS = 10;

export class Worker {
  readonly workerId: string;
  private readonly repo: JobRepository;
  private readonly queue: string;
  private readonly logger: Logger;
  private readonly running = new Map<number, Running>();
  private stopping = false;
  private stopped: Promise<void> | undefined;
  private loopDone: Promise<void> = Promise.resolve();
  private unlisten: (() => Promise<void>) | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  /** Set by a notification or a freed slot while there may be work: the next wait returns at once. */
  private woken = false;
  private wake: (() => void) | undefined;
  /** The last claim filled every free slot, so more jobs may be due. */
  private backlog = false;
  private completed: number[] = [];
  private flushing: Promise<void> | undefined;
  /** When the last claim was sent (performance.now()). */
  private lastClaim = -Infinity;

  constructor(private readonly options: WorkerOptions) {
    this.workerId = options.workerId ?? newWorkerId();
    this.repo = options.repository;
    this.queue = options.queue ?? DEFAULT_QUEUE;
    this.logger = options.logger ?? pino({ level: 'silent' });
  }

  /** Jobs running now. */
  get activeJobs(): number {
    return this.running.size;
  }

  async start(): Promise<void> {
    if (this.options.listen) {
      this.unlisten = await this.options.listen(JOB_CHANNEL, (queue) => {
        if (queue === this.queue) this.notify();
      });
    }
    this.heartbeat = setInterval(() => void this.renewLeases(), Math.max(50, this.options.leaseMs / 3));
    this.loopDone = this.loop();
  }

  /**
   * Stops claiming, waits up to `stopTimeoutMs` for running jobs, then aborts the rest and hands
   * them back to the queue (pending again, the attempt not counted). Idempotent.
   */
  stop(): Promise<void> {
    this.stopped ??= this.shutdown();
    return this.stopped;
  }

  private async shutdown(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loopDone;
    await this.unlisten?.().catch(() => {});
    const all = Promise.allSettled([...this.running.values()].map((r) => r.done));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      all.then(() => false),
      new Promise<boolean>(
        (resolve) => (timer = setTimeout(() => resolve(true), this.options.stopTimeoutMs ?? 10_000)),
      ),
    ]);
    clearTimeout(timer);
    clearInterval(this.heartbeat);
    if (timedOut && this.running.size > 0) {
      const ids = [...this.running.keys()];
      for (const r of this.running.values()) r.controller.abort(new Error('worker stopping'));
      try {
        await this.repo.release(this.workerId, ids);
        this.logger.info({ jobs: ids }, 'handed unfinished jobs back to the queue');
      } catch (err) {
        this.logger.warn(
          { err, jobs: ids },
          'could not hand jobs back; they run again when their lease expires',
        );
      }
    }
    await this.flushing;
  }

  private notify(): void {
    this.woken = true;
    this.wake?.();
  }

  /** Waits `ms`, or less when woken. */
  private pause(ms: number): Promise<void> {
    if (this.woken || this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      const free = this.options.concurrency - this.running.size;
      const sinceClaim = performance.now() - this.lastClaim;
      if (free > 0 && this.backlog && free < this.claimBatch() && sinceClaim < CLAIM_GATHER_MS) {
        // A backlog drains a slot at a time: gather a few freed slots (a few milliseconds at most)
        // into one claim, rather than one claim statement per job.
        this.woken = false;
        await this.pause(CLAIM_GATHER_MS - sinceClaim);
        continue;
      }
      if (free > 0) {
        this.woken = false;
        let jobs: ClaimedJob[];
        try {
          this.lastClaim = performance.now();
          jobs = await this.repo.claim(this.workerId, free, this.options.leaseMs, this.queue);
        } catch (err) {
          this.logger.warn({ err }, 'claiming jobs failed; trying again');
          await this.pause(this.options.pollIntervalMs);
          continue;
        }
        if (this.stopping) {
          await this.repo
            .release(
              this.workerId,
              jobs.map((j) => j.id),
            )
            .catch(() => {});
          break;
        }
        this.backlog = jobs.length === free;
        for (const job of jobs) this.launch(job);
        if (this.backlog && this.running.size < this.options.concurrency) continue;
      } else {
        // Every slot is busy: a wake-up (a NOTIFY) cannot be acted on now. Left set, it would make
        // pause() return at once and this loop spin on resolved promises, starving the running
        // jobs' I/O forever. Keep it as "jobs may be waiting": the next freed slot claims at once.
        if (this.woken) this.backlog = true;
        this.woken = false;
      }
      await this.pause(this.options.pollIntervalMs);
    }
  }

  /** Freed slots worth a claim of their own during a backlog: a quarter of them. */
  private claimBatch(): number {
    return Math.max(1, Math.floor(this.options.concurrency / 4));
  }

  private launch(job: ClaimedJob): void {
    const controller = new AbortController();
    const entry: Running = { job, controller, done: Promise.resolve() };
    this.running.set(job.id, entry);
    entry.done = this.execute(job, controller.signal).finally(() => {
      this.running.delete(job.id);
      // A slot is free: claim again at once if jobs were left waiting.
      if (this.backlog) this.notify();
    });
  }

  /** Never rejects: every outcome is recorded (or logged when the database is gone). */
  private async execute(job: ClaimedJob, signal: AbortSignal): Promise<void> {
    const started = performance.now();
    try {
      if (job.attempt > job.maxAttempts) {
        // Its workers kept dying or losing the lease while running it: do not run it again.
        await this.recordFailure(
          job,
          `the job's lease expired on its last attempt (its worker stopped or hung)`,
        );
        return;
      }
      const handler = this.options.handlers[job.name];
      if (!handler) {
        await this.recordFailure(job, `no handler for job "${job.name}"`, true);
        return;
      }
      await handler(job.payload, {
        id: job.id,
        name: job.name,
        attempt: job.attempt,
        maxAttempts: job.maxAttempts,
        workerId: this.workerId,
        signal,
      });
      if (signal.aborted) return; // handed back or taken over: the new holder records the outcome
      this.options.onFinished?.(job.name, 'succeeded', (performance.now() - started) / 1000);
      this.completed.push(job.id);
      void this.flushCompleted();
      this.logger.debug(
        { job: job.id, name: job.name, ms: Math.round(performance.now() - started) },
        'job done',
      );
    } catch (err) {
      if (signal.aborted) return;
      const message = err instanceof Error ? err.message || err.name : String(err);
      const status = await this.recordFailure(job, message, err instanceof PermanentJobError);
      if (status) this.options.onFinished?.(job.name, status, (performance.now() - started) / 1000);
    }
  }

  /** Records a failed attempt; returns the job's new status (undefined when it could not be written). */
  private async recordFailure(
    job: ClaimedJob,
    message: string,
    permanent = false,
  ): Promise<JobStatus | undefined> {
    const delay = retryDelay(job.attempt, this.options.retryBaseMs, this.options.retryMaxMs);
    try {
      const status = await this.repo.fail(this.workerId, job.id, message, delay, permanent);
      const log = { job: job.id, name: job.name, attempt: job.attempt, error: message };
      if (status === 'pending')
        this.logger.warn({ ...log, retryInMs: delay }, 'job failed; it will be retried');
      else if (status)
        this.logger.error(log, `job ${status === 'dead' ? 'failed for the last time (dead)' : 'failed'}`);
      return status ?? undefined;
    } catch (err) {
      this.logger.error(
        { err, job: job.id },
        'could not record a job failure; it runs again when its lease expires',
      );
      return undefined;
    }
  }

  /**
   * Completions are written in batches: while one UPDATE is in flight the next ones gather, so a
   * busy worker writes one statement per batch rather than one per job.
   */
  private flushCompleted(): Promise<void> {
    this.flushing ??= (async () => {
      let failures = 0;
      while (this.completed.length > 0) {
        const ids = this.completed.splice(0);
        try {
          await this.repo.complete(this.workerId, ids);
          failures = 0;
        } catch (err) {
          if (++failures > 3) {
            this.logger.error(
              { err, jobs: ids },
              'could not record finished jobs; they run again when their lease expires',
            );
            continue;
          }
          this.completed.unshift(...ids);
          await new Promise((resolve) => setTimeout(resolve, 200 * failures));
        }
      }
    })().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /** Heartbeat: extends the leases of running jobs; a job no longer held (taken over) is aborted here. */
  private async renewLeases(): Promise<void> {
    const ids = [...this.running.keys()];
    if (ids.length === 0) return;
    try {
      const held = new Set(await this.repo.renewLeases(this.workerId, ids, this.options.leaseMs));
      for (const id of ids) {
        const entry = this.running.get(id);
        if (entry && !held.has(id)) {
          this.logger.warn(
            { job: id },
            'lost the lease of a running job (another worker took it over); aborting it',
          );
          entry.controller.abort(new Error('lease lost'));
        }
      }
    } catch (err) {
      this.logger.warn({ err }, 'renewing job leases failed');
    }
  }
}
