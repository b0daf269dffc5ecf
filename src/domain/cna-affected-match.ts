/**
 * Whether a CNA's `affected[]` entries (CVE JSON 5) say one inventory component is affected, and by
 * which version entry.
 *
 * An entry is about the component when its vendor and product, spelled as the catalog spells names,
 * are one of the component's (vendor, product) pairs, when one of its CPEs names that product, when
 * the alias table maps its vendor and product text to one of them (as it does to list the CVE under
 * that key: "Apache Software Foundation" / "Apache Log4j2" → `apache:log4j`, a Maven log4j-core
 * purl's pair), or when its `packageName` is the component's package (a purl's name; an object's or
 * CPE's product for an entry that names no vendor, as the xz record's first entry does) and its
 * `collectionURL`, when it is a known package registry, is the purl type's.
 *
 * The version's status (CVE 5 "version" rules): a version entry with `lessThan` or `lessThanOrEqual`
 * is the range from `version` (`0` or `*`: from the first) to that bound (`*`, or any bound containing
 * `*` such as the Log4Shell record's `log4j-core*`: no upper bound), where the status starts as the
 * entry's and then takes each `changes[]` status at or below the version, in version order; an entry
 * without a bound is that one version. An exact `unaffected` entry wins, then any `affected`, then any
 * `unaffected`; a version no entry covers takes `defaultStatus` (absent: unknown, not listed). A
 * `versionType` of `git` is compared as text only (commits have no order); every other type by its
 * scheme (version-range.ts `schemeOf`: semver, PEP 440, Debian, RPM, else the generic comparator), and
 * the rule says which comparison decided (`comparison`).
 */
import type { AffectedProduct } from './cve.ts';
import { normalizeProductName, normalizeVendorName, parseCpe } from './cpe.ts';
import { componentNameKeys, positionsNamed, type InventoryComponent } from './inventory-component.ts';
import { registryPurlType } from './purl.ts';
import type { TextMapper } from './vendor-provenance.ts';
import { SchemeComparer, schemeOf, type VersionComparison } from './version-range.ts';

export interface CnaVersionEntry {
  version?: string;
  lessThan?: string;
  lessThanOrEqual?: string;
  status?: string;
  versionType?: string;
  changes?: { at: string; status: string }[];
}

export interface CnaRuleMatch {
  source: 'cna';
  /** Index of the entry in the CNA's `affected[]`. */
  entry: number;
  vendor?: string;
  product?: string;
  packageName?: string;
  collectionURL?: string;
  /** How the entry was tied to the component (`alias`: its text as the alias table maps it). */
  matchedBy: 'vendor_product' | 'cpe' | 'alias' | 'package_name';
  /** The version entry that says `affected` (absent for `defaultStatus`, or with no version given). */
  version?: CnaVersionEntry;
  /** The `changes[]` step that set the status, when one did. */
  change?: { at: string; status: string };
  /** `version`: a version entry decided; `default_status`: none covered the version. */
  decidedBy: 'version' | 'default_status';
  /**
   * How the deciding version entry's versions were compared (its `versionType`'s scheme, or
   * `generic` for a type without one or versions the scheme cannot read); absent when no version was compared.
   */
  comparison?: VersionComparison | 'git';
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function readEntry(value: unknown): CnaVersionEntry | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  const out: CnaVersionEntry = {};
  for (const key of ['version', 'lessThan', 'lessThanOrEqual', 'status', 'versionType'] as const) {
    const t = text(v[key]);
    if (t !== undefined) out[key] = t;
  }
  if (Array.isArray(v.changes)) {
    out.changes = v.changes
      .map((c) => c as Record<string, unknown>)
      .filter((c) => c && text(c.at) !== undefined && text(c.status) !== undefined)
      .map((c) => ({ at: String(c.at), status: String(c.status) }));
  }
  return out;
}

