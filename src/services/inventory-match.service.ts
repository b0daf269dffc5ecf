/**
 * Inventory matching (`POST /api/v2/match`, docs/catalog.md "Matching an inventory"): for each
 * component of a list (CPE names, `{vendor, product, version}` objects, package URLs), the CVEs that
 * affect its version and the rules that say so. At most three reads per call, whatever the list's
 * length: the candidate CVE ids of every component's vendor keys (`cve_vendor`; an object's names
 * also as the alias table maps a CNA's), those of every package name and object name as a CNA writes
 * it (the CNA names index), then the matching data of the candidates by primary key; what the
 * process kept from earlier calls (InventoryMatchCache) is not read again, only checked when the
 * catalog version moved. A component that cannot be read gets its own reason; the others are matched.
 */
import type { Kysely } from 'kysely';
import { CveRepository } from '../db/cve.repository.ts';
import { InventoryMatchRepository } from '../db/inventory-match.repository.ts';
import type { DB } from '../db/schema.ts';
import { validationError } from '../domain/errors.ts';
import {
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
import type { TextMapper } from '../domain/vendor-provenance.ts';
import { InventoryMatchCache } from './inventory-match-cache.ts';
import type { CnaKeyMapper } from './vendor-alias.service.ts';

/** The steps of a call, in order (see `match`). */
export type MatchStep = 'components' | 'candidates' | 'matching data' | 'matching';

export class InventoryMatchService {
  private readonly repository: InventoryMatchRepository;
  private readonly cves: CveRepository;
  private readonly cache: InventoryMatchCache;

  /**
   * `aliases`: the current alias table (VendorAliasService.mapper), for components written as text;
   * `cacheCves`: how many candidates' matching data to keep between calls (0: none).
   */
  constructor(
    db: Kysely<DB>,
    private readonly aliases: () => Promise<CnaKeyMapper>,
    cacheCves: number,
  ) {
    this.repository = new InventoryMatchRepository(db);
    this.cves = new CveRepository(db);
    this.cache = new InventoryMatchCache(cacheCves);
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
    // The alias table maps an object's text to keys, and a CNA entry's text for every component
    // (Log4Shell's "Apache Software Foundation" / "Apache Log4j2" is the log4j-core purl's apache:log4j).
    const mapper = parsed.some((p) => p.ok) ? await this.aliases() : undefined;
    if (mapper && parsed.some((p) => p.ok && p.component.written))
      parsed = parsed.map((p) =>
        p.ok ? { ok: true, component: withMappedNames(p.component, mapper.map) } : p,
      );
    const keys = new Set<string>();
    const lookupNames = new Set<string>();
    for (const p of parsed) {
      if (!p.ok) continue;
      componentKeys(p.component).forEach((k) => keys.add(k));
      p.component.packageNames.forEach((n) => lookupNames.add(n));
    }
    step('components');
    const version = await this.cves.catalogVersion();
    this.cache.begin(version);
    const [byKey, byName] = await Promise.all([
      this.candidateIds('key', keys, version, (k) => this.repository.cveIdsByKey(k)),
      this.candidateIds('name', lookupNames, version, (n) => this.repository.cveIdsByCnaName(n)),
    ]);
    const ids = new Set<string>();
    for (const list of [...byKey.values(), ...byName.values()]) list.forEach((id) => ids.add(id));
    step('candidates', `${ids.size} CVEs`);
    const cves = await this.matchable(ids, version);
    step('matching data');
    const mapText = mapper?.map;
    const answers = parsed.map((p, index) =>
      answer(p, index, inventory[index], byKey, byName, cves, mapText),
    );
    step('matching');
    return answers;
  }

  /** The CVE ids of each key (or CNA name): those kept for this catalog version, the others read. */
  private async candidateIds(
    kind: 'key' | 'name',
    wanted: Iterable<string>,
    version: number,
    read: (missing: string[]) => Promise<Map<string, string[]>>,
  ): Promise<Map<string, string[]>> {
    const { known, missing } = this.cache.ids(kind, wanted, version);
    if (!missing.length) return known;
    const fetched = await read(missing);
    this.cache.storeIds(kind, fetched, missing, version);
    for (const [k, ids] of fetched) known.set(k, ids);
    return known;
  }

  /**
   * The candidates' matching data: kept entries current at this version as they are, kept entries
   * from an older version after one look at their tokens, the rest (and the changed) read.
   */
  private async matchable(ids: Iterable<string>, version: number): Promise<Map<string, MatchableCve>> {
    const { fresh, stale, unknown } = this.cache.lookup(ids, version);
    if (stale.size) {
      const current = await this.repository.tokens([...stale.keys()]);
      for (const [id, token] of stale) {
        const now = current.get(id);
        if (now === undefined) this.cache.forget(id);
        else if (now !== token) unknown.push(id);
        else {
          const cve = this.cache.confirm(id, version);
          if (cve) fresh.set(id, cve);
          else unknown.push(id); // dropped meanwhile by another call's reads
        }
      }
    }
    for (const { cve, token } of await this.repository.matchable(unknown)) {
      fresh.set(cve.cveId, cve);
      this.cache.store(cve, token, version);
    }
    return fresh;
  }
}

function answer(
  parsed: ParsedComponent,
  index: number,
  input: unknown,
  byKey: ReadonlyMap<string, string[]>,
  byName: ReadonlyMap<string, string[]>,
  cves: ReadonlyMap<string, MatchableCve>,
  mapText: TextMapper | undefined,
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
  for (const name of component.packageNames) add(byName.get(name));
  return {
    index,
    input,
    ok: true,
    component,
    cves: matchComponent(component, [...candidates.values()], mapText),
  };
}
