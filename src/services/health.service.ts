/** Liveness and readiness, with per-source import status for operators. */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { DatabaseKind } from '../db/client.ts';
import { HealthRepository } from '../db/health.repository.ts';
import { ImportRunRepository } from '../db/import-run.repository.ts';
import { JobRepository, type JobStatus } from '../db/job.repository.ts';

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
}

export type SampleState = 'not_needed' | 'loading' | 'loaded' | 'failed' | 'disabled';

export class HealthService {
  private readonly health: HealthRepository;
  private readonly runs: ImportRunRepository;
  private readonly jobs: JobRepository;
  sampleState: SampleState = 'not_needed';

  constructor(
    db: Kysely<DB>,
    private readonly kind: DatabaseKind,
  ) {
    this.health = new HealthRepository(db);
    this.runs = new ImportRunRepository(db);
    this.jobs = new JobRepository(db);
  }

  async readiness(): Promise<Readiness> {
    const result: Readiness = {
      ready: false,
      database: { kind: this.kind, reachable: false, migrations: 'unknown' },
      catalog: { cves: null, sample: this.sampleState },
      sources: [],
      jobs: null,
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
    } catch (err) {
      result.database.error = (err as Error).message;
    }
    result.ready = result.database.reachable && result.database.migrations === 'applied';
    return result;
  }
}
