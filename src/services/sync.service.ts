/**
 * One sync round of one upstream source: from its cursor in `sync_state` to now, recording the
 * attempt, the success or the error (and consecutive failures). A failing source throws, so the job
 * queue retries it with backoff; other sources are unaffected (each has its own row and cursor).
 */
import type { Kysely } from 'kysely';
import type { SyncConfig, SyncSourceName } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { SyncStateRepository, type SyncState } from '../db/sync-state.repository.ts';
import { sources } from '../sources/index.ts';
import { Cve5GitSync, type Cve5GitSyncOptions } from '../sync/cve5-git.sync.ts';
import { Cve5HttpSync } from '../sync/cve5-http.sync.ts';
import { DownloadSync } from '../sync/download.sync.ts';
import { SlidingWindowRateLimiter, type RetryPolicy } from '../sync/http.ts';
import { NvdSync } from '../sync/nvd.sync.ts';
import type { SourceSync, SyncOutcome } from '../sync/sync-source.ts';
import type { ImportService } from './import.service.ts';
import type { ImportProgress } from './../domain/import-report.ts';

export interface SyncReport extends SyncOutcome {
  source: SyncSourceName;
  status: 'succeeded';
  durationMs: number;
}

/** Observes finished rounds (the metrics service counts them). */
export type SyncObserver = (source: SyncSourceName, outcome: 'succeeded' | 'failed', seconds: number) => void;

export interface SyncServiceOptions {
  /** Test hooks of the cve5 git sync. */
  cve5Git?: Omit<Cve5GitSyncOptions, 'dir'>;
  observe?: SyncObserver;
}

export class SyncService {
  private readonly states: SyncStateRepository;
  private readonly syncs: Record<SyncSourceName, SourceSync>;
  /** Rounds of one source never overlap within a process (the queue also deduplicates across processes). */
  private readonly running = new Map<SyncSourceName, Promise<unknown>>();
  observe: SyncObserver | undefined;

  constructor(
    db: Kysely<DB>,
    private readonly imports: ImportService,
    config: SyncConfig,
    options: SyncServiceOptions = {},
  ) {
    this.states = new SyncStateRepository(db);
    this.observe = options.observe;
    const policy: RetryPolicy = { attempts: config.httpAttempts, baseDelayMs: config.retryBaseMs };
    const nvdLimiter = new SlidingWindowRateLimiter(config.nvdRateLimit, config.nvdRateWindowMs);
    this.syncs = {
      cve5: config.cve5GitDir
        ? new Cve5GitSync({ dir: config.cve5GitDir, ...options.cve5Git })
        : new Cve5HttpSync({ baseUrl: config.cve5BaseUrl, policy }),
      nvd: new NvdSync({
        apiUrl: config.nvdApiUrl,
        apiKey: config.nvdApiKey,
        start: config.nvdSyncStart,
        limiter: nvdLimiter,
        policy: { ...policy, rateLimitedDelayMs: config.nvdRateWindowMs },
      }),
      kev: new DownloadSync(config.kevUrl, policy),
      epss: new DownloadSync(config.epssUrl, policy),
      cwe: new DownloadSync(config.cweUrl, policy),
    };
  }

  /** Runs one round of `source` now. Throws (after recording the error) when the upstream failed. */
  async run(source: SyncSourceName, onProgress?: (line: string) => void): Promise<SyncReport> {
    const previous = this.running.get(source);
    if (previous) await previous.catch(() => {});
    const round = this.round(source, onProgress);
    this.running.set(source, round);
    try {
      return await round;
    } finally {
      if (this.running.get(source) === round) this.running.delete(source);
    }
  }

  /** The state of every source that has synced at least once. */
  list(): Promise<SyncState[]> {
    return this.states.list();
  }

  private async round(source: SyncSourceName, onProgress?: (line: string) => void): Promise<SyncReport> {
    const started = Date.now();
    await this.states.recordAttempt(source);
    const state = await this.states.get(source);
    const importOptions = {
      onProgress: onProgress ? (p: ImportProgress) => onProgress(progressLine(p)) : undefined,
    };
    try {
      const outcome = await this.syncs[source].run({
        cursor: state?.cursor ?? {},
        saveCursor: (cursor) => this.states.saveCursor(source, cursor),
        importInputs: (targets) => this.imports.importInputs(sources[source], targets, importOptions),
        importFiles: (files, { cursor, changedInputs } = {}) =>
          this.imports.importFiles(sources[source], files, {
            ...importOptions,
            ...(cursor && {
              atomic: { beforeCommit: (db) => new SyncStateRepository(db).saveCursor(source, cursor) },
            }),
            changedInputs,
          }),
        progress: (line) => onProgress?.(line),
      });
      await this.states.recordSuccess(source);
      this.observe?.(source, 'succeeded', (Date.now() - started) / 1000);
      return { source, status: 'succeeded', ...outcome, durationMs: Date.now() - started };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await this.states.recordFailure(source, message).catch(() => {});
      this.observe?.(source, 'failed', (Date.now() - started) / 1000);
      throw err;
    }
  }
}

const progressLine = (p: ImportProgress) =>
  `${p.source}: ${p.records} records read${p.step === 'search-index' ? '; building the search index' : ''}`;
