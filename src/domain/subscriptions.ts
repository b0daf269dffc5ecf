/**
 * A project's subscription set as the API shows it (`{vendors, products: {vendor: [product]}}`) and as
 * it is stored and matched: vendor keys, `vendor` or `vendor$PRODUCT$product`, as on `cve.vendors`.
 */
import { catalogName, splitVendorKey, vendorKey } from './cpe.ts';

export interface SubscriptionSet {
  vendors: string[];
  products: Record<string, string[]>;
}

/** A set as typed, with its names read as the catalog writes them (any case: `Microsoft` is `microsoft`). */
export function normalizeSubscriptions(set: Partial<SubscriptionSet>): Partial<SubscriptionSet> {
  const products: Record<string, string[]> = {};
  for (const [vendor, names] of Object.entries(set.products ?? {}))
    (products[catalogName(vendor)] ??= []).push(...names.map(catalogName));
  return {
    ...(set.vendors ? { vendors: set.vendors.map(catalogName) } : {}),
    ...(set.products ? { products } : {}),
  };
}

/** The vendor keys of a set: sorted, without duplicates. */
export function keysOfSubscriptions(set: Partial<SubscriptionSet>): string[] {
  const keys = new Set<string>(set.vendors ?? []);
  for (const [vendor, products] of Object.entries(set.products ?? {})) {
    for (const product of products) keys.add(vendorKey(vendor, product));
  }
  return [...keys].sort();
}

/** The set of some vendor keys, names sorted; vendors without product subscriptions are not in `products`. */
export function subscriptionsOfKeys(keys: Iterable<string>): SubscriptionSet {
  const vendors: string[] = [];
  const products = new Map<string, string[]>();
  for (const key of keys) {
    const { vendor, product } = splitVendorKey(key);
    if (product === undefined) vendors.push(vendor);
    else products.set(vendor, [...(products.get(vendor) ?? []), product]);
  }
  return {
    vendors: vendors.sort(),
    products: Object.fromEntries(
      [...products.keys()].sort().map((vendor) => [vendor, products.get(vendor)!.sort()]),
    ),
  };
}

/** What turning `before` into `after` adds and removes, each sorted. */
export function diffKeys(
  before: Iterable<string>,
  after: Iterable<string>,
): { added: string[]; removed: string[] } {
  const old = new Set(before);
  const next = new Set(after);
  return {
    added: [...next].filter((k) => !old.has(k)).sort(),
    removed: [...old].filter((k) => !next.has(k)).sort(),
  };
}

/**
 * The validation messages for the keys of `set` the catalog does not know, by body field: one per
 * unknown vendor under `vendors`; under `products` one per unknown vendor of the map, else one per
 * unknown product. The sentences are OpenCVE 3.1's (`Vendor does not exist: 'acme'.`), followed by
 * the nearest known name when there is one.
 */
export function unknownSubscriptionDetails(
  set: Partial<SubscriptionSet>,
  known: ReadonlySet<string>,
  /** The nearest known name of an unknown vendor name or vendor key, when there is one. */
  nearest: ReadonlyMap<string, string> = new Map(),
): Record<string, string[]> {
  const hint = (key: string) => {
    const near = nearest.get(key);
    return near === undefined ? '' : ` Did you mean '${splitVendorKey(near).product ?? near}'?`;
  };
  const details: Record<string, string[]> = {};
  const vendors = [...new Set(set.vendors ?? [])].filter((v) => !known.has(v));
  if (vendors.length) details.vendors = vendors.map((v) => `${noVendor(v)}${hint(v)}`);
  const products: string[] = [];
  for (const [vendor, names] of Object.entries(set.products ?? {})) {
    const missing = [...new Set(names)].filter((p) => !known.has(vendorKey(vendor, p)));
    if (!missing.length) continue;
    if (!known.has(vendor)) products.push(`${noVendor(vendor)}${hint(vendor)}`);
    else
      products.push(
        ...missing.map((p) => `Product does not exist: ${vendor} / '${p}'.${hint(vendorKey(vendor, p))}`),
      );
  }
  if (products.length) details.products = products;
  return details;
}

const noVendor = (vendor: string) => `Vendor does not exist: '${vendor}'.`;
