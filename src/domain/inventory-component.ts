/**
 * One component of an inventory (`POST /api/v2/match`): a CPE 2.3 name, a `{vendor, product, version}`
 * object, a package URL, or an SBOM component `{purl, cpe, name, version, vendor}` (any of purl, cpe
 * and name; both identifiers are read when both are given), read into the names the catalog knows it
 * by. Never throws: a component that cannot be read gets a reason a person understands, and the rest
 * of the inventory is matched.
 */
import {
  catalogName,
  normalizeProductName,
  normalizeVendorName,
  parseCpe,
  splitVendorKey,
  vendorKey,
} from './cpe.ts';
import { parsePurl, purlCpeNames, purlPackageNames, type Purl } from './purl.ts';
import type { TextMapper } from './vendor-provenance.ts';

export interface CpeProductName {
  vendor: string;
  product: string;
}

export interface InventoryComponent {
  kind: 'cpe' | 'product' | 'purl';
  /** The CPE part (`a`, `o`, `h`) when the component is a CPE name that gives one. */
  part?: string;
  /** The (vendor, product) pairs, lower case, that CPE names and vendor keys use; most likely first. */
  names: CpeProductName[];
  /**
   * Names, lower case, a CNA may give it in `affected[].packageName` (or, for an object, in
   * `affected[].product`, as written): the CNA names index (migration 0034) is read under them.
   */
  packageNames: string[];
  /** An object's vendor and product as written: a CNA that writes them alike names this component. */
  written?: { vendor: string; product: string };
  /** Absent: the component cannot be version-matched (no version, or `*`/`-` in a CPE). */
  version?: string;
  purl?: Purl;
}

export type ParsedComponent = { ok: true; component: InventoryComponent } | { ok: false; reason: string };

const MAX_TEXT = 1000;

function meaningful(value: string | undefined): value is string {
  return value !== undefined && value !== '' && value !== '*' && value !== '-';
}

