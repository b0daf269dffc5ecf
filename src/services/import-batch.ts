/**
 * One batch of CVE items written in one transaction: compare statement hashes, merge what changed,
 * diff against the stored view, write statements, views, changes, EPSS moves and fingerprints
 * (ImportService runs the batches, one at a time, in order).
 */
import { createHash } from 'node:crypto';
import { sameJson } from '../domain/canonical-json.ts';
import { affectedComparable, affectedSourcesOf, CVE5_STATEMENTS } from '../domain/affected.ts';
import { diffCve, type CveChange } from '../domain/cve-change.ts';
import { newKeyMerges, type KeyMerge, type TextMapper } from '../domain/vendor-provenance.ts';
import { CWE_ID_PATTERN } from '../domain/cve-id.ts';
import {
  hasRecord,
  mergeCve,
  overlayDocument,
  type MergedCve,
  type Provider,
  type SourceDocument,
} from '../domain/cve.ts';
import type {
  CatalogBatchWrite,
  CatalogWriteTransaction,
  EpssMove,
  InputFingerprint,
  SourceUpsert,
  StoredSource,
} from '../db/catalog-write.repository.ts';
import type { ImportItem } from '../sources/source.ts';

/** What a batch did to its CVEs (`skipped` is the reader's: a batch holds no malformed record). */
export interface BatchCounts {
  imported: number;
  updated: number;
  unchanged: number;
  pending: number;
}

/**
 * An EPSS move at least this large is kept for EPSS triggers (docs/notifications.md): scores drift a
 * little every day for every CVE, and a drift is nobody's news.
 */
export const EPSS_MOVE_MIN = 0.01;

/**
 * A CVE item, with the fingerprint of its raw record when it came from one (and parsed to the id it
 * was looked up by); `known`: that fingerprint was stored, with the statements still current. And its
 * records serialized (`serialize`, in order), done as it is read: while the batch before is written,
 * not inside this one's transaction, where the database would wait on it.
 */
export type CveItem = Extract<ImportItem, { kind: 'cve' }> & {
  input?: { fingerprint: string; known: boolean };
  serialized: Serialized[];
  /**
   * The merged view of the item's records alone, merged as it was read (a source's first import,
   * where most CVEs have no stored statements): used when the batch finds exactly these statements,
   * merged again otherwise.
   */
  merged?: MergedCve;
};

type Serialized = ReturnType<typeof serialize>;

/**
 * Parsers build documents in a fixed key order, so the same upstream input always serializes to the
 * same text: plain JSON is the fingerprint (the canonical form costs several times more on this hot
 * path; a parser change that reorders keys only costs one re-merge, which records nothing).
 */
