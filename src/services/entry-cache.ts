/**
 * Payload entries by id, as UTF-8 JSON, kept in memory up to a byte budget (least recently used out
 * first). An entry never changes once written, and the deliveries of a busy day share a few hundred
 * of them: each attempt reads a few ids instead of its whole payload.
 */
export class EntryCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(
    private readonly load: (ids: string[]) => Promise<Map<string, string>>,
    private readonly budget = 64 * 1024 * 1024,
  ) {}

  async get(ids: readonly string[]): Promise<Buffer[]> {
    const missing = [...new Set(ids.filter((id) => !this.entries.has(id)))];
    const loaded = new Map<string, Buffer>();
    if (missing.length)
      for (const [id, body] of await this.load(missing)) {
        const buffer = Buffer.from(body, 'utf8');
        loaded.set(id, buffer);
        this.remember(id, buffer);
      }
    return ids.map((id) => {
      const hit = this.entries.get(id) ?? loaded.get(id);
      if (!hit) throw new Error(`delivery entry ${id} is missing`);
      // Most recently used last.
      if (this.entries.delete(id)) this.entries.set(id, hit);
      return hit;
    });
  }

  private remember(id: string, buffer: Buffer): void {
    if (buffer.length > this.budget) return;
    this.entries.set(id, buffer);
    this.bytes += buffer.length;
    for (const [old, b] of this.entries) {
      if (this.bytes <= this.budget) break;
      this.entries.delete(old);
      this.bytes -= b.length;
    }
  }
}
