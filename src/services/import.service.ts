/**
 * Imports upstream inputs into the catalog: parse → batch → (per batch, in one transaction) compare
 * hashes, merge what changed, diff against the stored view, write rows and changes.
 *
 * Sources with a `scan` fast path yield raw records with a fingerprint: those whose fingerprint is
 * stored, with the statements it produced still current, are counted unchanged without being parsed.
 *
 * Contracts: re-importing the same data writes nothing and records no change; a batch is all or
 * nothing, so an import killed half-way leaves whole batches behind and the next run completes it
 * without duplicate changes; a malformed record is skipped and reported, never fatal.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { sameJson } from '../domain/canonical-json.ts';
import { diffCve, type CveChange } from '../domain/cve-change.ts';
import { CWE_ID_PATTERN } from '../domain/cve-id.ts';
import {
  mergeCve,
  RECORD_PROVIDERS,
  type MergedCve,
  type Provider,
  type SourceDocument,
} from '../domain/cve.ts';
import {
  CatalogWriteRepository,
  type CatalogWriteTransaction,
  type EpssMove,
  type InputFingerprint,
  type SourceUpsert,
} from '../db/catalog-write.repository.ts';
import { ImportRunRepository } from '../db/import-run.repository.ts';
import type { DB } from '../db/schema.ts';
import { inputFiles } from '../sources/input.ts';
import type { ImportItem, RawItem, Source, WeaknessRecord } from '../sources/source.ts';

export interface ImportCounts {
  /** CVEs (or weaknesses) new to the catalog. */
  imported: number;
  /** CVEs (or weaknesses) whose catalog entry changed. */
  updated: number;
  /** Records that changed nothing. */
  unchanged: number;
  /** Malformed records, reported in `problems`. */
  skipped: number;
  /** Statements kept for CVEs the catalog does not list yet (an EPSS score before its record). */
  pending: number;
}

export interface ImportProblem {
  position: string;
  id?: string;
  reason: string;
}

export interface ImportReport {
  source: string;
  status: 'completed' | 'partial';
  counts: ImportCounts;
  /** The first problems (at most MAX_PROBLEMS); `counts.skipped` has them all. */
  problems: ImportProblem[];
  changes: number;
  durationMs: number;
}

export interface ImportProgress {
  source: string;
  records: number;
  counts: ImportCounts;
  elapsedMs: number;
}

export interface ImportOptions {
  batchSize?: number;
  onProgress?: (progress: ImportProgress) => void;
  progressEveryMs?: number;
}

const MAX_PROBLEMS = 1000;
/**
 * An EPSS move at least this large is kept for EPSS triggers (docs/notifications.md): scores drift a
 * little every day for every CVE, and a drift is nobody's news.
 */
export const EPSS_MOVE_MIN = 0.01;
/** Rows written before the first ANALYZE of the catalog tables; then at every doubling. */
const ANALYZE_FIRST_AFTER = 2_000;

/**
 * A CVE item, with the fingerprint of its raw record when it came from one (and parsed to the id it
 * was looked up by); `known`: that fingerprint was stored, with the statements still current.
 */
type CveItem = Extract<ImportItem, { kind: 'cve' }> & { input?: { fingerprint: string; known: boolean } };

/**
 * Parsers build documents in a fixed key order, so the same upstream input always serializes to the
 * same text: plain JSON is the fingerprint (the canonical form costs several times more on this hot
 * path; a parser change that reorders keys only costs one re-merge, which records nothing).
 */
function serialize(doc: SourceDocument, raw?: Record<string, unknown>) {
  const docJson = JSON.stringify(doc);
  const rawJson = raw === undefined ? undefined : JSON.stringify(raw);
  const hash = createHash('sha1').update(docJson);
  if (rawJson !== undefined) hash.update(rawJson);
  return { docJson, rawJson, hash: hash.digest('base64') };
}

const EMPTY_WRITE = {
  sourceUpserts: [],
  sourceDeletes: [],
  cves: [],
  changes: [],
  vendorKeys: [],
  weaknessIds: [],
};

