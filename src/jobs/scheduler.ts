/**
 * Cron schedules that enqueue jobs. Every `serve` and `worker` process runs one, so each tick is
 * enqueued by every process; the job's dedupe key names the tick (its scheduled time, not the time
 * the timer fired), so exactly one job per tick is created however many schedulers run.
 */
import { Cron } from 'croner';
import pino from 'pino';
import type { NewJob } from '../db/job.repository.ts';
import type { SyncSourceName } from '../config.ts';
import { PROCESS_EVENTS_JOB } from '../services/event-processor.service.ts';
import { PURGE_DELIVERIES_JOB } from '../services/delivery.service.ts';
import { REPORTS_DUE_JOB } from '../services/report.service.ts';
import { COMPUTE_STATISTICS_JOB } from '../services/statistics.service.ts';
import { CHECK_STALENESS_JOB } from '../services/freshness.service.ts';
import { LEARN_VENDOR_ALIASES_JOB } from '../services/vendor-alias.service.ts';

type Logger = Pick<pino.Logger, 'debug' | 'info' | 'warn' | 'error'>;

export interface Schedule {
  /** For logs: `sync:cve5`. */
  name: string;
  /** Cron pattern, 5 fields or 6 with seconds first (croner). */
  pattern: string;
  /** The job of the tick scheduled at `tick`. */
  job(tick: Date): NewJob;
}

/** A tick's identity: its scheduled time to the second, in UTC (`2024-05-01T10:15:00Z`). */
export const tickKey = (tick: Date) => `${tick.toISOString().slice(0, 19)}Z`;

/** The `sync {source}` schedule of each configured source (docs/sync.md). */
export function syncSchedules(
  sources: readonly SyncSourceName[],
  patterns: Record<SyncSourceName, string>,
): Schedule[] {
  return sources.map((source) => ({
    name: `sync:${source}`,
    pattern: patterns[source],
    job: (tick) => ({ name: 'sync', payload: { source }, dedupeKey: `sync:${source}:${tickKey(tick)}` }),
  }));
}

/** Daily removal of succeeded jobs older than a week (failed and dead ones stay for inspection). */
export const purgeSchedule: Schedule = {
  name: 'jobs.purge',
  pattern: '23 2 * * *',
  job: (tick) => ({
    name: 'jobs.purge',
    payload: { olderThanDays: 7 },
    dedupeKey: `jobs.purge:${tickKey(tick)}`,
  }),
};

/** Hourly: the catalog statistics of the Statistics page (docs/jobs.md). */
export const statisticsSchedule: Schedule = {
  name: COMPUTE_STATISTICS_JOB,
  pattern: '17 * * * *',
  job: (tick) => ({ name: COMPUTE_STATISTICS_JOB, dedupeKey: `${COMPUTE_STATISTICS_JOB}:${tickKey(tick)}` }),
};

/** Hourly: emails the owners about a configured source that went stale (docs/sync.md, "Staleness"). */
export const stalenessSchedule: Schedule = {
  name: CHECK_STALENESS_JOB,
  pattern: '41 * * * *',
  job: (tick) => ({ name: CHECK_STALENESS_JOB, dedupeKey: `${CHECK_STALENESS_JOB}:${tickKey(tick)}` }),
};

/** Daily: the CNA-text alias table learned anew from the catalog, which the day's imports taught more (docs/jobs.md). */
export const vendorAliasSchedule: Schedule = {
  name: LEARN_VENDOR_ALIASES_JOB,
  pattern: '37 3 * * *',
  job: (tick) => ({
    name: LEARN_VENDOR_ALIASES_JOB,
    dedupeKey: `${LEARN_VENDOR_ALIASES_JOB}:${tickKey(tick)}`,
  }),
};

/**
 * Every minute: reports whose period ended, and the event processor as a safety net (imports queue
 * it when they record changes; a change recorded by a process that stopped before queuing is caught
 * here). Daily: deliveries past their retention.
 */
export const notificationSchedules: Schedule[] = [
  {
    name: REPORTS_DUE_JOB,
    pattern: '* * * * *',
    job: (tick) => ({ name: REPORTS_DUE_JOB, dedupeKey: `${REPORTS_DUE_JOB}:${tickKey(tick)}` }),
  },
  {
    name: PROCESS_EVENTS_JOB,
    pattern: '* * * * *',
    job: (tick) => ({ name: PROCESS_EVENTS_JOB, dedupeKey: `${PROCESS_EVENTS_JOB}:${tickKey(tick)}` }),
  },
  {
    name: PURGE_DELIVERIES_JOB,
    pattern: '43 2 * * *',
    job: (tick) => ({ name: PURGE_DELIVERIES_JOB, dedupeKey: `${PURGE_DELIVERIES_JOB}:${tickKey(tick)}` }),
  },
];

export class Scheduler {
  private crons: Cron[] = [];

  constructor(
    private readonly enqueue: (jobs: NewJob[]) => Promise<number[]>,
    private readonly schedules: readonly Schedule[],
    private readonly logger: Logger = pino({ level: 'silent' }),
  ) {
    // A bad pattern fails here, at start-up, not at its first tick.
    for (const s of schedules) new Cron(s.pattern, { paused: true }).stop();
  }

  start(): void {
    for (const schedule of this.schedules) {
      const cron = new Cron(schedule.pattern, (self: Cron) => {
        // The scheduled time, which every process agrees on, even when this timer fired late.
        const tick = self.previousRuns(1, new Date(Date.now() + 1))[0] ?? new Date();
        void this.tick(schedule, tick);
      });
      this.crons.push(cron);
    }
  }

  /** Enqueues `schedule`'s job for `tick`. True when this call created it (false: another process did). Never throws. */
  async tick(schedule: Schedule, tick: Date): Promise<boolean> {
    try {
      const created = (await this.enqueue([schedule.job(tick)])).length > 0;
      this.logger.debug({ schedule: schedule.name, tick: tickKey(tick), created }, 'schedule tick');
      return created;
    } catch (err) {
      this.logger.warn({ err, schedule: schedule.name }, 'could not enqueue a scheduled job');
      return false;
    }
  }

  stop(): void {
    for (const cron of this.crons) cron.stop();
    this.crons = [];
  }
}
