/**
 * The parse floor: what reading the corpus costs before any database work, measured with the
 * importer's own input stack (inputFiles → gunzip → lines) so the comparison is like for like.
 */
import { cve5Item } from '../../src/sources/cve5/cve5.parse.ts';
import { cve5Source } from '../../src/sources/cve5/cve5.source.ts';
import { inputFiles, lines } from '../../src/sources/input.ts';
import { peakRssMiB } from '../lib/child.ts';
import type { ParseResult } from './types.ts';

/** Decompress + split + JSON.parse, and with `normalize` also parseCve5Record (via cve5Item). */
export async function parsePhase(spec: { file: string; normalize: boolean }): Promise<ParseResult> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  let records = 0;
  let skipped = 0;
  let statements = 0;
  for await (const file of inputFiles(spec.file, { accept: cve5Source.accept })) {
    for await (const { line, number } of lines(await file.open())) {
      if (!line.trim()) continue;
      records++;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        skipped++;
        continue;
      }
      if (!spec.normalize) continue;
      const item = cve5Item(value, `${file.name}:${number}`);
      // Counting the output keeps the normalization observable, so nothing can be optimized away.
      if (item.kind === 'cve') statements += item.records.length;
      else skipped++;
    }
  }
  const used = process.cpuUsage(cpu);
  return {
    records,
    skipped,
    statements,
    ms: performance.now() - started,
    cpuMs: (used.user + used.system) / 1000,
    peakRssMiB: peakRssMiB(),
  };
}
