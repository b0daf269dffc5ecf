/** Writes the synthetic catalog file; timed so the report can say what the setup cost. */
import { peakRssMiB } from '../lib/child.ts';
import { writeSyntheticCatalog } from './corpus.ts';
import type { GenerateResult } from './types.ts';

export async function generatePhase(spec: {
  source: string;
  out: string;
  records: number;
}): Promise<GenerateResult> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const bytes = await writeSyntheticCatalog(spec.source, spec.out, spec.records);
  const used = process.cpuUsage(cpu);
  return {
    records: spec.records,
    bytes,
    ms: performance.now() - started,
    cpuMs: (used.user + used.system) / 1000,
    peakRssMiB: peakRssMiB(),
  };
}
