/**
 * An operator's word over the learned alias table (docs/catalog.md, "Overrides"): an **alias** gives a
 * key to every record whose CNA text reads so, whatever the evidence; a **veto** takes a key away from
 * every record whose CNA text reads so, whichever rule gave it (learned alias, spelling, description).
 * Texts are compared as the learner compares them (`vendorTextKey`, `productTextKey`), so "QNAP
 * Systems Inc." and "QNAP" are one text. CPE-derived keys are never touched. Pure.
 */
import { splitVendorKey, vendorKey } from './cpe.ts';
import {
  mapCnaKeys,
  PAIR,
  productTextKey,
  vendorTextKey,
  type AffectedEntry,
  type AliasTable,
  type Cve5Containers,
  type MappedKeys,
} from './vendor-aliases.ts';

export type OverrideAction = 'add' | 'veto';

export interface AliasOverride {
  /** The CNA vendor text as the operator wrote it ("Palo Alto Networks"). */
  vendorText: string;
  /** The CNA product text, for a product key; absent for a vendor key. */
  productText?: string | undefined;
  /** `vendor` for a vendor text, `vendor$PRODUCT$product` for a (vendor, product) text. */
  key: string;
  action: OverrideAction;
}

/**
 * The normalized text an override is about: the vendor text's lookup key, or the (vendor, product)
 * pair's. Undefined when the text normalizes to nothing (a placeholder such as "n/a").
 */
export function aliasLookup(vendorText: string, productText?: string): string | undefined {
  const vendor = vendorTextKey(vendorText);
  if (!vendor) return undefined;
  if (productText === undefined) return vendor;
  const product = productTextKey(productText, vendorText);
  return product ? `${vendor}${PAIR}${product}` : undefined;
}

/** A CPE-spelled name: lower case, digits and `_ . - + ~ !` (what CPE 2.3 product and vendor fields hold). */
const CPE_NAME = /^[a-z0-9][a-z0-9_.\-+~!]{0,199}$/;

/** Whether `key` is a well-formed catalog key: `vendor` or `vendor$PRODUCT$product`. */
export function isCatalogKey(key: string): boolean {
  const { vendor, product } = splitVendorKey(key);
  return CPE_NAME.test(vendor) && (product === undefined || CPE_NAME.test(product));
}

/** Why an override is not well formed, as a sentence, or undefined when it is. */
export function overrideProblem(override: AliasOverride): string | undefined {
  if (aliasLookup(override.vendorText, override.productText) === undefined) {
    return override.productText === undefined
      ? `The vendor text "${override.vendorText}" is a placeholder or empty: it names no vendor.`
      : `"${override.vendorText} / ${override.productText}" is a placeholder or empty: it names no product.`;
  }
  if (!isCatalogKey(override.key)) {
    return `"${override.key}" is not a catalog key: write a vendor (apache) or vendor$PRODUCT$product (apache$PRODUCT$log4j), lower case.`;
  }
  const isProduct = splitVendorKey(override.key).product !== undefined;
  if (override.productText === undefined && isProduct) {
    return `"${override.key}" is a product key: give the product text too, or a vendor key for a vendor text.`;
  }
  if (override.productText !== undefined && !isProduct) {
    return `"${override.key}" is a vendor key: a (vendor, product) text maps to a vendor$PRODUCT$product key.`;
  }
  return undefined;
}

function affectedEntries(containers: Cve5Containers | undefined): AffectedEntry[] {
  const affected = containers?.cna?.affected;
  return Array.isArray(affected) ? (affected as AffectedEntry[]) : [];
}

/** The lookups of a text-derived key's evidence label ("Vendor" or "Vendor / Product"). */
function labelLookups(label: string): string[] {
  const out = [vendorTextKey(label)];
  const at = label.indexOf(' / ');
  if (at > 0) out.push(aliasLookup(label.slice(0, at), label.slice(at + 3)));
  return out.filter((l): l is string => l !== undefined);
}

const lookupIndexes = new WeakMap<readonly AliasOverride[], ReadonlyMap<string, AliasOverride[]>>();

/**
 * The overrides by the lookup of their text, built once per list: a mapper maps record after record
 * with the same list, and the catalog's own key merges make it thousands long (2,845 on the
 * benchmark catalog: rebuilt per record, 2 s of a 5,000-component inventory upload).
 */
function overridesByLookup(overrides: readonly AliasOverride[]): ReadonlyMap<string, AliasOverride[]> {
  let index = lookupIndexes.get(overrides);
  if (index) return index;
  const built = new Map<string, AliasOverride[]>();
  for (const o of overrides) {
    const lookup = aliasLookup(o.vendorText, o.productText);
    if (!lookup) continue;
    const list = built.get(lookup);
    if (list) list.push(o);
    else built.set(lookup, [o]);
  }
  lookupIndexes.set(overrides, (index = built));
  return index;
}

