import { describe, expect, it } from 'vitest';
import { ListCache } from './list-cache.ts';

describe('ListCache', () => {
  describe('count', () => {
    it('keeps a count for the newest version and drops it when a newer version is seen', async () => {
      const cache = new ListCache();
      let computed = 0;
      const at = (version: number) => async () => ({ count: ++computed * 10, version });
      expect(cache.counted('a')).toBeUndefined();
      expect(await cache.count('a', at(1))).toEqual({ count: 10, version: 1 });
      expect(cache.counted('a')).toEqual({ count: 10, version: 1 });
      cache.observe(1);
      expect(cache.counted('a')).toEqual({ count: 10, version: 1 });
      cache.observe(2);
      expect(cache.counted('a')).toBeUndefined();
      expect(await cache.count('a', at(2))).toEqual({ count: 20, version: 2 });
      // A count read at an older version than the newest seen is returned, not kept.
      expect(await cache.count('b', at(1))).toEqual({ count: 30, version: 1 });
      expect(cache.counted('b')).toBeUndefined();
      expect(cache.version).toBe(2);
    });

    it('shares one computation between concurrent callers', async () => {
      const cache = new ListCache();
      let computed = 0;
      let finish!: () => void;
      const gate = new Promise<void>((resolve) => (finish = resolve));
      const compute = async () => {
        computed++;
        await gate;
        return { count: 5, version: 1 };
      };
      const all = Promise.all([
        cache.count('a', compute),
        cache.count('a', compute),
        cache.count('a', compute),
      ]);
      finish();
      expect(await all).toEqual([1, 2, 3].map(() => ({ count: 5, version: 1 })));
      expect(computed).toBe(1);
    });

    it('forgets the least recently used list beyond its capacity', async () => {
      const cache = new ListCache({ counts: 2 });
      const at1 = async () => ({ count: 1, version: 1 });
      await cache.count('a', at1);
      await cache.count('b', at1);
      cache.counted('a'); // a is now the most recent
      await cache.count('c', at1); // evicts b
      expect(cache.counted('a')).toBeDefined();
      expect(cache.counted('b')).toBeUndefined();
      expect(cache.counted('c')).toBeDefined();
    });

    it('computes again after a failure', async () => {
      const cache = new ListCache();
      await expect(cache.count('a', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
      expect(await cache.count('a', async () => ({ count: 3, version: 1 }))).toEqual({
        count: 3,
        version: 1,
      });
    });
  });

  describe('anchors', () => {
    it('keeps anchors per list and ordering at the newest version', async () => {
      const cache = new ListCache();
      let computed = 0;
      const compute = (version: number) => async () => {
        computed++;
        return { version, keys: [['k']] };
      };
      await cache.anchors(1, 'a', '-updated_at', compute(1));
      await cache.anchors(1, 'a', '-updated_at', compute(1));
      expect(computed).toBe(1);
      await cache.anchors(1, 'a', 'cve_id', compute(1));
      expect(computed).toBe(2);
      // Asked at version 1, read at version 2: returned as read, and kept for version 2.
      expect(await cache.anchors(1, 'b', 'cve_id', compute(2))).toEqual({ version: 2, keys: [['k']] });
      expect(cache.version).toBe(2);
      await cache.anchors(2, 'b', 'cve_id', compute(2));
      expect(computed).toBe(3);
      await cache.anchors(2, 'a', '-updated_at', compute(2));
      expect(computed).toBe(4);
    });
  });
});
