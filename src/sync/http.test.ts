import { describe, expect, it } from 'vitest';
import { SlidingWindowRateLimiter } from './http.ts';

describe('SlidingWindowRateLimiter', () => {
  describe('acquire', () => {
    it('lets `limit` requests through, then waits a window from the moment their responses arrived', async () => {
      const limiter = new SlidingWindowRateLimiter(2, 200);
      const t0 = Date.now();
      const a = await limiter.acquire();
      const b = await limiter.acquire();
      expect(Date.now() - t0).toBeLessThan(50);
      // The first response takes 150 ms: its slot is held until then, and the window counts from there.
      await new Promise((r) => setTimeout(r, 150));
      a();
      b();
      const released = Date.now();
      await limiter.acquire();
      expect(Date.now() - released).toBeGreaterThanOrEqual(195);
    });

    it('never frees the slot of a request still in flight, however old', async () => {
      const limiter = new SlidingWindowRateLimiter(1, 50);
      const first = await limiter.acquire();
      let second = false;
      const waiting = limiter.acquire().then(() => (second = true));
      await new Promise((r) => setTimeout(r, 150));
      expect(second).toBe(false);
      first();
      await waiting;
      expect(second).toBe(true);
    });
  });
});
