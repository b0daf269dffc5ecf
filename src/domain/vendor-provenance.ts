/**
 * A CVE's vendor keys and where each comes from (docs/catalog.md, "Vendor keys and their
 * provenance"): the CPEs of NVD's configurations (`cpe:nvd`), of the CNA's affected entries
 * (`cpe:cna`), of an ADP's (`cpe:adp`, CISA-ADP's vulnrichment), or the CNA's (or an ADP's) vendor and
 * product text mapped by the learned alias table (`cna-text`, with the alias evidence); a key an
 * OpenCVE knowledge-base section lists as it is, `stated`.
 *
 * A text-derived key is a guess until a CPE confirms it. **NVD's CPEs contradict it** when NVD's
 * statement names CPEs and none of them gives the key: a vendor key `v` when no CPE of NVD has vendor
 * `v`, a product key `v$PRODUCT$p` when no CPE of NVD has vendor `v` and product `p`. Such a key is
 * retracted (kept aside, with its evidence, for the "why" answer), unless a CPE of the CNA or an ADP
 * gives it too, or an operator's alias does (the operator has the last word; a veto is how to take a
 * key away). Pure.
 *
 * A key **minted** from the CNA's name (rule `cna-name`) that a CPE of any statement (NVD's, the CNA's,
 * an ADP's, OpenCVE's enrichment) names otherwise for the same text **merges** into that key: it is
 * retracted, and the merge is listed (`merged`) for the catalog to remember (`mintedKeyMerges`).
 */
import {
  normalizeProductName,
  normalizeVendorName,
  splitVendorKey,
  vendorKey,
  vendorKeysOfCpe,
} from './cpe.ts';
import { cnaContainerOf } from './cna-containers.ts';
import { aliasLookup } from './vendor-alias-overrides.ts';
import type { Cve5Containers, KeyEvidence, MappedKeys } from './vendor-aliases.ts';

/** How a CVE's statement gives a key. */
export type KeyOriginSource = 'cpe:nvd' | 'cpe:cna' | 'cpe:adp' | 'cna-text' | 'stated';

/** Where one key of a CVE comes from: whose statement (`provider`) and how. */
export type KeyOrigin =
  /** From CPEs of the statement: `cpe` one of them, `count` how many give the key. */
  | { source: 'cpe:nvd' | 'cpe:cna' | 'cpe:adp'; provider: string; cpe: string; count: number }
  /** From an affected entry's vendor/product text (or the description), mapped by the alias table. */
  | (Extract<KeyEvidence, { source: 'cna-text' }> & { provider: string })
  /** Listed by the statement as it is (an OpenCVE knowledge-base section). */
  | { source: 'stated'; provider: string };

/** What `cve.vendor_sources` holds (migration 0032). */
export interface VendorProvenance {
  /** Every key of the CVE, in key order, with its origins. */
  keys: Record<string, KeyOrigin[]>;
  /** Text-derived keys NVD's CPEs contradict, with the origins they had; absent when none. */
  retracted?: Record<string, KeyOrigin[]>;
  /**
   * Minted keys (rule `cna-name`, also in `retracted`) that a CPE named otherwise for the same text:
   * the key each merges into and the text it was minted from; absent when none.
   */
  merged?: Record<string, { into: string; text: string }>;
}

/** A minted key that merges into the key a CPE named for its text, found when `cveId` merged. */
export interface KeyMerge {
  cveId: string;
  /** The minted key. */
  from: string;
  /** The key a CPE named for the same text. */
  into: string;
  /** The text the key was minted from: "Vendor" for a vendor key, "Vendor / Product" for a product key. */
  text: string;
}

/**
 * The merges a CVE's new provenance lists that its provenance before did not; and a minted key the CVE
 * carried before and no longer gives at all (the CNA's record now has CPEs for the entry, so its text
 * is not mapped) merges, by the same conservative pairing, into the key its CPEs now name.
 */
