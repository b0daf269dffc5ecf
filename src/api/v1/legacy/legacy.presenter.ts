/** Response shapes of API v1's legacy array shape (docs/api-v1.md), as OpenCVE 1.x answered. */
import type { CatalogCve } from '../../../domain/cve-facts.ts';
import { splitVendorKey } from '../../../domain/cpe.ts';
import { toMicrosZ, toSecondsZ } from '../../../domain/timestamps.ts';

/** OpenCVE's `humanize`: `internet_explorer` → `Internet Explorer`. */
export function humanName(name: string): string {
  return name
    .split('_')
    .map((w) => (w ? w[0]!.toUpperCase() + w.slice(1).toLowerCase() : w))
    .join(' ');
}

export const cveSummary = (row: {
  cve_id: string;
  description: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}) => ({
  id: row.cve_id,
  summary: row.description ?? '',
  created_at: toSecondsZ(row.created_at),
  updated_at: toSecondsZ(row.updated_at),
});

/** A CVE's vendor keys as `{vendor: [products]}` (a vendor without named products: `[]`). */
function vendorsOf(keys: readonly string[]): Record<string, string[]> {
  const vendors: Record<string, string[]> = {};
  for (const key of [...keys].sort()) {
    const { vendor, product } = splitVendorKey(key);
    const products = (vendors[vendor] ??= []);
    if (product !== undefined && !products.includes(product)) products.push(product);
  }
  return vendors;
}

export const cveDetail = (row: CatalogCve, rawNvdData: Record<string, unknown>) => ({
  ...cveSummary(row),
  cvss: { v2: row.cvss20, v3: row.cvss31 ?? row.cvss30 },
  vendors: vendorsOf(row.vendors),
  cwes: row.weaknesses,
  raw_nvd_data: rawNvdData,
});

export const cwe = (row: { cwe_id: string; name: string | null; description: string | null }) => ({
  id: row.cwe_id,
  name: row.name ?? '',
  description: row.description ?? '',
});

export const product = (row: { name: string }) => ({ name: row.name, human_name: humanName(row.name) });

/** A vendor of `/api/vendors` (OpenCVE 1.5: with its id as `vendor_id`). */
export const vendorItem = (row: { id: string; name: string }) => ({
  name: row.name,
  human_name: humanName(row.name),
  vendor_id: row.id,
});

/** A product of `/api/products`, with its vendor. */
export const vendorProduct = (row: { name: string; vendor_name: string }) => ({
  ...product(row),
  vendor_name: row.vendor_name,
  vendor_human_name: humanName(row.vendor_name),
});

export const productSubscription = (vendor: string, name: string) => ({
  ...product({ name }),
  parent_vendor: vendor,
});

const nameOfKey = (key: string) => {
  const { vendor, product } = splitVendorKey(key);
  return product ?? vendor;
};

/** A report list item: its link as `id`, and the vendor and product names its CVEs matched. */
export const reportItem = (report: { link: string; created_at: Date }, keys: readonly string[]) => ({
  id: report.link,
  created_at: toMicrosZ(report.created_at),
  details: [...new Set(keys.map(nameOfKey))],
});

/** An alert list item: one CVE of a report, the vendors and products that matched, the v1 event types. */
export const alertItem = (alert: {
  item: { id: string; created_at: Date; cve_id: string; matched_keys: string[] };
  filters: string[];
}) => {
  const parts = alert.item.matched_keys.map((k) => splitVendorKey(k));
  return {
    id: alert.item.id,
    created_at: toMicrosZ(alert.item.created_at),
    cve: alert.item.cve_id,
    details: {
      products: [...new Set(parts.flatMap((p) => (p.product ? [p.product] : [])))],
      vendors: [...new Set(parts.map((p) => p.vendor))],
      filters: alert.filters,
    },
  };
};
