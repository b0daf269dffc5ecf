/**
 * Whether NVD's CPE configurations of a CVE say one inventory component is vulnerable.
 *
 * A configuration is a tree of AND/OR nodes over CPE match criteria, often "application X (vulnerable)
 * running on platform Y (not vulnerable)". One component can only speak for its own product, so each
 * criterion is read in three values: `yes` (the component's product, its version in range), `no` (the
 * component's product, its version outside), `unknown` (another product: the inventory entry says
 * nothing about it). Nodes combine them as Kleene logic does (AND: any `no` → no, all `yes` → yes;
 * OR: any `yes` → yes, all `no` → no; `negate` swaps yes and no). A configuration names the component
 * when one of its vulnerable criteria is `yes` and the whole is not `no`: `conditions: 'met'` when it is
 * `yes`, `'unknown'` when it depends on other products (the platform), listed in `unknownConditions`,
 * so the CVE is shown with what is left to check rather than hidden.
 */
import type { NvdConfiguration } from './cve.ts';
import { parseCpe } from './cpe.ts';
import { memoized } from './memo.ts';
import { componentNameKeys, positionsNamed, type InventoryComponent } from './inventory-component.ts';
import { withinBounds, type VersionBounds } from './version-range.ts';

type CpeMatch = NvdConfiguration['nodes'][number]['cpeMatch'][number];
type Tri = 'yes' | 'no' | 'unknown';

export interface NvdRuleMatch {
  source: 'nvd';
  /** Index of the configuration in the CVE's `nvd_cpe_configurations`. */
  configuration: number;
  criteria: string;
  matchCriteriaId: string;
  bounds: VersionBounds;
  /** `met`: the configuration holds for this component alone; `unknown`: it also needs `unknownConditions`. */
  conditions: 'met' | 'unknown';
  unknownConditions: string[];
  /** How the version was compared: NVD's bounds carry no scheme, so always the generic comparator; absent with no version. */
  comparison?: 'generic';
}

function meaningful(value: string | undefined): value is string {
  return value !== undefined && value !== '' && value !== '*' && value !== '-';
}

function boundsOf(m: CpeMatch): VersionBounds {
  const b: VersionBounds = {};
  if (m.versionStartIncluding) b.startIncluding = m.versionStartIncluding;
  if (m.versionStartExcluding) b.startExcluding = m.versionStartExcluding;
  if (m.versionEndIncluding) b.endIncluding = m.versionEndIncluding;
  if (m.versionEndExcluding) b.endExcluding = m.versionEndExcluding;
  return b;
}

/** A criterion's CPE fields, read once per criterion string (a call matches many components against the same CVEs). */
interface CriterionName {
  part: string;
  key: string;
}
const criterionName = memoized(200_000, (criteria: string): CriterionName | null => {
  const cpe = parseCpe(criteria);
  return cpe ? { part: cpe.part, key: `${cpe.vendor.toLowerCase()}:${cpe.product.toLowerCase()}` } : null;
});

type Node = NvdConfiguration['nodes'][number];
/** A stored configuration as a list of nodes, each of criteria with a text `criteria` (never throws on odd data). */
const nodesOf = (c: NvdConfiguration): Node[] =>
  Array.isArray(c?.nodes) ? c.nodes.filter((n) => n && typeof n === 'object') : [];
const matchesOf = (n: Node): CpeMatch[] =>
  Array.isArray(n.cpeMatch) ? n.cpeMatch.filter((m) => m && typeof m.criteria === 'string') : [];

/** A criterion with its CPE name read. */
interface CompiledMatch {
  m: CpeMatch;
  name: CriterionName | null;
  /** The versions it covers (`versionRule`), read when first needed; null: any. */
  rule?: VersionBounds | null;
}
interface CompiledNode {
  node: Node;
  matches: CompiledMatch[];
}
/**
 * A CVE's configurations read once per list object (it lives as long as the service keeps the
 * candidate, InventoryMatchCache): each node's criteria
 * with their names, and which configurations name each product (`vendor:product`), so a component
 * evaluates only the configurations that name it.
 */
interface CompiledConfigurations {
  /** Per configuration, its nodes compiled when a component first evaluates it. */
  nodes: (CompiledNode[] | undefined)[];
  byName: Map<string, number[]>;
}
const compiledConfigurations = new WeakMap<readonly NvdConfiguration[], CompiledConfigurations>();

function compileConfigurations(configurations: readonly NvdConfiguration[]): CompiledConfigurations {
  let c = compiledConfigurations.get(configurations);
  if (c) return c;
  c = { nodes: new Array(configurations.length), byName: new Map() };
  for (let i = 0; i < configurations.length; i++) {
    for (const node of nodesOf(configurations[i]!))
      for (const m of matchesOf(node)) {
        const name = criterionName(m.criteria);
        if (!name) continue;
        const list = c.byName.get(name.key);
        if (!list) c.byName.set(name.key, [i]);
        else if (list[list.length - 1] !== i) list.push(i);
      }
  }
  compiledConfigurations.set(configurations, c);
  return c;
}

