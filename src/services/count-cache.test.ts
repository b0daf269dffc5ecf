import { describe, expect, it } from 'vitest';
import { CountCache } from './count-cache.ts';

describe('CountCache', () => {
  describe('count', () => {
    it('computes once per key and version, and again when the version moves', async () => {
      let version = 1;
      let computed = 0;
      const cache = new CountCache(async () => version);
      const compute = async () => ++computed * 10;
      expect(await cache.count('a', compute)).toBe(10);
      expect(await cache.count('a', compute)).toBe(10);
      expect(computed).toBe(1);
      version = 2;
      expect(await cache.count('a', compute)).toBe(20);
      expect(await cache.count('b', compute)).toBe(30);
      expect(computed).toBe(3);
    });

    it('forgets the least recently used key beyond its capacity', async () => {
      let computed = 0;
      const cache = new CountCache(async () => 1, 2);
      const compute = async () => ++computed;
      await cache.count('a', compute);
      await cache.count('b', compute);
      await cache.count('a', compute); // a is now the most recent
      await cache.count('c', compute); // evicts b
      expect(computed).toBe(3);
      await cache.count('a', compute);
      expect(computed).toBe(3);
      await cache.count('b', compute);
      expect(computed).toBe(4);
    });
  });
});