export function serialize(doc: SourceDocument, raw?: Record<string, unknown>) {
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

/**
 * Applies one batch of CVE items in `tx`. Items of the same CVE (versions of its record, in input
 * order) apply in turn, each compared with the one before: the changes recorded are those of
 * importing them one by one.
 */
export async function applyCveBatch(
  tx: CatalogWriteTransaction,
  sourceName: string,
  items: CveItem[],
  mapText?: TextMapper,
): Promise<{ counts: BatchCounts; changes: number; merges: KeyMerge[] }> {
  const counts = { imported: 0, updated: 0, unchanged: 0, pending: 0 };
  const ids = [...new Set(items.map((i) => i.cveId))];
  const stored = await tx.sourceHashes(ids);
  await overlayPartials(tx, items, stored);
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
  // Histories recorded elsewhere are written whatever the statements did (a record imported before
  // this was kept brings its history on the next import); one already stored is left as it is.
  const importedChanges = items.flatMap((item) =>
    (item.history ?? []).map((change) => ({ cveId: item.cveId, change })),
  );
  if (!pending.length) {
    if (inputs.size || importedChanges.length)
      await tx.write({ ...EMPTY_WRITE, inputs: [...inputs.values()], importedChanges });
    return { counts, changes: 0, merges: [] };
  }

  // Only CVEs with stored statements have a merged view to read, and of their statements only
  // those their first changed version neither brings nor replaces (it brings the rest itself: an
  // unchanged statement has the hash, so the content, of the stored one), and the CVE 5 ones, whose
  // affected entries are compared (not part of the merged view). A first import reads none.
  const knownIds = [...new Set(pending.map((p) => p.item.cveId))].filter((id) => stored.has(id));
  const wanted = new Map<string, Provider[]>();
  for (const { item } of pending) {
    const storedHere = stored.get(item.cveId);
    if (!storedHere || wanted.has(item.cveId)) continue;
    const brought = new Set<Provider>([...item.replaces, ...item.records.map((r) => r.provider)]);
    wanted.set(
      item.cveId,
      storedHere.map((s) => s.provider).filter((p) => !brought.has(p) || CVE5_STATEMENTS.has(p)),
    );
  }
  const documents = await tx.sourceDocuments(wanted);
  const views = await tx.mergedViews(knownIds);
  const merges: KeyMerge[] = [];
  const write = await mergePending(
    tx,
    pending,
    documents,
    views,
    counts,
    [...inputs.values()],
    importedChanges,
    mapText,
    merges,
  );
  return { counts, changes: write, merges };
}

/**
 * Merges the pending items in order and writes the batch. `documents` and `views` start as stored
 * and follow each item, so a CVE's next version is compared with the previous one; rows keyed by
 * CVE (statements, merged view) are written once, as the last version left them.
 */
async function mergePending(
  tx: CatalogWriteTransaction,
  pending: { item: CveItem; upserts: SourceUpsert[]; deletes: Provider[] }[],
  documents: Map<string, Map<Provider, SourceDocument>>,
  views: Map<string, MergedCve>,
  counts: BatchCounts,
  inputs: InputFingerprint[],
  importedChanges: CatalogBatchWrite['importedChanges'],
  mapText: TextMapper | undefined,
  merges: KeyMerge[],
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
    const before = views.get(item.cveId);
    // The affected entries as the statements before this version state them (a CVE already merged).
    const affectedBefore = before && affectedComparable(docs) ? affectedSourcesOf(docs) : undefined;
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
    if (!hasRecord(docs.keys())) {
      // No record yet (a KEV entry, an EPSS score): the statements are kept, and merged in, with the
      // change recorded, when the CVE's record arrives. A CVE once listed stays listed.
      if (before || !docs.size) counts.unchanged++;
      else counts.pending++;
      continue;
    }
    const alone =
      item.merged &&
      docs.size === item.records.length &&
      item.records.every((r) => docs.get(r.provider) === r.doc);
    const after = alone ? item.merged! : mergeCve(item.cveId, docs, mapText);
    const affectedAfter = affectedBefore && affectedComparable(docs) ? affectedSourcesOf(docs) : undefined;
    // A range added moves a statement, not the merged view: a change of its own (`affected`).
    const affected =
      affectedBefore && affectedAfter && !sameJson(affectedBefore, affectedAfter)
        ? { before: affectedBefore, after: affectedAfter }
        : undefined;
    const viewMoved = !before || !sameJson(before, after);
    if (!viewMoved && !affected) {
      counts.unchanged++;
      continue;
    }
    if (viewMoved) {
      cves.set(item.cveId, after);
      views.set(item.cveId, after);
      merges.push(...newKeyMerges(item.cveId, before?.vendorSources, after.vendorSources));
    }
    if (before) {
      const move = epssMove(before, after);
      if (move) epssMoves.push(move);
    }
    const change = diffCve(before, after, affected);
    // A CVE that enters the catalog with a history recorded elsewhere (OpenCVE's KB) has that history
    // as its record of changes: its creation here is a migration, not news.
    if (change && !(before === undefined && item.history)) changes.push(change);
    if (before) counts.updated++;
    else counts.imported++;
    if (!before || !sameJson(before.vendors, after.vendors)) after.vendors.forEach((k) => vendorKeys.add(k));
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
    importedChanges,
  });
  return changes.length;
}

/** What re-mapping a batch of CVEs did (`remapCveBatch`). */
export interface RemapCounts {
  /** CVEs whose merged view moved (keys or their provenance). */
  remapped: number;
  /** Changes recorded (a move of provenance alone records none). */
  changes: number;
  /** Minted keys the new merges found merging (`newKeyMerges`). */
  merges: KeyMerge[];
}

/**
 * Merges these CVEs again from their stored statements with `mapText` (a new alias table), writing
 * those whose view moved and recording their changes. A change of a CVE merged before migration 0032
 * (no provenance stored: its keys followed the old text rule), or any change when `silent`, is
 * recorded as history (`origin = 'vendor-remap'`): the event processor and reports pass over it, so
 * keys that only change spelling alert nobody. Idempotent: a second run with the same table writes
 * nothing.
 */
export async function remapCveBatch(
  tx: CatalogWriteTransaction,
  ids: string[],
  mapText: TextMapper,
  silent: boolean,
): Promise<RemapCounts> {
  const stored = await tx.sourceHashes(ids);
  const documents = await tx.sourceDocuments(
    new Map([...stored].map(([id, list]) => [id, list.map((s) => s.provider)])),
  );
  const views = await tx.mergedViews(ids);
  const cves: MergedCve[] = [];
  const changes: CveChange[] = [];
  const vendorKeys = new Set<string>();
  const merges: KeyMerge[] = [];
  for (const id of ids) {
    const docs = documents.get(id);
    const before = views.get(id);
    if (!docs || !before || !hasRecord(docs.keys())) continue;
    const after = mergeCve(id, docs, mapText);
    if (sameJson(before, after)) continue;
    cves.push(after);
    merges.push(...newKeyMerges(id, before.vendorSources, after.vendorSources));
    const change = diffCve(before, after);
    if (change) {
      if (silent || !before.vendorSources) change.origin = 'vendor-remap';
      changes.push(change);
    }
    if (!sameJson(before.vendors, after.vendors)) after.vendors.forEach((k) => vendorKeys.add(k));
  }
  if (cves.length) {
    await tx.write({ ...EMPTY_WRITE, cves, changes, vendorKeys: [...vendorKeys] });
  }
  return { remapped: cves.length, changes: changes.length, merges };
}

/**
 * Lays each partial record (SourceRecord.partial) over the statement it copies part of: the one the
 * items before it in the batch leave, else the stored one. The item then carries the whole
 * statement, compared and stored as any other; one that adds nothing keeps the statement's hash
 * (a stored document comes back from jsonb with its keys in another order).
 */
async function overlayPartials(
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
