/**
 * Imports upstream inputs into the catalog: parse → batch → (per batch, in one transaction) compare
 * hashes, merge what changed, diff against the stored view, write rows and changes.
 *
 * Sources with a `scan` fast path yield raw records with a fingerprint: those whose fingerprint is
 * stored, with the statements it produced still current, are counted unchanged without being parsed.
 *
 * Contracts: re-importing the same data writes nothing and records no change; a batch is all or
 * nothing, so an import killed half-way leaves whole batches behind and the next run completes it
 * without duplicate changes (an `atomic` import is all or nothing as a whole); several versions of a
 * CVE in one input apply in order, each recording its own change; a malformed record is skipped and
 * reported, never fatal. An import cancelled through its `signal` stops reading, commits what it read
 * as one last whole batch and reports `cancelled`. While it runs, its `import_run` row holds a lease
 * the import renews, so a run whose process died is seen as `interrupted` (ImportRunRepository).
 */
import type { Kysely } from 'kysely';
import {
  CatalogWriteRepository,
  type CatalogWriteTransaction,
  type CveScope,
  type OpenWriteTransaction,
} from '../db/catalog-write.repository.ts';
import { ImportRunRepository } from '../db/import-run.repository.ts';
import type { DB } from '../db/schema.ts';
import { inputFiles, type InputFile } from '../sources/input.ts';
import type { ImportItem, RawItem, Source, WeaknessRecord } from '../sources/source.ts';
import type { ImportCounts, ImportProblem, ImportProgress, ImportReport } from '../domain/import-report.ts';
import { mapStatementText, type KeyMerge, type TextMapper } from '../domain/vendor-provenance.ts';
import { hasRecord, mergeCve } from '../domain/cve.ts';
import { mayHoldUnstorable, storableJson, storableText } from '../domain/storable-text.ts';
import { retiredBySnapshot } from '../domain/snapshot.ts';
import { applyCveBatch, remapCveBatch, serialize, type CveItem } from './import-batch.ts';
import { VendorAliasService, type CnaKeyMapper } from './vendor-alias.service.ts';

export interface ImportOptions {
  batchSize?: number;
  onProgress?: (progress: ImportProgress) => void;
  progressEveryMs?: number;
  /**
   * One transaction for the whole import, with `beforeCommit` run in it last: the import and what
   * `beforeCommit` writes (a sync cursor) commit together or not at all. For bounded inputs: the
   * catalog write lock (on the embedded database, the only session) is held until the end.
   */
  atomic?: { beforeCommit(db: Kysely<DB>): Promise<void> };
  /**
   * Every record is known to differ from the one last imported for its CVE (the next versions of a
   * history): fingerprints are stored as usual but never looked up, which would find nothing.
   */
  changedInputs?: boolean;
  /**
   * Cancels the import: reading stops, what was read is committed (whole batches), the run is marked
   * `cancelled`, and the report says so. An `atomic` import cancelled keeps nothing (it fails).
   */
  signal?: AbortSignal;
}

export interface ImportServiceSettings {
  /** How long an import run stays `running` without a heartbeat (JOB_LEASE_SECONDS); renewed every third of it. */
  leaseMs?: number;
  /** The CNA-text alias mapper's source (the process's one, so its cache is shared); else one of its own. */
  vendorAliases?: Pick<VendorAliasService, 'mapper'>;
  /**
   * Told of the minted keys that merge into the key a CPE named for their text
   * (`KeyMergeService.remember`: the composition root wires it): an atomic import tells it inside
   * its transaction, before it commits (`db`, so both commit together); any other once the batches
   * that found them are committed (`db` undefined).
   */
  onKeyMerges?: (merges: KeyMerge[], db?: Kysely<DB>) => Promise<void>;
}

import type { RemapProgress, RemapReport } from '../domain/import-report.ts';

/** Options of `ImportService.remapVendorKeys`. */
export interface RemapOptions {
  /** CVEs per transaction (500). */
  batchSize?: number;
  /** Only CVEs merged before migration 0032 (no provenance stored). */
  legacyOnly?: boolean;
  /** Only CVEs carrying one of these keys (the minted keys an import's merges retire). */
  keys?: readonly string[];
  /**
   * Every change recorded as history (`origin = 'vendor-remap'`), alerting nobody. Changes of CVEs
   * merged before migration 0032 are always recorded so (their keys followed the old text rule).
   */
  silent?: boolean;
  /** Called after each batch. */
  onProgress?: (progress: RemapProgress) => void;
}

