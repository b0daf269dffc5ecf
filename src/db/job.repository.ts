/**
 * The job queue's SQL. Jobs are rows; workers claim due rows with FOR UPDATE SKIP LOCKED and hold
 * them under a lease they renew while the job runs. A running job whose lease has expired (its
 * worker died) is claimable again. Every state change after a claim checks `locked_by`, so a worker
 * that lost its lease cannot overwrite the state written by the worker that took the job over.
 */
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { DB } from './schema.ts';

/** The channel a notification goes to when jobs are enqueued; the payload is the queue name. */
export const JOB_CHANNEL = 'vulntrack_jobs';

export const DEFAULT_QUEUE = 'default';

export type JobStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'dead';
export const JOB_STATUSES: readonly JobStatus[] = ['pending', 'running', 'succeeded', 'failed', 'dead'];

export interface NewJob {
  name: string;
  payload?: Record<string, unknown>;
  queue?: string;
  /** Not before this time (default: now). */
  runAt?: Date;
  /** A second job with the same key is not enqueued (ON CONFLICT DO NOTHING), whatever its state. */
  dedupeKey?: string;
  maxAttempts?: number;
}

export interface ClaimedJob {
  id: number;
  name: string;
  payload: Record<string, unknown>;
  /** This attempt's number, from 1. */
  attempt: number;
  maxAttempts: number;
}

export interface JobRow {
  id: number;
  queue: string;
  name: string;
  payload: Record<string, unknown>;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  run_at: Date;
  lease_until: Date | null;
  locked_by: string | null;
  last_error: string | null;
  dedupe_key: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface JobCounts {
  counts: Record<JobStatus, number>;
  /** Age of the oldest due pending job, in seconds (null when none is waiting). */
  oldestPendingSeconds: number | null;
}

export class JobRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Enqueues jobs and wakes listening workers. Returns the ids of the jobs created (deduplicated ones are left out). */
  async enqueue(jobs: NewJob[]): Promise<number[]> {
    if (jobs.length === 0) return [];
    const rows = jobs.map((j) => ({
      name: j.name,
      payload: JSON.stringify(j.payload ?? {}),
      queue: j.queue ?? DEFAULT_QUEUE,
      run_at: j.runAt ?? new Date(),
      dedupe_key: j.dedupeKey ?? null,
      max_attempts: j.maxAttempts ?? 5,
    }));
    // One statement: the notification is sent on commit, and only for rows actually inserted.
    const result = await this.db
      .with('inserted', (db) =>
        db
          .insertInto('job')
          .values(rows)
          .onConflict((oc) => oc.column('dedupe_key').doNothing())
          .returning(['id', 'queue']),
      )
      .selectFrom('inserted')
      .select(['id', sql<string>`pg_notify(${JOB_CHANNEL}, inserted.queue)`.as('notified')])
      .execute();
    return result.map((r) => Number(r.id));
  }

  /**
   * Claims up to `limit` due jobs of `queue` for `workerId`: pending ones whose time has come, and
   * running ones whose lease expired (taken over). Each claim counts as an attempt.
   */
  async claim(
    workerId: string,
    limit: number,
    leaseMs: number,
    queue = DEFAULT_QUEUE,
  ): Promise<ClaimedJob[]> {
    const { rows } = await sql<{
      id: number | string;
      name: string;
      payload: Record<string, unknown>;
      attempts: number;
      max_attempts: number;
    }>`
      UPDATE job
         SET status = 'running', attempts = attempts + 1, locked_by = ${workerId},
             lease_until = now() + ${leaseMs} * interval '1 millisecond', started_at = now()
       WHERE id IN (SELECT id FROM job
                     WHERE queue = ${queue} AND status IN ('pending', 'running') AND run_at <= now()
                       AND (status = 'pending' OR lease_until < now())
                     ORDER BY run_at, id
                     LIMIT ${limit}
                       FOR UPDATE SKIP LOCKED)
      RETURNING id, name, payload, attempts, max_attempts`.execute(this.db);
    return rows.map((r) => ({
      id: Number(r.id),
      name: r.name,
      payload: r.payload,
      attempt: r.attempts,
      maxAttempts: r.max_attempts,
    }));
  }