function epssScore(cve: MergedCve): number | null {
  const data = cve.metrics.epss.data as { score?: number } | null;
  return typeof data?.score === 'number' ? data.score : null;
}

/** The EPSS move from `before` to `after` when it is large enough to matter. */
function epssMove(before: MergedCve, after: MergedCve): EpssMove | undefined {
  const oldScore = epssScore(before);
  const newScore = epssScore(after);
  if (newScore === null || oldScore === newScore) return undefined;
  if (oldScore !== null && Math.abs(newScore - oldScore) < EPSS_MOVE_MIN) return undefined;
  return { cveId: after.cveId, oldScore, newScore };
}

export class ImportService {
  private readonly catalog: CatalogWriteRepository;
  private readonly runs: ImportRunRepository;

  /**
   * `afterImport` runs when an import wrote to the catalog (even one that failed later: its committed
   * batches stay): the composition root queues the event processor there.
   */
  constructor(
    db: Kysely<DB>,
    private readonly afterImport: () => Promise<void> = () => Promise.resolve(),
  ) {
    this.catalog = new CatalogWriteRepository(db);
    this.runs = new ImportRunRepository(db);
  }

  /** Imports every input named in `targets` with `source`. Throws InputError for unreadable targets. */
  async importInputs(source: Source, targets: string[], options: ImportOptions = {}): Promise<ImportReport> {
    const started = Date.now();
    const batchSize = options.batchSize ?? 500;
    const counts: ImportCounts = { imported: 0, updated: 0, unchanged: 0, skipped: 0, pending: 0 };
    const problems: ImportProblem[] = [];
    let changes = 0;
    let records = 0;
    let written = 0;
    let nextAnalyze = ANALYZE_FIRST_AFTER;
    let lastProgress = started;
    const runId = await this.runs.start(source.name);
    const report = (status: ImportReport['status']): ImportReport => ({
      source: source.name,
      status,
      counts,
      problems,
      changes,
      durationMs: Date.now() - started,
    });

    let cveBatch: CveItem[] = [];
    let batchIds = new Set<string>();
    /** CVE ids of the batch being written (possibly committed already). */
    let inflightIds = new Set<string>();
    let rawBatch: RawItem[] = [];
    let lookups: boolean | undefined;
    let weaknessBatch: WeaknessRecord[] = [];
    // One batch is written while the next one is parsed: on a PostgreSQL server the database works on
    // the other core. Batches still apply strictly in order, each after the previous one committed.
    let inflight: Promise<void> | undefined;
    const flush = async () => {
      await inflight;
      inflight = undefined;
      if (cveBatch.length) {
        const batch = cveBatch;
        cveBatch = [];
        inflightIds = batchIds;
        batchIds = new Set();
        inflight = this.applyCveBatch(source.name, batch).then(async (result) => {
          for (const k of ['imported', 'updated', 'unchanged', 'pending'] as const)
            counts[k] += result.counts[k];
          changes += result.changes;
          written += result.counts.imported + result.counts.updated + result.counts.pending;
          if (written >= nextAnalyze) {
            // Fresh statistics as the tables grow: without them the planner scans cve_source for the
            // batch lookups instead of using its primary key (autovacuum may be off, or too slow for
            // a bulk load). ANALYZE samples a bounded number of rows: ~0.1 s at any size.
            nextAnalyze = written * 2;
            await this.catalog.analyze();
          }
        });
        // Keep the rejection for the next await; never let it go unhandled meanwhile.
        inflight.catch(() => {});
      }
      if (weaknessBatch.length) {
        const { inserted, updated } = await this.catalog.upsertWeaknesses(weaknessBatch);
        counts.imported += inserted;
        counts.updated += updated;
        counts.unchanged += weaknessBatch.length - inserted - updated;
        weaknessBatch = [];
      }
    };

    const accept = async (item: ImportItem, input?: CveItem['input']) => {
      if (item.kind === 'skip') {
        counts.skipped++;
        if (problems.length < MAX_PROBLEMS) {
          problems.push({
            position: item.position,
            ...(item.id ? { id: item.id } : {}),
            reason: item.reason,
          });
        }
      } else if (item.kind === 'weakness') {
        weaknessBatch.push(item.weakness);
        if (weaknessBatch.length >= batchSize) await flush();
      } else {
        // A CVE seen twice in one batch (a replayed history) gets a change for each version.
        if (batchIds.has(item.cveId)) await flush();
        cveBatch.push(input ? { ...item, input } : item);
        batchIds.add(item.cveId);
        if (cveBatch.length >= batchSize) await flush();
      }
    };
    // Raw records (Source.scan) are looked up by fingerprint a batch at a time; only those not known
    // to be unchanged are parsed.
    const resolveRaw = async () => {
      if (!rawBatch.length) return;
      const raws = rawBatch;
      rawBatch = [];
      // What is stored says nothing about a CVE written since the lookup started: the batch in
      // flight, the batch being built, and a record parsed before another version of it in `raws`.
      const uncommitted = new Set([...inflightIds, ...batchIds]);
      // Without stored fingerprints (a first import) nothing can be skipped: no lookups.
      lookups ??= await this.catalog.hasInputs(source.name);
      const unchanged = lookups
        ? await this.catalog.unchangedInputs(source.name, raws)
        : { has: () => false };
      for (const raw of raws) {
        const known = unchanged.has(raw.cveId, raw.fingerprint);
        if (known && !uncommitted.has(raw.cveId)) {
          counts.unchanged++;
          continue;
        }
        uncommitted.add(raw.cveId);
        const item = raw.parse();
        const fingerprinted = item.kind === 'cve' && item.cveId === raw.cveId;
        await accept(item, fingerprinted ? { fingerprint: raw.fingerprint, known } : undefined);
      }
    };

    try {
      for (const target of targets) {
        for await (const file of inputFiles(target, { accept: source.accept })) {
          for await (const item of source.scan ? source.scan(file) : source.parse(file)) {
            records++;
            if (item.kind === 'raw') {
              rawBatch.push(item);
              if (rawBatch.length >= batchSize) await resolveRaw();
            } else {
              await resolveRaw();
              await accept(item);
            }
            const now = Date.now();
            if (options.onProgress && now - lastProgress >= (options.progressEveryMs ?? 2000)) {
              lastProgress = now;
              options.onProgress({
                source: source.name,
                records,
                counts: { ...counts },
                elapsedMs: now - started,
              });
            }
          }
        }
      }
      await resolveRaw();
      await flush();
      await inflight;
    } catch (err) {
      await inflight?.catch(() => {});
      await this.runs.finish(runId, 'failed', counts, [
        ...problems,
        { position: '', reason: (err as Error).message },
      ]);
      if (counts.imported + counts.updated) await this.afterImport().catch(() => {});
      throw err;
    }
    const result = report(counts.skipped ? 'partial' : 'completed');
    await this.runs.finish(runId, result.status, counts, problems.slice(0, 100));
    if (counts.imported + counts.updated) await this.afterImport();
    return result;
  }