function nodesOfConfiguration(
  c: CompiledConfigurations,
  configuration: NvdConfiguration,
  i: number,
): CompiledNode[] {
  return (c.nodes[i] ??= nodesOf(configuration).map((node) => ({
    node,
    matches: matchesOf(node).map((m): CompiledMatch => ({ m, name: criterionName(m.criteria) })),
  })));
}

/** Whether a criterion's name is the component's product (and part, when both give one). */
function names(name: CriterionName | null, component: InventoryComponent, keys: readonly string[]): boolean {
  if (!name) return false;
  if (component.part && meaningful(name.part) && name.part !== component.part) return false;
  return keys.includes(name.key);
}

/**
 * What a criterion of the component's own product asks of its version: the range when one is given,
 * else the criterion's version with its update field (`2.0:beta9`), or any version (`*`, `-`).
 */
function versionRule(criteria: string, m: CpeMatch): VersionBounds | null {
  const bounds = boundsOf(m);
  if (Object.keys(bounds).length) return bounds;
  const fields = criteria.split(/(?<!\\):/);
  const exact = fields[5];
  if (!meaningful(exact)) return null;
  const update = fields[6];
  const wanted = (exact + (meaningful(update) ? `-${update}` : '')).replace(/\\(.)/g, '$1');
  return { startIncluding: wanted, endIncluding: wanted };
}

/** How many of a node's (or configuration's) values are yes, no and unknown. */
interface Tally {
  yes: number;
  no: number;
  total: number;
}

function combine(operator: 'AND' | 'OR', { yes, no, total }: Tally): Tri {
  if (operator === 'AND') {
    if (no > 0) return 'no';
    return yes === total ? 'yes' : 'unknown';
  }
  if (yes > 0) return 'yes';
  return total > 0 && no === total ? 'no' : 'unknown';
}

function count(tally: Tally, value: Tri): void {
  tally.total++;
  if (value === 'yes') tally.yes++;
  else if (value === 'no') tally.no++;
}

function negated(value: Tri, negate: boolean | undefined): Tri {
  if (!negate || value === 'unknown') return value;
  return value === 'yes' ? 'no' : 'yes';
}

/**
 * The rules of a CVE's NVD configurations that name the component at its version. With no version,
 * the vulnerable criteria of its product (`versionKnown: false`): the CVE is a candidate, not a match.
 */
export function matchNvdConfigurations(
  configurations: readonly NvdConfiguration[],
  component: InventoryComponent,
): NvdRuleMatch[] {
  const out: NvdRuleMatch[] = [];
  if (!configurations.length) return out;
  const compiled = compileConfigurations(configurations);
  const keys = componentNameKeys(component);
  const { version } = component;
  for (const index of positionsNamed(compiled.byName, keys)) {
    const configuration = configurations[index]!;
    const hits: CpeMatch[] = [];
    // Nodes without a hit: their other products are conditions (in a node of a hit, alternatives).
    let conditionNodes: CompiledNode[] | undefined;
    const whole: Tally = { yes: 0, no: 0, total: 0 };
    for (const compiledNode of nodesOfConfiguration(compiled, configuration, index)) {
      const { node } = compiledNode;
      const hitsBefore = hits.length;
      const values: Tally = { yes: 0, no: 0, total: 0 };
      for (const match of compiledNode.matches) {
        const { m, name } = match;
        values.total++;
        if (!names(name, component, keys)) continue;
        if (version === undefined) {
          if (m.vulnerable && !node.negate) hits.push(m);
          continue;
        }
        if (match.rule === undefined) match.rule = versionRule(m.criteria, m);
        const yes = match.rule === null || withinBounds(version, match.rule);
        if (yes && m.vulnerable && !node.negate) hits.push(m);
        if (yes) values.yes++;
        else values.no++;
      }
      if (hits.length === hitsBefore) (conditionNodes ??= []).push(compiledNode);
      count(whole, negated(combine(node.operator, values), node.negate));
    }
    const value = negated(combine(configuration.operator ?? 'OR', whole), configuration.negate);
    if (!hits.length || value === 'no') continue;
    const conditions = value === 'yes' ? 'met' : 'unknown';
    const unknownConditions: string[] = [];
    if (conditions === 'unknown') {
      const seen = new Set<string>();
      for (const n of conditionNodes ?? [])
        for (const { m, name } of n.matches)
          if (!names(name, component, keys) && !seen.has(m.criteria)) {
            seen.add(m.criteria);
            unknownConditions.push(m.criteria);
          }
    }
    for (const m of hits) {
      const rule: NvdRuleMatch = {
        source: 'nvd',
        configuration: index,
        criteria: m.criteria,
        matchCriteriaId: m.matchCriteriaId,
        bounds: boundsOf(m),
        conditions,
        unknownConditions,
      };
      if (version !== undefined) rule.comparison = 'generic';
      out.push(rule);
    }
  }
  return out;
}