  /** Marks jobs of `workerId` succeeded. Returns the ids still held by it (the others were taken over). */
  async complete(workerId: string, ids: number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .updateTable('job')
      .set({ status: 'succeeded', finished_at: sql`now()`, lease_until: null, last_error: null })
      .where('id', 'in', ids)
      .where('locked_by', '=', workerId)
      .where('status', '=', 'running')
      .returning('id')
      .execute();
    return rows.map((r) => Number(r.id));
  }

  /**
   * Records a failed attempt: the job runs again after `retryInMs`, or becomes `dead` when it has
   * used all its attempts. `permanent` failures (no retry can help) become `failed` at once.
   * Returns the new status, or undefined when the job is no longer held by `workerId`.
   */
  async fail(
    workerId: string,
    id: number,
    error: string,
    retryInMs: number,
    permanent = false,
  ): Promise<JobStatus | undefined> {
    const row = await this.db
      .updateTable('job')
      .set({
        status: sql`CASE WHEN ${permanent} THEN 'failed' WHEN attempts >= max_attempts THEN 'dead' ELSE 'pending' END`,
        run_at: sql`CASE WHEN ${permanent} OR attempts >= max_attempts THEN run_at
                         ELSE now() + ${retryInMs} * interval '1 millisecond' END`,
        finished_at: sql`CASE WHEN ${permanent} OR attempts >= max_attempts THEN now() END`,
        last_error: error.slice(0, 4000),
        lease_until: null,
        locked_by: sql`CASE WHEN ${permanent} OR attempts >= max_attempts THEN locked_by END`,
      })
      .where('id', '=', id)
      .where('locked_by', '=', workerId)
      .where('status', '=', 'running')
      .returning('status')
      .executeTakeFirst();
    return row?.status as JobStatus | undefined;
  }

