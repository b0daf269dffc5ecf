/**
 * Where a call's time goes: the service's steps (InventoryMatchService.match) run one by one with a
 * clock around each, and the presenter's JSON. Mirrors the service; the total is checked against it
 * by the call measured through the app.
 */
import type { Kysely } from 'kysely';
import { matchAnswer } from '../../src/api/v2/match.presenter.ts';
import { InventoryMatchRepository } from '../../src/db/inventory-match.repository.ts';
import type { DB } from '../../src/db/schema.ts';
import { componentKeys, parseComponent } from '../../src/domain/inventory-component.ts';
import { matchComponent, type ComponentMatch, type MatchableCve } from '../../src/domain/inventory-match.ts';

export async function timePhases(db: Kysely<DB>, components: unknown[]) {
  const repo = new InventoryMatchRepository(db);
  const times: Record<string, number> = {};
  let t = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    times[name] = now - t;
    t = now;
  };
  const parsed = components.map((c) => parseComponent(c));
  const keys = new Set<string>();
  const names = new Set<string>();
  for (const p of parsed) {
    if (!p.ok) continue;
    componentKeys(p.component).forEach((k) => keys.add(k));
    p.component.packageNames.forEach((n) => names.add(n));
  }
  lap('read the components');
  const [byKey, byPackage] = await Promise.all([
    repo.cveIdsByKey([...keys]),
    repo.cveIdsByPackageName([...names]),
  ]);
  const ids = new Set(byPackage);
  for (const list of byKey.values()) list.forEach((id) => ids.add(id));
  lap(`candidate ids (cve_vendor, package names): ${ids.size}`);
  const cves = new Map((await repo.matchable([...ids])).map((c) => [c.cveId, c]));
  lap('matching data of the candidates (cve, cve_source)');
  const byName = new Map<string, string[]>();
  for (const id of byPackage)
    for (const entry of cves.get(id)?.affected ?? []) {
      const name = entry.packageName?.toLowerCase();
      if (name) byName.set(name, [...(byName.get(name) ?? []), id]);
    }
  const answers: ComponentMatch[] = parsed.map((p, index) => {
    if (!p.ok) return { index, input: components[index], ok: false, reason: p.reason };
    const candidates = new Map<string, MatchableCve>();
    for (const key of componentKeys(p.component))
      for (const id of byKey.get(key) ?? []) {
        const cve = cves.get(id);
        if (cve) candidates.set(id, cve);
      }
    for (const name of p.component.packageNames)
      for (const id of byName.get(name) ?? []) {
        const cve = cves.get(id);
        if (cve) candidates.set(id, cve);
      }
    return {
      index,
      input: components[index],
      ok: true,
      component: p.component,
      cves: matchComponent(p.component, [...candidates.values()]),
    };
  });
  lap('matching (domain rules)');
  const json = JSON.stringify(matchAnswer(answers));
  lap(`presenter and JSON (${(json.length / 2 ** 20).toFixed(1)} MiB)`);
  return times;
}
