/**
 * From a CNA's own words to catalog keys: the vendor and product free text of a CVE 5 record's
 * `containers.cna.affected[]` ("QNAP Systems Inc." / "QTS") mapped to the `vendor` and
 * `vendor$PRODUCT$product` keys that CPE names give (`qnap`, `qnap$PRODUCT$qts`).
 *
 * The mapping is learned, not guessed: every record that has both CNA text and CPEs (an ADP's, such
 * as CISA-ADP's, the CNA's own, or NVD's when given) is evidence that "this text means this key". The
 * table keeps the counts, per affected entry (an entry is paired with the CPE keys of its own
 * product: `entryTeachings`); a text maps to a learned key only when the evidence is strong enough
 * (see `DEFAULT_THRESHOLD`), else to a key of the CPE vocabulary spelled like it (candidates: joined
 * words, hyphens, legal suffixes, the vendor's prefix and a trailing version dropped), else to a key
 * minted from the name by the CPE naming conventions (rule `cna-name`: `mintedName`,
 * `mintedProductName`). Rules and measured quality: docs/catalog.md,
 * bench/RESULTS-vendor-mapping.md. Pure: no I/O.
 */
import { normalizeName, splitVendorKey, vendorKey, vendorKeysOfCpe } from './cpe.ts';
import { memoized } from './memo.ts';

/** The parts of a CVE 5 `affected[]` entry this module reads. */
export interface AffectedEntry {
  vendor?: unknown;
  product?: unknown;
  cpes?: unknown;
}

/** The parts of a CVE 5 record this module reads (CNA container and ADP containers). */
export interface Cve5Containers {
  cna?: { affected?: unknown; title?: unknown; descriptions?: unknown; providerMetadata?: unknown };
  adp?: unknown;
}

/**
 * When a learned alias becomes a key. A vendor text needs `minSupport` learning records naming the
 * key and the key in at least `minShare` of the records with that text; the same for a (vendor,
 * product) text pair. Chosen on the vulnrichment corpus (bench/RESULTS-vendor-mapping.md).
 */
export interface Threshold {
  minSupport: number;
  minShare: number;
  /** For (vendor, product) text pairs, when stricter than the vendors' (default: the same). */
  productMinSupport?: number;
  productMinShare?: number;
}

/**
 * When the CNA itself stands for the vendor of a record that names none: stricter than a vendor
 * text (Fedora's records named `moodle` 15 times of 21), measured on the bench (+11 right vendor
 * keys, 5 wrong ones replaced).
 */
const CNA_THRESHOLD: Threshold = { minSupport: 5, minShare: 0.8 };

/**
 * 2 records and 70 % for a vendor text, 2 and 80 % for a (vendor, product) pair: each the loosest
 * setting whose marginal keys were at least 80 % right on the bench (vendor keys between 70 and 75 %:
 * 84.5 % right; between 65 and 70 %: 74 %; since pairs are learned per affected entry (issue 30),
 * product keys between 80 and 90 %: 82 % right, between 70 and 80 %: 73 %), as a wrong key is worse
 * than none.
 */
export const DEFAULT_THRESHOLD: Threshold = {
  minSupport: 2,
  minShare: 0.7,
  productMinSupport: 2,
  productMinShare: 0.8,
};

/** Counts for one text: in how many learning records it appeared, and with which keys how often. */
export interface AliasEvidence {
  records: number;
  keys: Record<string, number>;
}

/** A learned alias table, plain JSON so it can ship pre-learned. */
export interface AliasTable {
  version: 1;
  threshold: Threshold;
  /** Every vendor key a CPE named in the learning data, with how many records named it. */
  vendorKeys: Record<string, number>;
  /** Every `vendor$PRODUCT$product` key a CPE named in the learning data, with its record count. */
  productKeys: Record<string, number>;
  /** Vendor text (see `vendorTextKey`) → evidence. */
  vendors: Record<string, AliasEvidence>;
  /** `vendorText␟productText` → evidence over product keys. */
  products: Record<string, AliasEvidence>;
  /** How many records taught the table (optional: tables written before it lack it). */
  learned?: number;
}

/** Why a key was given to a record, so that a "why" answer can cite it. */
export type KeyEvidence =
  | { source: 'cpe:cna'; cpe: string }
  | { source: 'cna-text'; rule: 'alias'; text: string; support: number; records: number }
  | { source: 'cna-text'; rule: 'name'; text: string }
  | { source: 'cna-text'; rule: 'description'; text: string }
  | { source: 'cna-text'; rule: 'spelling'; text: string }
  /**
   * Minted from the CNA's own name by the CPE naming conventions, as no known key matched it
   * (provenance `cna-name`): a real key until a CPE names another key for the same text, which it then
   * merges into (docs/catalog.md).
   */
  | { source: 'cna-text'; rule: 'cna-name'; text: string }
  /** An operator's own alias (`vulntrack vendors alias add`, domain/vendor-alias-overrides.ts). */
  | { source: 'cna-text'; rule: 'operator'; text: string };

export interface MappedKeys {
  vendors: string[];
  products: string[];
  evidence: Record<string, KeyEvidence>;
}

const PLACEHOLDER = /^(n\/?a|na|unknown|unspecified|none|other|various|multiple|not_applicable|tbd|-)$/;

