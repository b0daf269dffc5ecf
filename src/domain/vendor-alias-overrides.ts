/**
 * An operator's word over the learned alias table (docs/catalog.md, "Overrides"): an **alias** gives a
 * key to every record whose CNA text reads so, whatever the evidence; a **veto** takes a key away from
 * every record whose CNA text reads so, whichever rule gave it (learned alias, spelling, description).
 * Texts are compared as the learner compares them (`vendorTextKey`, `productTextKey`), so "QNAP
 * Systems Inc." and "QNAP" are one text. CPE-derived keys are never touched. Pure.
 */
import { splitVendorKey } from './cpe.ts';
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

/**
 * `mapCnaKeys` with the operator's overrides applied: vetoed text-derived keys dropped, aliased keys
 * added with the `operator` rule.
 */
export function mapCnaKeysWithOverrides(
  table: AliasTable,
  overrides: readonly AliasOverride[],
  containers: Cve5Containers | undefined,
): MappedKeys {
  const mapped = mapCnaKeys(table, containers);
  if (overrides.length === 0) return mapped;
  const byLookup = new Map<string, AliasOverride[]>();
  for (const o of overrides) {
    const lookup = aliasLookup(o.vendorText, o.productText);
    if (lookup) byLookup.set(lookup, [...(byLookup.get(lookup) ?? []), o]);
  }
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
        if (o.action !== 'add' || mapped.evidence[o.key]) continue;
        dropMinted(mapped, entry, o);
        const text =
          o.productText === undefined ? entry.vendor : `${entry.vendor} / ${String(entry.product)}`;
        mapped.evidence[o.key] = { source: 'cna-text', rule: 'operator', text };
        (splitVendorKey(o.key).product === undefined ? mapped.vendors : mapped.products).push(o.key);
      }
    }
  }
  return mapped;
}

/**
 * An operator's alias stands in for the key the mapper minted from the same text (rule `cna-name`):
 * a vendor alias drops the minted vendor and the products minted under it, a product alias the
 * product minted from the same (vendor, product) text.
 */
function dropMinted(mapped: MappedKeys, entry: AffectedEntry, o: AliasOverride): void {
  const label = `${String(entry.vendor)} / ${String(entry.product)}`;
  const minted = Object.entries(mapped.evidence).filter(
    ([, e]) => e.source === 'cna-text' && e.rule === 'cna-name',
  );
  const drop = new Set<string>();
  if (o.productText === undefined) {
    for (const [key, e] of minted) {
      if (e.source === 'cna-text' && e.text === entry.vendor && splitVendorKey(key).product === undefined)
        drop.add(key);
    }
    for (const [key] of minted) if (drop.has(splitVendorKey(key).vendor)) drop.add(key);
  } else {
    for (const [key, e] of minted) {
      if (e.source === 'cna-text' && e.text === label && splitVendorKey(key).product !== undefined)
        drop.add(key);
    }
  }
  if (drop.size === 0) return;
  for (const key of drop) delete mapped.evidence[key];
  mapped.vendors = mapped.vendors.filter((k) => !drop.has(k));
  mapped.products = mapped.products.filter((k) => !drop.has(k));
}