export function newKeyMerges(
  cveId: string,
  before: VendorProvenance | null | undefined,
  after: VendorProvenance | null | undefined,
): KeyMerge[] {
  const out: KeyMerge[] = [];
  for (const [from, { into, text }] of Object.entries(after?.merged ?? {})) {
    if (before?.merged?.[from]?.into !== into) out.push({ cveId, from, into, text });
  }
  if (!before || !after) return out;
  const vanished = Object.entries(before.keys).filter(
    ([key, list]) => mintedText(list) !== undefined && !after.keys[key] && !after.retracted?.[key],
  );
  if (!vanished.length) return out;
  const origins = new Map<string, KeyOrigin[]>([...Object.entries(after.keys), ...vanished]);
  for (const [from, { into, text }] of pairMintedKeys(origins, () => new Map())) {
    if (!after.merged?.[from]) out.push({ cveId, from, into, text });
  }
  return out;
}

/**
 * The (vendor, product) text of a minted key's evidence, as an override names it: a vendor key's text
 * "Vendor" (or the vendor of "Vendor / Product"), a product key's "Vendor / Product". Undefined when the
 * text cannot name the key's level (a product key without a product text).
 */
export function mergeText(
  key: string,
  text: string,
): { vendorText: string; productText?: string; lookup: string } | undefined {
  const at = text.indexOf(' / ');
  const vendorText = at < 0 ? text : text.slice(0, at);
  if (splitVendorKey(key).product === undefined) {
    const lookup = aliasLookup(vendorText);
    return lookup ? { vendorText, lookup } : undefined;
  }
  if (at < 0) return undefined;
  const productText = text.slice(at + 3);
  const lookup = aliasLookup(vendorText, productText);
  return lookup ? { vendorText, productText, lookup } : undefined;
}

/** The parts of a statement that give keys (a `SourceDocument` is one). */
export interface KeyStatement {
  state?: string | undefined;
  title?: string | undefined;
  description?: string | undefined;
  descriptionLang?: string | undefined;
  vendors: readonly string[];
  cpes: readonly string[];
  affected?: readonly {
    vendor?: string | undefined;
    product?: string | undefined;
    cpes?: string[] | undefined;
  }[];
  /** The CNA's short name (a CVE 5 record's CNA statement). */
  assigner?: string | undefined;
}

/** Maps CVE 5 containers to keys (`CnaKeyMapper.map`: the alias table with the operator's overrides). */
export type TextMapper = (containers: Cve5Containers) => MappedKeys;

const CPE_SOURCE: Record<string, 'cpe:nvd' | 'cpe:cna' | 'cpe:adp'> = {
  nvd: 'cpe:nvd',
  mitre: 'cpe:cna',
  vulnrichment: 'cpe:adp',
};

/** Providers whose statements come from a CVE 5 record: their affected text is mapped. */
const CVE5_PROVIDERS = new Set(['mitre', 'vulnrichment']);

/** The order origins of one key are listed in: CPEs first (NVD, CNA, ADP), then text, then stated. */
const ORIGIN_ORDER: Record<KeyOriginSource, number> = {
  'cpe:nvd': 0,
  'cpe:cna': 1,
  'cpe:adp': 2,
  'cna-text': 3,
  stated: 4,
};

/**
 * The keys the rule before issue 20 derived from the affected text (normalized CNA names): a statement
 * stored before it still lists them among its `vendors`; the alias table's mapping replaces them.
 */
function legacyKeysOf(provider: string, statement: KeyStatement): Set<string> {
  return CVE5_PROVIDERS.has(provider) ? legacyTextKeys(statement) : new Set();
}

function legacyTextKeys(statement: KeyStatement): Set<string> {
  const out = new Set<string>();
  for (const a of statement.affected ?? []) {
    if (a.cpes?.length) continue;
    const vendor = normalizeVendorName(a.vendor);
    if (!vendor) continue;
    out.add(vendor);
    const product = normalizeProductName(a.product, a.vendor);
    if (product) out.add(vendorKey(vendor, product));
  }
  return out;
}

/** The CVE 5 containers a statement's text stands for, as the mapper reads them. */
function containersOf(provider: string, s: KeyStatement): Cve5Containers | undefined {
  if (!CVE5_PROVIDERS.has(provider) || s.state === 'REJECTED') return undefined;
  // Entries with CPEs too: whether any entry names a vendor decides whether the description is read.
  const affected = s.affected ?? [];
  if (provider === 'vulnrichment') return affected.length ? { cna: { affected } } : undefined;
  const cna = cnaContainerOf(s);
  if (!cna.affected.length && !cna.descriptions.length && !cna.title) return undefined;
  return { cna };
}

