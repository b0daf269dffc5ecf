/**
 * The benchmark's inputs: the real CVE 5 corpus, a prefix of it (quick mode) and a synthetic
 * catalog of any size made by replaying the corpus under new CVE ids.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { lines } from '../../src/sources/input.ts';
import { projectRoot } from '../lib/paths.ts';

/** 44,130 CVE JSON 5 records from CISA vulnrichment, one per line (16 MB gzipped). */
export function corpusFile(): string {
  const file = process.env.VULNTRACK_BENCH_DATA
    ? path.resolve(process.env.VULNTRACK_BENCH_DATA)
    : path.resolve(projectRoot, '../shared/data/cve5/vulnrichment-2024-10-24.jsonl.gz');
  if (!fs.existsSync(file)) throw new Error(`benchmark data not found: ${file} (set VULNTRACK_BENCH_DATA)`);
  return file;
}

/** Non-empty lines of a (gzipped) JSON Lines file. */
async function* recordLines(file: string): AsyncGenerator<string> {
  const stream = fs.createReadStream(file);
  for await (const { line } of lines(/\.gz$/i.test(file) ? stream.pipe(zlib.createGunzip()) : stream)) {
    if (line.trim()) yield line;
  }
}

/** Joins lines into ~1 MB chunks: one stream write per line would dominate the generation time. */
async function* chunked(source: AsyncIterable<string>): AsyncGenerator<string> {
  let chunk = '';
  for await (const line of source) {
    chunk += line + '\n';
    if (chunk.length >= 1 << 20) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

async function writeGzip(out: string, source: AsyncIterable<string>, level: number): Promise<number> {
  fs.mkdirSync(path.dirname(out), { recursive: true });
  await pipeline(chunked(source), zlib.createGzip({ level }), fs.createWriteStream(out));
  return fs.statSync(out).size;
}

/** Writes the first `limit` records of `source` to `out` (.jsonl.gz). */
export async function writePrefix(source: string, out: string, limit: number): Promise<number> {
  async function* head() {
    let n = 0;
    for await (const line of recordLines(source)) {
      if (n++ >= limit) return;
      yield line;
    }
  }
  return writeGzip(out, head(), 6);
}

/**
 * A syntactically valid id no real CVE has: the copy number picks a year beyond 9000 and the
 * record's position in the corpus the sequence number, so every (copy, position) is distinct.
 */
export const syntheticCveId = (copy: number, position: number) =>
  `CVE-${9000 + copy}-${String(position + 1).padStart(5, '0')}`;

/**
 * Writes `total` records to `out` (.jsonl.gz) by replaying `source` as often as needed, each record
 * under a synthetic id. Streams both ways, so memory stays flat whatever `total` is. Only
 * `cveMetadata.cveId` changes: the records keep their real content, sizes and vendors.
 */
export async function writeSyntheticCatalog(source: string, out: string, total: number): Promise<number> {
  async function* records() {
    let written = 0;
    for (let copy = 0; written < total; copy++) {
      let position = 0;
      for await (const line of recordLines(source)) {
        const record = JSON.parse(line) as { cveMetadata?: { cveId?: string } };
        if (!record.cveMetadata) throw new Error(`record ${position + 1} of ${source} has no cveMetadata`);
        record.cveMetadata.cveId = syntheticCveId(copy, position++);
        yield JSON.stringify(record);
        if (++written >= total) return;
      }
      if (position === 0) throw new Error(`${source} holds no records`);
    }
  }
  // Level 1: the file is read once by the import; a smaller file is not worth slower generation.
  return writeGzip(out, records(), 1);
}
