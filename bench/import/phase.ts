/** Child-process entry point: runs the one phase described by its JSON argument (see runPhase). */
import { serveChild } from '../lib/child.ts';
import { explainPhase } from './explain.phase.ts';
import { generatePhase } from './generate.phase.ts';
import { importPhase } from './import.phase.ts';
import { parsePhase } from './parse.phase.ts';
import type { PhaseResult, PhaseSpec } from './types.ts';

async function run(spec: PhaseSpec): Promise<PhaseResult> {
  switch (spec.kind) {
    case 'parse':
      return parsePhase(spec);
    case 'import':
      return importPhase(spec);
    case 'generate':
      return generatePhase(spec);
    case 'explain':
      return explainPhase(spec);
  }
}

await serveChild(run);