/** Each statement's text mapped, per mapper: a statement object is mapped once however often it merges. */
const mappedStatements = new WeakMap<KeyStatement, { mapText: TextMapper; mapped: MappedKeys | undefined }>();

/**
 * The keys a statement's affected text (and, for a CVE 5 record, its description) maps to; undefined
 * for a statement without such text. Remembered per statement object and mapper, so that an import
 * can map its statements as it reads them, while the batch before is written, instead of when the
 * batch merges (docs/architecture.md, "Import pipeline").
 */
export function mapStatementText(
  provider: string,
  statement: KeyStatement,
  mapText: TextMapper,
): MappedKeys | undefined {
  const known = mappedStatements.get(statement);
  if (known?.mapText === mapText) return known.mapped;
  const containers = containersOf(provider, statement);
  const mapped = containers && mapText(containers);
  mappedStatements.set(statement, { mapText, mapped });
  return mapped;
}

/**
 * The keys of a CVE from its statements (by provider) and where each comes from, with the
 * text-derived keys NVD's CPEs contradict set aside. Without `mapText`, text gives no key.
 */
export function deriveVendorKeys(
  statements: Iterable<readonly [string, KeyStatement]>,
  mapText?: TextMapper,
): { vendors: string[]; provenance: VendorProvenance } {
  const origins = new Map<string, KeyOrigin[]>();
  const add = (key: string, origin: KeyOrigin) => {
    const list = origins.get(key);
    if (list) list.push(origin);
    else origins.set(key, [origin]);
  };
  let nvdKeys: Set<string> | undefined;
  /** The CVE 5 statements, whose affected entries with CPEs pair minted keys (read only if any). */
  const cve5: KeyStatement[] = [];
  for (const [provider, s] of statements) {
    if (CVE5_PROVIDERS.has(provider)) cve5.push(s);
    const listed = new Set(s.vendors);
    const fromCpes = new Map<string, { cpe: string; count: number }>();
    for (const cpe of s.cpes) {
      for (const key of vendorKeysOfCpe(cpe)) {
        if (!listed.has(key)) continue;
        const seen = fromCpes.get(key);
        if (seen) seen.count++;
        else fromCpes.set(key, { cpe, count: 1 });
      }
    }
    // Read only for a key no CPE gives: a statement parsed since migration 0032 lists none.
    let legacy: Set<string> | undefined;
    const cpeSource = CPE_SOURCE[provider];
    for (const key of listed) {
      const cpe = fromCpes.get(key);
      if (cpe && cpeSource) add(key, { source: cpeSource, provider, cpe: cpe.cpe, count: cpe.count });
      else if (!cpe && (legacy ??= legacyKeysOf(provider, s)).has(key)) continue;
      else add(key, { source: 'stated', provider });
    }
    if (provider === 'nvd' && s.cpes.length) nvdKeys = new Set(fromCpes.keys());
    const mapped = mapText && mapStatementText(provider, s, mapText);
    if (!mapped) continue;
    for (const key of [...mapped.vendors, ...mapped.products]) {
      const evidence = mapped.evidence[key];
      if (evidence?.source === 'cna-text') add(key, { ...evidence, provider });
    }
  }
  const merged = pairMintedKeys(origins, () => {
    const entryKeys = new Map<string, Set<string>>();
    for (const s of cve5) collectEntryKeys(s, entryKeys);
    return entryKeys;
  });
  const keys: Record<string, KeyOrigin[]> = {};
  const retracted: Record<string, KeyOrigin[]> = {};
  for (const key of [...origins.keys()].sort()) {
    const list = origins.get(key)!.sort((a, b) => ORIGIN_ORDER[a.source] - ORIGIN_ORDER[b.source]);
    const guess = list.every((o) => o.source === 'cna-text' && o.rule !== 'operator');
    if ((guess && nvdKeys && !nvdKeys.has(key)) || merged.has(key)) retracted[key] = list;
    else keys[key] = list;
  }
  const provenance: VendorProvenance = { keys };
  if (Object.keys(retracted).length) provenance.retracted = retracted;
  if (merged.size) provenance.merged = Object.fromEntries([...merged].sort(([a], [b]) => (a < b ? -1 : 1)));
  return { vendors: Object.keys(keys), provenance };
}

