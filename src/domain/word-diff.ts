/**
 * A word-level diff of two texts (a CVE description before and after a change): the longest common
 * subsequence of their words, so a reader sees which words left and which came. Pure.
 */

export interface DiffPart {
  op: 'same' | 'added' | 'removed';
  text: string;
}

/** Beyond this many word pairs the LCS table is not built: the whole text is shown as replaced. */
export const WORD_DIFF_MAX_CELLS = 4_000_000;

/**
 * Each word with the whitespace after it is a token (leading whitespace a token of its own), so a
 * change of several words is one run, and joining the tokens gives the text back.
 */
function tokens(text: string): string[] {
  return text.match(/^\s+|\S+\s*/g) ?? [];
}

function push(parts: DiffPart[], op: DiffPart['op'], text: string): void {
  const last = parts.at(-1);
  if (last && last.op === op) last.text += text;
  else parts.push({ op, text });
}

/**
 * The parts of `after` and `before` in reading order: `same` text, `removed` text (only in `before`),
 * `added` text (only in `after`); removed parts come before the added parts that replace them. The
 * `same` and `removed` parts joined give `before`; `same` and `added` give `after`.
 */
export function wordDiff(before: string, after: string): DiffPart[] {
  const a = tokens(before);
  const b = tokens(after);
  // Common head and tail first: a typical edit touches a few words of a long text.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const parts: DiffPart[] = [];
  if (head) push(parts, 'same', a.slice(0, head).join(''));
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  if ((x.length + 1) * (y.length + 1) > WORD_DIFF_MAX_CELLS) {
    if (x.length) push(parts, 'removed', x.join(''));
    if (y.length) push(parts, 'added', y.join(''));
  } else {
    middle(parts, x, y);
  }
  if (tail) push(parts, 'same', a.slice(a.length - tail).join(''));
  return parts;
}

function middle(parts: DiffPart[], x: string[], y: string[]): void {
  const n = x.length;
  const m = y.length;
  const width = m + 1;
  // lcs[i][j]: the length of the LCS of x[i..] and y[j..].
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] =
        x[i] === y[j]
          ? lcs[(i + 1) * width + j + 1]! + 1
          : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  let removed = '';
  let added = '';
  const flush = () => {
    if (removed) push(parts, 'removed', removed);
    if (added) push(parts, 'added', added);
    removed = '';
    added = '';
  };
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      flush();
      push(parts, 'same', x[i]!);
      i++;
      j++;
    } else if (lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!) {
      removed += x[i++]!;
    } else {
      added += y[j++]!;
    }
  }
  while (i < n) removed += x[i++]!;
  while (j < m) added += y[j++]!;
  flush();
}