  /** Extends the leases of jobs `workerId` still runs. Returns the ids it still holds. */
  async renewLeases(workerId: string, ids: number[], leaseMs: number): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .updateTable('job')
      .set({ lease_until: sql`now() + ${leaseMs} * interval '1 millisecond'` })
      .where('id', 'in', ids)
      .where('locked_by', '=', workerId)
      .where('status', '=', 'running')
      .returning('id')
      .execute();
    return rows.map((r) => Number(r.id));
  }

  /** Hands jobs back unfinished (a worker stopping): pending again at once, the attempt not counted. */
  async release(workerId: string, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('job')
      .set({
        status: 'pending',
        attempts: sql`greatest(attempts - 1, 0)`,
        lease_until: null,
        locked_by: null,
        run_at: sql`now()`,
      })
      .where('id', 'in', ids)
      .where('locked_by', '=', workerId)
      .where('status', '=', 'running')
      .execute();
  }

  /** Puts a dead or failed job back in the queue with fresh attempts. False when there is no such job in that state. */
  async retry(id: number): Promise<boolean> {
    const result = await this.db
      .updateTable('job')
      .set({ status: 'pending', attempts: 0, run_at: sql`now()`, finished_at: null, locked_by: null })
      .where('id', '=', id)
      .where('status', 'in', ['dead', 'failed'])
      .returning(['id', 'queue'])
      .executeTakeFirst();
    if (!result) return false;
    await sql`SELECT pg_notify(${JOB_CHANNEL}, ${result.queue})`.execute(this.db);
    return true;
  }

  /** True when another job named `name` whose payload contains `payload` is running under a live lease. */
  async runningElsewhere(id: number, name: string, payload: Record<string, unknown>): Promise<boolean> {
    const row = await this.db
      .selectFrom('job')
      .select('id')
      .where('name', '=', name)
      .where('status', '=', 'running')
      .where('id', '!=', id)
      .where(sql<boolean>`payload @> ${JSON.stringify(payload)}::jsonb`)
      .where(sql<boolean>`lease_until > now()`)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Diagnostics: appends `workerId` to the job's `payload.runs` (how the noop job proves each execution). */
  async recordRun(id: number, workerId: string): Promise<void> {
    await sql`
      UPDATE job SET payload = payload || jsonb_build_object('runs',
               coalesce(payload->'runs', '[]'::jsonb) || to_jsonb(${workerId}::text))
       WHERE id = ${id}`.execute(this.db);
  }

  /** Deletes succeeded jobs finished before `before`. Returns how many. */
  async purgeSucceeded(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('job')
      .where('status', '=', 'succeeded')
      .where('finished_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async counts(): Promise<JobCounts> {
    const rows = await this.db
      .selectFrom('job')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('status')
      .execute();
    const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
    for (const r of rows) counts[r.status] = Number(r.n);
    const oldest = await sql<{ age: number | null }>`
      SELECT extract(epoch FROM now() - min(run_at))::float8 AS age
        FROM job WHERE status = 'pending' AND run_at <= now()`.execute(this.db);
    const age = oldest.rows[0]?.age;
    return { counts, oldestPendingSeconds: age === null || age === undefined ? null : Number(age) };
  }

  /** Jobs in one state, most recent first (running: by start, others: by finish or creation). */
  async list(status: JobStatus, limit: number): Promise<JobRow[]> {
    const rows = await this.db
      .selectFrom('job')
      .selectAll()
      .where('status', '=', status)
      .orderBy(sql`coalesce(finished_at, started_at, created_at)`, 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...r, id: Number(r.id) }) as JobRow);
  }

  /** Pending jobs that failed at least once and wait for their next attempt, soonest first. */
  async listRetrying(limit: number): Promise<JobRow[]> {
    const rows = await this.db
      .selectFrom('job')
      .selectAll()
      .where('status', '=', 'pending')
      .where('last_error', 'is not', null)
      .orderBy('run_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...r, id: Number(r.id) }) as JobRow);
  }

  /**
   * Ends the queued jobs `name` (pending, or running under a lease that has passed; with `orphans`,
   * any running one) whose payload's `key` is not one of `kept`: `failed`, with `reason` as their
   * last error. Returns the ids and the values of `key`.
   */
  async cancelQueued(
    name: string,
    key: string,
    kept: readonly string[],
    reason: string,
    orphans: boolean,
  ): Promise<{ id: number; value: string | null }[]> {
    const rows = await this.db
      .updateTable('job')
      .set({
        status: 'failed',
        finished_at: sql`now()`,
        lease_until: null,
        locked_by: null,
        last_error: reason,
      })
      .where('name', '=', name)
      .where((eb) =>
        eb.or([
          eb('status', '=', 'pending'),
          eb.and([
            eb('status', '=', 'running'),
            orphans ? sql<SqlBool>`true` : sql<SqlBool>`lease_until < now()`,
          ]),
        ]),
      )
      .where(sql<SqlBool>`NOT (coalesce(payload->>${key}, '') = ANY(${[...kept]}::text[]))`)
      .returning(['id', sql<string | null>`payload->>${key}`.as('value')])
      .execute();
    return rows.map((r) => ({ id: Number(r.id), value: r.value }));
  }

  /** Embedded database only (one process): jobs left running by a process that was killed are due again now. */
  async releaseOrphans(): Promise<number> {
    const result = await this.db
      .updateTable('job')
      .set({ status: 'pending', lease_until: null, locked_by: null })
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async get(id: number): Promise<JobRow | undefined> {
    const row = await this.db.selectFrom('job').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? ({ ...row, id: Number(row.id) } as JobRow) : undefined;
  }
}
