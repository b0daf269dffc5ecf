/** Child-process entry point of the API benchmark: builds the catalog or explains the endpoints' SQL. */
import { serveChild } from '../lib/child.ts';
import { catalogPhase } from './catalog.phase.ts';
import { explainPhase } from './explain.phase.ts';
import type { CatalogInfo, CatalogSpec, ExplainedStatement, ExplainSpec } from './types.ts';

export type PhaseSpec = ({ kind: 'catalog' } & CatalogSpec) | ({ kind: 'explain' } & ExplainSpec);

async function run(spec: PhaseSpec): Promise<CatalogInfo | ExplainedStatement[]> {
  switch (spec.kind) {
    case 'catalog':
      return catalogPhase(spec);
    case 'explain':
      return explainPhase(spec);
  }
}

await serveChild(run);
