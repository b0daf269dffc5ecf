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
 * reported, never fatal.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { sameJson } from '../domain/canonical-json.ts';
import { diffCve, type CveChange } from '../domain/cve-change.ts';
import { CWE_ID_PATTERN } from '../domain/cve-id.ts';
import {
  hasRecord,
  mergeCve,
  overlayDocument,
  type MergedCve,
  type Provider,
  type SourceDocument,
} from '../domain/cve.ts';
import {
  CatalogWriteRepository,
  type CatalogWriteTransaction,
  type EpssMove,
  type InputFingerprint,
  type OpenWriteTransaction,
  type SourceUpsert,
  type StoredSource,
} from '../db/catalog-write.repository.ts';
import { ImportRunRepository } from '../db/import-run.repository.ts';
import type { DB } from '../db/schema.ts';
import { inputFiles, type InputFile } from '../sources/input.ts';
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
  /**
   * Statements kept for CVEs the catalog does not list yet: a KEV entry or an EPSS score before the
   * CVE's record (docs/catalog.md).
   */
  pending: number;
}

export interface ImportProblem {
  /** Where in the input (`file.jsonl:42`); '' for a problem of the input as a whole. */
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
}

const MAX_PROBLEMS = 1000;
/**
 * An EPSS move at least this large is kept for EPSS triggers (docs/notifications.md): scores drift a
 * little every day for every CVE, and a drift is nobody's news.
 */
export const EPSS_MOVE_MIN = 0.01;
/**
 * Rows written (by all imports of this service, so that a sync's many small imports count too)
 * before the first ANALYZE of the catalog tables; then each time the rows written grew this much.
 * The planner scales a table's row estimate by its current size on disk, so statistics taken once
 * the tables hold real rows stay right as they grow; later runs refresh value distributions.
 */
const ANALYZE_FIRST_AFTER = 2_000;
const ANALYZE_GROWTH = 8;

/**
 * A CVE item, with the fingerprint of its raw record when it came from one (and parsed to the id it
 * was looked up by); `known`: that fingerprint was stored, with the statements still current. And its
 * records serialized (`serialize`, in order), done as it is read: while the batch before is written,
 * not inside this one's transaction, where the database would wait on it.
 */
type CveItem = Extract<ImportItem, { kind: 'cve' }> & {
  input?: { fingerprint: string; known: boolean };
  serialized: Serialized[];
};