/** Legal-entity and organisation words that CPE vendor names leave out, in any order at the end. */
const LEGAL_SUFFIX =
  /(_(inc|incorporated|corp|corporation|co|company|ltd|limited|llc|llp|lp|gmbh|ag|sa|sas|srl|spa|bv|nv|ab|as|oy|plc|pty|pvt|private|kg|kk|se|software_foundation|foundation|group|project|team|org|community|technologies|technology|software|systems|international|holdings))+$/;

/**
 * The legal forms alone, which a minted vendor name drops: CISA-ADP and NVD keep "Software" or
 * "Systems" in a new vendor's key more often than not (measured on the 228 multi-word vendor names
 * after the cut that no CPE had named: the whole name was the key 74 times, the name without
 * `LEGAL_SUFFIX`'s words 59 times).
 */
const LEGAL_FORM =
  /(_(inc|incorporated|corp|corporation|co|company|ltd|limited|llc|llp|lp|gmbh|ag|sa|sas|srl|spa|bv|nv|ab|as|oy|plc|pty|pvt|kg|kk|se))+$/;

/**
 * Texts already read into words: the same vendor and product names come back record after record,
 * and the description rule tries every run of one to three words (a third of a first import's mapping
 * time was `normalizeName` before this). Cleared when full.
 */
const wordsOf = memoized(100_000, readWords);

function words(raw: unknown): string | undefined {
  return typeof raw === 'string' ? wordsOf(raw) : undefined;
}

