/**
 * Where a call's time goes: the service's own steps (InventoryMatchService.match tells when each
 * ends), then the presenter's JSON. The total is checked against the call measured through the app.
 */
import { matchAnswer } from '../../src/api/v2/match.presenter.ts';
import type { InventoryMatchService, MatchStep } from '../../src/services/inventory-match.service.ts';

const LABELS: Record<MatchStep, string> = {
  components: 'read the components (and map object names through the alias table)',
  candidates: 'candidate ids (cve_vendor keys, CNA names index)',
  'matching data': 'matching data of the candidates (cve, cve_source)',
  matching: 'matching (domain rules)',
};

export async function timePhases(service: InventoryMatchService, components: unknown[]) {
  const times: Record<string, number> = {};
  let candidates = 0;
  let t = performance.now();
  const answers = await service.match(components, (step, detail) => {
    const now = performance.now();
    times[detail ? `${LABELS[step]}: ${detail}` : LABELS[step]] = now - t;
    if (step === 'candidates') candidates = Number.parseInt(detail ?? '0', 10);
    t = now;
  });
  const json = JSON.stringify(matchAnswer(answers));
  times[`presenter and JSON (${(json.length / 2 ** 20).toFixed(1)} MiB)`] = performance.now() - t;
  return { times, candidates };
}
