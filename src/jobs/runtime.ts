/** A process's job runtime: one worker and one scheduler, started and stopped together. */
import pino from 'pino';
import type { WorkerConfig } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { JobRepository } from '../db/job.repository.ts';
import { Scheduler, type Schedule } from './scheduler.ts';
import { Worker, type JobHandler, type WorkerOptions } from './worker.ts';

export interface JobRuntimeOptions {
  repository: JobRepository;
  handlers: Record<string, JobHandler>;
  schedules: Schedule[];
  listen: Database['listen'];
  settings: WorkerConfig;
  logger: pino.Logger;
  /** Embedded database: this process is alone, so jobs still marked running were orphaned by a kill. */
  releaseOrphans: boolean;
  onFinished?: WorkerOptions['onFinished'];
}

export interface JobRuntime {
  worker: Worker;
  scheduler: Scheduler;
  /** Stops the schedules, then the worker (running jobs get a grace period, then go back to the queue). */
  stop(): Promise<void>;
}

export async function startJobRuntime(options: JobRuntimeOptions): Promise<JobRuntime> {
  const { settings, logger } = options;
  if (options.releaseOrphans) {
    const n = await options.repository.releaseOrphans();
    if (n > 0) logger.info(`${n} job(s) left running by a previous process are due again`);
  }
  const worker = new Worker({
    repository: options.repository,
    handlers: options.handlers,
    concurrency: settings.concurrency,
    leaseMs: settings.leaseMs,
    pollIntervalMs: settings.pollIntervalMs,
    retryBaseMs: settings.retryBaseMs,
    retryMaxMs: settings.retryMaxMs,
    listen: options.listen,
    logger,
    ...(options.onFinished ? { onFinished: options.onFinished } : {}),
  });
  const scheduler = new Scheduler((jobs) => options.repository.enqueue(jobs), options.schedules, logger);
  await worker.start();
  scheduler.start();
  logger.info(
    {
      worker: worker.workerId,
      concurrency: settings.concurrency,
      schedules: options.schedules.map((s) => s.name),
    },
    `job worker ${worker.workerId} started`,
  );
  return {
    worker,
    scheduler,
    stop: async () => {
      scheduler.stop();
      await worker.stop();
    },
  };
}