function readWords(raw: string): string | undefined {
  const name = normalizeName(raw.replace(/[,.()'’"]/g, ' ').replace(/&/g, ' and '));
  if (!name || PLACEHOLDER.test(name)) return undefined;
  return name.replace(/[.+-]/g, '_').replace(/_+/g, '_').replace(/^_|_$/g, '') || undefined;
}

/**
 * A CNA vendor text as a lookup key: lower case, punctuation and legal suffixes dropped, words run
 * together ("QNAP Systems Inc." → `qnap`, "D-Link" → `dlink`, "Zyxel Co., Ltd" → `zyxel`).
 * Undefined for placeholders ("n/a", "unspecified").
 */
export function vendorTextKey(raw: unknown): string | undefined {
  const w = words(raw);
  if (!w) return undefined;
  return (w.replace(LEGAL_SUFFIX, '') || w).replace(/_/g, '');
}

/**
 * A CNA product text as a lookup key: lower case, punctuation to `_`, the vendor's own leading words
 * dropped ("Apple macOS" under "Apple" → `macos`).
 */
export function productTextKey(raw: unknown, rawVendor?: unknown): string | undefined {
  const w = words(raw);
  if (!w) return undefined;
  const v = words(rawVendor)?.replace(LEGAL_SUFFIX, '');
  if (v && w.startsWith(`${v}_`)) return w.slice(v.length + 1);
  return w;
}

/** Spellings of a text that CPE names commonly use, most likely first. */
function vendorSpellings(raw: unknown): string[] {
  const w = words(raw);
  if (!w) return [];
  const stripped = w.replace(LEGAL_SUFFIX, '') || w;
  // "Open Networking Foundation (ONF)": the name without the abbreviation that follows it.
  const bare =
    typeof raw === 'string' && /\(.*\)/.test(raw) ? words(raw.replace(/\(.*?\)/g, ' ')) : undefined;
  const spellings = [stripped.replace(/_/g, ''), stripped, w.replace(/_/g, ''), w];
  // CPE keeps hyphens and dots in vendor names too (`cs-cart`, `tp-link`).
  const kept = typeof raw === 'string' ? normalizeName(raw.replace(/[,()'’"]/g, ' ')) : undefined;
  if (kept) spellings.push(kept);
  if (bare) spellings.push(bare, bare.replace(/_/g, ''));
  return unique([...spellings, stripped.split('_')[0]!]);
}

function productSpellings(raw: unknown, rawVendor: unknown): string[] {
  if (typeof raw !== 'string') return [];
  // "Formidable Forms – Contact Form Plugin, …", "CHARX SEC-3000 (1139022)", "Synology Drive Client":
  // the name before a tagline or a parenthesis, and without a trailing "Client"/"Plugin" word.
  const head = raw.split(/\s[–—-]\s|:\s|\s\(|,\s/)[0]!;
  const variants = unique([raw, head, head.replace(/\s+(client|plugin|app|application|software)$/i, '')]);
  const spellings: string[] = [];
  for (const variant of variants) {
    const p = productTextKey(variant, rawVendor);
    const w = words(variant);
    if (p && w) spellings.push(p, w, p.replace(/_/g, ''), w.replace(/_/g, ''));
    // CPE keeps hyphens and dots in product names (`dir-605l`, `node.js`).
    const kept = normalizeName(variant);
    if (kept)
      spellings.push(kept, ...(p && w && kept.endsWith(p.replace(/_/g, '-')) ? [p.replace(/_/g, '-')] : []));
  }
  const all = unique(spellings.flatMap((s) => [s, ...withoutVersion(s)]));
  // Devices: CPE names the firmware (`dlink:dir-605l_firmware`, beside the hardware `dir-605l`)
  // where the CNA names the device; vulnerabilities are in the firmware.
  return all.flatMap((s) => [`${s}_firmware`, s]);
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/**
 * A product spelling without the version it ends with, as CPE names leave versions out: trailing
 * number words ("Enterprise Linux 9" → `enterprise_linux`) and one digit glued to a name
 * that already holds a digit and ends in a letter ("Log4j2" → `log4j`; not "Halo9" nor "AC1200 T8").
 */
function withoutVersion(spelling: string): string[] {
  const out: string[] = [];
  const spaced = spelling.replace(/(_\d+)+$/, '');
  if (spaced && spaced !== spelling) out.push(spaced);
  const glued = /^([a-z]+\d[a-z0-9]*[a-z])\d$/.exec(spaced || spelling)?.[1];
  if (glued) out.push(glued);
  return out;
}

/**
 * A name spelled by the CPE naming conventions, for a key no CPE has named (rule `cna-name`): lower
 * case, a parenthesized abbreviation dropped, blanks and commas as `_`, hyphens, dots and `+` kept
 * within words, legal-entity suffixes dropped ("QNAP Systems Inc." → `qnap`, "D-Link" → `d-link`,
 * "Hewlett Packard Enterprise (HPE)" → `hewlett_packard_enterprise`). Undefined for placeholders.
 */
export function mintedName(raw: unknown, legal = true): string | undefined {
  if (typeof raw !== 'string' || !words(raw)) return undefined;
  const name = raw
    .replace(/\(.*?\)/g, ' ')
    .replace(/&/g, ' and ')
    .toLowerCase()
    .replace(/[,;:/\\'’"!?*()[\]{}|<>=@#$%^~`]+/g, ' ')
    .replace(/\.(?=\s|$)/g, ' ')
    .trim()
    .replace(/\s+/g, '_')
    .replace(/[^a-z0-9_.+-]/g, '')
    .replace(/_+/g, '_')
    .replace(/^[_.+-]+|[_.+-]+$/g, '');
  if (!name || !/[a-z0-9]/.test(name) || PLACEHOLDER.test(name)) return undefined;
  const stripped = legal ? name.replace(/^the_/, '').replace(LEGAL_FORM, '') || name : name;
  return stripped.length <= 100 ? stripped : undefined;
}

/**
 * A product name minted from the CNA's product text under `vendor`: `mintedName` without the
 * vendor's own leading words ("Apache Log4j2" under "Apache Software Foundation" or `apache` →
 * `log4j2`, then without its version → `log4j`) and without a trailing version.
 */
export function mintedProductName(raw: unknown, rawVendor: unknown, vendor: string): string | undefined {
  const name = mintedName(typeof raw === 'string' ? raw.split(/\s[–—-]\s|:\s|\s\(/)[0] : raw, false);
  if (!name) return undefined;
  let product = name;
  const prefixes = unique([mintedName(rawVendor), words(rawVendor)?.replace(LEGAL_SUFFIX, ''), vendor]);
  for (const prefix of prefixes) {
    // Not when a version is all that is left ("OpenPLC_v3").
    if (prefix && product.startsWith(`${prefix}_`) && !/^v?\d/.test(product.slice(prefix.length + 1))) {
      product = product.slice(prefix.length + 1);
      break;
    }
  }
  return withoutVersion(product).at(-1) ?? product;
}

function entries(containers: Cve5Containers | undefined): AffectedEntry[] {
  const affected = containers?.cna?.affected;
  return Array.isArray(affected) ? (affected as AffectedEntry[]) : [];
}

function cpesOf(entry: AffectedEntry): string[] {
  return Array.isArray(entry.cpes) ? entry.cpes.filter((c): c is string => typeof c === 'string') : [];
}

function isProductKey(key: string): boolean {
  return splitVendorKey(key).product !== undefined;
}

/** Vendor and product keys named by a list of CPEs. */
export function keysOfCpes(cpes: Iterable<string>): { vendors: Set<string>; products: Set<string> } {
  const vendors = new Set<string>();
  const products = new Set<string>();
  for (const cpe of cpes) {
    for (const key of vendorKeysOfCpe(cpe)) (isProductKey(key) ? products : vendors).add(key);
  }
  return { vendors, products };
}

/** The CPEs the ADP containers (CISA-ADP's vulnrichment among them) add to a record. */
export function adpCpes(containers: Cve5Containers | undefined): string[] {
  const adp = containers?.adp;
  if (!Array.isArray(adp)) return [];
  const out: string[] = [];
  for (const container of adp as { affected?: unknown }[]) {
    if (!Array.isArray(container?.affected)) continue;
    for (const entry of container.affected as AffectedEntry[]) out.push(...cpesOf(entry));
  }
  return out;
}

/** The CPEs the CNA itself wrote in its `affected[]` entries. */
export function cnaCpes(containers: Cve5Containers | undefined): string[] {
  return entries(containers).flatMap(cpesOf);
}

/** Joins a vendor text and a product text into one lookup key of `AliasTable.products`. */
export const PAIR = '\u241f';

function bump(map: Record<string, AliasEvidence>, text: string, keys: Iterable<string>): void {
  const evidence = (map[text] ??= { records: 0, keys: {} });
  evidence.records++;
  for (const key of keys) evidence.keys[key] = (evidence.keys[key] ?? 0) + 1;
}

/**
 * Learns an alias table from CVE 5 records. Each record with CNA text and CPE keys (ADP and the
 * CNA's own) counts once for each distinct vendor text and (vendor, product) text pair it holds.
 */
export class AliasLearner {
  private readonly table: AliasTable;

  constructor(threshold: Threshold = DEFAULT_THRESHOLD) {
    this.table = { version: 1, threshold, vendorKeys: {}, productKeys: {}, vendors: {}, products: {} };
  }

  /**
   * Adds one record's evidence; returns whether it taught anything. `otherCpes` are CPEs the catalog
   * holds for the same CVE from elsewhere (NVD's configurations); they teach like the ADP's. Measured
   * against CISA-ADP's CPEs this lowers recall (NVD often names another vendor for the same text:
   * SourceCodester's projects under their authors, `oretnom23`, where CISA-ADP writes
   * `sourcecodester`), so the bench leaves it off unless `--nvd-teaches`.
   */
  learn(containers: Cve5Containers | undefined, otherCpes: Iterable<string> = []): boolean {
    const pool = [...adpCpes(containers), ...otherCpes];
    const { vendors, products } = keysOfCpes([...pool, ...cnaCpes(containers)]);
    if (vendors.size === 0) return false;
    for (const key of vendors) this.table.vendorKeys[key] = (this.table.vendorKeys[key] ?? 0) + 1;
    for (const key of products) this.table.productKeys[key] = (this.table.productKeys[key] ?? 0) + 1;
    const taught = entryTeachings(entries(containers), keysOfCpes(pool));
    this.table.learned = (this.table.learned ?? 0) + 1;
    for (const [v, keys] of taught.vendors) bump(this.table.vendors, v, keys);
    for (const [pair, keys] of taught.products) bump(this.table.products, pair, keys);
    // A record that names no vendor teaches what its CNA stands for.
    const cna = entries(containers).some((e) => vendorTextKey(e.vendor)) ? undefined : cnaText(containers);
    if (cna) bump(this.table.vendors, cna, vendors);
    return taught.vendors.size > 0 || cna !== undefined;
  }

  /**
   * Adds the CPE keys of one record known without CNA text (an NVD configuration): they teach no
   * alias, but they are keys the catalog has seen, so a text spelled like one may map to it.
   */
  learnCpes(cpes: Iterable<string>): void {
    const { vendors, products } = keysOfCpes(cpes);
    for (const key of vendors) this.table.vendorKeys[key] = (this.table.vendorKeys[key] ?? 0) + 1;
    for (const key of products) this.table.productKeys[key] = (this.table.productKeys[key] ?? 0) + 1;
  }

  toJSON(): AliasTable {
    return this.table;
  }
}

/** What one learning record teaches: each vendor text and (vendor, product) text pair with its keys. */
interface Teachings {
  vendors: Map<string, Set<string>>;
  products: Map<string, Set<string>>;
}

/** A key's product or vendor name without the punctuation CPE spellings of one name differ by. */
const bare = (name: string) => name.replace(/[-_.]/g, '');

/**
 * Pairs each affected entry with the CPE keys of its own product, so that a record listing many
 * products (Windows, FortiOS and FortiProxy) does not teach every product to every text (issue 30):
 * the entry's own `cpes`; else, when the record holds one (vendor, product) text, every key of the
 * record; else the record's product keys whose name is one of the entry's product spellings (exact,
 * then one a prefix of the other); else, for the one entry left unmatched, the product keys no other
 * entry took. A vendor text is taught the vendors of its entries' keys, or every vendor of the record
 * when it is the record's only vendor text.
 */
function entryTeachings(
  list: AffectedEntry[],
  pool: { vendors: Set<string>; products: Set<string> },
): Teachings {
  const out: Teachings = { vendors: new Map(), products: new Map() };
  const texts = list.flatMap((e) => {
    const v = vendorTextKey(e.vendor) ?? productOnlyText(e);
    return v ? [{ entry: e, v, p: productTextKey(e.product, e.vendor) }] : [];
  });
  if (texts.length === 0) return out;
  const pairOf = (t: { v: string; p: string | undefined }) => (t.p ? `${t.v}${PAIR}${t.p}` : undefined);
  const pairs = new Set(texts.map(pairOf));
  const vendorTexts = new Set(texts.map((t) => t.v));
  const all = { vendors: new Set(pool.vendors), products: new Set(pool.products) };
  for (const t of texts) for (const k of keysOfCpes(cpesOf(t.entry)).vendors) all.vendors.add(k);
  const claimed = new Set<string>();
  const found: { v: string; pair: string | undefined; vendors: Set<string>; products: Set<string> }[] = [];
  const pending: typeof texts = [];
  for (const t of texts) {
    const own = keysOfCpes(cpesOf(t.entry));
    let keys: { vendors: Set<string>; products: Set<string> } | undefined;
    if (own.vendors.size > 0) keys = own;
    else if (pairs.size === 1) keys = all;
    else {
      const matched = matchingProducts(t.entry, pool.products);
      if (matched.size > 0) keys = { vendors: vendorsOf(matched), products: matched };
    }
    if (!keys) {
      pending.push(t);
      continue;
    }
    for (const k of keys.products) claimed.add(k);
    found.push({ v: t.v, pair: pairOf(t), ...keys });
  }
  const pendingPairs = new Set(pending.map(pairOf));
  for (const t of pending) {
    const left = [...pool.products].filter((k) => !claimed.has(k));
    if (pendingPairs.size === 1 && left.length > 0) {
      const products = new Set(left);
      found.push({ v: t.v, pair: pairOf(t), vendors: vendorsOf(products), products });
    } else {
      found.push({
        v: t.v,
        pair: undefined,
        vendors: matchingVendors(t.entry, pool.vendors),
        products: new Set(),
      });
    }
  }
  for (const f of found) {
    const vendors = vendorTexts.size === 1 ? all.vendors : f.vendors;
    if (vendors.size > 0) addAll(out.vendors, f.v, vendors);
    if (f.pair && f.products.size > 0) addAll(out.products, f.pair, f.products);
  }
  return out;
}

function addAll(map: Map<string, Set<string>>, text: string, keys: Iterable<string>): void {
  const set = map.get(text) ?? new Set<string>();
  for (const k of keys) set.add(k);
  map.set(text, set);
}

function vendorsOf(products: Iterable<string>): Set<string> {
  return new Set([...products].map((k) => splitVendorKey(k).vendor));
}

/** The product keys whose product name is a spelling of the entry's product text (exact, else by prefix). */
function matchingProducts(entry: AffectedEntry, products: Set<string>): Set<string> {
  const spellings = productSpellings(entry.product, entry.vendor).map(bare);
  if (spellings.length === 0) return new Set();
  const wanted = new Set(spellings);
  const exact = [...products].filter((k) => wanted.has(bare(splitVendorKey(k).product ?? '')));
  if (exact.length > 0) return new Set(exact);
  const main = bare(productTextKey(entry.product, entry.vendor) ?? '');
  if (main.length < 4) return new Set();
  return new Set(
    [...products].filter((k) => {
      const name = bare(splitVendorKey(k).product ?? '');
      return name.length >= 4 && (name.startsWith(main) || main.startsWith(name));
    }),
  );
}

/** The vendor keys spelled like the entry's vendor text. */
function matchingVendors(entry: AffectedEntry, vendors: Set<string>): Set<string> {
  const wanted = new Set(vendorSpellings(entry.vendor).map(bare));
  return new Set([...vendors].filter((k) => wanted.has(bare(k))));
}

/**
 * The CNA that wrote the record ("@intel"), as a vendor text for the records where it names no
 * vendor: a CNA that is a vendor may write "n/a" for its own products. MITRE, VulDB or WPScan name
 * many vendors and never reach the threshold; Intel (113 of 135 records), VMware, Microsoft do.
 */
function cnaText(containers: Cve5Containers | undefined): string | undefined {
  const meta = containers?.cna?.providerMetadata as { shortName?: unknown } | undefined;
  return typeof meta?.shortName === 'string' && meta.shortName
    ? `@${meta.shortName.toLowerCase()}`
    : undefined;
}

/**
 * The table to ship: the same answers from `mapCnaKeys` under the table's own threshold, without the
 * keys no threshold of it can choose (fewer records than the smallest support, or a smaller share than
 * the smallest). Every text stays, with its record count, so an ambiguous text stays ambiguous and a
 * learned one is not taken for a new one. Learn further from the full table, not from this one.
 */
export function compactTable(table: AliasTable): AliasTable {
  const t = table.threshold;
  const support = Math.min(t.minSupport, t.productMinSupport ?? t.minSupport, CNA_THRESHOLD.minSupport);
  const share = Math.min(t.minShare, t.productMinShare ?? t.minShare, CNA_THRESHOLD.minShare);
  const prune = (map: Record<string, AliasEvidence>) => {
    const out: Record<string, AliasEvidence> = {};
    for (const [text, evidence] of Object.entries(map)) {
      const keys = Object.entries(evidence.keys).filter(
        ([, n]) => n >= support && n / evidence.records >= share,
      );
      out[text] = { records: evidence.records, keys: Object.fromEntries(keys) };
    }
    return out;
  };
  return { ...table, vendors: prune(table.vendors), products: prune(table.products) };
}

/** With a placeholder vendor ("n/a" / "Foo Bar"), the product text stands in for the vendor's. */
function productOnlyText(entry: AffectedEntry): string | undefined {
  if (vendorTextKey(entry.vendor) !== undefined) return undefined;
  const p = productTextKey(entry.product);
  return p ? `?${p}` : undefined;
}

/**
 * `confidentKeys` answers, per evidence object, kind and threshold, as of the evidence's record count
 * (a learner's live evidence grows; keys and records grow together). The CNA rule and the
 * description rule ask about the same texts record after record, some with thousands of keys
 * ("@vuldb"): this was most of the mapper's time.
 */
const confidentCache = new WeakMap<
  AliasEvidence,
  Map<string, { records: number; threshold: Threshold; value: [string, number][] }>
>();

/** The keys a text's evidence supports under the table's threshold, most supported first. */
export function confidentKeys(
  table: AliasTable,
  evidence: AliasEvidence | undefined,
  kind: 'vendor' | 'product' | 'cna' = 'vendor',
): [string, number][] {
  if (!evidence) return [];
  let byKind = confidentCache.get(evidence);
  const cached = byKind?.get(kind);
  if (cached && cached.records === evidence.records && cached.threshold === table.threshold) {
    return cached.value;
  }
  const value = readConfidentKeys(table, evidence, kind);
  if (!byKind) confidentCache.set(evidence, (byKind = new Map()));
  byKind.set(kind, { records: evidence.records, threshold: table.threshold, value });
  return value;
}

function readConfidentKeys(
  table: AliasTable,
  evidence: AliasEvidence,
  kind: 'vendor' | 'product' | 'cna',
): [string, number][] {
  const t = table.threshold;
  if (kind === 'cna') return readConfidentKeys({ ...table, threshold: CNA_THRESHOLD }, evidence, 'vendor');
  const minSupport = kind === 'product' ? (t.productMinSupport ?? t.minSupport) : t.minSupport;
  const minShare = kind === 'product' ? (t.productMinShare ?? t.minShare) : t.minShare;
  return Object.entries(evidence.keys)
    .filter(([, n]) => n >= minSupport && n / evidence.records >= minShare)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

/**
 * Maps one record's CNA container to catalog keys. An entry with its own CPEs gives their keys;
 * otherwise its vendor text gives the keys learned for it, or (when the text was never seen) the
 * key a CPE spells the same way, or (neither, and the text not ambiguous) a key minted from the
 * name; its product text likewise within the chosen vendors.
 */
export function mapCnaKeys(
  table: AliasTable,
  containers: Cve5Containers | undefined,
  /** `mint: false`: no `cna-name` key (the bench's "without minting" rows). */
  options: { mint?: boolean } = {},
): MappedKeys {
  const out: MappedKeys = { vendors: [], products: [], evidence: {} };
  const add = (key: string, evidence: KeyEvidence) => {
    if (out.evidence[key]) return;
    out.evidence[key] = evidence;
    (isProductKey(key) ? out.products : out.vendors).push(key);
  };
  for (const entry of entries(containers)) {
    const cpes = cpesOf(entry);
    const fromCpes = keysOfCpes(cpes);
    if (fromCpes.vendors.size > 0) {
      for (const cpe of cpes) for (const key of vendorKeysOfCpe(cpe)) add(key, { source: 'cpe:cna', cpe });
      continue;
    }
    for (const [key, evidence] of entryTextKeys(table, entry)) {
      if (options.mint === false && evidence.source === 'cna-text' && evidence.rule === 'cna-name') continue;
      add(key, evidence);
    }
  }
  if (out.vendors.length === 0 && !entries(containers).some((e) => vendorTextKey(e.vendor))) {
    const cna = cnaText(containers);
    const learned = cna ? table.vendors[cna] : undefined;
    const chosen = confidentKeys(table, learned, 'cna');
    for (const [key, n] of chosen) {
      add(key, { source: 'cna-text', rule: 'alias', text: cna!, support: n, records: learned!.records });
    }
    if (chosen.length === 0) {
      for (const [key, evidence] of keysFromDescription(table, containers)) add(key, evidence);
    }
  }
  return out;
}

/** What is derived from a table, kept per table object. */
type TableCache<T> = WeakMap<AliasTable, { learned: number; value: T }>;

/** `derive()` for this table, kept as of its `learned` count: a learner's live table changes as it learns. */
function derivedFrom<T>(cache: TableCache<T>, table: AliasTable, derive: () => T): T {
  const learned = table.learned ?? 0;
  const cached = cache.get(table);
  if (cached?.learned === learned) return cached.value;
  const value = derive();
  cache.set(table, { learned, value });
  return value;
}

/**
 * The keys an affected entry without CPEs gives by its vendor and product text, in order. The same
 * pair recurs across a CNA's records: the answer is remembered per table (as of its `learned`
 * count: a learner's live table changes as it learns) and text pair. Its evidence objects are shared
 * by every CVE with the pair: never modified.
 */
function entryTextKeys(table: AliasTable, entry: AffectedEntry): readonly [string, KeyEvidence][] {
  const { vendor, product } = entry;
  // Kept by the pair's text, from which the entry is read back: a text that could not be is not kept.
  if (
    typeof vendor !== 'string' ||
    vendor.includes(PAIR) ||
    (product !== undefined && typeof product !== 'string')
  ) {
    return readEntryTextKeys(table, entry);
  }
  const byText = derivedFrom(entryKeysCache, table, () =>
    memoized(100_000, (lookup: string) => {
      const at = lookup.indexOf(PAIR);
      return at < 0
        ? readEntryTextKeys(table, { vendor: lookup })
        : readEntryTextKeys(table, { vendor: lookup.slice(0, at), product: lookup.slice(at + 1) });
    }),
  );
  return byText(product === undefined ? vendor : `${vendor}${PAIR}${product}`);
}

const entryKeysCache: TableCache<(lookup: string) => readonly [string, KeyEvidence][]> = new WeakMap();

function readEntryTextKeys(table: AliasTable, entry: AffectedEntry): [string, KeyEvidence][] {
  const out: [string, KeyEvidence][] = [];
  const vendorText = typeof entry.vendor === 'string' ? entry.vendor : '';
  const text = vendorTextKey(entry.vendor) ?? productOnlyText(entry);
  if (!text) return out;
  const productText = typeof entry.product === 'string' ? entry.product : '';
  const p = productTextKey(entry.product, entry.vendor);
  const label = `${vendorText} / ${productText}`;
  const learned = p ? table.products[`${text}${PAIR}${p}`] : undefined;
  const vendors = vendorKeysForText(table, text, entry);
  // An ambiguous or unseen vendor text whose (vendor, product) pair confidently gives product keys
  // gives their vendors ("Hewlett Packard Enterprise (HPE)" / "ArubaOS" → `arubanetworks`).
  if (vendors.length === 0 && learned) {
    for (const [key, n] of confidentKeys(table, learned, 'product')) {
      const vendor = splitVendorKey(key).vendor;
      if (vendors.some(([v]) => v === vendor)) continue;
      vendors.push([
        vendor,
        { source: 'cna-text', rule: 'alias', text: label, support: n, records: learned.records },
      ]);
    }
  }
  // A vendor no CPE has named: minted from the name (rule `cna-name`), unless the text is ambiguous.
  if (vendors.length === 0 && !text.startsWith('?') && !isAmbiguous(table, text)) {
    const minted = mintedName(entry.vendor);
    if (minted) vendors.push([minted, { source: 'cna-text', rule: 'cna-name', text: vendorText }]);
  }
  out.push(...vendors);
  if (!p) return out;
  const chosen = confidentKeys(table, learned, 'product').filter(([key]) =>
    vendors.some(([v]) => v === splitVendorKey(key).vendor),
  );
  if (chosen.length > 0 && learned) {
    for (const [key, n] of chosen) {
      out.push([
        key,
        { source: 'cna-text', rule: 'alias', text: label, support: n, records: learned.records },
      ]);
    }
    return out;
  }
  if (learned && learned.records >= table.threshold.minSupport) return out;
  for (const [v] of vendors) {
    const key = productSpellings(entry.product, entry.vendor)
      .map((s) => vendorKey(v, s))
      .find((k) => table.productKeys[k] !== undefined);
    if (key) {
      out.push([key, { source: 'cna-text', rule: 'name', text: label }]);
      continue;
    }
    const spelled = spelledProductKey(table, v, p);
    if (spelled) {
      out.push([spelled, { source: 'cna-text', rule: 'spelling', text: label }]);
      continue;
    }
    const minted = mintedProductName(entry.product, entry.vendor, v);
    if (minted) out.push([vendorKey(v, minted), { source: 'cna-text', rule: 'cna-name', text: label }]);
  }
  return out;
}

/**
 * Whether a vendor text was seen often enough without a confident key to be ambiguous ("Samsung
 * Mobile": `samsung` in 31 of 48 records): such a text mints no key.
 */
function isAmbiguous(table: AliasTable, text: string): boolean {
  const learned = table.vendors[text];
  return (
    !!learned && learned.records >= table.threshold.minSupport && confidentKeys(table, learned).length === 0
  );
}

/** Words of the CNA's title and English description, in order, as CPE-style lower-case tokens. */
function descriptionWords(containers: Cve5Containers | undefined): string[] {
  const cna = containers?.cna;
  const texts: string[] = [];
  if (typeof cna?.title === 'string') texts.push(cna.title);
  if (Array.isArray(cna?.descriptions)) {
    const en = (cna.descriptions as { lang?: unknown; value?: unknown }[]).find(
      (d) => typeof d?.lang === 'string' && d.lang.startsWith('en') && typeof d.value === 'string',
    );
    if (en) texts.push(en.value as string);
  }
  const words: string[] = [];
  const pattern = /[A-Za-z0-9._-]+/g;
  const text = texts.join(' . ');
  for (let m = pattern.exec(text); m && words.length < DESCRIPTION_WORDS; m = pattern.exec(text)) {
    const word = m[0].replace(/^[._-]+|[._-]+$/g, '');
    if (word) words.push(word);
  }
  return words;
}

/** How far into the title and description a vendor's name is looked for. */
const DESCRIPTION_WORDS = 40;

/**
 * When no affected entry names a vendor ("n/a", as most MITRE-assigned records do), the first run of
 * one to three words of the title or description that is a learned vendor text or a CPE vendor's
 * spelling ("… discovered in Y Soft SAFEQ 6" → `ysoft`), and the product that follows it when a CPE
 * named it (see `productFromDescription`). A lower-case word is never taken for a vendor (measured:
 * allowing vendors that 3 or more records named gave 11 right keys of 23).
 */
function keysFromDescription(
  table: AliasTable,
  containers: Cve5Containers | undefined,
): [string, KeyEvidence][] {
  const original = descriptionWords(containers);
  const ws = original.map((w) => w.toLowerCase());
  const runs: string[] = [];
  const runsOf = (from: number, to: number) => {
    for (let k = from; k < to; k++) runs[k] ??= alphanumericRuns(ws[k]!);
    return runs.slice(from, to);
  };
  for (let i = 0; i < ws.length; i++) {
    // A name is capitalized ("Tenda", "D-Link"); "command line" is not the LINE Corporation.
    if (!/^[A-Z0-9]/.test(original[i]!)) continue;
    // "The Foo plugin for WordPress", "… on Linux": the platform, not the vendor.
    if (i > 0 && PLATFORM_MARKERS.has(ws[i - 1]!)) continue;
    for (let n = Math.min(3, ws.length - i); n >= 1; n--) {
      const text = phraseTextKey(runsOf(i, i + n));
      if (!text || !/[a-z]/.test(text)) continue;
      const learned = table.vendors[text];
      const chosen = learned
        ? confidentKeys(table, learned).filter(([k]) => (table.vendorKeys[k] ?? 0) >= DESCRIPTION_MIN_RECORDS)
        : [];
      const vendors =
        chosen.length > 0
          ? [chosen.find(([k]) => k === text)?.[0] ?? chosen[0]![0]]
          : (table.vendorKeys[text] ?? 0) >= DESCRIPTION_MIN_RECORDS && !learned
            ? [text]
            : [];
      if (vendors.length === 0) continue;
      if (PLUGIN_MARKERS.has(ws[i + n] ?? '')) continue;
      const phrase = ws.slice(i, i + n).join(' ');
      const out: [string, KeyEvidence][] = vendors.map((k) => [
        k,
        { source: 'cna-text', rule: 'description', text: phrase },
      ]);
      for (const v of vendors) {
        const product = productFromDescription(table, v, ws.slice(i + n, i + n + 6));
        if (product) {
          out.push([
            product[0],
            { source: 'cna-text', rule: 'description', text: `${phrase} ${product[1]}` },
          ]);
        }
      }
      return out;
    }
  }
  return [];
}

/** A description word's letter and digit runs joined by `_` ("d-link" → `d_link`); words are split on the rest. */
export function alphanumericRuns(word: string): string {
  return word.match(/[a-z0-9]+/g)?.join('_') ?? '';
}

/**
 * `vendorTextKey` of the phrase whose words gave these runs, without its text normalization: a
 * description's words hold only letters, digits, `.`, `_` and `-`, which that normalization turns
 * into single `_` between runs (the one difference: a hyphenated placeholder, "not-applicable", is
 * one here too). Keeps the shared words cache to CNA names (a description's phrases are mostly
 * unique).
 */
export function phraseTextKey(wordRuns: readonly string[]): string | undefined {
  const w = wordRuns.filter(Boolean).join('_');
  if (!w || PLACEHOLDER.test(w)) return undefined;
  // A legal suffix follows a `_`.
  return w.includes('_') ? (w.replace(LEGAL_SUFFIX, '') || w).replace(/_/g, '') : w;
}

// Not "of": "… interface of Tenda AC15" names the vendor (measured: +36 vendor keys, all right).
const PLATFORM_MARKERS = new Set(['for', 'on', 'with', 'via', 'under', 'using', 'running', 'from']);

/** "The Foo WordPress plugin": the plugin's author is the vendor, not WordPress. */
const PLUGIN_MARKERS = new Set([
  'plugin',
  'plugins',
  'theme',
  'themes',
  'extension',
  'addon',
  'add-on',
  'module',
]);

/** A vendor found in running text must have been named by CPEs in this many learning records. */
const DESCRIPTION_MIN_RECORDS = 2;

function vendorKeysForText(table: AliasTable, text: string, entry: AffectedEntry): [string, KeyEvidence][] {
  const label =
    typeof entry.vendor === 'string' && vendorTextKey(entry.vendor) ? entry.vendor : String(entry.product);
  const learned = table.vendors[text];
  const chosen = confidentKeys(table, learned);
  if (chosen.length > 0 && learned) {
    return chosen.map(([key, n]) => [
      key,
      { source: 'cna-text', rule: 'alias', text: label, support: n, records: learned.records },
    ]);
  }
  // Seen often enough without a confident key: the text is ambiguous, so it gives none.
  if (learned && learned.records >= table.threshold.minSupport) return [];
  if (text.startsWith('?')) return [];
  const key = vendorSpellings(entry.vendor).find((s) => table.vendorKeys[s] !== undefined);
  return key ? [[key, { source: 'cna-text', rule: 'name', text: label }]] : [];
}

/** How a vendor's product keys are spelled from the CNA's product text, per learned pairs. */
interface ProductSpelling {
  pairs: number;
  same: number;
}

const spellingCache: TableCache<Map<string, ProductSpelling>> = new WeakMap();

function productSpellingOf(table: AliasTable, vendor: string): ProductSpelling {
  const byVendor = derivedFrom(spellingCache, table, () => {
    const byVendor = new Map<string, ProductSpelling>();
    for (const [pair, evidence] of Object.entries(table.products)) {
      const text = pair.slice(pair.indexOf(PAIR) + 1);
      for (const [key] of confidentKeys(table, evidence, 'product')) {
        const { vendor: v, product } = splitVendorKey(key);
        const s = byVendor.get(v) ?? { pairs: 0, same: 0 };
        s.pairs++;
        if (product === text) s.same++;
        byVendor.set(v, s);
      }
    }
    return byVendor;
  });
  return byVendor.get(vendor) ?? { pairs: 0, same: 0 };
}

/**
 * A vendor's learned pairs needed for the spelling rule: at least 3, and 80 % of them spelled as the
 * text (at 90 %: 112 keys, 84 % right; the 120 more at 80 % are 82 % right).
 */
const SPELLING_MIN_PAIRS = 3;
const SPELLING_MIN_SHARE = 0.8;

/**
 * A product key no CPE has named yet, under a vendor whose learned product keys are mostly
 * the CNA's product text itself ("code-projects" / "Pharmacy Management System" →
 * `code-projects$PRODUCT$pharmacy_management_system`).
 */
function spelledProductKey(table: AliasTable, vendor: string, productText: string): string | undefined {
  const s = productSpellingOf(table, vendor);
  if (s.pairs < SPELLING_MIN_PAIRS || s.same / s.pairs < SPELLING_MIN_SHARE) return undefined;
  return vendorKey(vendor, productText);
}

/** Words that end a product's name in running text: a version, or the sentence going on. */
const PRODUCT_END =
  /^(v?\d[\w.]*|version|before|through|up|prior|and|allows?|via|has|is|was|in|on|for|to|of|contains?|could|may|did|does|when|the|a|an)$/;

/**
 * The product named right after a vendor in running text: the longest run of up to 5 words that a
 * CPE named under that vendor (also as `_firmware`, run together or hyphenated), stopping at a
 * version or the sentence going on ("Tenda AC15 V15.03…" → `tenda$PRODUCT$ac15_firmware`). (Spelling
 * a product no CPE named from these words, as for the CNA's product text, was measured: 8 right keys
 * of 14.)
 */
function productFromDescription(
  table: AliasTable,
  vendor: string,
  ws: string[],
): [string, string] | undefined {
  const end = ws.findIndex((w) => PRODUCT_END.test(w));
  const run = ws.slice(0, end < 0 ? Math.min(ws.length, 5) : Math.min(end, 5));
  for (let n = run.length; n >= 1; n--) {
    const text = run.slice(0, n).join('_');
    const key = [`${text}_firmware`, text, text.replace(/_/g, ''), text.replace(/_/g, '-')]
      .map((p) => vendorKey(vendor, p))
      .find((k) => table.productKeys[k] !== undefined);
    if (key) return [key, run.slice(0, n).join(' ')];
  }
  return undefined;
}
