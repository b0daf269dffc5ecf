/**
 * Exact list counts, cached per catalog version. Counting a broad filter over a 300k-row catalog costs
 * 100+ ms of database time per request; the catalog changes only when an import batch commits (which
 * bumps the version), so a count computed at one version is exact for every request at that version.
 * One small primary-key read per request tells the version. Per process, bounded (least recently used).
 */
export class CountCache {
  private readonly entries = new Map<string, number>();

  constructor(
    private readonly version: () => Promise<number>,
    private readonly capacity = 2000,
  ) {}

  /** The count for `key` at the current catalog version, computed by `compute` when not cached. */
  async count(key: string, compute: () => Promise<number>): Promise<number> {
    const fullKey = `${await this.version()}|${key}`;
    const cached = this.entries.get(fullKey);
    if (cached !== undefined) {
      // Refresh its place in the eviction order.
      this.entries.delete(fullKey);
      this.entries.set(fullKey, cached);
      return cached;
    }
    const n = await compute();
    this.entries.set(fullKey, n);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return n;
  }
}