const MAX_PROBLEMS = 1000;
/**
 * Rows written (by all imports of this service, so that a sync's many small imports count too)
 * before the first ANALYZE of the catalog tables; then each time the rows written grew this much.
 * The planner scales a table's row estimate by its current size on disk, so statistics taken once
 * the tables hold real rows stay right as they grow; later runs refresh value distributions.
 */
const ANALYZE_FIRST_AFTER = 2_000;
const ANALYZE_GROWTH = 8;
/** How long reading goes on before the event loop gets a turn (ImportRun.yieldToWrites). */
const YIELD_EVERY_MS = 4;

export class ImportService {
  private readonly catalog: CatalogWriteRepository;
  private readonly runs: ImportRunRepository;
  private written = 0;
  private nextAnalyze = ANALYZE_FIRST_AFTER;
  private readonly leaseMs: number;
  private readonly vendorAliases: Pick<VendorAliasService, 'mapper'>;
  private readonly onKeyMerges: (merges: KeyMerge[], db?: Kysely<DB>) => Promise<void>;
  /** Set once no CVE merged before migration 0032 is left (see `importRun`). */
  private legacyRemapped = false;

  /**
   * `afterImport` runs when an import wrote to the catalog (even one that failed later: its committed
   * batches stay): the composition root queues the event processor there.
   */
  constructor(
    db: Kysely<DB>,
    private readonly afterImport: () => Promise<void> = () => Promise.resolve(),
    settings: ImportServiceSettings = {},
  ) {
    this.catalog = new CatalogWriteRepository(db);
    this.runs = new ImportRunRepository(db);
    this.leaseMs = settings.leaseMs ?? 60_000;
    this.vendorAliases = settings.vendorAliases ?? new VendorAliasService(db);
    this.onKeyMerges = settings.onKeyMerges ?? (() => Promise.resolve());
  }

  /**
   * Merges the catalog's CVEs again with the current alias table (after a new table or override is
   * stored: `vulntrack vendors learn` calls it), in batches of one transaction each, writing those
   * whose keys or provenance moved and recording their changes (news, alerting projects a CVE enters,
   * unless `silent`; see `remapCveBatch`). Reads every CVE's statements (not measured on a large
   * catalog yet). Idempotent; an interrupted run leaves whole batches and the next run completes it.
   */
  async remapVendorKeys(options: RemapOptions = {}): Promise<RemapReport> {
    const started = Date.now();
    const mapper = await this.vendorAliases.mapper();
    const scope: CveScope = options.legacyOnly ? 'legacy' : options.keys ? { keys: options.keys } : 'all';
    const batchSize = options.batchSize ?? 500;
    const progress: RemapProgress = {
      examined: 0,
      total: await this.catalog.cveScopeCount(scope),
      remapped: 0,
      changes: 0,
    };
    let after = '';
    const merges: KeyMerge[] = [];
    for (;;) {
      const ids = await this.catalog.cveIdsAfter(after, batchSize, scope);
      if (!ids.length) break;
      after = ids.at(-1)!;
      const done = await this.catalog.inWriteTransaction((tx) =>
        remapCveBatch(tx, ids, mapper.map, options.silent ?? false),
      );
      progress.examined += ids.length;
      progress.remapped += done.remapped;
      progress.changes += done.changes;
      merges.push(...done.merges);
      options.onProgress?.({ ...progress });
    }
    if (progress.remapped) this.wrote(progress.remapped);
    if (merges.length) await this.onKeyMerges(merges);
    if (progress.changes && !options.silent) await this.afterImport();
    return { ...progress, revision: mapper.revision, durationMs: Date.now() - started };
  }

  /**
   * The mapper an import run merges with, once the catalog has no CVE merged before migration 0032
   * left: the first import after the upgrade re-maps them first, as history (`remapVendorKeys`).
   */
  private async runMapper(): Promise<CnaKeyMapper> {
    if (!this.legacyRemapped) {
      if (await this.catalog.hasLegacyVendorKeys()) await this.remapVendorKeys({ legacyOnly: true });
      this.legacyRemapped = true;
    }
    return this.vendorAliases.mapper();
  }

