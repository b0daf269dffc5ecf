/**
 * What CVE lists cost to know and stays true for every request at one catalog version: each list's
 * exact count, and the anchors of deep pages (the sort key at every N-th position). Counting a broad
 * filter over a 300k catalog costs 100+ ms of database time and an anchor table a pass over the list;
 * the catalog changes only when an import batch commits, and that bumps its version (migration
 * 0004), so what was read at one version is exact for every read at that version.
 *
 * Per process, bounded (least recently used first), and only for the newest version seen: a read
 * returning a newer version drops the older entries. Concurrent requests for one missing entry share
 * one computation.
 */
import type { SortKey } from '../db/cve-list.repository.ts';

export interface VersionedCount {
  count: number;
  version: number;
}

export interface Anchors {
  version: number | undefined;
  /** The sort keys at positions 0, every, 2·every… */
  keys: SortKey[];
}

class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      // Refresh its place in the eviction order.
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
  }

  clear(): void {
    this.map.clear();
  }
}

export interface ListCacheOptions {
  /** Lists whose count is kept (default 2,000). */
  counts?: number;
  /** Anchor tables kept (default 32; one per list and ordering paged that deep). */
  anchorTables?: number;
  /** Offsets from which a page starts from an anchor (default 1,000). */
  anchorFrom?: number;
  /** Positions between two anchors (default 100): a deep page skips fewer rows than this. */
  anchorEvery?: number;
}

export class ListCache {
  readonly anchorFrom: number;
  readonly anchorEvery: number;
  private newest: number | undefined;
  private readonly counts: Lru<number>;
  private readonly anchorTables: Lru<Anchors>;
  private readonly inflight = new Map<string, Promise<unknown>>();

  constructor(options: ListCacheOptions = {}) {
    this.counts = new Lru(options.counts ?? 2000);
    this.anchorTables = new Lru(options.anchorTables ?? 32);
    this.anchorFrom = options.anchorFrom ?? 1_000;
    this.anchorEvery = options.anchorEvery ?? 100;
  }

  /** The newest catalog version a read returned, if any. */
  get version(): number | undefined {
    return this.newest;
  }

  /** A read returned `version`: a newer one makes every older entry useless. */
  observe(version: number): void {
    if (this.newest !== undefined && version <= this.newest) return;
    this.newest = version;
    this.counts.clear();
    this.anchorTables.clear();
  }

  /** The count of `key` at the newest version seen, when known. */
  counted(key: string): VersionedCount | undefined {
    if (this.newest === undefined) return undefined;
    const count = this.counts.get(key);
    return count === undefined ? undefined : { count, version: this.newest };
  }

  /** The count of `key` as `compute` reads it (at the version it returns), kept for that version. */
  count(key: string, compute: () => Promise<VersionedCount>): Promise<VersionedCount> {
    return this.shared(`count|${key}`, async () => {
      const result = await compute();
      this.observe(result.version);
      if (result.version === this.newest) this.counts.set(key, result.count);
      return result;
    });
  }

  /** The anchors of `key` in `ordering` at `version`, computed by `compute` when missing. */
  anchors(version: number, key: string, ordering: string, compute: () => Promise<Anchors>): Promise<Anchors> {
    const id = `${ordering}|${key}`;
    if (version === this.newest) {
      const cached = this.anchorTables.get(id);
      if (cached) return Promise.resolve(cached);
    }
    return this.shared(`anchors|${version}|${id}`, async () => {
      const result = await compute();
      if (result.version !== undefined) {
        this.observe(result.version);
        if (result.version === this.newest) this.anchorTables.set(id, result);
      }
      return result;
    });
  }

  private shared<T>(id: string, compute: () => Promise<T>): Promise<T> {
    const pending = this.inflight.get(id) as Promise<T> | undefined;
    if (pending) return pending;
    const started = compute().finally(() => this.inflight.delete(id));
    this.inflight.set(id, started);
    return started;
  }
}
