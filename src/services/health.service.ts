/** Liveness and readiness, with per-source import status for operators. */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { DatabaseKind } from '../db/client.ts';
import { HealthRepository } from '../db/health.repository.ts';
import { ImportRunRepository } from '../db/import-run.repository.ts';
import { JobRepository, type JobStatus } from '../db/job.repository.ts';
import { SyncStateRepository } from '../db/sync-state.repository.ts';
import { SYNC_SOURCE_NAMES, type SyncSourceName } from '../config.ts';

export interface Readiness {
  ready: boolean;
  database: {
    kind: DatabaseKind;
    reachable: boolean;
    migrations: 'applied' | 'pending' | 'unknown';
    error?: string;
  };
  catalog: { cves: number | null; sample: SampleState };
  sources: {
    source: string;
    status: string;
    started_at: string;
    finished_at: string | null;
    counts: Record<string, number>;
  }[];
  /** The job queue: jobs by status and how long the oldest due job has waited (null: none waiting). */
  jobs: { counts: Record<JobStatus, number>; oldest_pending_seconds: number | null } | null;
  /** Per configured upstream source: its last sync outcome. A failing source does not make the service unready. */
  sync: SyncStatus[];
}

export interface SyncStatus {
  source: SyncSourceName;
  last_attempt_at: string | null;
  last_success_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  consecutive_failures: number;
  /** Seconds since the last success; null before the first one. */
  lag_seconds: number | null;
}

export type SampleState = 'not_needed' | 'loading' | 'loaded' | 'failed' | 'disabled';

export class HealthService {
  private readonly health: HealthRepository;
  private readonly runs: ImportRunRepository;
  private readonly jobs: JobRepository;
  private readonly syncStates: SyncStateRepository;
  sampleState: SampleState = 'not_needed';

  constructor(
    db: Kysely<DB>,
    private readonly kind: DatabaseKind,
    private readonly syncSources: readonly SyncSourceName[] = SYNC_SOURCE_NAMES,
  ) {
    this.health = new HealthRepository(db);
    this.runs = new ImportRunRepository(db);
    this.jobs = new JobRepository(db);
    this.syncStates = new SyncStateRepository(db);
  }

  async readiness(): Promise<Readiness> {
    const result: Readiness = {
      ready: false,
      database: { kind: this.kind, reachable: false, migrations: 'unknown' },
      catalog: { cves: null, sample: this.sampleState },
      sources: [],
      jobs: null,
      sync: [],
    };
    try {
      await this.health.ping();
      result.database.reachable = true;
      result.database.migrations = (await this.health.migrationsApplied()) ? 'applied' : 'pending';
      result.catalog.cves = await this.health.cveCount();
      result.sources = (await this.runs.latestBySource()).map((r) => ({
        source: r.source,
        status: r.status,
        started_at: r.startedAt.toISOString(),
        finished_at: r.finishedAt?.toISOString() ?? null,
        counts: r.counts,
      }));
      const { counts, oldestPendingSeconds: oldest } = await this.jobs.counts();
      result.jobs = { counts, oldest_pending_seconds: oldest === null ? null : Math.round(oldest) };
      result.sync = await this.syncStatus();
    } catch (err) {
      result.database.error = (err as Error).message;
    }
    result.ready = result.database.reachable && result.database.migrations === 'applied';
    return result;
  }

  private async syncStatus(): Promise<SyncStatus[]> {
    const states = new Map((await this.syncStates.list()).map((s) => [s.source, s]));
    const now = Date.now();
    return this.syncSources.map((source) => {
      const s = states.get(source);
      const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;
      return {
        source,
        last_attempt_at: iso(s?.lastAttemptAt),
        last_success_at: iso(s?.lastSuccessAt),
        last_error: s?.lastError ?? null,
        last_error_at: iso(s?.lastErrorAt),
        consecutive_failures: s?.consecutiveFailures ?? 0,
        lag_seconds: s?.lastSuccessAt ? Math.round((now - s.lastSuccessAt.getTime()) / 1000) : null,
      };
    });
  }
}
