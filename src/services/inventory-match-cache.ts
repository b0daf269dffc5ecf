/**
 * What inventory matching keeps between calls, in this process (docs/catalog.md, "Matching an
 * inventory"): most of a call's time is reading, parsing and compiling its candidates' NVD
 * configurations and CNA `affected[]`, and a team's inventories ask about the same products call after
 * call. Kept:
 *
 * - the candidate CVE ids of each vendor key and CNA name, for one catalog version (every import batch
 *   that writes a CVE or a statement moves it; they are read again after);
 * - each candidate's matching data (with the compiled indexes the domain hangs on it), with a token of
 *   the rows it was read from (their `xmin`: any rewrite changes it). An entry checked at the current
 *   catalog version is used as is; after the version moves, one read of the candidates' tokens tells
 *   which few changed, and only those are read again. At most `maxCves` entries, least recently used
 *   dropped first.
 *
 * Calls interleave (each awaits the database): a call stores what it read only for the version it
 * started at, and never moves the cache back to an older one.
 */
import type { MatchableCve } from '../domain/inventory-match.ts';

interface Entry {
  cve: MatchableCve;
  token: string;
  /** The catalog version at which `token` was last found current. */
  checkedAt: number;
}

export class InventoryMatchCache {
  private version = -1;
  private readonly idsByKey = new Map<string, string[]>();
  private readonly idsByName = new Map<string, string[]>();
  private readonly entries = new Map<string, Entry>();

  /** `maxCves` 0: nothing is kept (every call reads all it needs). */
  constructor(private readonly maxCves: number) {}

  /** Starts a call at catalog `version`: lists kept for an older one are dropped. */
  begin(version: number): void {
    if (version <= this.version) return;
    this.version = version;
    this.idsByKey.clear();
    this.idsByName.clear();
  }

  /** The ids kept for these keys (or names) at `version`, and those to read. */
  ids(kind: 'key' | 'name', wanted: Iterable<string>, version: number) {
    const store = kind === 'key' ? this.idsByKey : this.idsByName;
    const known = new Map<string, string[]>();
    const missing: string[] = [];
    for (const k of wanted) {
      const ids = version === this.version ? store.get(k) : undefined;
      if (ids) known.set(k, ids);
      else missing.push(k);
    }
    return { known, missing };
  }

  /** Keeps the ids read for these keys (or names) at `version`; a key read with no CVE keeps `[]`. */
  storeIds(
    kind: 'key' | 'name',
    read: ReadonlyMap<string, string[]>,
    asked: readonly string[],
    version: number,
  ) {
    if (version !== this.version || this.maxCves === 0) return;
    const store = kind === 'key' ? this.idsByKey : this.idsByName;
    for (const k of asked) store.set(k, read.get(k) ?? []);
  }

  /**
   * The kept candidates current at `version` (`fresh`), those kept from an older version whose
   * tokens need a look (`stale`, id → token), and the ids never read (`unknown`).
   */
  lookup(ids: Iterable<string>, version: number) {
    const fresh = new Map<string, MatchableCve>();
    const stale = new Map<string, string>();
    const unknown: string[] = [];
    for (const id of ids) {
      const entry = this.touch(id);
      if (!entry) unknown.push(id);
      else if (entry.checkedAt === version) fresh.set(id, entry.cve);
      else stale.set(id, entry.token);
    }
    return { fresh, stale, unknown };
  }

  /** The entry of `id` found current at `version` (its token unchanged). */
  confirm(id: string, version: number): MatchableCve | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (version > entry.checkedAt) entry.checkedAt = version;
    return entry.cve;
  }

  /** Keeps a candidate read at `version` with the token of its rows. */
  store(cve: MatchableCve, token: string, version: number): void {
    if (this.maxCves === 0) return;
    this.entries.delete(cve.cveId);
    this.entries.set(cve.cveId, { cve, token, checkedAt: version });
    if (this.entries.size <= this.maxCves) return;
    // A tenth more than the excess at once, through one iterator: taking the first key again after
    // each delete walks the deleted slots a Map keeps until it rehashes (quadratic, 2 s of a
    // 5,000-component upload).
    let drop = this.entries.size - this.maxCves + Math.floor(this.maxCves / 10);
    for (const id of this.entries.keys()) {
      if (drop-- <= 0) break;
      this.entries.delete(id);
    }
  }

  /** Drops a candidate that is no longer matchable (rejected). */
  forget(id: string): void {
    this.entries.delete(id);
  }

  /** Entries kept (for the benchmark and tests). */
  get size(): number {
    return this.entries.size;
  }

  private touch(id: string): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry) {
      this.entries.delete(id);
      this.entries.set(id, entry);
    }
    return entry;
  }
}
