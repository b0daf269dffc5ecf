/**
 * A sync round of changed CVEs for the inventory benchmark: the corpus records of the chosen ids
 * (or the `count` most recently updated published ones: what a busy day touches), each edited as
 * upstream edits them, a sentence added to its description and a new `dateUpdated`. `round` makes
 * each round's text its own, so importing it records one change per record every time, also on a
 * kept catalog.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import { lines } from '../../src/sources/input.ts';

type Json = Record<string, unknown>;

function edit(line: string, round: string): string {
  const record = JSON.parse(line) as Json;
  const meta = record.cveMetadata as Json;
  const cna = (record.containers as { cna: Json }).cna;
  const descriptions = (cna.descriptions as { lang: string; value: string }[] | undefined) ?? [];
  const en = descriptions.find((d) => /^en\b/i.test(d.lang)) ?? descriptions[0];
  const sentence = ` Advisory updated (benchmark round ${round}).`;
  if (en) en.value = en.value.replace(/ Advisory updated \(benchmark round [^)]*\)\.$/, '') + sentence;
  else cna.descriptions = [{ lang: 'en', value: sentence.trim() }];
  meta.dateUpdated = new Date().toISOString();
  return JSON.stringify(record);
}

async function* corpusLines(corpus: string): AsyncGenerator<string> {
  const stream = fs.createReadStream(corpus);
  const input = /\.gz$/i.test(corpus) ? stream.pipe(zlib.createGunzip()) : stream;
  for await (const { line } of lines(input)) if (line.trim()) yield line;
}

/** The ids of the `count` most recently updated published records of the corpus. */
export async function busiestIds(corpus: string, count: number): Promise<string[]> {
  const all: { id: string; updated: string }[] = [];
  for await (const line of corpusLines(corpus)) {
    if (!line.includes('"state":"PUBLISHED"')) continue;
    const updated = /"dateUpdated":"([^"]+)"/.exec(line)?.[1];
    const id = /"cveId":"([^"]+)"/.exec(line)?.[1];
    if (updated && id) all.push({ id, updated });
  }
  all.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.id.localeCompare(b.id)));
  return all.slice(0, count).map((r) => r.id);
}

/** Writes the edited records of `ids` to `out` (JSON lines); returns how many were found. */
export async function writeRound(
  corpus: string,
  ids: readonly string[],
  round: string,
  out: string,
): Promise<number> {
  const wanted = new Set(ids);
  const edited: string[] = [];
  for await (const line of corpusLines(corpus)) {
    const id = /"cveId":"([^"]+)"/.exec(line)?.[1];
    if (id && wanted.has(id)) edited.push(edit(line, round));
  }
  fs.writeFileSync(out, edited.join('\n') + '\n');
  return edited.length;
}
