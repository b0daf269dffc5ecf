/**
 * Inventory matching (`POST /api/v2/match`, docs/catalog.md "Matching an inventory"): for each
 * component of a list (CPE names, `{vendor, product, version}` objects, package URLs), the CVEs that
 * affect its version and the rules that say so. Three reads per call, whatever the list's length:
 * the candidate CVE ids of every component's vendor keys (`cve_vendor`), those of every package name
 * (the CNA `packageName` index), then the matching data of the candidates by primary key. A component
 * that cannot be read gets its own reason; the others are matched.
 */
import type { Kysely } from 'kysely';
import { InventoryMatchRepository } from '../db/inventory-match.repository.ts';
import type { DB } from '../db/schema.ts';
import { validationError } from '../domain/errors.ts';
import { componentKeys, parseComponent, type ParsedComponent } from '../domain/inventory-component.ts';
import {
  matchComponent,
  MAX_INVENTORY,
  type ComponentMatch,
  type MatchableCve,
} from '../domain/inventory-match.ts';

export class InventoryMatchService {
  private readonly repository: InventoryMatchRepository;

  constructor(db: Kysely<DB>) {
    this.repository = new InventoryMatchRepository(db);
  }

  /** One answer per component, in the order given. 400 `validation_error` for more than MAX_INVENTORY. */
  async match(inventory: readonly unknown[]): Promise<ComponentMatch[]> {
    if (inventory.length > MAX_INVENTORY)
      throw validationError({
        components: [`at most ${MAX_INVENTORY} components a call; this list has ${inventory.length}.`],
      });
    const parsed = inventory.map((value) => parseComponent(value));
    const keys = new Set<string>();
    const packageNames = new Set<string>();
    for (const p of parsed) {
      if (!p.ok) continue;
      componentKeys(p.component).forEach((k) => keys.add(k));
      p.component.packageNames.forEach((n) => packageNames.add(n));
    }
    const [byKey, byPackage] = await Promise.all([
      this.repository.cveIdsByKey([...keys]),
      this.repository.cveIdsByPackageName([...packageNames]),
    ]);
    const ids = new Set(byPackage);
    for (const list of byKey.values()) list.forEach((id) => ids.add(id));
    const cves = new Map((await this.repository.matchable([...ids])).map((c) => [c.cveId, c]));
    const byPackageName = packageIndex(byPackage, cves);
    return parsed.map((p, index) => answer(p, index, inventory[index], byKey, byPackageName, cves));
  }
}

/** Lower-cased CNA package name → the CVEs whose CNA names it. */
function packageIndex(
  ids: readonly string[],
  cves: ReadonlyMap<string, MatchableCve>,
): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const id of ids) {
    for (const entry of cves.get(id)?.affected ?? []) {
      const name = typeof entry.packageName === 'string' ? entry.packageName.toLowerCase() : undefined;
      if (!name) continue;
      const list = index.get(name);
      if (!list) index.set(name, [id]);
      else if (list[list.length - 1] !== id) list.push(id);
    }
  }
  return index;
}

function answer(
  parsed: ParsedComponent,
  index: number,
  input: unknown,
  byKey: ReadonlyMap<string, string[]>,
  byPackageName: ReadonlyMap<string, string[]>,
  cves: ReadonlyMap<string, MatchableCve>,
): ComponentMatch {
  if (!parsed.ok) return { index, input, ok: false, reason: parsed.reason };
  const { component } = parsed;
  const candidates = new Map<string, MatchableCve>();
  const add = (ids: readonly string[] | undefined) => {
    for (const id of ids ?? []) {
      const cve = cves.get(id);
      if (cve) candidates.set(id, cve);
    }
  };
  for (const key of componentKeys(component)) add(byKey.get(key));
  for (const name of component.packageNames) add(byPackageName.get(name));
  return { index, input, ok: true, component, cves: matchComponent(component, [...candidates.values()]) };
}