  /** Applies one batch of CVE items (distinct CVE ids) in one transaction. */
  private async applyCveBatch(
    sourceName: string,
    items: CveItem[],
  ): Promise<{ counts: Omit<ImportCounts, 'skipped'>; changes: number }> {
    return this.catalog.inWriteTransaction(async (tx) => {
      const counts = { imported: 0, updated: 0, unchanged: 0, pending: 0 };
      const ids = items.map((i) => i.cveId);
      const stored = await tx.sourceHashes(ids);

      // Cheap pass: items whose every statement has the stored hash change nothing.
      const pending: { item: CveItem; upserts: SourceUpsert[]; deletes: Provider[] }[] = [];
      const inputs: InputFingerprint[] = [];
      for (const item of items) {
        const before = new Map((stored.get(item.cveId) ?? []).map((s) => [s.provider, s.hash]));
        const upserts: SourceUpsert[] = [];
        const hashes = new Map<string, string>();
        for (const r of item.records) {
          const { docJson, rawJson, hash } = serialize(r.doc, r.raw);
          hashes.set(r.provider, hash);
          if (before.get(r.provider) !== hash) {
            upserts.push({ cveId: r.cveId, provider: r.provider, doc: r.doc, docJson, rawJson, hash });
          }
        }
        const present = new Set(item.records.map((r) => r.provider));
        const deletes = item.replaces.filter((p) => !present.has(p) && before.has(p));
        const changed = upserts.length > 0 || deletes.length > 0;
        if (changed) pending.push({ item, upserts, deletes });
        else counts.unchanged++;
        if (item.input && (changed || !item.input.known)) {
          // The statements this raw record leaves stored, for the next import to skip it.
          const providers = [...new Set<string>([...present, ...item.replaces])].sort();
          inputs.push({
            source: sourceName,
            cveId: item.cveId,
            fingerprint: item.input.fingerprint,
            providers,
            hashes: providers.map((p) => hashes.get(p) ?? ''),
          });
        }
      }
      if (!pending.length) {
        if (inputs.length) await tx.write({ ...EMPTY_WRITE, inputs });
        return { counts, changes: 0 };
      }

      // Only CVEs with stored statements can have documents or a merged view to read.
      const knownIds = pending.map((p) => p.item.cveId).filter((id) => stored.has(id));
      const documents = await tx.sourceDocuments(knownIds);
      const views = await tx.mergedViews(knownIds);
      const write = await this.mergePending(tx, pending, documents, views, counts, inputs);
      return { counts, changes: write };
    });
  }