/** What matching needs of an entry, read once per entry object (a call matches many components against the same CVEs). */
interface CompiledEntry {
  /** `vendor:product` pairs the entry is known by: normalized names, names as written, its CPEs. */
  names: Map<string, CnaRuleMatch['matchedBy']>;
  /** Lower-cased packageName, when the entry has one. */
  packageName?: string;
  /** The purl type of the package registry its `collectionURL` names, when it names a known one. */
  registry?: string;
  namesVendor: boolean;
  /** Read when first needed (`versionsOf`). */
  versions?: CnaVersionEntry[];
}
/**
 * A CVE's `affected[]` compiled once per list object (it lives as long as the service keeps the
 * candidate, InventoryMatchCache): each entry's names and versions, and which entries each name and package name designates, so a
 * component looks up its own entries instead of reading every entry of every candidate (a Microsoft
 * record lists twenty Windows; a call may match a Windows component against thousands of them).
 */
interface CompiledAffected {
  entries: (CompiledEntry | undefined)[];
  byName: Map<string, number[]>;
  byPackage: Map<string, number[]>;
  /** Which entries each alias-mapped `vendor:product` designates, built when a component first needs it, per alias mapper. */
  byAlias?: { mapText: TextMapper; byName: Map<string, number[]> };
}
const compiledLists = new WeakMap<readonly AffectedProduct[], CompiledAffected>();

function push(index: Map<string, number[]>, key: string, i: number): void {
  const list = index.get(key);
  if (!list) index.set(key, [i]);
  else if (list[list.length - 1] !== i) list.push(i);
}

function compileList(affected: readonly AffectedProduct[]): CompiledAffected {
  let c = compiledLists.get(affected);
  if (c) return c;
  c = { entries: [], byName: new Map(), byPackage: new Map() };
  for (let i = 0; i < affected.length; i++) {
    const entry = affected[i];
    const e = entry && typeof entry === 'object' ? compile(entry) : undefined;
    c.entries.push(e);
    if (!e) continue;
    for (const name of e.names.keys()) push(c.byName, name, i);
    if (e.packageName !== undefined) push(c.byPackage, e.packageName, i);
  }
  compiledLists.set(affected, c);
  return c;
}

const lowerName = (s: string | undefined) => s?.trim().toLowerCase().replace(/\s+/g, '_');

/**
 * The `vendor:product` pairs of an entry's names and CPEs, read once per distinct (vendor, product,
 * CPEs) text: every candidate read from the database is compiled, and a catalog says "Linux" /
 * "Linux" or "Microsoft" / "Windows" thousands of times.
 */
type EntryNames = Pick<CompiledEntry, 'names' | 'namesVendor'>;
const namesByText = new Map<string, EntryNames>();
const NAMES_CACHE_LIMIT = 100_000;

function entryNames(entry: AffectedProduct): EntryNames {
  const cpes = Array.isArray(entry.cpes) ? entry.cpes.filter((c) => typeof c === 'string') : [];
  const text = `${entry.vendor ?? ''}\u0000${entry.product ?? ''}\u0000${cpes.join('\u0000')}`;
  const known = namesByText.get(text);
  if (known) return known;
  const names = new Map<string, CnaRuleMatch['matchedBy']>();
  const vendor = normalizeVendorName(entry.vendor);
  const product = normalizeProductName(entry.product, entry.vendor);
  if (vendor && product) names.set(`${vendor}:${product}`, 'vendor_product');
  const rawVendor = lowerName(entry.vendor);
  const rawProduct = lowerName(entry.product);
  if (rawVendor && rawProduct) names.set(`${rawVendor}:${rawProduct}`, 'vendor_product');
  for (const text of cpes) {
    const cpe = parseCpe(text);
    const key = cpe && `${cpe.vendor.toLowerCase()}:${cpe.product.toLowerCase()}`;
    if (key && !names.has(key)) names.set(key, 'cpe');
  }
  const result = { names, namesVendor: vendor !== undefined };
  if (namesByText.size >= NAMES_CACHE_LIMIT) namesByText.clear();
  namesByText.set(text, result);
  return result;
}