/** How a table maps CNA text before the overrides (`mapCnaKeys`). */
export type TableMapping = (table: AliasTable, containers: Cve5Containers | undefined) => MappedKeys;

/**
 * `mapCnaKeys` (or `mapTable`) with the operator's overrides applied: vetoed text-derived keys dropped,
 * aliased keys added with the `operator` rule. An alias also supersedes the key minted from the same
 * text (rule `cna-name`: the key the catalog made up when it knew none), and a minted product key under
 * a superseded minted vendor moves under the alias's vendor (docs/catalog.md, "Merging minted keys").
 */
export function mapCnaKeysWithOverrides(
  table: AliasTable,
  overrides: readonly AliasOverride[],
  containers: Cve5Containers | undefined,
  mapTable: TableMapping = mapCnaKeys,
): MappedKeys {
  const mapped = mapTable(table, containers);
  if (overrides.length === 0) return mapped;
  const byLookup = overridesByLookup(overrides);
  const vetoed = (key: string, lookups: string[]) =>
    lookups.some((l) => byLookup.get(l)?.some((o) => o.action === 'veto' && o.key === key));
  for (const [key, evidence] of Object.entries(mapped.evidence)) {
    if (evidence.source !== 'cna-text' || !vetoed(key, labelLookups(evidence.text))) continue;
    delete mapped.evidence[key];
    mapped.vendors = mapped.vendors.filter((k) => k !== key);
    mapped.products = mapped.products.filter((k) => k !== key);
  }
  for (const entry of affectedEntries(containers)) {
    if (typeof entry.vendor !== 'string') continue;
    const lookups = [aliasLookup(entry.vendor)];
    if (typeof entry.product === 'string') lookups.push(aliasLookup(entry.vendor, entry.product));
    for (const lookup of lookups) {
      for (const o of (lookup && byLookup.get(lookup)) || []) {
        // A key minted from the same name becomes the operator's (an alias to the minted spelling).
        const known = mapped.evidence[o.key];
        if (o.action !== 'add' || (known && !(known.source === 'cna-text' && known.rule === 'cna-name')))
          continue;
        const text =
          o.productText === undefined ? entry.vendor : `${entry.vendor} / ${String(entry.product)}`;
        mapped.evidence[o.key] = { source: 'cna-text', rule: 'operator', text };
        if (!known)
          (splitVendorKey(o.key).product === undefined ? mapped.vendors : mapped.products).push(o.key);
      }
    }
  }
  supersedeMintedKeys(mapped, byLookup);
  return mapped;
}

/** Drops the minted keys whose text an alias maps at the same level; rebases their minted products. */
function supersedeMintedKeys(mapped: MappedKeys, byLookup: ReadonlyMap<string, AliasOverride[]>): void {
  const aliasOf = (key: string, text: string): string | undefined => {
    const isProduct = splitVendorKey(key).product !== undefined;
    const at = text.indexOf(' / ');
    const vendorText = at < 0 ? text : text.slice(0, at);
    const lookup = isProduct
      ? at >= 0 && aliasLookup(vendorText, text.slice(at + 3))
      : aliasLookup(vendorText);
    if (!lookup) return undefined;
    return byLookup
      .get(lookup)
      ?.find((o) => o.action === 'add' && (splitVendorKey(o.key).product !== undefined) === isProduct)?.key;
  };
  const vendorMoves = new Map<string, string>();
  for (const key of mapped.vendors) {
    const evidence = mapped.evidence[key];
    if (evidence?.source !== 'cna-text' || evidence.rule !== 'cna-name') continue;
    const alias = aliasOf(key, evidence.text);
    if (alias) vendorMoves.set(key, alias);
  }
  const drop = new Set(vendorMoves.keys());
  const added: string[] = [];
  for (const key of mapped.products) {
    const evidence = mapped.evidence[key];
    if (evidence?.source !== 'cna-text' || evidence.rule !== 'cna-name') continue;
    if (aliasOf(key, evidence.text)) {
      drop.add(key);
      continue;
    }
    const { vendor, product } = splitVendorKey(key);
    const moved = vendorMoves.get(vendor);
    if (!moved || product === undefined) continue;
    drop.add(key);
    const rebased = vendorKey(moved, product);
    if (mapped.evidence[rebased]) continue;
    mapped.evidence[rebased] = evidence;
    added.push(rebased);
  }
  if (!drop.size) return;
  for (const key of drop) delete mapped.evidence[key];
  mapped.vendors = mapped.vendors.filter((k) => !drop.has(k));
  mapped.products = [...mapped.products.filter((k) => !drop.has(k)), ...added];
}
