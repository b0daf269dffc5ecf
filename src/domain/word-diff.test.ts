import { describe, expect, it } from 'vitest';
import { wordDiff, WORD_DIFF_MAX_CELLS, type DiffPart } from './word-diff.ts';

const side = (parts: DiffPart[], keep: 'removed' | 'added') =>
  parts
    .filter((p) => p.op === 'same' || p.op === keep)
    .map((p) => p.text)
    .join('');

describe('wordDiff', () => {
  it('marks the words a real description change added (CVE-2024-47823, vulnrichment history)', () => {
    const before =
      'Livewire is a full-stack framework for Laravel. In livewire/livewire `< v3.5.2`, the file extension of an uploaded file is guessed.';
    const after =
      'Livewire is a full-stack framework for Laravel. In livewire/livewire prior to `2.12.7` and `v3.5.2`, the file extension of an uploaded file is guessed.';
    const parts = wordDiff(before, after);
    expect(parts).toEqual([
      { op: 'same', text: 'Livewire is a full-stack framework for Laravel. In livewire/livewire ' },
      { op: 'removed', text: '`< v3.5.2`, ' },
      { op: 'added', text: 'prior to `2.12.7` and `v3.5.2`, ' },
      { op: 'same', text: 'the file extension of an uploaded file is guessed.' },
    ]);
    expect(side(parts, 'removed')).toBe(before);
    expect(side(parts, 'added')).toBe(after);
  });

  it('gives the texts back from its parts, whatever they are', () => {
    const cases: [string, string][] = [
      ['', ''],
      ['', 'new text'],
      ['old text', ''],
      ['a b c d', 'a x c y'],
      ['  leading space', 'leading  space  '],
      ['same', 'same'],
      ['one two three four five', 'zero one three five six'],
    ];
    for (const [a, b] of cases) {
      const parts = wordDiff(a, b);
      expect(side(parts, 'removed')).toBe(a);
      expect(side(parts, 'added')).toBe(b);
      // Neighbouring parts never share an operation.
      for (let i = 1; i < parts.length; i++) expect(parts[i]!.op).not.toBe(parts[i - 1]!.op);
    }
  });

  it('keeps the common words and shows a replaced word as removed then added', () => {
    expect(wordDiff('a b c', 'a x c')).toEqual([
      { op: 'same', text: 'a ' },
      { op: 'removed', text: 'b ' },
      { op: 'added', text: 'x ' },
      { op: 'same', text: 'c' },
    ]);
    expect(wordDiff('same words', 'same words')).toEqual([{ op: 'same', text: 'same words' }]);
    expect(wordDiff('', 'all new')).toEqual([{ op: 'added', text: 'all new' }]);
  });

  it('finds the longest common run, not the first match', () => {
    const parts = wordDiff('x a b c y', 'a b c x y');
    expect(parts.filter((p) => p.op === 'same').map((p) => p.text.trim())).toEqual(['a b c', 'y']);
  });

  it('shows two very long, entirely different texts as replaced without building a huge table', () => {
    const n = Math.ceil(Math.sqrt(WORD_DIFF_MAX_CELLS)) + 10;
    const a = Array.from({ length: n }, (_, i) => `a${i}`).join(' ');
    const b = Array.from({ length: n }, (_, i) => `b${i}`).join(' ');
    const parts = wordDiff(a, b);
    expect(parts.map((p) => p.op)).toEqual(['removed', 'added']);
  });
});
