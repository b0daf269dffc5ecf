/** The job queue as operators and other services see it: enqueue, status, retry of dead jobs. */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { JobRepository, type JobRow, type JobStatus, type NewJob } from '../db/job.repository.ts';

export interface JobSummary {
  id: number;
  name: string;
  status: JobStatus;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
  run_at: string;
  started_at: string | null;
  finished_at: string | null;
  lease_until: string | null;
  locked_by: string | null;
  last_error: string | null;
}

export interface JobsOverview {
  counts: Record<JobStatus, number>;
  /** Seconds the oldest due pending job has waited (null: none waiting). */
  oldest_pending_seconds: number | null;
  running: JobSummary[];
  /** Failed at least once, waiting for the next attempt. */
  retrying: JobSummary[];
  failed: JobSummary[];
  dead: JobSummary[];
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

function summary(r: JobRow): JobSummary {
  return {
    id: r.id,
    name: r.name,
    status: r.status,
    payload: r.payload,
    attempts: r.attempts,
    max_attempts: r.max_attempts,
    run_at: new Date(r.run_at).toISOString(),
    started_at: iso(r.started_at),
    finished_at: iso(r.finished_at),
    lease_until: iso(r.lease_until),
    locked_by: r.locked_by,
    last_error: r.last_error,
  };
}

export class JobService {
  readonly repository: JobRepository;

  constructor(db: Kysely<DB>) {
    this.repository = new JobRepository(db);
  }

  /** Enqueues jobs; returns the ids created (a job whose dedupe key exists is skipped). */
  enqueue(jobs: NewJob[]): Promise<number[]> {
    return this.repository.enqueue(jobs);
  }

  async overview(limit = 20): Promise<JobsOverview> {
    const { counts, oldestPendingSeconds } = await this.repository.counts();
    return {
      counts,
      oldest_pending_seconds:
        oldestPendingSeconds === null ? null : Math.round(oldestPendingSeconds * 10) / 10,
      running: (await this.repository.list('running', limit)).map(summary),
      retrying: (await this.repository.listRetrying(limit)).map(summary),
      failed: (await this.repository.list('failed', limit)).map(summary),
      dead: (await this.repository.list('dead', limit)).map(summary),
    };
  }

  /** Queues a dead or failed job again with fresh attempts; false when no such job is dead or failed. */
  retry(id: number): Promise<boolean> {
    return this.repository.retry(id);
  }

  /**
   * At start-up: the queued `sync` jobs of sources not in `enabled` (SYNC_SOURCES changed since they
   * were queued) are cancelled, so a source turned off stops being synced at once instead of retrying
   * until its jobs are dead. `orphans`: this process is alone (embedded), so running jobs are orphans.
   */
  async cancelSyncOfDisabledSources(
    enabled: readonly string[],
    orphans: boolean,
  ): Promise<{ id: number; value: string | null }[]> {
    const now = enabled.length ? enabled.join(',') : 'none';
    return this.repository.cancelQueued(
      'sync',
      'source',
      enabled,
      `cancelled at start-up: its source is not in SYNC_SOURCES (now ${now})`,
      orphans,
    );
  }

  /** True when another job `name` with this payload runs now (under a live lease) on any worker. */
  runningElsewhere(id: number, name: string, payload: Record<string, unknown>): Promise<boolean> {
    return this.repository.runningElsewhere(id, name, payload);
  }

  recordRun(id: number, workerId: string): Promise<void> {
    return this.repository.recordRun(id, workerId);
  }

  purgeSucceeded(before: Date): Promise<number> {
    return this.repository.purgeSucceeded(before);
  }
}
