import { describe, expect, it } from 'vitest';
import { commitSpans } from './cve5-git.sync.ts';

const c = (commit: string, index: number, ...files: string[]) => ({ commit, index, files });
const names = (spans: Iterable<{ commit: string }[]>) => [...spans].map((s) => s.map((x) => x.commit));

describe('commitSpans', () => {
  it('keeps consecutive commits together, several versions of a file included, up to the file cap', () => {
    const commits = [
      c('a', 0, 'x.json', 'y.json'),
      c('b', 1, 'y.json'),
      c('c', 2),
      c('d', 3, 'x.json', 'z.json'),
      c('e', 4, 'x.json'),
    ];
    expect(names(commitSpans(commits, 5))).toEqual([['a', 'b', 'c', 'd'], ['e']]);
    expect(names(commitSpans(commits))).toEqual([['a', 'b', 'c', 'd', 'e']]);
  });

  it('never splits a commit: one larger than the cap is a span of its own', () => {
    const commits = [c('a', 0, 'x.json'), c('b', 1, 'p.json', 'q.json', 'r.json'), c('c', 2, 'y.json')];
    expect(names(commitSpans(commits, 2))).toEqual([['a'], ['b'], ['c']]);
  });

  it('yields nothing for no commits, and spans of commits without files', () => {
    expect(names(commitSpans([]))).toEqual([]);
    expect(names(commitSpans([c('a', 0), c('b', 1)], 1))).toEqual([['a', 'b']]);
  });
});
