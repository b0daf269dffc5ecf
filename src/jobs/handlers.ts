/**
 * Job names → handlers: the one place the registry is built. Handlers call services; they are
 * idempotent (a job can run more than once: see docs/jobs.md).
 */
import type { JobService } from '../services/job.service.ts';
import { PermanentJobError, type JobContext, type JobHandler } from './worker.ts';

export interface JobHandlerDeps {
  jobs: JobService;
}

const MAX_NOOP_DELAY_MS = 3_600_000;

/**
 * `noop`: does nothing, for diagnostics and the throughput benchmark. Payload (all optional):
 * `delayMs` waits that long (up to an hour; cut short when the worker stops), `record: true`
 * appends the worker id to the job's own `payload.runs` (so each execution is visible in the job
 * row: how the scale-out test proves exactly-once), `fail: "message"` throws that error.
 */
export function handleNoop(jobs: JobService): JobHandler {
  return async (payload: Record<string, unknown>, context: JobContext) => {
    if (payload.record === true) await jobs.recordRun(context.id, context.workerId);
    const delay = payload.delayMs;
    if (delay !== undefined) {
      if (typeof delay !== 'number' || !(delay >= 0 && delay <= MAX_NOOP_DELAY_MS))
        throw new PermanentJobError(
          `noop: delayMs must be a number of milliseconds up to ${MAX_NOOP_DELAY_MS}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        context.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    if (typeof payload.fail === 'string') throw new Error(payload.fail);
  };
}

/** `jobs.purge {olderThanDays}`: deletes succeeded jobs finished before then. */
export function handlePurge(jobs: JobService): JobHandler {
  return async (payload) => {
    const days = typeof payload.olderThanDays === 'number' ? payload.olderThanDays : 7;
    await jobs.purgeSucceeded(new Date(Date.now() - days * 86_400_000));
  };
}

export function jobHandlers(deps: JobHandlerDeps): Record<string, JobHandler> {
  return {
    noop: handleNoop(deps.jobs),
    'jobs.purge': handlePurge(deps.jobs),
  };
}
