/**
 * Inventory matching (`POST /api/v2/match`, docs/catalog.md "Matching an inventory"): for each
 * component of a list (CPE names, `{vendor, product, version}` objects, package URLs), the CVEs that
 * affect its version and the rules that say so. Three reads per call, whatever the list's length:
 * the candidate CVE ids of every component's vendor keys (`cve_vendor`; an object's names also as the
 * alias table maps a CNA's), those of every package name and object name as a CNA writes it (the CNA
 * names index), then the matching data of the candidates by primary key. A component that cannot be
 * read gets its own reason; the others are matched.
 */
import type { Kysely } from 'kysely';
import { InventoryMatchRepository } from '../db/inventory-match.repository.ts';
import type { DB } from '../db/schema.ts';
import { validationError } from '../domain/errors.ts';
import {
  cnaLookupNames,
  componentKeys,
  parseComponent,
  withMappedNames,
  type ParsedComponent,
} from '../domain/inventory-component.ts';
import {
  matchComponent,
  MAX_INVENTORY,
  type ComponentMatch,
  type MatchableCve,
} from '../domain/inventory-match.ts';
import type { CnaKeyMapper } from './vendor-alias.service.ts';

/** The steps of a call, in order (see `match`). */
export type MatchStep = 'components' | 'candidates' | 'matching data' | 'matching';

export class InventoryMatchService {
  private readonly repository: InventoryMatchRepository;

  /** `aliases`: the current alias table (VendorAliasService.mapper), for components written as text. */
  constructor(
    db: Kysely<DB>,
    private readonly aliases: () => Promise<CnaKeyMapper>,
  ) {
    this.repository = new InventoryMatchRepository(db);
  }

  /**
   * One answer per component, in the order given. 400 `validation_error` for more than MAX_INVENTORY.
   * `step` is told when each step ends, with what it found (the match benchmark times them).
   */
  async match(
    inventory: readonly unknown[],
    step: (name: MatchStep, detail?: string) => void = () => {},
  ): Promise<ComponentMatch[]> {
    if (inventory.length > MAX_INVENTORY)
      throw validationError({
        components: [`at most ${MAX_INVENTORY} components a call; this list has ${inventory.length}.`],
      });
    let parsed = inventory.map((value) => parseComponent(value));
    if (parsed.some((p) => p.ok && p.component.written)) {
      const mapper = await this.aliases();
      parsed = parsed.map((p) =>
        p.ok ? { ok: true, component: withMappedNames(p.component, mapper.map) } : p,
      );
    }
    const keys = new Set<string>();
    const lookupNames = new Set<string>();
    for (const p of parsed) {
      if (!p.ok) continue;
      componentKeys(p.component).forEach((k) => keys.add(k));
      cnaLookupNames(p.component).forEach((n) => lookupNames.add(n));
    }
    step('components');
    const [byKey, byName] = await Promise.all([
      this.repository.cveIdsByKey([...keys]),
      this.repository.cveIdsByCnaName([...lookupNames]),
    ]);
    const ids = new Set<string>();
    for (const list of [...byKey.values(), ...byName.values()]) list.forEach((id) => ids.add(id));
    step('candidates', `${ids.size} CVEs`);
    const cves = new Map((await this.repository.matchable([...ids])).map((c) => [c.cveId, c]));
    step('matching data');
    const answers = parsed.map((p, index) => answer(p, index, inventory[index], byKey, byName, cves));
    step('matching');
    return answers;
  }
}

function answer(
  parsed: ParsedComponent,
  index: number,
  input: unknown,
  byKey: ReadonlyMap<string, string[]>,
  byName: ReadonlyMap<string, string[]>,
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
  for (const name of cnaLookupNames(component)) add(byName.get(name));
  return { index, input, ok: true, component, cves: matchComponent(component, [...candidates.values()]) };
}