  /**
   * Runs `fn` with the run's lease renewed meanwhile (a failed renewal is retried at the next beat; one
   * still waiting for the database, behind a long transaction of the embedded database, is not doubled).
   */
  private async withLease<T>(runId: string, fn: () => Promise<T>): Promise<T> {
    let renewing = false;
    const heartbeat = setInterval(
      () => {
        if (renewing) return;
        renewing = true;
        this.runs
          .renew(runId, this.leaseMs)
          .catch(() => {})
          .finally(() => (renewing = false));
      },
      Math.max(1, Math.floor(this.leaseMs / 3)),
    );
    heartbeat.unref();
    try {
      return await fn();
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Imports every input named in `targets` with `source`. Throws InputError for unreadable targets. */
  importInputs(source: Source, targets: string[], options: ImportOptions = {}): Promise<ImportReport> {
    async function* files() {
      for (const target of targets) yield* inputFiles(target, { accept: source.accept });
    }
    return this.importFiles(source, files(), options);
  }

  /**
   * Imports input files (read from anywhere: disk, an archive, memory) with `source`, in order: the
   * steps of an ImportRun, recorded as one import run.
   */
  async importFiles(
    source: Source,
    files: AsyncIterable<InputFile>,
    options: ImportOptions = {},
  ): Promise<ImportReport> {
    const runId = await this.runs.start(source.name, this.leaseMs);
    return this.withLease(runId, () => this.importRun(runId, source, files, options));
  }

  /** The steps of one import run, and what the run records of them. */
  private async importRun(
    runId: string,
    source: Source,
    files: AsyncIterable<InputFile>,
    options: ImportOptions,
  ): Promise<ImportReport> {
    let mapper: CnaKeyMapper;
    try {
      mapper = await this.runMapper();
    } catch (err) {
      const counts = { imported: 0, updated: 0, unchanged: 0, skipped: 0, pending: 0 };
      await this.runs.finish(runId, 'failed', counts, [{ position: '', reason: (err as Error).message }]);
      throw err;
    }
    const run = new ImportRun(
      source,
      options,
      this.catalog,
      (rows) => this.wrote(rows),
      mapper.map,
      (m, db) => this.onKeyMerges(m, db),
    );
    try {
      await this.prepareSearchIndex();
      await run.open();
      await run.read(files);
      // An atomic import keeps all or nothing: cancelled, it keeps nothing.
      if (options.atomic && options.signal?.aborted) throw new Error('the import was cancelled');
      // A snapshot read in part says nothing about the entries it did not reach.
      if (!options.signal?.aborted) await run.retireUnlisted();
      await run.commit();
      await this.completeSearchIndex(() => run.progress('search-index'));
    } catch (err) {
      const rolledBack = await run.abandon();
      await this.completeSearchIndex().catch(() => {});
      await this.runs.finish(runId, 'failed', run.counts, [
        ...run.problems,
        {
          position: '',
          reason: storableText((err as Error).message) + (rolledBack ? ' (nothing of it was kept)' : ''),
        },
      ]);
      if (!rolledBack && run.merges.length && !run.mergesRemembered)
        await this.onKeyMerges(run.merges).catch(() => {});
      if (!rolledBack && run.counts.imported + run.counts.updated) await this.afterImport().catch(() => {});
      throw err;
    }
    const report = run.report();
    await this.runs.finish(runId, report.status, report.counts, report.problems.slice(0, 100));
    if (run.merges.length && !run.mergesRemembered) await this.onKeyMerges(run.merges);
    if (report.counts.imported + report.counts.updated) await this.afterImport();
    return report;
  }

  /**
   * Bulk loads: an import into an empty catalog writes without the search index and builds it when
   * it ends, in one pass. Kept up row by row, the trigram index was most of a first import's
   * server time (44,130 CVEs: 13-14 s for their `INSERT`s with it, 3 s without, 6-7 s to build it
   * after; bench/RESULTS.md). A catalog left with CVEs and no index (a first import whose process
   * died before building it) gets it back when the next import starts; an import running meanwhile
   * just writes the index row by row from then on.
   */
  private async prepareSearchIndex(): Promise<void> {
    const { empty, missing } = await this.catalog.searchIndexState();
    if (empty && !missing) await this.catalog.dropSearchIndexIfEmpty();
    else if (!empty && missing) await this.catalog.buildSearchIndexIfMissing();
  }

  /**
   * After a run, successful or not: builds the search index if it is missing. `building` is called
   * before a build.
   */
  private async completeSearchIndex(building?: () => void): Promise<void> {
    if (!(await this.catalog.searchIndexState()).missing) return;
    building?.();
    await this.catalog.buildSearchIndexIfMissing();
  }

  /**
   * Counts the rows a batch wrote; true when the catalog tables are due an ANALYZE: fresh statistics
   * as the tables grow, without which the planner scans cve_source and cve_input for the batch
   * lookups instead of using their primary keys (autovacuum may be off, PGlite has none, or it is too
   * slow for a bulk load). ANALYZE samples a bounded number of rows (0.3-0.7 s from 30,000 rows up).
   */
  private wrote(rows: number): boolean {
    this.written += rows;
    if (this.written < this.nextAnalyze) return false;
    this.nextAnalyze = this.written * ANALYZE_GROWTH;
    return true;
  }
}

/**
 * One import, as named steps over its input:
 *
 *   open    an atomic import's transaction
 *   read    records (Source.scan, else Source.parse) → skip raw records known unchanged (RawLookup)
 *           → collect: problems, weakness and CVE batches → write (BatchWriter: one CVE batch is
 *           written while the next is read)
 *   retire  a snapshot source's statements about CVEs its input no longer lists
 *   commit  an atomic import
 *
 * and its tally (counts, problems, changes) for the report. `abandon` after a failed step.
 */
class ImportRun {
  readonly counts: ImportCounts = { imported: 0, updated: 0, unchanged: 0, skipped: 0, pending: 0 };
  readonly problems: ImportProblem[] = [];
  /** Minted keys merging, found by the batches written (an atomic import's count once it commits). */
  readonly merges: KeyMerge[] = [];
  /** Whether `merges` were remembered in the import's own transaction (an atomic import). */
  mergesRemembered = false;
  private changes = 0;
  private readonly started = Date.now();
  private records = 0;
  private lastProgress = this.started;
  /** When reading last gave the event loop a turn (yieldToWrites). */
  private lastYield = performance.now();
  // An atomic import writes every batch in one transaction, and reads through it too: the embedded
  // database has no other session meanwhile, and its own uncommitted batches are what it reads.
  private atomic: OpenWriteTransaction | undefined;
  private reads: CatalogWriteRepository;
  private analyzeDue = false;
  private readonly batches: BatchWriter;
  /** Whether this source had never been imported when the run started (no raw record fingerprinted). */
  private firstImport: boolean | undefined;
  private imported: Promise<boolean> | undefined;
  /** For a snapshot source (Source.snapshotOf): every CVE the input lists, and when it was taken. */
  private readonly listed = new Set<string>();
  private takenAt: string | undefined;

  constructor(
    private readonly source: Source,
    private readonly options: ImportOptions,
    private readonly catalog: CatalogWriteRepository,
    /** Counts rows written; true when an ANALYZE is due (ImportService.wrote). */
    private readonly wrote: (rows: number) => boolean,
    /** Maps the CNA's and ADPs' affected text to keys, as each CVE is merged (one table revision per run). */
    private readonly mapText: TextMapper,
    /** Remembers minted-key merges (ImportServiceSettings.onKeyMerges). */
    private readonly rememberMerges: (merges: KeyMerge[], db: Kysely<DB>) => Promise<void>,
  ) {
    this.reads = catalog;
    this.batches = new BatchWriter(
      options.batchSize ?? 500,
      (batch) => this.writeCves(batch),
      (batch) => this.writeWeaknesses(batch),
    );
  }

  async open(): Promise<void> {
    if (!this.options.atomic) return;
    this.atomic = await this.catalog.startWriteTransaction();
    this.reads = new CatalogWriteRepository(this.atomic.db);
  }

  /** Whether a raw record of this source was fingerprinted before this run (asked once per run). */
  private importedBefore(): Promise<boolean> {
    return (this.imported ??= this.reads.hasInputs(this.source.name));
  }

  /** Reads every record of `files`, collects them into batches and writes them all. */
  async read(files: AsyncIterable<InputFile>): Promise<void> {
    const { source } = this;
    const raws = new RawLookup(
      source.name,
      this.options,
      this.reads,
      () => this.importedBefore(),
      this.batches,
      this.counts,
      (item, input) => this.collect(item, input),
    );
    const { signal } = this.options;
    reading: for await (const file of files) {
      for await (const item of source.scan ? source.scan(file) : source.parse(file)) {
        // Cancelled: stop reading here; what was read is committed below, as at the end of an input.
        if (signal?.aborted) break reading;
        if (item.kind !== 'snapshot') this.records++;
        if (item.kind === 'raw') await raws.add(item);
        else {
          await raws.resolve();
          await this.collect(item);
        }
        this.progress();
      }
    }
    await raws.resolve();
    await this.batches.drain();
  }

  /**
   * After a snapshot source's import (Source.snapshotOf): deletes its statements about the CVEs the
   * input no longer lists, collected like any item, so each CVE is merged again and the change
   * recorded (a CVE not published yet just loses the statement). Only after an input read whole: an entry skipped as unreadable is not one upstream
   * removed, and an input listing nothing is more likely a broken mirror than an empty list.
   */
  async retireUnlisted(): Promise<void> {
    const { name, snapshotOf: provider } = this.source;
    if (!provider) return;
    const { takenAt } = this;
    // A statement whose fact is newer than the input (the OpenCVE KB's copy of a KEV entry added
    // since the catalog was released) is not one upstream removed: kept (domain/snapshot.ts).
    const unlisted = (await this.reads.statementsNotListed(provider, [...this.listed]))
      .filter(({ doc }) => !takenAt || retiredBySnapshot(doc, takenAt))
      .map(({ cveId }) => cveId);
    if (unlisted.length && (this.counts.skipped || !this.listed.size)) {
      const why = this.counts.skipped ? 'the input has unreadable entries' : 'the input lists none';
      this.problems.push({
        position: '',
        reason: `the ${name} entries of ${unlisted.length} CVE${unlisted.length === 1 ? '' : 's'} not in the input were kept: ${why}`,
      });
    } else {
      for (const cveId of unlisted) {
        await this.collect({
          kind: 'cve',
          cveId,
          position: `no longer listed by ${name}`,
          records: [],
          replaces: [provider],
        });
      }
    }
    await this.batches.drain();
  }

  /** Commits an atomic import, with what `beforeCommit` writes. */
  async commit(): Promise<void> {
    if (!this.atomic) return;
    // The merges its CVEs found commit with them: a kill in between cannot lose them.
    if (this.merges.length) {
      await this.rememberMerges(this.merges, this.atomic.db);
      this.mergesRemembered = true;
    }
    await this.options.atomic!.beforeCommit(this.atomic.db);
    await this.atomic.commit();
    this.atomic = undefined;
    if (this.analyzeDue) await this.catalog.analyze();
  }

  /** After a failed step: waits for the batch in flight and rolls an atomic import back (true then). */
  async abandon(): Promise<boolean> {
    await this.batches.settle();
    if (!this.atomic) return false;
    await this.atomic.rollback().catch(() => {});
    return true;
  }

  report(): ImportReport {
    return {
      source: this.source.name,
      status: this.options.signal?.aborted ? 'cancelled' : this.counts.skipped ? 'partial' : 'completed',
      counts: this.counts,
      problems: this.problems,
      changes: this.changes,
      durationMs: Date.now() - this.started,
    };
  }

  /**
   * Lets the batch being written go on: reading a batch's records (parse, map, merge) is work for the
   * main thread without any I/O wait, and the write's next statement is sent only when the main
   * thread gets back to the event loop. Every few milliseconds of reading, it does.
   */
  private async yieldToWrites(): Promise<void> {
    const now = performance.now();
    if (now - this.lastYield < YIELD_EVERY_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.lastYield = performance.now();
  }

  /**
   * A problem, a weakness or a CVE (with its raw record's fingerprint, when it came from one). What
   * goes on from here is storable: text PostgreSQL refuses (U+0000, a lone surrogate) is cleaned
   * here, for every source and field alike (storable-text.ts), so one such character never fails a
   * batch, and so an import or a sync.
   */
  private async collect(parsed: ImportItem, input?: CveItem['input']): Promise<void> {
    if (parsed.kind === 'skip') {
      this.counts.skipped++;
      if (this.problems.length < MAX_PROBLEMS) {
        // A reason may quote the record (a JSON parser's message quotes the bad text).
        this.problems.push(
          storableJson({
            position: parsed.position,
            ...(parsed.id ? { id: parsed.id } : {}),
            reason: parsed.reason,
          }),
        );
      }
    } else if (parsed.kind === 'weakness') {
      await this.batches.addWeakness(storableJson(parsed.weakness));
    } else if (parsed.kind === 'snapshot') {
      // Several inputs of one import are one list, as of the latest of them.
      if (!this.takenAt || parsed.takenAt > this.takenAt) this.takenAt = parsed.takenAt;
    } else {
      await this.yieldToWrites();
      // Serialized as it is read: while the batch before is written, not inside this one's transaction.
      const { item, serialized } = storableCveItem(parsed);
      // A CVE may come several times (a replayed history): applyCveBatch applies each version in turn.
      if (this.source.snapshotOf) this.listed.add(item.cveId);
      // Mapped as it is read too: the batch's merge finds each statement's text keys ready.
      for (const r of item.records) mapStatementText(r.provider, r.doc, this.mapText);
      // A first import (of a source whose raw records are fingerprinted) merges as it reads, too:
      // most of its CVEs have no other statements.
      this.firstImport ??= !!this.source.scan && !(await this.importedBefore());
      const merged =
        this.firstImport && hasRecord(item.records.map((r) => r.provider))
          ? {
              merged: mergeCve(
                item.cveId,
                new Map(item.records.map((r) => [r.provider, r.doc])),
                this.mapText,
              ),
            }
          : {};
      await this.batches.addCve({ ...item, ...(input ? { input } : {}), serialized, ...merged });
    }
  }

  /** Writes a CVE batch in its own transaction (an atomic import's, else one of its own). */
  private async writeCves(batch: CveItem[]): Promise<void> {
    const apply = (tx: CatalogWriteTransaction) => applyCveBatch(tx, this.source.name, batch, this.mapText);
    const result = await (this.atomic ? apply(this.atomic.tx) : this.catalog.inWriteTransaction(apply));
    for (const k of ['imported', 'updated', 'unchanged', 'pending'] as const)
      this.counts[k] += result.counts[k];
    this.changes += result.changes;
    this.merges.push(...result.merges);
    if (this.wrote(result.counts.imported + result.counts.updated + result.counts.pending)) {
      // An atomic import runs it once committed.
      if (this.atomic) this.analyzeDue = true;
      else await this.catalog.analyze();
    }
  }

  private async writeWeaknesses(batch: WeaknessRecord[]): Promise<void> {
    const { inserted, updated } = await this.reads.upsertWeaknesses(batch);
    this.counts.imported += inserted;
    this.counts.updated += updated;
    this.counts.unchanged += batch.length - inserted - updated;
  }

  /** Reports progress every `progressEveryMs` while reading; always when a last `step` begins. */
  progress(step?: ImportProgress['step']): void {
    const { onProgress, progressEveryMs = 2000 } = this.options;
    if (!onProgress) return;
    const now = Date.now();
    if (!step && now - this.lastProgress < progressEveryMs) return;
    this.lastProgress = now;
    onProgress({
      source: this.source.name,
      records: this.records,
      counts: { ...this.counts },
      elapsedMs: now - this.started,
      ...(step && { step }),
    });
  }
}

/**
 * A CVE item as it can be stored, with its records serialized (`serialize`). The JSON shows cheaply
 * whether a record holds text PostgreSQL refuses; only then are its records walked and cleaned
 * (storableJson), before anything hashes or merges them, so a record imported again is unchanged.
 * A KB history is small and always walked.
 */
function storableCveItem(parsed: Extract<ImportItem, { kind: 'cve' }>) {
  let item = parsed.history ? { ...parsed, history: storableJson(parsed.history) } : parsed;
  let serialized = item.records.map((r) => serialize(r.doc, r.raw));
  if (serialized.some((s) => mayHoldUnstorable(s.docJson) || mayHoldUnstorable(s.rawJson ?? ''))) {
    const records = storableJson(item.records);
    if (records !== item.records) {
      item = { ...item, records };
      serialized = records.map((r) => serialize(r.doc, r.raw));
    }
  }
  return { item, serialized };
}

/**
 * The batches being built, and the CVE batch being written: one batch is written while the next one
 * is read (on a PostgreSQL server the database works on the other core). Batches still apply strictly
 * in order, each after the previous one committed.
 */
class BatchWriter {
  private cves: CveItem[] = [];
  private ids = new Set<string>();
  /** CVE ids of the batch being written (possibly committed already). */
  private writingIds = new Set<string>();
  private writing: Promise<void> | undefined;
  private weaknesses: WeaknessRecord[] = [];

  constructor(
    private readonly batchSize: number,
    private readonly writeCves: (batch: CveItem[]) => Promise<void>,
    private readonly writeWeaknesses: (batch: WeaknessRecord[]) => Promise<void>,
  ) {}

  /** The CVE ids the catalog may not show yet: the batch being written and the one being built. */
  uncommitted(): Set<string> {
    return new Set([...this.writingIds, ...this.ids]);
  }

  async addCve(item: CveItem): Promise<void> {
    this.cves.push(item);
    this.ids.add(item.cveId);
    if (this.cves.length >= this.batchSize) await this.flush();
  }

  async addWeakness(weakness: WeaknessRecord): Promise<void> {
    this.weaknesses.push(weakness);
    if (this.weaknesses.length >= this.batchSize) await this.flush();
  }

  /** Everything collected, written. */
  async drain(): Promise<void> {
    await this.flush();
    await this.writing;
  }

  /** After a failure: waits for the batch being written, whatever its outcome. */
  async settle(): Promise<void> {
    await this.writing?.catch(() => {});
  }

  /** Starts writing the CVE batch once the one before is written; writes the weakness batch. */
  private async flush(): Promise<void> {
    await this.writing;
    this.writing = undefined;
    if (this.cves.length) {
      const batch = this.cves;
      this.cves = [];
      this.writingIds = this.ids;
      this.ids = new Set();
      this.writing = this.writeCves(batch);
      // Keep the rejection for the next await; never let it go unhandled meanwhile.
      this.writing.catch(() => {});
    }
    if (this.weaknesses.length) {
      const batch = this.weaknesses;
      this.weaknesses = [];
      await this.writeWeaknesses(batch);
    }
  }
}

/**
 * Raw records (Source.scan), looked up by fingerprint a batch at a time: those stored with their
 * statements still current are counted unchanged; only the others are parsed and collected.
 */
class RawLookup {
  private raws: RawItem[] = [];
  /** Whether to look up at all: without stored fingerprints (a first import) nothing can be skipped. */
  private lookups: boolean | undefined;

  constructor(
    private readonly sourceName: string,
    private readonly options: ImportOptions,
    private readonly reads: CatalogWriteRepository,
    /** Whether the source was imported before this run (ImportRun.importedBefore). */
    private readonly importedBefore: () => Promise<boolean>,
    private readonly batches: BatchWriter,
    private readonly counts: ImportCounts,
    private readonly collect: (item: ImportItem, input: CveItem['input']) => Promise<void>,
  ) {}

  async add(raw: RawItem): Promise<void> {
    this.raws.push(raw);
    if (this.raws.length >= (this.options.batchSize ?? 500)) await this.resolve();
  }

  /** Looks the records so far up, and parses and collects those not known unchanged. */
  async resolve(): Promise<void> {
    if (!this.raws.length) return;
    const raws = this.raws;
    this.raws = [];
    // What is stored says nothing about a CVE written since the lookup started: the batch being
    // written, the batch being built, and a record parsed before another version of it in `raws`.
    const uncommitted = this.batches.uncommitted();
    this.lookups ??= !this.options.changedInputs && (await this.importedBefore());
    const unchanged = this.lookups
      ? await this.reads.unchangedInputs(this.sourceName, raws)
      : { has: () => false };
    for (const raw of raws) {
      const known = unchanged.has(raw.cveId, raw.fingerprint);
      if (known && !uncommitted.has(raw.cveId)) {
        this.counts.unchanged++;
        continue;
      }
      uncommitted.add(raw.cveId);
      const item = raw.parse();
      const fingerprinted = item.kind === 'cve' && item.cveId === raw.cveId;
      await this.collect(item, fingerprinted ? { fingerprint: raw.fingerprint, known } : undefined);
    }
  }
}
