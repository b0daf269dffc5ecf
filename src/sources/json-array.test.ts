import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { jsonArrayElements, type ArrayElement } from './json-array.ts';

const fixtures = path.join(import.meta.dirname, '../../test/fixtures');

/** The bytes of `text` delivered in chunks of `size` bytes (cutting strings, escapes and characters). */
function chunked(text: string | Buffer, size: number): Readable {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return Readable.from(chunks);
}

async function elements(text: string | Buffer, key: string, size = 65536): Promise<ArrayElement[]> {
  const out: ArrayElement[] = [];
  for await (const element of jsonArrayElements(chunked(text, size), key)) out.push(element);
  return out;
}

const values = (list: ArrayElement[]) => list.map((e) => ('value' in e ? e.value : e));

describe('jsonArrayElements', () => {
  it("yields the real NVD 1.1 feed's CVE_Items as JSON.parse reads them, whatever the chunk size", async () => {
    const feed = zlib.gunzipSync(fs.readFileSync(path.join(fixtures, 'nvd/feed-1.1-heartbleed.json.gz')));
    const expected = (JSON.parse(feed.toString('utf8')) as { CVE_Items: unknown[] }).CVE_Items;
    expect(expected.length).toBe(3);
    for (const size of [1, 2, 3, 7, 64, 4096, feed.length]) {
      expect(values(await elements(feed, 'CVE_Items', size)), `chunks of ${size}`).toEqual(expected);
    }
  });

  it('follows strings: brackets, commas, quotes and backslash runs inside them, multi-byte characters', async () => {
    const items = [
      { s: 'a ] b } c , d [ e {' },
      { s: 'quote " inside', t: '\\', u: '\\"', v: '\\\\', w: 'ends with backslash \\' },
      { s: 'ünïcødé — 漢字 🛡️', esc: '\u0000\n\t' },
      ['nested', ['arrays', { '"k]': '[v' }]],
      'a string element with , and ]',
      42,
      null,
      true,
    ];
    const doc = JSON.stringify({ before: '"vulnerabilities": [0]', vulnerabilities: items, after: [1] });
    for (const size of [1, 2, 5, 13, doc.length]) {
      expect(values(await elements(doc, 'vulnerabilities', size)), `chunks of ${size}`).toEqual(items);
    }
  });

  it('takes only the top-level key: the same name deeper, or as a value, is not the array', async () => {
    const doc = JSON.stringify({
      format: 'vulnerabilities',
      meta: { vulnerabilities: ['nested'] },
      list: [{ vulnerabilities: ['in an array'] }],
      vulnerabilities: ['top'],
    });
    expect(values(await elements(doc, 'vulnerabilities'))).toEqual(['top']);
  });

  it('reads pretty-printed documents and empty arrays; yields nothing when the key is absent', async () => {
    const pretty = JSON.stringify({ CVE_Items: [{ a: 1 }, { b: [2, 3] }] }, null, 2);
    expect(values(await elements(pretty, 'CVE_Items', 3))).toEqual([{ a: 1 }, { b: [2, 3] }]);
    expect(await elements('{"vulnerabilities": [ ]}', 'vulnerabilities')).toEqual([]);
    expect(await elements('{"other": [1, 2]}', 'vulnerabilities')).toEqual([]);
    expect(await elements('[{"vulnerabilities": [1]}]', 'vulnerabilities')).toEqual([]);
  });

  it('reports an element that is not JSON by its index, and reads the next ones', async () => {
    const doc = '{"vulnerabilities": [{"a": 1}, {"b": }, {"c": 3}, tru]}';
    const out = await elements(doc, 'vulnerabilities');
    expect(out).toEqual([
      { index: 0, value: { a: 1 } },
      { index: 1, error: expect.stringMatching(/^not valid JSON/) },
      { index: 2, value: { c: 3 } },
      { index: 3, error: expect.stringMatching(/^not valid JSON/) },
    ]);
  });

  it('throws after the complete elements when the document is cut inside the array', async () => {
    const doc = JSON.stringify({ vulnerabilities: [{ a: 1 }, { b: 'two' }, { c: 3 }] });
    const cut = doc.slice(0, doc.indexOf('"c"'));
    const seen: ArrayElement[] = [];
    const read = async () => {
      for await (const element of jsonArrayElements(chunked(cut, 4), 'vulnerabilities')) seen.push(element);
    };
    await expect(read()).rejects.toThrow('the file ends inside the "vulnerabilities" array');
    expect(values(seen)).toEqual([{ a: 1 }, { b: 'two' }]);
  });

  it('throws when the document is cut before its array, or inside a string', async () => {
    await expect(elements('{"format": "NVD_CVE", "vulnera', 'vulnerabilities')).rejects.toThrow(
      'the file ends before its JSON document does',
    );
    await expect(elements('{"vulnerabilities": [{"a": "cut', 'vulnerabilities')).rejects.toThrow(
      'ends inside the "vulnerabilities" array',
    );
  });

  it('passes on an error of the stream itself (a truncated gzip)', async () => {
    const gz = zlib.gzipSync(
      JSON.stringify({ vulnerabilities: Array.from({ length: 500 }, (_, i) => ({ i })) }),
    );
    const stream = Readable.from([gz.subarray(0, gz.length >> 1)]).pipe(zlib.createGunzip());
    const read = async () => {
      for await (const _ of jsonArrayElements(stream, 'vulnerabilities'));
    };
    await expect(read()).rejects.toThrow(/unexpected end of file/i);
  });
});
