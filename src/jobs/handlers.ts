/**
 * Job names → handlers: the one place the registry is built. Handlers call services; they are
 * idempotent (a job can run more than once: see docs/jobs.md).
 */
import pino from 'pino';
import { SYNC_SOURCE_NAMES, type SyncSourceName } from '../config.ts';
import type { JobService } from '../services/job.service.ts';
import type { SyncService } from '../services/sync.service.ts';
import { PROCESS_EVENTS_JOB, type EventProcessor } from '../services/event-processor.service.ts';
import { DELIVER_JOB, PURGE_DELIVERIES_JOB, type DeliveryService } from '../services/delivery.service.ts';
import { CONFIRM_EMAIL_JOB, type NotificationService } from '../services/notification.service.ts';
import { REPORTS_DUE_JOB, type ReportService } from '../services/report.service.ts';
import { COMPUTE_STATISTICS_JOB, type StatisticsService } from '../services/statistics.service.ts';
import { CHECK_STALENESS_JOB, type FreshnessService } from '../services/freshness.service.ts';
import {
  LEARN_VENDOR_ALIASES_JOB,
  REMAP_VENDOR_KEYS_JOB,
  type VendorAliasService,
} from '../services/vendor-alias.service.ts';
import { PermanentJobError, type JobContext, type JobHandler } from './worker.ts';

type Logger = Pick<pino.Logger, 'info' | 'warn'>;

export interface JobHandlerDeps {
  jobs: JobService;
  sync: Pick<SyncService, 'run'>;
  events: Pick<EventProcessor, 'processPending'>;
  deliveries: Pick<DeliveryService, 'attempt' | 'purgeExpired'>;
  notifications: Pick<NotificationService, 'sendConfirmation'>;
  reports: Pick<ReportService, 'runDue'>;
  statistics: Pick<StatisticsService, 'compute'>;
  vendorAliases: Pick<VendorAliasService, 'learn' | 'remapCatalog'>;
  freshness: Pick<FreshnessService, 'alertStale'>;
  logger?: Logger;
}

/**
 * `sync {source}`: one sync round of that source (what the scheduler enqueues on each tick). A
 * failure throws, so the job is retried with backoff. When a round of the same source still runs
 * on some worker (a slow full load outlasting the next tick), this one is skipped: the running
 * round and the next tick continue from the cursor, so nothing is lost.
 */
