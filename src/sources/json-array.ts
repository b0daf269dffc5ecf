/**
 * The elements of one array of a large JSON document, streamed: `{"…": …, "vulnerabilities": [ {…},
 * {…}, … ]}` yields each element of `vulnerabilities` as its own value, so an 80 MB NVD feed never
 * sits in memory whole.
 *
 * Each element's bytes are found by a scan that only follows strings and brackets, then parsed by
 * `JSON.parse`. A JSON tokenizer written in JavaScript (stream-json, @streamparser/json) builds every
 * value token by token: on a page of 2,000 NVD records (13 MB) stream-json took 0.50 s and
 * @streamparser/json 0.33 s, this scan and `JSON.parse` about 0.1 s (bench/RESULTS-sync.md).
 *
 * What this checks and what it does not: an element that is not valid JSON is reported on its own
 * (`error`) and the next one is read; a document cut inside the array throws (nothing after the cut
 * can be trusted). The rest of the document is only scanned for where the array is: a malformed
 * value under another key is not noticed. Strings and brackets are ASCII, and UTF-8 never uses ASCII
 * bytes inside a multi-byte character, so the scan runs on bytes and a chunk may end anywhere.
 */
import type { Readable } from 'node:stream';

export type ArrayElement = { index: number; value: unknown } | { index: number; error: string };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/** A JSON whitespace byte. */
export function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/**
 * Streams the elements of the array under the top-level key `key`. Yields nothing when the document
 * has no such key (or is not an object); throws when the input ends before the document does.
 */
export async function* jsonArrayElements(
  stream: Readable,
  key: string,
  /** Called when the array is found (also an empty one), to tell "no such key" from "an empty list". */
  onArray?: () => void,
): AsyncGenerator<ArrayElement> {
  /** Nesting of objects and arrays at the scan position (the document's object is depth 1). */
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** At depth 1: the bytes of the string being read, then the last string read (a key candidate). */
  let keyParts: Buffer[] | undefined;
  let lastString: Buffer | undefined;
  let pendingKey: Buffer | undefined;
  const wanted = Buffer.from(JSON.stringify(key));
  let phase: 'seek' | 'array' | 'done' = 'seek';
  /** In the array: the current element's bytes from earlier chunks, and where it starts in this one. */
  let elementParts: Buffer[] = [];
  let elementStart = -1;
  let index = 0;

  const element = (): ArrayElement => {
    const text = Buffer.concat(elementParts).toString('utf8');
    elementParts = [];
    elementStart = -1;
    const i = index++;
    try {
      return { index: i, value: JSON.parse(text) as unknown };
    } catch (err) {
      return { index: i, error: `not valid JSON (${(err as Error).message})` };
    }
  };

  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const out: ArrayElement[] = [];
    let keyStart = keyParts ? 0 : -1;
    if (phase === 'array' && elementParts.length) elementStart = 0;
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      if (inString) {
        // Jump to the next quote: it closes the string unless an odd run of backslashes precedes it
        // (a run may start in the previous chunk: `escaped` carries its parity).
        const q = chunk.indexOf(QUOTE, i);
        const end = q === -1 ? n : q;
        let k = end;
        while (k > i && chunk[k - 1] === BACKSLASH) k--;
        let run = end - k;
        if (k === i && escaped) run++;
        escaped = false;
        if (q === -1) {
          escaped = run % 2 === 1;
          i = n;
          break;
        }
        i = q + 1;
        if (run % 2 === 1) continue;
        inString = false;
        if (keyStart !== -1) {
          keyParts!.push(chunk.subarray(keyStart, i));
          lastString = Buffer.concat(keyParts!);
          keyParts = undefined;
          keyStart = -1;
        }
        continue;
      }
      const c = chunk[i]!;
      if (phase === 'array' && depth === 2) {
        // Between the array's elements, or in a scalar element.
        if (c === COMMA || c === CLOSE_BRACKET) {
          if (elementStart !== -1) {
            elementParts.push(chunk.subarray(elementStart, i));
            out.push(element());
          }
          if (c === CLOSE_BRACKET) {
            phase = 'done';
            break;
          }
          i++;
          continue;
        }
        if (elementStart === -1 && !isSpace(c)) elementStart = i;
      }
      if (c === QUOTE) {
        inString = true;
        if (depth === 1 && phase === 'seek') {
          keyParts = [];
          keyStart = i;
        }
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth++;
        if (phase === 'seek' && depth === 2 && c === OPEN_BRACKET && pendingKey?.equals(wanted)) {
          phase = 'array';
          onArray?.();
        }
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (depth <= 0) {
          phase = 'done';
          break;
        }
      } else if (c === COLON && depth === 1) {
        pendingKey = lastString;
      } else if (c === COMMA && depth === 1) {
        pendingKey = undefined;
      }
      i++;
    }
    if (keyStart !== -1) keyParts!.push(chunk.subarray(keyStart, i));
    if (phase === 'array' && elementStart !== -1) elementParts.push(chunk.subarray(elementStart, n));
    yield* out;
    if (phase === 'done') {
      stream.destroy();
      return;
    }
  }
  if (phase === 'array') throw new Error(`the file ends inside the ${JSON.stringify(key)} array`);
  if (depth > 0) throw new Error('the file ends before its JSON document does');
}
