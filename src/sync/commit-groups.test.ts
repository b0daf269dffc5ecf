import { describe, expect, it } from 'vitest';
import { commitGroups } from './cve5-git.sync.ts';

const c = (commit: string, index: number, ...files: string[]) => ({ commit, index, files });
const names = (groups: Iterable<{ commit: string }[]>) => [...groups].map((g) => g.map((x) => x.commit));

describe('commitGroups', () => {
  it('keeps consecutive commits together until one touches a file of the group again', () => {
    const commits = [
      c('a', 0, 'x.json', 'y.json'),
      c('b', 1, 'z.json'),
      c('c', 2, 'y.json'),
      c('d', 3),
      c('e', 4, 'x.json'),
    ];
    // c touches y again: a new group; e touches x, which the second group does not hold.
    expect(names(commitGroups(commits))).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]);
  });

  it('never lets a group hold two versions of a file, and caps its size', () => {
    const commits = Array.from({ length: 6 }, (_, i) => c(String(i), i, `f${i % 3}.json`));
    const groups = [...commitGroups(commits)];
    for (const g of groups) {
      const files = g.flatMap((x) => x.files);
      expect(new Set(files).size).toBe(files.length);
    }
    expect(names(groups)).toEqual([
      ['0', '1', '2'],
      ['3', '4', '5'],
    ]);
    expect(names(commitGroups(commits.slice(0, 3), 2))).toEqual([['0', '1'], ['2']]);
  });
});
