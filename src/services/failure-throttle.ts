/**
 * Counts failures per key (a client address) in fixed windows and says when a key has spent its
 * budget. API v1's Basic authentication asks before doing anything, so an address that keeps
 * guessing passwords is refused without a password hash: guessing is slow, and refusing is cheap.
 *
 * In memory, per process: N `serve` processes allow N times the budget. A success does not reset
 * the count (one known password must not buy unlimited guesses at others).
 */
export class FailureThrottle {
  private readonly windows = new Map<string, { failures: number; endsAt: number }>();

  /** `max` failures per `windowMs` per key; 0 turns the throttle off. */
  constructor(
    private readonly max: number,
    private readonly windowMs = 60_000,
    private readonly capacity = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whole seconds until `key` may try again; undefined when it may now. */
  retryAfter(key: string): number | undefined {
    const window = this.windows.get(key);
    if (!window) return undefined;
    const now = this.now();
    if (window.endsAt <= now) {
      this.windows.delete(key);
      return undefined;
    }
    return this.max > 0 && window.failures >= this.max
      ? Math.max(1, Math.ceil((window.endsAt - now) / 1000))
      : undefined;
  }

  /** Records one failure of `key`. */
  fail(key: string): void {
    if (this.max <= 0) return;
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      this.windows.delete(key);
      window = { failures: 0, endsAt: now + this.windowMs };
      this.windows.set(key, window);
      // Bounded memory whatever the number of addresses: the oldest window goes first.
      if (this.windows.size > this.capacity) this.windows.delete(this.windows.keys().next().value!);
    }
    window.failures++;
  }
}