function compile(entry: AffectedProduct): CompiledEntry {
  const c: CompiledEntry = { ...entryNames(entry) };
  if (typeof entry.packageName === 'string' && entry.packageName) {
    c.packageName = entry.packageName.toLowerCase();
    const registry =
      typeof entry.collectionURL === 'string' ? registryPurlType(entry.collectionURL) : undefined;
    if (registry) c.registry = registry;
  }
  return c;
}

/** Each entry text's alias-mapped `vendor:product` (null: none, or several), for one mapper at a time. */
const aliasByText = new Map<string, string | null>();
let aliasMapper: TextMapper | undefined;

/**
 * The one product key the alias table maps an entry's vendor and product text to, as `vendor:product`;
 * none when it maps to several (as `withMappedNames` reads a component's text: a text that comes with
 * several products' CPEs names none of them in particular).
 */
function aliasName(entry: AffectedProduct, mapText: TextMapper): string | null {
  if (typeof entry.vendor !== 'string' || typeof entry.product !== 'string') return null;
  if (aliasMapper !== mapText) {
    aliasByText.clear();
    aliasMapper = mapText;
  }
  const text = `${entry.vendor}\u0000${entry.product}`;
  const known = aliasByText.get(text);
  if (known !== undefined) return known;
  const { products } = mapText({ cna: { affected: [{ vendor: entry.vendor, product: entry.product }] } });
  const [vendor, product] = products.length === 1 ? products[0]!.split('$PRODUCT$') : [];
  const name = vendor && product ? `${vendor}:${product}` : null;
  if (aliasByText.size >= NAMES_CACHE_LIMIT) aliasByText.clear();
  aliasByText.set(text, name);
  return name;
}

/** Which entries each alias-mapped name designates, built once per list and mapper. */
function aliasIndex(
  list: CompiledAffected,
  affected: readonly AffectedProduct[],
  mapText: TextMapper,
): Map<string, number[]> {
  if (list.byAlias?.mapText === mapText) return list.byAlias.byName;
  const byName = new Map<string, number[]>();
  for (let i = 0; i < affected.length; i++) {
    const entry = affected[i];
    const name = list.entries[i] && entry ? aliasName(entry, mapText) : null;
    if (name) push(byName, name, i);
  }
  list.byAlias = { mapText, byName };
  return byName;
}

/** An entry's version entries, read when a component first needs them. */
function versionsOf(c: CompiledEntry, entry: AffectedProduct): CnaVersionEntry[] {
  return (c.versions ??= (Array.isArray(entry.versions) ? entry.versions : [])
    .map(readEntry)
    .filter((v): v is CnaVersionEntry => v !== undefined));
}

function tiedBy(
  c: CompiledEntry,
  component: InventoryComponent,
  keys: readonly string[],
): CnaRuleMatch['matchedBy'] | undefined {
  for (const key of keys) {
    const by = c.names.get(key);
    if (by) return by;
  }
  if (
    c.packageName !== undefined &&
    component.packageNames.includes(c.packageName) &&
    (component.kind === 'purl' || !c.namesVendor) &&
    // A package of another ecosystem's registry is another package of the same name.
    (c.registry === undefined || component.purl === undefined || c.registry === component.purl.type)
  )
    return 'package_name';
  return undefined;
}

const unbounded = (bound: string) => bound.includes('*');
const fromFirst = (start: string | undefined) => start === undefined || start === '*' || start === '0';

type Status = {
  status: string;
  exact: boolean;
  version: CnaVersionEntry;
  change?: { at: string; status: string };
  comparison: VersionComparison | 'git';
};

