/** Response shapes of API v1's legacy array shape (seed §2.8), as OpenCVE 1.x answered. */
import type { CveRow } from '../../../db/schema.ts';
import { splitVendorKey } from '../../../domain/cpe.ts';
import { toSecondsZ } from '../../../domain/timestamps.ts';

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
  created_at: Date;
  updated_at: Date;
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

export const cveDetail = (row: CveRow, rawNvdData: Record<string, unknown>) => ({
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

export const productSubscription = (vendor: string, name: string) => ({
  ...product({ name }),
  parent_vendor: vendor,
});
