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
 */
import { normalizeProductName, normalizeVendorName, vendorKey, vendorKeysOfCpe } from './cpe.ts';
import { cnaContainerOf } from './cna-containers.ts';
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
  for (const [provider, s] of statements) {
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
  const keys: Record<string, KeyOrigin[]> = {};
  const retracted: Record<string, KeyOrigin[]> = {};
  for (const key of [...origins.keys()].sort()) {
    const list = origins.get(key)!.sort((a, b) => ORIGIN_ORDER[a.source] - ORIGIN_ORDER[b.source]);
    const guess = list.every((o) => o.source === 'cna-text' && o.rule !== 'operator');
    if (guess && nvdKeys && !nvdKeys.has(key)) retracted[key] = list;
    else keys[key] = list;
  }
  const provenance: VendorProvenance = { keys };
  if (Object.keys(retracted).length) provenance.retracted = retracted;
  return { vendors: Object.keys(keys), provenance };
}
