import { describe, expect, it } from 'vitest';
import { EntryCache } from './entry-cache.ts';

describe('EntryCache', () => {
  const bodies = new Map(
    Array.from({ length: 10 }, (_, i) => [String(i), `{"n":${i},"pad":"${'x'.repeat(90)}"}`]),
  );

  function cache(budget: number) {
    const loads: string[][] = [];
    const c = new EntryCache(async (ids) => {
      loads.push([...ids]);
      return new Map(ids.map((id) => [id, bodies.get(id)!]));
    }, budget);
    return { c, loads };
  }

  it('loads each entry once, then answers from memory, in the order asked, repeats included', async () => {
    const { c, loads } = cache(10_000);
    const first = await c.get(['3', '1', '3']);
    expect(first.map((b) => b.toString('utf8'))).toEqual([bodies.get('3'), bodies.get('1'), bodies.get('3')]);
    expect(loads).toEqual([['3', '1']]);
    await c.get(['1', '3']);
    expect(loads).toHaveLength(1);
  });

  it('keeps to its byte budget, dropping the least recently used first, and still answers every call', async () => {
    const { c, loads } = cache(250); // room for two ~100-byte entries
    await c.get(['0', '1']);
    await c.get(['0']); // 0 is now more recent than 1
    await c.get(['2']); // evicts 1
    loads.length = 0;
    await c.get(['0', '2']);
    expect(loads).toEqual([]);
    const again = await c.get(['1', '3', '4']); // more than fits at once: still all answered
    expect(again.map((b) => b.toString('utf8'))).toEqual(['1', '3', '4'].map((i) => bodies.get(i)));
    expect(loads).toEqual([['1', '3', '4']]);
  });

  it('says which entry is missing instead of sending a payload without it', async () => {
    const c = new EntryCache(async () => new Map());
    await expect(c.get(['42'])).rejects.toThrow(/entry 42 is missing/);
  });
});