type Serialized = ReturnType<typeof serialize>;

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
  private written = 0;
  private nextAnalyze = ANALYZE_FIRST_AFTER;

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
  importInputs(source: Source, targets: string[], options: ImportOptions = {}): Promise<ImportReport> {
    async function* files() {
      for (const target of targets) yield* inputFiles(target, { accept: source.accept });
    }
    return this.importFiles(source, files(), options);
  }

  /** Imports input files (read from anywhere: disk, an archive, memory) with `source`, in order. */
  async importFiles(
    source: Source,
    files: AsyncIterable<InputFile>,
    options: ImportOptions = {},
  ): Promise<ImportReport> {
    const started = Date.now();
    const batchSize = options.batchSize ?? 500;
    const counts: ImportCounts = { imported: 0, updated: 0, unchanged: 0, skipped: 0, pending: 0 };
    const problems: ImportProblem[] = [];
    let changes = 0;
    let records = 0;
    let analyzeDue = false;
    let lastProgress = started;
    const runId = await this.runs.start(source.name);
    // An atomic import writes every batch in one transaction, and reads through it too: the embedded
    // database has no other session meanwhile, and its own uncommitted batches are what it reads.
    let atomic: OpenWriteTransaction | undefined;
    let reads = this.catalog;
    const inTransaction = <T>(fn: (tx: CatalogWriteTransaction) => Promise<T>): Promise<T> =>
      atomic ? fn(atomic.tx) : this.catalog.inWriteTransaction(fn);
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
    /** For a snapshot source (Source.snapshotOf): every CVE the input lists. */
    const listed = new Set<string>();
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
        inflight = inTransaction((tx) => this.applyCveBatch(tx, source.name, batch)).then(async (result) => {
          for (const k of ['imported', 'updated', 'unchanged', 'pending'] as const)
            counts[k] += result.counts[k];
          changes += result.changes;
          this.written += result.counts.imported + result.counts.updated + result.counts.pending;
          if (this.written >= this.nextAnalyze) {
            // Fresh statistics as the tables grow: without them the planner scans cve_source and
            // cve_input for the batch lookups instead of using their primary keys (autovacuum may be
            // off, PGlite has none, or it is too slow for a bulk load). ANALYZE samples a bounded
            // number of rows (0.3-0.7 s from 30,000 rows up). An atomic import runs it once committed.
            this.nextAnalyze = this.written * ANALYZE_GROWTH;
            if (atomic) analyzeDue = true;
            else await this.catalog.analyze();
          }
        });
        // Keep the rejection for the next await; never let it go unhandled meanwhile.
        inflight.catch(() => {});
      }
      if (weaknessBatch.length) {
        const { inserted, updated } = await reads.upsertWeaknesses(weaknessBatch);
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
        // A CVE may come several times (a replayed history): applyCveBatch applies each version in turn.
        if (source.snapshotOf) listed.add(item.cveId);
        const serialized = item.records.map((r) => serialize(r.doc, r.raw));
        cveBatch.push(input ? { ...item, input, serialized } : { ...item, serialized });
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
      lookups ??= !options.changedInputs && (await reads.hasInputs(source.name));
      const unchanged = lookups ? await reads.unchangedInputs(source.name, raws) : { has: () => false };
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
      if (options.atomic) {
        atomic = await this.catalog.startWriteTransaction();
        reads = new CatalogWriteRepository(atomic.db);
      }
      for await (const file of files) {
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
      await resolveRaw();
      await flush();
      await inflight;
      if (source.snapshotOf) {
        await this.retireUnlisted(source.name, source.snapshotOf, listed, counts, problems, reads, accept);
        await flush();
        await inflight;
      }
      if (atomic) {
        await options.atomic!.beforeCommit(atomic.db);
        await atomic.commit();
        atomic = undefined;
        if (analyzeDue) await this.catalog.analyze();
      }
    } catch (err) {
      await inflight?.catch(() => {});
      const rolledBack = atomic !== undefined;
      if (atomic) await atomic.rollback().catch(() => {});
      await this.runs.finish(runId, 'failed', counts, [
        ...problems,
        { position: '', reason: (err as Error).message + (rolledBack ? ' (nothing of it was kept)' : '') },
      ]);
      if (!rolledBack && counts.imported + counts.updated) await this.afterImport().catch(() => {});
      throw err;
    }
    const result = report(counts.skipped ? 'partial' : 'completed');
    await this.runs.finish(runId, result.status, counts, problems.slice(0, 100));
    if (counts.imported + counts.updated) await this.afterImport();
    return result;
  }

  /**
   * After a snapshot source's import (Source.snapshotOf): deletes `provider`'s statements about the
   * CVEs the input no longer lists, through `accept` like any item, so each CVE is merged again and
   * the change recorded (a CVE not published yet just loses the statement). Only after an input read
   * whole: an entry skipped as unreadable is not one upstream removed, and an input listing nothing
   * is more likely a broken mirror than an empty list.
   */
  private async retireUnlisted(
    sourceName: string,
    provider: Provider,
    listed: ReadonlySet<string>,
    counts: ImportCounts,
    problems: ImportProblem[],
    reads: CatalogWriteRepository,
    accept: (item: ImportItem) => Promise<void>,
  ): Promise<void> {
    const unlisted = await reads.cvesStatedBy(provider, [...listed]);
    if (!unlisted.length) return;
    if (counts.skipped || !listed.size) {
      const why = counts.skipped ? 'the input has unreadable entries' : 'the input lists none';
      problems.push({
        position: '',
        reason: `the ${sourceName} entries of ${unlisted.length} CVE${unlisted.length === 1 ? '' : 's'} not in the input were kept: ${why}`,
      });
      return;
    }
    for (const cveId of unlisted) {
      await accept({
        kind: 'cve',
        cveId,
        position: `no longer listed by ${sourceName}`,
        records: [],
        replaces: [provider],
      });
    }
  }

  /**
   * Applies one batch of CVE items in `tx`. Items of the same CVE (versions of its record, in input
   * order) apply in turn, each compared with the one before: the changes recorded are those of
   * importing them one by one.
   */
  private async applyCveBatch(
    tx: CatalogWriteTransaction,
    sourceName: string,
    items: CveItem[],
  ): Promise<{ counts: Omit<ImportCounts, 'skipped'>; changes: number }> {
    const counts = { imported: 0, updated: 0, unchanged: 0, pending: 0 };
    const ids = [...new Set(items.map((i) => i.cveId))];
    const stored = await tx.sourceHashes(ids);
    await this.overlayPartials(tx, items, stored);
    // Each CVE's statement hashes as the items so far leave them.
    const current = new Map(
      ids.map((id) => [id, new Map((stored.get(id) ?? []).map((s) => [s.provider, s.hash]))]),
    );

    // Cheap pass: items whose every statement has the current hash change nothing.
    const pending: { item: CveItem; upserts: SourceUpsert[]; deletes: Provider[] }[] = [];
    // One fingerprint per CVE: the last version's.
    const inputs = new Map<string, InputFingerprint>();
    for (const item of items) {
      const before = current.get(item.cveId)!;
      const upserts: SourceUpsert[] = [];
      const hashes = new Map<string, string>();
      for (const [i, r] of item.records.entries()) {
        const { docJson, rawJson, hash } = item.serialized[i]!;
        hashes.set(r.provider, hash);
        if (before.get(r.provider) !== hash) {
          upserts.push({ cveId: r.cveId, provider: r.provider, doc: r.doc, docJson, rawJson, hash });
        }
      }
      const present = new Set(item.records.map((r) => r.provider));
      const deletes = item.replaces.filter((p) => !present.has(p) && before.has(p));
      for (const u of upserts) before.set(u.provider, u.hash);
      for (const p of deletes) before.delete(p);
      const changed = upserts.length > 0 || deletes.length > 0;
      if (changed) pending.push({ item, upserts, deletes });
      else counts.unchanged++;
      if (item.input && (changed || !item.input.known)) {
        // The statements this raw record leaves stored, for the next import to skip it.
        const providers = [...new Set<string>([...present, ...item.replaces])].sort();
        inputs.set(item.cveId, {
          source: sourceName,
          cveId: item.cveId,
          fingerprint: item.input.fingerprint,
          providers,
          hashes: providers.map((p) => hashes.get(p) ?? ''),
        });
      }
    }
    if (!pending.length) {
      if (inputs.size) await tx.write({ ...EMPTY_WRITE, inputs: [...inputs.values()] });
      return { counts, changes: 0 };
    }

    // Only CVEs with stored statements have a merged view to read, and of their statements only
    // those their first changed version neither brings nor replaces (it brings the rest itself: an
    // unchanged statement has the hash, so the content, of the stored one). A record of the source
    // that made every stored statement of its CVE needs none.
    const knownIds = [...new Set(pending.map((p) => p.item.cveId))].filter((id) => stored.has(id));
    const wanted = new Map<string, Provider[]>();
    for (const { item } of pending) {
      const storedHere = stored.get(item.cveId);
      if (!storedHere || wanted.has(item.cveId)) continue;
      const brought = new Set<Provider>([...item.replaces, ...item.records.map((r) => r.provider)]);
      wanted.set(
        item.cveId,
        storedHere.map((s) => s.provider).filter((p) => !brought.has(p)),
      );
    }
    const documents = await tx.sourceDocuments(wanted);
    const views = await tx.mergedViews(knownIds);
    const write = await this.mergePending(tx, pending, documents, views, counts, [...inputs.values()]);
    return { counts, changes: write };
  }

  /**
   * Lays each partial record (SourceRecord.partial) over the statement it copies part of: the one the
   * items before it in the batch leave, else the stored one. The item then carries the whole
   * statement, compared and stored as any other; one that adds nothing keeps the statement's hash
   * (a stored document comes back from jsonb with its keys in another order).
   */
  private async overlayPartials(
    tx: CatalogWriteTransaction,
    items: CveItem[],
    stored: Map<string, StoredSource[]>,
  ): Promise<void> {
    const storedHash = new Map<string, string>();
    const wanted = new Map<string, Provider[]>();
    for (const item of items) {
      for (const s of stored.get(item.cveId) ?? []) {
        storedHash.set(`${item.cveId} ${s.provider}`, s.hash);
        if (item.records.some((r) => r.partial && r.provider === s.provider))
          wanted.set(item.cveId, [...(wanted.get(item.cveId) ?? []), s.provider]);
      }
    }
    if (!wanted.size) return;
    const documents = await tx.sourceDocuments(wanted);
    /** Each statement as the items so far leave it (null: deleted). */
    const latest = new Map<string, { doc: SourceDocument; hash: string } | null>();
    for (const item of items) {
      for (const [i, r] of item.records.entries()) {
        const key = `${item.cveId} ${r.provider}`;
        const storedDoc = documents.get(item.cveId)?.get(r.provider);
        const base = latest.has(key)
          ? latest.get(key)
          : storedDoc && { doc: storedDoc, hash: storedHash.get(key)! };
        if (r.partial && base) {
          const doc = overlayDocument(base.doc, r.doc);
          item.records[i] = { ...r, doc };
          item.serialized[i] = sameJson(doc, base.doc)
            ? { docJson: JSON.stringify(doc), rawJson: undefined, hash: base.hash }
            : serialize(doc, r.raw);
        }
        latest.set(key, { doc: item.records[i]!.doc, hash: item.serialized[i]!.hash });
      }
      for (const p of item.replaces) {
        if (!item.records.some((r) => r.provider === p)) latest.set(`${item.cveId} ${p}`, null);
      }
    }
  }

  /**
   * Merges the pending items in order and writes the batch. `documents` and `views` start as stored
   * and follow each item, so a CVE's next version is compared with the previous one; rows keyed by
   * CVE (statements, merged view) are written once, as the last version left them.
   */
  private async mergePending(
    tx: CatalogWriteTransaction,
    pending: { item: CveItem; upserts: SourceUpsert[]; deletes: Provider[] }[],
    documents: Map<string, Map<Provider, SourceDocument>>,
    views: Map<string, MergedCve>,
    counts: { imported: number; updated: number; unchanged: number; pending: number },
    inputs: InputFingerprint[],
  ): Promise<number> {
    const cves = new Map<string, MergedCve>();
    const changes: CveChange[] = [];
    const vendorKeys = new Set<string>();
    const weaknessIds = new Set<string>();
    /** Per CVE and provider, the statement to store, or null to delete it. */
    const statements = new Map<string, { cveId: string; provider: Provider; upsert: SourceUpsert | null }>();
    const epssMoves: EpssMove[] = [];
    for (const { item, upserts, deletes } of pending) {
      let docs = documents.get(item.cveId);
      if (!docs) documents.set(item.cveId, (docs = new Map<Provider, SourceDocument>()));
      // Every statement the item brings: an unchanged one is the stored one (same hash), which was
      // not read back (see applyCveBatch).
      for (const r of item.records) docs.set(r.provider, r.doc);
      for (const u of upserts) {
        statements.set(`${item.cveId} ${u.provider}`, { cveId: item.cveId, provider: u.provider, upsert: u });
      }
      for (const p of deletes) {
        docs.delete(p);
        statements.set(`${item.cveId} ${p}`, { cveId: item.cveId, provider: p, upsert: null });
      }
      const before = views.get(item.cveId);
      if (!hasRecord(docs.keys())) {
        // No record yet (a KEV entry, an EPSS score): the statements are kept, and merged in, with the
        // change recorded, when the CVE's record arrives. A CVE once listed stays listed.
        if (before || !docs.size) counts.unchanged++;
        else counts.pending++;
        continue;
      }
      const after = mergeCve(item.cveId, docs);
      if (before && sameJson(before, after)) {
        counts.unchanged++;
        continue;
      }
      cves.set(item.cveId, after);
      views.set(item.cveId, after);
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
    const sourceUpserts: SourceUpsert[] = [];
    const sourceDeletes: { cveId: string; provider: Provider }[] = [];
    for (const { cveId, provider, upsert } of statements.values()) {
      if (upsert) sourceUpserts.push(upsert);
      else sourceDeletes.push({ cveId, provider });
    }
    await tx.write({
      sourceUpserts,
      sourceDeletes,
      cves: [...cves.values()],
      changes,
      epssMoves,
      vendorKeys: [...vendorKeys],
      weaknessIds: [...weaknessIds],
      inputs,
    });
    return changes.length;
  }
}