function statusOf(v: CnaVersionEntry, version: string): Status | undefined {
  if (!v.status) return undefined;
  const upper = v.lessThan ?? v.lessThanOrEqual;
  if (v.versionType === 'git') {
    if (upper !== undefined || v.version !== version) return undefined;
    return { status: v.status, exact: true, version: v, comparison: 'git' };
  }
  const scheme = new SchemeComparer(schemeOf(v.versionType));
  const compare = (a: string, b: string) => scheme.compare(a, b);
  if (upper === undefined) {
    if (v.version === undefined) return undefined;
    return compare(version, v.version) === 0
      ? { status: v.status, exact: true, version: v, comparison: scheme.used }
      : undefined;
  }
  if (!fromFirst(v.version) && compare(version, v.version!) < 0) return undefined;
  if (!unbounded(upper)) {
    const c = compare(version, upper);
    if (v.lessThan !== undefined ? c >= 0 : c > 0) return undefined;
  }
  const result: Status = { status: v.status, exact: false, version: v, comparison: scheme.used };
  const steps = [...(v.changes ?? [])].sort((a, b) => compare(a.at, b.at));
  for (const step of steps) {
    if (compare(version, step.at) < 0) break;
    result.status = step.status;
    result.change = step;
  }
  result.comparison = scheme.used;
  return result;
}

/**
 * The CNA entries that say the component is affected at its version. With no version: the entries
 * about its product that list any affected version or default to affected (`version` absent).
 * `mapText`: the alias table, to tie an entry by its text as the catalog lists the CVE.
 */
export function matchCnaAffected(
  affected: readonly AffectedProduct[],
  component: InventoryComponent,
  mapText?: TextMapper,
): CnaRuleMatch[] {
  const out: CnaRuleMatch[] = [];
  if (!affected.length) return out;
  const keys = componentNameKeys(component);
  const list = compileList(affected);
  const byName = positionsNamed(list.byName, keys);
  const byPackage = positionsNamed(list.byPackage, component.packageNames);
  let named = !byPackage.length
    ? byName
    : !byName.length
      ? byPackage
      : [...new Set([...byName, ...byPackage])].sort((a, b) => a - b);
  // Only when no entry names the component directly: its entries' text as the alias table maps it.
  const byAlias = !named.length && mapText ? positionsNamed(aliasIndex(list, affected, mapText), keys) : [];
  if (byAlias.length) named = byAlias;
  for (const index of named) {
    const entry = affected[index]!;
    const c = list.entries[index]!;
    const matchedBy = byAlias.length ? 'alias' : tiedBy(c, component, keys);
    if (!matchedBy) continue;
    const base: CnaRuleMatch = { source: 'cna', entry: index, matchedBy, decidedBy: 'version' };
    if (entry.vendor) base.vendor = entry.vendor;
    if (entry.product) base.product = entry.product;
    if (entry.packageName) base.packageName = entry.packageName;
    if (entry.collectionURL) base.collectionURL = entry.collectionURL;
    const versions = versionsOf(c, entry);
    if (component.version === undefined) {
      const any = versions.find(
        (v) => v.status === 'affected' || v.changes?.some((c) => c.status === 'affected'),
      );
      if (any) out.push({ ...base, version: any });
      else if (entry.defaultStatus === 'affected') out.push({ ...base, decidedBy: 'default_status' });
      continue;
    }
    const statuses = versions.map((v) => statusOf(v, component.version!)).filter((s): s is Status => !!s);
    if (statuses.some((s) => s.exact && s.status === 'unaffected')) continue;
    const hit = statuses.find((s) => s.status === 'affected');
    if (hit) {
      const rule: CnaRuleMatch = { ...base, version: hit.version, comparison: hit.comparison };
      if (hit.change) rule.change = hit.change;
      out.push(rule);
      continue;
    }
    if (!statuses.length && entry.defaultStatus === 'affected')
      out.push({ ...base, decidedBy: 'default_status' });
  }
  return out;
}
