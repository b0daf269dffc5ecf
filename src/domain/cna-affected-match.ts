/**
 * Whether a CNA's `affected[]` entries (CVE JSON 5) say one inventory component is affected, and by
 * which version entry.
 *
 * An entry is about the component when its vendor and product, spelled as the catalog spells names,
 * are one of the component's (vendor, product) pairs, when one of its CPEs names that product, or when
 * its `packageName` is the component's package (a purl's name; an object's or CPE's product for an
 * entry that names no vendor, as the xz record's first entry does).
 *
 * The version's status (CVE 5 "version" rules): a version entry with `lessThan` or `lessThanOrEqual`
 * is the range from `version` (`0` or `*`: from the first) to that bound (`*`, or any bound containing
 * `*` such as the Log4Shell record's `log4j-core*`: no upper bound), where the status starts as the
 * entry's and then takes each `changes[]` status at or below the version, in version order; an entry
 * without a bound is that one version. An exact `unaffected` entry wins, then any `affected`, then any
 * `unaffected`; a version no entry covers takes `defaultStatus` (absent: unknown, not listed). A
 * `versionType` of `git` is compared as text only (commits have no order); every other type uses the
 * general comparator of version-range.ts.
 */
import type { AffectedProduct } from './cve.ts';
import { normalizeProductName, normalizeVendorName, parseCpe } from './cpe.ts';
import type { InventoryComponent } from './inventory-component.ts';
import { compareVersions } from './version-range.ts';

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
  /** How the entry was tied to the component. */
  matchedBy: 'vendor_product' | 'cpe' | 'package_name';
  /** The version entry that says `affected` (absent for `defaultStatus`, or with no version given). */
  version?: CnaVersionEntry;
  /** The `changes[]` step that set the status, when one did. */
  change?: { at: string; status: string };
  /** `version`: a version entry decided; `default_status`: none covered the version. */
  decidedBy: 'version' | 'default_status';
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
  namesVendor: boolean;
  versions: CnaVersionEntry[];
}
const compiled = new WeakMap<AffectedProduct, CompiledEntry>();

const lowerName = (s: string | undefined) => s?.trim().toLowerCase().replace(/\s+/g, '_');

function compile(entry: AffectedProduct): CompiledEntry {
  let c = compiled.get(entry);
  if (c) return c;
  const names = new Map<string, CnaRuleMatch['matchedBy']>();
  const vendor = normalizeVendorName(entry.vendor);
  const product = normalizeProductName(entry.product, entry.vendor);
  if (vendor && product) names.set(`${vendor}:${product}`, 'vendor_product');
  const rawVendor = lowerName(entry.vendor);
  const rawProduct = lowerName(entry.product);
  if (rawVendor && rawProduct) names.set(`${rawVendor}:${rawProduct}`, 'vendor_product');
  for (const text of Array.isArray(entry.cpes) ? entry.cpes : []) {
    const cpe = typeof text === 'string' ? parseCpe(text) : undefined;
    const key = cpe && `${cpe.vendor.toLowerCase()}:${cpe.product.toLowerCase()}`;
    if (key && !names.has(key)) names.set(key, 'cpe');
  }
  c = {
    names,
    namesVendor: vendor !== undefined,
    versions: (Array.isArray(entry.versions) ? entry.versions : [])
      .map(readEntry)
      .filter((v): v is CnaVersionEntry => v !== undefined),
  };
  if (typeof entry.packageName === 'string' && entry.packageName)
    c.packageName = entry.packageName.toLowerCase();
  compiled.set(entry, c);
  return c;
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
    (component.kind === 'purl' || !c.namesVendor)
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
};

function statusOf(v: CnaVersionEntry, version: string): Status | undefined {
  if (!v.status) return undefined;
  const git = v.versionType === 'git';
  const upper = v.lessThan ?? v.lessThanOrEqual;
  if (upper === undefined) {
    if (v.version === undefined) return undefined;
    const same = git ? v.version === version : compareVersions(version, v.version) === 0;
    return same ? { status: v.status, exact: true, version: v } : undefined;
  }
  if (git) return undefined;
  if (!fromFirst(v.version) && compareVersions(version, v.version!) < 0) return undefined;
  if (!unbounded(upper)) {
    const c = compareVersions(version, upper);
    if (v.lessThan !== undefined ? c >= 0 : c > 0) return undefined;
  }
  const result: Status = { status: v.status, exact: false, version: v };
  const steps = [...(v.changes ?? [])].sort((a, b) => compareVersions(a.at, b.at));
  for (const step of steps) {
    if (compareVersions(version, step.at) < 0) break;
    result.status = step.status;
    result.change = step;
  }
  return result;
}

/**
 * The CNA entries that say the component is affected at its version. With no version: the entries
 * about its product that list any affected version or default to affected (`version` absent).
 */
export function matchCnaAffected(
  affected: readonly AffectedProduct[],
  component: InventoryComponent,
): CnaRuleMatch[] {
  const out: CnaRuleMatch[] = [];
  const keys = component.names.map((n) => `${n.vendor}:${n.product}`);
  affected.forEach((entry, index) => {
    if (!entry || typeof entry !== 'object') return;
    const c = compile(entry);
    const matchedBy = tiedBy(c, component, keys);
    if (!matchedBy) return;
    const base: CnaRuleMatch = { source: 'cna', entry: index, matchedBy, decidedBy: 'version' };
    if (entry.vendor) base.vendor = entry.vendor;
    if (entry.product) base.product = entry.product;
    if (entry.packageName) base.packageName = entry.packageName;
    if (entry.collectionURL) base.collectionURL = entry.collectionURL;
    const versions = (entry.versions ?? [])
      .map(readEntry)
      .filter((v): v is CnaVersionEntry => v !== undefined);
    if (component.version === undefined) {
      const any = versions.find(
        (v) => v.status === 'affected' || v.changes?.some((c) => c.status === 'affected'),
      );
      if (any) out.push({ ...base, version: any });
      else if (entry.defaultStatus === 'affected') out.push({ ...base, decidedBy: 'default_status' });
      return;
    }
    const statuses = versions.map((v) => statusOf(v, component.version!)).filter((s): s is Status => !!s);
    if (statuses.some((s) => s.exact && s.status === 'unaffected')) return;
    const hit = statuses.find((s) => s.status === 'affected');
    if (hit) {
      const rule: CnaRuleMatch = { ...base, version: hit.version };
      if (hit.change) rule.change = hit.change;
      out.push(rule);
      return;
    }
    if (!statuses.length && entry.defaultStatus === 'affected')
      out.push({ ...base, decidedBy: 'default_status' });
  });
  return out;
}
