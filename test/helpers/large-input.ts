/**
 * A cve5 input large enough to interrupt: the bundled sample's real records written `copies` times
 * into one .jsonl.gz, copy k's ids rewritten from `CVE-2024-1234` to `CVE-900k-20241234` (distinct,
 * still valid ids). Returns the number of records.
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { projectRoot } from './cli.ts';

const SAMPLE = path.join(projectRoot, 'data', 'sample', 'cve5-sample.jsonl.gz');

export async function writeLargeCve5Input(file: string, copies: number): Promise<number> {
  const sample: string[] = [];
  const lines = readline.createInterface({ input: fs.createReadStream(SAMPLE).pipe(zlib.createGunzip()) });
  for await (const line of lines) if (line.trim()) sample.push(line);
  async function* records() {
    for (let copy = 1; copy <= copies; copy++) {
      for (const line of sample) {
        const record = JSON.parse(line) as { cveMetadata: { cveId: string } };
        const [, year, number] = /^CVE-(\d{4})-(\d+)$/.exec(record.cveMetadata.cveId)!;
        record.cveMetadata.cveId = `CVE-${9000 + copy}-${year}${number}`;
        yield `${JSON.stringify(record)}\n`;
      }
    }
  }
  await pipeline(records, zlib.createGzip({ level: 1 }), fs.createWriteStream(file));
  return sample.length * copies;
}
