/** Runs one import-benchmark phase in a child process of its own (bench/import/phase.ts). */
import path from 'node:path';
import { runChild } from '../lib/child.ts';
import { benchDir } from '../lib/paths.ts';
import type { PhaseResults, PhaseSpec } from './types.ts';

const phaseScript = path.join(benchDir, 'import', 'phase.ts');

export function runPhase<S extends PhaseSpec>(spec: S): Promise<PhaseResults[S['kind']]> {
  return runChild(phaseScript, spec);
}
