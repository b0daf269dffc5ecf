/**
 * CPE names: the vendor and product fields of CPE 2.3 formatted strings (`cpe:2.3:a:vendor:product:…`)
 * and CPE 2.2 URIs (`cpe:/a:vendor:product:…`), and the vendor keys the catalog derives from them.
 */
import { memoized } from './memo.ts';

export const PRODUCT_SEPARATOR = '$PRODUCT$';

/** Splits a CPE 2.3 formatted string on the colons that are not escaped with a backslash. */
function splitFormatted(cpe: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < cpe.length; i++) {
    const ch = cpe[i]!;
    if (ch === '\\' && i + 1 < cpe.length) {
      current += ch + cpe[i + 1]!;
      i++;
    } else if (ch === ':') {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

export interface CpeName {
  part: string;
  vendor: string;
  product: string;
  version: string;
}

/** Parses a CPE 2.3 string or 2.2 URI; undefined when it is not one. Values are kept as written. */
export function parseCpe(cpe: string): CpeName | undefined {
  if (cpe.startsWith('cpe:2.3:')) {
    const f = splitFormatted(cpe);
    if (f.length < 6) return undefined;
    return { part: f[2]!, vendor: f[3]!, product: f[4]!, version: f[5]! };
  }
  if (cpe.startsWith('cpe:/')) {
    const f = cpe.slice(5).split(':');
    return {
      part: f[0] ?? '',
      vendor: decodeURIComponentSafe(f[1] ?? ''),
      product: decodeURIComponentSafe(f[2] ?? ''),
      version: f[3] ?? '',
    };
  }
  return undefined;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function meaningful(value: string): boolean {
  return value !== '' && value !== '*' && value !== '-';
}

/**
 * The vendor keys of one CPE: `vendor` and, when the product is named, `vendor$PRODUCT$product`.
 * Remembered per CPE (the same CPEs recur across a catalog's CVEs and each import reads them
 * several times): the array is shared, never to be modified.
 */
export const vendorKeysOfCpe = memoized(50_000, (cpe: string): readonly string[] => {
  const name = parseCpe(cpe);
  if (!name || !meaningful(name.vendor)) return [];
  const vendor = name.vendor.toLowerCase();
  if (!meaningful(name.product)) return [vendor];
  return [vendor, vendorKey(vendor, name.product.toLowerCase())];
});

/**
 * A vendor or product name as a person types it, read as the catalog writes names: lower case,
 * blanks as `_` (`Microsoft` → `microsoft`, `Debian Linux` → `debian_linux`).
 */
export function catalogName(typed: string): string {
  return typed.trim().toLowerCase().replace(/\s+/g, '_');
}

export function vendorKey(vendor: string, product?: string): string {
  return product === undefined ? vendor : `${vendor}${PRODUCT_SEPARATOR}${product}`;
}

/** Splits a vendor key into vendor and (optional) product. */
export function splitVendorKey(key: string): { vendor: string; product?: string } {
  const i = key.indexOf(PRODUCT_SEPARATOR);
  return i < 0
    ? { vendor: key }
    : { vendor: key.slice(0, i), product: key.slice(i + PRODUCT_SEPARATOR.length) };
}

/** A catalog name as people read it: `exchange_server` → `Exchange Server` (only first letters change). */
export function nameLabel(name: string): string {
  return name
    .split('_')
    .filter((w) => w !== '')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

/**
 * A vendor key as people read it: `microsoft$PRODUCT$exchange_server` → `Microsoft / Exchange
 * Server`, `apache` → `Apache`. The one spelling of keys on pages, in messages, in payloads'
 * `display` fields and in the web UI's CSV files; the key itself stays wherever a client reads it.
 */
export function vendorKeyLabel(key: string): string {
  const { vendor, product } = splitVendorKey(key);
  const v = nameLabel(vendor) || vendor;
  return product === undefined ? v : `${v} / ${nameLabel(product) || product}`;
}

/**
 * A vendor key as a person types it, read back as the key: `Microsoft / Exchange Server` →
 * `microsoft$PRODUCT$exchange_server`, `Exchange Server` → `exchange_server`; text holding the
 * separator already is a key, kept as it is.
 */
export function vendorKeyOfLabel(typed: string): string {
  const text = typed.trim();
  if (text.includes(PRODUCT_SEPARATOR)) return text;
  const slash = text.indexOf('/');
  if (slash <= 0) return catalogName(text);
  return vendorKey(catalogName(text.slice(0, slash)), catalogName(text.slice(slash + 1)));
}

/**
 * A CNA's free-text name as a catalog name: lower case, blanks to `_`, only the characters CPE names
 * use. Undefined for placeholders such as "n/a" or "unknown".
 */
export function normalizeName(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const name = raw
    .trim()
    .toLowerCase()
    .replace(/\s+/g, '_')
    .replace(/[^a-z0-9_.\-+]/g, '')
    .replace(/_+/g, '_')
    .replace(/^[_.-]+|[_.-]+$/g, '');
  if (!name || /^(n\/?a|na|unknown|unspecified|none|other|various|multiple)$/.test(name)) return undefined;
  return name;
}

const CORPORATE_SUFFIX =
  /(_(inc|incorporated|corp|corporation|co|company|ltd|limited|llc|gmbh|ag|sa|srl|bv|plc|software_foundation|foundation|group|project|team|org|community|technologies|software|systems))+$/;

/**
 * A CNA vendor name as CPE names it, as far as a rule can tell: corporate suffixes dropped and words
 * run together ("Red Hat" → `redhat`, "PHP Group" → `php`, "Apache Software Foundation" → `apache`,
 * "Palo Alto Networks" → `paloaltonetworks`), which is how the CPE dictionary spells most vendors.
 */
export function normalizeVendorName(raw: string | undefined): string | undefined {
  const name = normalizeName(raw);
  if (!name) return undefined;
  const stripped = name.replace(CORPORATE_SUFFIX, '') || name;
  return stripped.replace(/_/g, '');
}

/** A CNA product name as CPE names it: the vendor's own words dropped from its front ("Red Hat Enterprise Linux 9" → `enterprise_linux_9`). */
export function normalizeProductName(
  raw: string | undefined,
  rawVendor: string | undefined,
): string | undefined {
  const name = normalizeName(raw);
  if (!name) return undefined;
  const vendorWords = normalizeName(rawVendor)?.replace(CORPORATE_SUFFIX, '');
  if (vendorWords && name.startsWith(`${vendorWords}_`) && name.length > vendorWords.length + 1) {
    return name.slice(vendorWords.length + 1);
  }
  return name;
}
