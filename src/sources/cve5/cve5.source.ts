/** CVE 5 inputs: one record per `.json` file (cvelistV5 layout or loose), or JSON Lines. */
import { createHash } from 'node:crypto';
import { byteLines, readAllBytes } from '../input.ts';
import { isSpace } from '../json-array.ts';
import { errorReason, unreadableRest, type ImportItem, type RawItem, type Source } from '../source.ts';
import { cve5Item } from './cve5.parse.ts';

/**
 * Part of every record's fingerprint. Bump it whenever what a record becomes changes (cve5.parse.ts,
 * or the domain code it calls: CPE and vendor names, CWE ids, timestamps): stored fingerprints then no
 * longer match, and the next import parses every record again instead of skipping it unchanged.
 */
export const CVE5_PARSER_VERSION = 'cve5/4';

const META_KEY = '"cveMetadata"';
const ID_KEY = '"cveId"';
const ID_VALUE = /^\s*:\s*"(CVE-\d{4}-\d{4,})"/;

/**
 * The CVE id of a raw record, read without parsing it: the first `"cveId"` after `"cveMetadata"`.
 * Only a lookup key: a record is skipped only when the identical bytes were parsed before to this id.
 */
function cveIdOf(bytes: Buffer): string | undefined {
  const meta = bytes.indexOf(META_KEY);
  if (meta < 0) return undefined;
  const key = bytes.indexOf(ID_KEY, meta + META_KEY.length);
  if (key < 0) return undefined;
  const start = key + ID_KEY.length;
  return ID_VALUE.exec(bytes.toString('latin1', start, Math.min(bytes.length, start + 64)))?.[1];
}

function rawItem(bytes: Buffer, position: string, parse: () => ImportItem): RawItem | undefined {
  const cveId = cveIdOf(bytes);
  if (!cveId) return undefined;
  const fingerprint = createHash('sha1').update(CVE5_PARSER_VERSION).update(bytes).digest('base64');
  return { kind: 'raw', cveId, position, fingerprint, parse };
}

/** The index of the first byte of `bytes` that is not JSON whitespace (bytes.length if none). */
function firstNonSpace(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length && isSpace(bytes[i]!)) i++;
  return i;
}

function parseText(text: string, position: string): ImportItem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { kind: 'skip', position, reason: errorReason(err) };
  }
  return cve5Item(value, position);
}

async function* scan(file: Parameters<Source['parse']>[0]): AsyncGenerator<ImportItem | RawItem> {
  const stream = await file.open();
  if (/\.jsonl$/i.test(file.logicalName)) {
    let last = 0;
    try {
      for await (const { bytes, number } of byteLines(stream)) {
        last = number;
        const position = `${file.name}:${number}`;
        const raw = rawItem(bytes, position, () => parseText(bytes.toString('utf8'), position));
        if (raw) {
          yield raw;
          continue;
        }
        const line = bytes.toString('utf8');
        if (!line.trim()) continue;
        yield parseText(line, position);
      }
    } catch (err) {
      // A truncated or corrupt archive: keep what was read, report the rest.
      yield unreadableRest(`${file.name}:${last + 1}`, err);
    }
    return;
  }
  let bytes: Buffer;
  try {
    bytes = await readAllBytes(stream);
  } catch (err) {
    yield { kind: 'skip', position: file.name, reason: errorReason(err) };
    return;
  }
  const text = () => bytes.toString('utf8');
  // A bulk file may also hold an array of records (told by its first byte that is not whitespace).
  if (bytes[firstNonSpace(bytes)] !== 0x5b) {
    const raw = rawItem(bytes, file.name, () => parseText(text(), file.name));
    if (raw) {
      yield raw;
      return;
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text());
  } catch (err) {
    yield { kind: 'skip', position: file.name, reason: errorReason(err) };
    return;
  }
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) yield cve5Item(v, `${file.name}[${i}]`);
  } else {
    yield cve5Item(value, file.name);
  }
}

export const cve5Source: Source = {
  name: 'cve5',
  accept: (name) => /^CVE-\d{4}-\d+\.json$/i.test(name) || /\.jsonl$/i.test(name),
  scan,
  async *parse(file): AsyncGenerator<ImportItem> {
    for await (const item of scan(file)) yield item.kind === 'raw' ? item.parse() : item;
  },
};
