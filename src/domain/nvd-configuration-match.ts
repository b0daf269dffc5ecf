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
const criterionNames = new Map<string, CriterionName | null>();
const CRITERION_CACHE_LIMIT = 200_000;

function criterionName(criteria: string): CriterionName | null {
  let name = criterionNames.get(criteria);
  if (name === undefined) {
    const cpe = parseCpe(criteria);
    name = cpe ? { part: cpe.part, key: `${cpe.vendor.toLowerCase()}:${cpe.product.toLowerCase()}` } : null;
    if (criterionNames.size >= CRITERION_CACHE_LIMIT) criterionNames.clear();
    criterionNames.set(criteria, name);
  }
  return name;
}

/** Whether a criterion names the component's product (vendor, product, and part when both give one). */
export function namesComponent(criteria: string, component: InventoryComponent): boolean {
  const name = criterionName(criteria);
  if (!name) return false;
  if (component.part && meaningful(name.part) && name.part !== component.part) return false;
  return component.names.some((n) => `${n.vendor}:${n.product}` === name.key);
}

type Node = NvdConfiguration['nodes'][number];
/** A stored configuration as a list of nodes, each of criteria with a text `criteria` (never throws on odd data). */
const nodesOf = (c: NvdConfiguration): Node[] =>
  Array.isArray(c?.nodes) ? c.nodes.filter((n) => n && typeof n === 'object') : [];
const matchesOf = (n: Node): CpeMatch[] =>
  Array.isArray(n.cpeMatch) ? n.cpeMatch.filter((m) => m && typeof m.criteria === 'string') : [];

/**
 * Which configurations of a CVE name each product (`vendor:product`), read once per configurations
 * list (each call reads the lists afresh): a component evaluates only the configurations that name it
 * instead of reading every criterion of every candidate's configurations.
 */
const configurationsByName = new WeakMap<readonly NvdConfiguration[], Map<string, number[]>>();

function configurationsNaming(configurations: readonly NvdConfiguration[]): Map<string, number[]> {
  let index = configurationsByName.get(configurations);
  if (index) return index;
  index = new Map();
  configurations.forEach((configuration, i) => {
    for (const node of nodesOf(configuration))
      for (const m of matchesOf(node)) {
        const name = criterionName(m.criteria);
        if (!name) continue;
        const list = index!.get(name.key);
        if (!list) index!.set(name.key, [i]);
        else if (list[list.length - 1] !== i) list.push(i);
      }
  });
  configurationsByName.set(configurations, index);
  return index;
}

/**
 * Whether the component's version satisfies a criterion of its own product: the range when one is
 * given, else the criterion's version (`*` and `-` match any), with its update field (`2.0:beta9`).
 */
export function versionSatisfies(criteria: string, m: Partial<CpeMatch>, version: string): boolean {
  const bounds = boundsOf(m as CpeMatch);
  if (Object.keys(bounds).length) return withinBounds(version, bounds);
  const fields = criteria.split(/(?<!\\):/);
  const exact = fields[5];
  if (!meaningful(exact)) return true;
  const update = fields[6];
  const wanted = (exact + (meaningful(update) ? `-${update}` : '')).replace(/\\(.)/g, '$1');
  return withinBounds(version, { startIncluding: wanted, endIncluding: wanted });
}

function combine(operator: 'AND' | 'OR', values: Tri[]): Tri {
  if (operator === 'AND') {
    if (values.includes('no')) return 'no';
    return values.every((v) => v === 'yes') ? 'yes' : 'unknown';
  }
  if (values.includes('yes')) return 'yes';
  return values.length && values.every((v) => v === 'no') ? 'no' : 'unknown';
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
  const mentioning = positionsNamed(configurationsNaming(configurations), componentNameKeys(component));
  mentioning.forEach((index) => {
    const configuration = configurations[index]!;
    const hits: CpeMatch[] = [];
    const unknown: string[] = [];
    const nodeValues = nodesOf(configuration).map((node) => {
      const hitsBefore = hits.length;
      const others: string[] = [];
      const values = matchesOf(node).map((m): Tri => {
        if (!namesComponent(m.criteria, component)) {
          others.push(m.criteria);
          return 'unknown';
        }
        if (component.version === undefined) {
          if (m.vulnerable && !node.negate) hits.push(m);
          return 'unknown';
        }
        const yes = versionSatisfies(m.criteria, m, component.version);
        if (yes && m.vulnerable && !node.negate) hits.push(m);
        return yes ? 'yes' : 'no';
      });
      // Other products in the node of a hit are alternatives to it, not conditions on it.
      if (hits.length === hitsBefore) unknown.push(...others);
      return negated(combine(node.operator, values), node.negate);
    });
    const whole = negated(combine(configuration.operator ?? 'OR', nodeValues), configuration.negate);
    if (!hits.length || whole === 'no') return;
    const conditions = whole === 'yes' ? 'met' : 'unknown';
    const unknownConditions = conditions === 'met' ? [] : [...new Set(unknown)];
    for (const m of hits) {
      out.push({
        source: 'nvd',
        configuration: index,
        criteria: m.criteria,
        matchCriteriaId: m.matchCriteriaId,
        bounds: boundsOf(m),
        conditions,
        unknownConditions,
      });
    }
  });
  return out;
}