export function handleSync(deps: Pick<JobHandlerDeps, 'jobs' | 'sync' | 'logger'>): JobHandler {
  const logger = deps.logger ?? pino({ level: 'silent' });
  return async (payload, context) => {
    const source = payload.source;
    if (typeof source !== 'string' || !(SYNC_SOURCE_NAMES as readonly string[]).includes(source))
      throw new PermanentJobError(`sync: unknown source ${JSON.stringify(source)}`);
    if (await deps.jobs.runningElsewhere(context.id, 'sync', { source })) {
      logger.info(
        { job: context.id, source },
        'a sync round of this source is still running; skipping this tick',
      );
      return;
    }
    const report = await deps.sync.run(source as SyncSourceName);
    logger.info({ job: context.id, source, durationMs: report.durationMs }, `sync ${source} done`);
  };
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

/**
 * `events.process`: matches the changes recorded since the last run to projects and runs their alert
 * automations (queued after every import that recorded changes, and every minute as a safety net).
 */
export function handleProcessEvents(deps: Pick<JobHandlerDeps, 'events' | 'logger'>): JobHandler {
  const logger = deps.logger ?? pino({ level: 'silent' });
  return async (_payload, context) => {
    const report = await deps.events.processPending();
    if (report.items) logger.info({ job: context.id, ...report }, 'changes matched to projects');
  };
}

/** `notifications.purge`: deletes the deliveries older than DELIVERY_RETENTION_DAYS (daily). */
export function handlePurgeDeliveries(deps: Pick<JobHandlerDeps, 'deliveries' | 'logger'>): JobHandler {
  const logger = deps.logger ?? pino({ level: 'silent' });
  return async (_payload, context) => {
    const deleted = await deps.deliveries.purgeExpired();
    if (deleted) logger.info({ job: context.id, deleted }, 'expired deliveries deleted');
  };
}

/** `notifications.deliver {delivery}`: one attempt of a delivery (the service queues the next one). */
export function handleDeliver(deps: Pick<JobHandlerDeps, 'deliveries'>): JobHandler {
  return async (payload) => {
    if (typeof payload.delivery !== 'string')
      throw new PermanentJobError('notifications.deliver: no delivery id');
    await deps.deliveries.attempt(payload.delivery);
  };
}

/** `notifications.confirm-email {notification}`: the double opt-in email of an address outside the organization. */
export function handleConfirmEmail(deps: Pick<JobHandlerDeps, 'notifications'>): JobHandler {
  return async (payload) => {
    if (typeof payload.notification !== 'string')
      throw new PermanentJobError('notifications.confirm-email: no notification id');
    await deps.notifications.sendConfirmation(payload.notification);
  };
}

/** `reports.due`: generates the reports whose period has ended (every minute). */
export function handleReportsDue(deps: Pick<JobHandlerDeps, 'reports' | 'logger'>): JobHandler {
  const logger = deps.logger ?? pino({ level: 'silent' });
  return async (_payload, context) => {
    const made = await deps.reports.runDue();
    if (made) logger.info({ job: context.id, reports: made }, 'reports generated');
  };
}

/** `statistics.compute`: counts the catalog for the Statistics page and stores the result (hourly). */
export function handleComputeStatistics(deps: Pick<JobHandlerDeps, 'statistics' | 'logger'>): JobHandler {
  const logger = deps.logger ?? pino({ level: 'silent' });
  return async (_payload, context) => {
    const { durationMs, statistics } = await deps.statistics.compute();
    logger.info(
      { job: context.id, durationMs, published: statistics.published },
      'catalog statistics computed',
    );
  };
}

/**
 * `sync.staleness`: emails the owners once per stale episode of a configured source (hourly).
 * Without SMTP it logs a warning instead, once per episode; the pages' banner names the source.
 */
export function handleCheckStaleness(deps: Pick<JobHandlerDeps, 'freshness' | 'logger'>): JobHandler {
  const logger = deps.logger ?? pino({ level: 'silent' });
  return async (_payload, context) => {
    for (const alert of await deps.freshness.alertStale()) {
      if (alert.email === 'not_configured')
        logger.warn(
          { job: context.id, source: alert.source },
          `${alert.label} is stale; no email to the owners: SMTP_URL is not set`,
        );
      else
        logger.warn(
          { job: context.id, source: alert.source, recipients: alert.recipients, failed: alert.failed },
          `${alert.label} is stale; the organizations' owners were emailed`,
        );
    }
  };
}

/** `vendors.learn`: the CNA-text alias table learned anew from the catalog (daily). */
export function handleLearnVendorAliases(deps: Pick<JobHandlerDeps, 'vendorAliases' | 'logger'>): JobHandler {
  const logger = deps.logger ?? pino({ level: 'silent' });
  return async (_payload, context) => {
    const report = await deps.vendorAliases.learn();
    logger.info(
      { job: context.id, durationMs: report.durationMs, learnedFrom: report.learnedFrom, read: report.read },
      'vendor alias table learned',
    );
  };
}

/** `vendors.remap`: the catalog merged again with the current alias table and overrides (after an override's change). */
export function handleRemapVendorKeys(deps: Pick<JobHandlerDeps, 'vendorAliases' | 'logger'>): JobHandler {
  const logger = deps.logger ?? pino({ level: 'silent' });
  return async (_payload, context) => {
    const report = await deps.vendorAliases.remapCatalog();
    logger.info(
      { job: context.id, examined: report?.examined, remapped: report?.remapped, changes: report?.changes },
      'catalog re-mapped with the vendor aliases',
    );
  };
}

export function jobHandlers(deps: JobHandlerDeps): Record<string, JobHandler> {
  return {
    sync: handleSync(deps),
    [PROCESS_EVENTS_JOB]: handleProcessEvents(deps),
    [DELIVER_JOB]: handleDeliver(deps),
    [PURGE_DELIVERIES_JOB]: handlePurgeDeliveries(deps),
    [CONFIRM_EMAIL_JOB]: handleConfirmEmail(deps),
    [REPORTS_DUE_JOB]: handleReportsDue(deps),
    [COMPUTE_STATISTICS_JOB]: handleComputeStatistics(deps),
    [CHECK_STALENESS_JOB]: handleCheckStaleness(deps),
    [LEARN_VENDOR_ALIASES_JOB]: handleLearnVendorAliases(deps),
    [REMAP_VENDOR_KEYS_JOB]: handleRemapVendorKeys(deps),
    noop: handleNoop(deps.jobs),
    'jobs.purge': handlePurge(deps.jobs),
  };
}