  private async mergePending(
    tx: CatalogWriteTransaction,
    pending: { item: CveItem; upserts: SourceUpsert[]; deletes: Provider[] }[],
    documents: Map<string, Map<Provider, SourceDocument>>,
    views: Map<string, MergedCve>,
    counts: { imported: number; updated: number; unchanged: number; pending: number },
    inputs: InputFingerprint[],
  ): Promise<number> {
    const cves: MergedCve[] = [];
    const changes: CveChange[] = [];
    const vendorKeys = new Set<string>();
    const weaknessIds = new Set<string>();
    const sourceDeletes: { cveId: string; provider: Provider }[] = [];
    const sourceUpserts: SourceUpsert[] = [];
    const epssMoves: EpssMove[] = [];
    for (const { item, upserts, deletes } of pending) {
      const docs = documents.get(item.cveId) ?? new Map<Provider, SourceDocument>();
      for (const u of upserts) docs.set(u.provider, u.doc);
      for (const p of deletes) docs.delete(p);
      sourceUpserts.push(...upserts);
      sourceDeletes.push(...deletes.map((provider) => ({ cveId: item.cveId, provider })));
      const before = views.get(item.cveId);
      if (![...docs.keys()].some((p) => RECORD_PROVIDERS.has(p))) {
        // Only an EPSS score so far: kept, and merged in when the CVE's record arrives.
        if (before) counts.unchanged++;
        else counts.pending++;
        continue;
      }
      const after = mergeCve(item.cveId, docs);
      if (before && sameJson(before, after)) {
        counts.unchanged++;
        continue;
      }
      cves.push(after);
      if (before) {
        const move = epssMove(before, after);
        if (move) epssMoves.push(move);
      }
      const change = diffCve(before, after);
      if (change) changes.push(change);
      if (before) counts.updated++;
      else counts.imported++;
      if (!before || !sameJson(before.vendors, after.vendors))
        after.vendors.forEach((k) => vendorKeys.add(k));
      for (const w of after.weaknesses) if (CWE_ID_PATTERN.test(w)) weaknessIds.add(w);
    }
    await tx.write({
      sourceUpserts,
      sourceDeletes,
      cves,
      changes,
      epssMoves,
      vendorKeys: [...vendorKeys],
      weaknessIds: [...weaknessIds],
      inputs,
    });
    return changes.length;
  }
}