/** A CPE field as text: escapes (`\.`, `\:`) dropped. */
function unescape(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

function uniqueNames(names: CpeProductName[]): CpeProductName[] {
  const seen = new Set<string>();
  return names.filter((n) => {
    if (!n.vendor || !n.product) return false;
    const key = vendorKey(n.vendor, n.product);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function fromCpe(text: string): ParsedComponent {
  const cpe = parseCpe(text);
  if (!cpe || !text.startsWith('cpe:2.3:'))
    return { ok: false, reason: 'not a CPE 2.3 name (cpe:2.3:part:vendor:product:version:…).' };
  if (!meaningful(cpe.vendor) || !meaningful(cpe.product))
    return { ok: false, reason: 'a CPE name to match must name its vendor and product (not * or -).' };
  const fields = text.split(/(?<!\\):/);
  const update = fields[6];
  const component: InventoryComponent = {
    kind: 'cpe',
    names: [{ vendor: cpe.vendor.toLowerCase(), product: cpe.product.toLowerCase() }],
    packageNames: [unescape(cpe.product).toLowerCase()],
  };
  if (/^[aoh]$/.test(cpe.part)) component.part = cpe.part;
  if (meaningful(cpe.version))
    component.version = unescape(cpe.version) + (meaningful(update) ? `-${unescape(update)}` : '');
  return { ok: true, component };
}

/** The fields of an SBOM component object (`SbomComponent` as the matcher reads it). */
const SBOM_FIELDS = ['purl', 'cpe', 'name', 'version', 'vendor'];

/**
 * An SBOM component: its CPE names the product as NVD does (first), its purl adds the package's names;
 * one that cannot be read is passed over when the other can (never the whole component dropped). With
 * neither, its name is read as a product name (a `pkg:generic` purl), and with a vendor also as the
 * object `{vendor, product: name}`. The version given wins over the purl's and the CPE's.
 */
function fromSbomObject(value: Record<string, unknown>): ParsedComponent {
  const unknown = Object.keys(value).filter((k) => !SBOM_FIELDS.includes(k));
  if (unknown.length)
    return {
      ok: false,
      reason: `unknown field ${JSON.stringify(unknown[0])}: an SBOM component has purl, cpe, name, version and vendor.`,
    };
  const fields: Record<string, string> = {};
  for (const key of SBOM_FIELDS) {
    const v = value[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') return { ok: false, reason: `${key} must be a text.` };
    if (v.length > MAX_TEXT) return { ok: false, reason: `${key} is at most ${MAX_TEXT} characters.` };
    if (v.trim() !== '') fields[key] = v.trim();
  }
  const { purl, cpe, name, version, vendor } = fields;
  if (purl === undefined && cpe === undefined && name === undefined)
    return { ok: false, reason: 'an SBOM component needs a purl, a cpe or a name.' };
  const problems: string[] = [];
  const read = (text: string | undefined, parse: (t: string) => ParsedComponent, label: string) => {
    if (text === undefined) return undefined;
    const r = parse(text);
    if (r.ok) return r.component;
    problems.push(`${label}: ${r.reason}`);
    return undefined;
  };
  const byCpe = read(cpe, fromCpe, 'cpe');
  const byPurl = read(purl, fromPurl, 'purl');
  const parts = [byCpe, byPurl].filter((c): c is InventoryComponent => c !== undefined);
  if (!parts.length && name !== undefined) {
    if (vendor !== undefined) {
      const object = fromObject({ vendor, product: name });
      if (object.ok) parts.push(object.component);
    }
    const generic = fromPurl(`pkg:generic/${encodeURIComponent(name)}`);
    if (generic.ok) {
      const { names, packageNames } = generic.component;
      parts.push({ kind: 'product', names, packageNames });
    }
  }
  if (!parts.length) return { ok: false, reason: problems[0] ?? 'its name names nothing to look up.' };
  const component: InventoryComponent = {
    kind: byPurl ? 'purl' : byCpe ? 'cpe' : 'product',
    names: uniqueNames(parts.flatMap((p) => p.names)),
    packageNames: [...new Set(parts.flatMap((p) => p.packageNames))],
  };
  if (byCpe?.part) component.part = byCpe.part;
  if (byPurl?.purl) component.purl = byPurl.purl;
  const written = parts.find((p) => p.written)?.written;
  if (written) component.written = written;
  const v = meaningful(version) ? version : (byPurl?.version ?? byCpe?.version);
  if (v !== undefined) component.version = v;
  return { ok: true, component };
}

function fromObject(value: Record<string, unknown>): ParsedComponent {
  const { vendor, product, version } = value;
  const unknown = Object.keys(value).filter((k) => k !== 'vendor' && k !== 'product' && k !== 'version');
  if (unknown.length)
    return {
      ok: false,
      reason: `unknown field ${JSON.stringify(unknown[0])}: a component object has vendor, product and version.`,
    };
  if (typeof vendor !== 'string' || !vendor.trim() || typeof product !== 'string' || !product.trim())
    return { ok: false, reason: 'a component object needs a vendor and a product, each a non-empty text.' };
  if (version !== undefined && version !== null && typeof version !== 'string')
    return { ok: false, reason: 'version must be a text, such as "2.14.1".' };
  if (vendor.length > 200 || product.length > 200 || (typeof version === 'string' && version.length > 200))
    return { ok: false, reason: 'vendor, product and version are at most 200 characters each.' };
  const names = uniqueNames([
    { vendor: catalogName(vendor), product: catalogName(product) },
    { vendor: normalizeVendorName(vendor) ?? '', product: normalizeProductName(product, vendor) ?? '' },
  ]);
  if (!names.length)
    return { ok: false, reason: 'the vendor and product name nothing the catalog can look up.' };
  const component: InventoryComponent = {
    kind: 'product',
    names,
    packageNames: [product.trim().toLowerCase()],
    written: { vendor: vendor.trim(), product: product.trim() },
  };
  if (typeof version === 'string' && meaningful(version.trim())) component.version = version.trim();
  return { ok: true, component };
}

function fromPurl(text: string): ParsedComponent {
  const parsed = parsePurl(text);
  if (!parsed.ok) return { ok: false, reason: `not a package URL we can read: ${parsed.reason}` };
  const { purl } = parsed;
  const component: InventoryComponent = {
    kind: 'purl',
    names: uniqueNames(purlCpeNames(purl)),
    packageNames: purlPackageNames(purl),
    purl,
  };
  if (purl.version !== undefined) component.version = purl.version;
  return { ok: true, component };
}

/** Reads one component of an inventory as the client sent it. */
export function parseComponent(value: unknown): ParsedComponent {
  if (typeof value === 'string') {
    const text = value.trim();
    if (text.length > MAX_TEXT)
      return { ok: false, reason: `a component is at most ${MAX_TEXT} characters.` };
    if (/^cpe:/i.test(text)) return fromCpe(text);
    if (/^pkg:/i.test(text)) return fromPurl(text);
    return {
      ok: false,
      reason: 'a text component is a CPE 2.3 name ("cpe:2.3:…") or a package URL ("pkg:…").',
    };
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    return 'product' in object || !SBOM_FIELDS.some((k) => k in object && k !== 'version' && k !== 'vendor')
      ? fromObject(object)
      : fromSbomObject(object);
  }
  return {
    ok: false,
    reason:
      'a component is a CPE 2.3 name, a package URL, an object {vendor, product, version} or an SBOM component {purl, cpe, name, version, vendor}.',
  };
}

/**
 * An object component with the (vendor, product) pair the alias table gives its names, as it would
 * give it to a CNA writing the same text ("Apache Software Foundation" / "Apache Log4j2" →
 * `apache$PRODUCT$log4j`), after its own: its CVEs are listed, and NVD names it, under that key. Only
 * when the text maps to one product: the table learns from whole records, and a text that comes with
 * several products' CPEs ("Microsoft" / "Windows 11 version 22H3" with every Windows of its records)
 * names none of them in particular; matching the component as each would say Windows 10's ranges
 * apply to Windows 11.
 */
export function withMappedNames(component: InventoryComponent, mapText: TextMapper): InventoryComponent {
  const w = component.written;
  if (!w) return component;
  const { products } = mapText({ cna: { affected: [{ vendor: w.vendor, product: w.product }] } });
  if (products.length !== 1) return component;
  const { vendor, product } = splitVendorKey(products[0]!);
  const names = uniqueNames([...component.names, { vendor, product: product ?? '' }]);
  return names.length === component.names.length ? component : { ...component, names };
}

const nameKeys = new WeakMap<InventoryComponent, readonly string[]>();

/** The component's (vendor, product) pairs as `vendor:product`, as the matching rules index names (computed once). */
export function componentNameKeys(component: InventoryComponent): readonly string[] {
  let keys = nameKeys.get(component);
  if (!keys) nameKeys.set(component, (keys = component.names.map((n) => `${n.vendor}:${n.product}`)));
  return keys;
}

/**
 * The positions, in order, that an index by name (`vendor:product` or package name → positions in a
 * list) gives these names: which entries or configurations of a CVE name a component.
 */
export function positionsNamed(
  index: ReadonlyMap<string, readonly number[]>,
  names: readonly string[],
): readonly number[] {
  let found: readonly number[] | undefined;
  let merged: Set<number> | undefined;
  for (const name of names) {
    const positions = index.get(name);
    if (!positions) continue;
    if (!found) {
      found = positions;
      continue;
    }
    merged ??= new Set(found);
    for (const p of positions) merged.add(p);
  }
  if (merged) return [...merged].sort((a, b) => a - b);
  return found ?? [];
}

/** The catalog's vendor keys (`vendor$PRODUCT$product`) a component's CVEs are listed under. */
export function componentKeys(component: InventoryComponent): string[] {
  return component.names.map((n) => vendorKey(n.vendor, n.product));
}
