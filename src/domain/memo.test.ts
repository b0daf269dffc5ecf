import { describe, expect, it } from 'vitest';
import { memoized } from './memo.ts';

describe('memoized', () => {
  it('computes each argument once, undefined answers included, and starts over when full', () => {
    const calls: string[] = [];
    const upper = memoized(2, (s: string) => {
      calls.push(s);
      return s === 'none' ? undefined : s.toUpperCase();
    });
    expect([upper('a'), upper('none'), upper('a'), upper('none')]).toEqual(['A', undefined, 'A', undefined]);
    expect(calls).toEqual(['a', 'none']);
    // Full at two: a third argument empties it, so 'a' is computed again.
    expect([upper('b'), upper('a')]).toEqual(['B', 'A']);
    expect(calls).toEqual(['a', 'none', 'b', 'a']);
  });
});
