/**
 * The batch of changed CVEs: the N published records of the corpus most recently updated upstream
 * (what a busy day touches: in the 2024-10-24 snapshot, mostly 2024 CVEs, many of them Linux kernel
 * ones), each edited the way upstream edits them every day: a sentence added to the description and
 * a new reference; one in twenty also gets CISA's KEV flag (an ADP `kev` metric). Importing the file
 * records exactly N changes.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { lines } from '../../src/sources/input.ts';

type Json = Record<string, unknown>;

export interface ChangeBatch {
  file: string;
  cves: string[];
  kev: number;
  /** dateUpdated of the oldest and newest record picked. */
  updatedFrom: string;
  updatedTo: string;
}

interface Candidate {
  id: string;
  updated: string;
  line: string;
}

function edit(record: Json, index: number): { record: Json; kev: boolean } {
  const meta = record.cveMetadata as Json;
  const containers = record.containers as { cna: Json; adp?: Json[] };
  const cna = containers.cna;
  const descriptions = (cna.descriptions as { lang: string; value: string }[] | undefined) ?? [];
  const en = descriptions.find((d) => /^en\b/i.test(d.lang)) ?? descriptions[0];
  if (en) en.value = `${en.value} An update to the affected versions was published on 2024-10-25.`;
  else cna.descriptions = [{ lang: 'en', value: 'Description published on 2024-10-25.' }];
  const references = (cna.references as Json[] | undefined) ?? [];
  references.push({ url: `https://example.org/advisories/2024-10-25/${String(meta.cveId)}` });
  cna.references = references;
  meta.dateUpdated = '2024-10-25T12:00:00.000Z';
  let kev = false;
  const cisa = containers.adp?.find(
    (a) => (a.providerMetadata as Json | undefined)?.shortName === 'CISA-ADP',
  );
  if (index % 20 === 0 && cisa) {
    const metrics = (cisa.metrics as Json[] | undefined) ?? [];
    if (!metrics.some((m) => (m.other as Json | undefined)?.type === 'kev')) {
      metrics.push({
        other: {
          type: 'kev',
          content: {
            dateAdded: '2024-10-25',
            reference: `https://www.cisa.gov/known-exploited-vulnerabilities-catalog?search=${String(meta.cveId)}`,
          },
        },
      });
      cisa.metrics = metrics;
      kev = true;
    }
  }
  return { record, kev };
}

/** Writes the edited versions of the `count` most recently updated published records to `out`. */
export async function writeChangeBatch(corpus: string, out: string, count: number): Promise<ChangeBatch> {
  const stream = fs.createReadStream(corpus);
  const input = /\.gz$/i.test(corpus) ? stream.pipe(zlib.createGunzip()) : stream;
  let newest: Candidate[] = [];
  for await (const { line } of lines(input)) {
    if (!line.trim()) continue;
    // Cheap prefilter on the raw line, the JSON only for the survivors.
    const updated = /"dateUpdated":"([^"]+)"/.exec(line)?.[1];
    if (!updated || !line.includes('"state":"PUBLISHED"')) continue;
    if (newest.length >= count && updated <= newest[newest.length - 1]!.updated) continue;
    const record = JSON.parse(line) as { cveMetadata: { cveId: string; dateUpdated: string } };
    newest.push({ id: record.cveMetadata.cveId, updated: record.cveMetadata.dateUpdated, line });
    if (newest.length > count * 2) {
      newest.sort((a, b) => (a.updated < b.updated ? 1 : -1));
      newest = newest.slice(0, count);
    }
  }
  newest.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0));
  newest = newest.slice(0, count);
  let kev = 0;
  const edited = newest.map((c, i) => {
    const e = edit(JSON.parse(c.line) as Json, i);
    if (e.kev) kev++;
    return JSON.stringify(e.record);
  });
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, zlib.gzipSync(edited.join('\n') + '\n', { level: 1 }));
  return {
    file: out,
    cves: newest.map((c) => c.id),
    kev,
    updatedFrom: newest.at(-1)?.updated ?? '',
    updatedTo: newest[0]?.updated ?? '',
  };
}