/** Adds the CPE keys of a CVE 5 statement's affected entries that have CPEs, by the entry's text. */
function collectEntryKeys(s: KeyStatement, out: Map<string, Set<string>>): void {
  for (const entry of s.affected ?? []) {
    if (!entry.cpes?.length || typeof entry.vendor !== 'string') continue;
    const lookups = [aliasLookup(entry.vendor)];
    if (typeof entry.product === 'string') lookups.push(aliasLookup(entry.vendor, entry.product));
    for (const lookup of lookups) {
      if (!lookup) continue;
      let set = out.get(lookup);
      if (!set) out.set(lookup, (set = new Set()));
      for (const cpe of entry.cpes) for (const key of vendorKeysOfCpe(cpe)) set.add(key);
    }
  }
}

/** Whether a key comes only from text, minted from the CNA's name: the text it was minted from, if so. */
function mintedText(list: readonly KeyOrigin[]): string | undefined {
  let text: string | undefined;
  for (const o of list) {
    if (o.source !== 'cna-text' || o.rule === 'operator') return undefined;
    if (o.rule === 'cna-name') text ??= o.text;
  }
  return text;
}

/**
 * The minted keys a CPE names otherwise for the same text, each with the key it merges into.
 * Conservative, no merge when ambiguous: the target is the one key (at the minted key's level) that
 * the CPEs of an affected entry with the same text give; else, when the CVE has one minted vendor key
 * left and its CPEs (or OpenCVE's enrichment) name exactly one vendor that no other text explains,
 * that vendor; a minted product key likewise, among the products named under its vendor's target.
 */
function pairMintedKeys(
  origins: ReadonlyMap<string, KeyOrigin[]>,
  entryKeysOf: () => ReadonlyMap<string, Set<string>>,
): Map<string, { into: string; text: string }> {
  const merged = new Map<string, { into: string; text: string }>();
  const minted = new Map<string, string>();
  /** Keys a CPE (or OpenCVE's enrichment) names, and keys other text explains. */
  const named = new Set<string>();
  const explained = new Set<string>();
  for (const [key, list] of origins) {
    const text = mintedText(list);
    if (text !== undefined) {
      minted.set(key, text);
      continue;
    }
    if (
      list.some((o) => o.source.startsWith('cpe:') || (o.source === 'stated' && o.provider === 'enrichment'))
    )
      named.add(key);
    if (list.some((o) => o.source === 'cna-text')) explained.add(key);
  }
  if (!minted.size || !named.size) return merged;
  const level = (key: string) => splitVendorKey(key).product !== undefined;
  // 1. The CPEs of an affected entry with the same text (by the entry's `mergeText` lookups).
  const entryKeys = entryKeysOf();
  for (const [key, text] of minted) {
    const lookup = mergeText(key, text)?.lookup;
    const candidates = [...((lookup && entryKeys.get(lookup)) || [])].filter(
      (k) => level(k) === level(key) && k !== key,
    );
    if (candidates.length === 1) merged.set(key, { into: candidates[0]!, text });
  }
  // 2. The one vendor the CVE's CPEs name that no other text explains, for the one minted vendor left.
  const openVendors = [...minted.keys()].filter((k) => !level(k) && !merged.has(k));
  const namedVendors = [...named].filter((k) => !level(k) && !explained.has(k) && !minted.has(k));
  if (openVendors.length === 1 && namedVendors.length === 1) {
    merged.set(openVendors[0]!, { into: namedVendors[0]!, text: minted.get(openVendors[0]!)! });
  }
  // 3. Per vendor, the one product named under its target, for the one minted product left under it.
  const openProducts = new Map<string, string[]>();
  for (const key of minted.keys()) {
    if (!level(key) || merged.has(key)) continue;
    const vendor = splitVendorKey(key).vendor;
    openProducts.set(vendor, [...(openProducts.get(vendor) ?? []), key]);
  }
  for (const [vendor, products] of openProducts) {
    const target = merged.get(vendor)?.into ?? (named.has(vendor) ? vendor : undefined);
    if (!target || products.length !== 1) continue;
    const candidates = [...named].filter(
      (k) => level(k) && !explained.has(k) && splitVendorKey(k).vendor === target && k !== products[0],
    );
    if (candidates.length === 1)
      merged.set(products[0]!, { into: candidates[0]!, text: minted.get(products[0]!)! });
  }
  return merged;
}
