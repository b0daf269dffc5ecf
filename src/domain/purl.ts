/**
 * Package URLs (`pkg:type/namespace/name@version?qualifiers#subpath`, the purl specification) and how
 * one is looked up in a catalog that names products by CPE vendor and product: a purl names a package,
 * not a CPE, so its (vendor, product) pairs are guesses, and a CNA's `packageName` is the direct link.
 */

/**
 * The ecosystems read with their own rules (docs/catalog.md). Any other type (`generic`, `hex`,
 * `conan`, `swift`, …) is read too: its name as a product, its namespace's words as vendors.
 */
export const PURL_TYPES = [
  'maven',
  'npm',
  'pypi',
  'golang',
  'nuget',
  'gem',
  'cargo',
  'composer',
  'github',
  'deb',
  'rpm',
] as const;
export type PurlType = (typeof PURL_TYPES)[number];

export interface Purl {
  /** Lower case; one of PURL_TYPES or any other type the purl specification allows. */
  type: PurlType | (string & {});
  namespace?: string;
  name: string;
  version?: string;
}

export type PurlResult = { ok: true; purl: Purl } | { ok: false; reason: string };

function decode(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** Parses a package URL; a reason a person understands when it is not one we can read. */
export function parsePurl(text: string): PurlResult {
  if (!/^pkg:/i.test(text)) return { ok: false, reason: 'a package URL starts with "pkg:".' };
  let rest = text.slice(4).replace(/^\/+/, '');
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const query = rest.indexOf('?');
  if (query >= 0) rest = rest.slice(0, query);
  let version: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const v = decode(rest.slice(at + 1));
    if (v === undefined) return { ok: false, reason: 'its version is not valid percent-encoding.' };
    version = v;
    rest = rest.slice(0, at);
  }
  const parts = rest.split('/').filter((p) => p !== '');
  if (parts.length < 2)
    return { ok: false, reason: 'a package URL needs a type and a name (pkg:type/name).' };
  const type = parts[0]!.toLowerCase();
  if (!/^[a-z.+-][a-z0-9.+-]*$/.test(type))
    return {
      ok: false,
      reason: `"${type}" is not a package type (letters, digits, ".", "+" and "-", not starting with a digit).`,
    };
  const decoded = parts.slice(1).map(decode);
  if (decoded.some((p) => p === undefined))
    return { ok: false, reason: 'its name is not valid percent-encoding.' };
  const segments = decoded as string[];
  let name = segments[segments.length - 1]!;
  let namespace = segments.length > 1 ? segments.slice(0, -1).join('/') : undefined;
  if (type === 'npm' || type === 'pypi' || type === 'github' || type === 'composer' || type === 'cargo') {
    name = name.toLowerCase();
    namespace = namespace?.toLowerCase();
  }
  if (type === 'pypi') name = name.replace(/[._]+/g, '-');
  if (type === 'maven' && !namespace)
    return { ok: false, reason: 'a Maven package URL names its group (pkg:maven/group/artifact).' };
  const purl: Purl = { type, name };
  if (namespace) purl.namespace = namespace;
  if (version !== undefined && version !== '') purl.version = version;
  return { ok: true, purl };
}

/** Group or host words that never name a vendor (`org.apache.logging` → `apache`, `logging`). */
const NOT_A_VENDOR = new Set([
  'org',
  'com',
  'net',
  'io',
  'de',
  'fr',
  'uk',
  'co',
  'dev',
  'www',
  'github',
  'gitlab',
  'github.com',
  'gitlab.com',
  'golang.org',
  'x',
  'gopkg.in',
  'bitbucket.org',
]);
/** Artifact suffixes that split one product into several packages (`log4j-core` of `log4j`). */
const PRODUCT_SUFFIX = /[-_](core|api|impl|common|commons|java|client|server|all|lib|runtime|parent|bom)$/;

function unique(values: string[]): string[] {
  return [...new Set(values.filter((v) => v !== ''))];
}

function spellings(name: string): string[] {
  const lower = name.toLowerCase();
  return unique([lower, lower.replace(/-/g, '_'), lower.replace(/_/g, '-')]);
}

/**
 * The CPE (vendor, product) pairs a purl may be catalogued under, most likely first: products are the
 * package name (and, for Maven, the artifact without a module suffix and the group's last word);
 * vendors are the namespace's words, the name itself and `<name>_project` (how NVD names most
 * single-package projects). At most 24 pairs.
 */
export function purlCpeNames(purl: Purl): { vendor: string; product: string }[] {
  const name = purl.name.split('/').pop()!;
  const products = [...spellings(name)];
  const ns = purl.namespace ?? '';
  let vendors: string[] = [];
  if (purl.type === 'maven') {
    const group = ns.split('.').filter((w) => !NOT_A_VENDOR.has(w));
    vendors = group;
    const stripped = name.toLowerCase().replace(PRODUCT_SUFFIX, '');
    products.push(...spellings(stripped));
    if (group.length) products.push(group[group.length - 1]!);
  } else if (purl.type === 'deb' || purl.type === 'rpm') {
    vendors = []; // the namespace is the distribution, not the vendor
  } else {
    const words = ns
      .replace(/^@/, '')
      .split('/')
      .filter((w) => !NOT_A_VENDOR.has(w));
    vendors = words.flatMap((w) => [w.toLowerCase(), w.toLowerCase().replace(/-project$/, '')]);
  }
  if (purl.type === 'golang' && ns === '') vendors.push(...name.split('.'));
  vendors.push(...spellings(name), `${name.toLowerCase().replace(/-/g, '_')}_project`);
  const pairs: { vendor: string; product: string }[] = [];
  for (const vendor of unique(vendors))
    for (const product of unique(products)) pairs.push({ vendor, product });
  return pairs.slice(0, 24);
}

/** The `packageName`s a CNA may give the package (CVE 5 `affected[].packageName`), compared case-insensitively. */
export function purlPackageNames(purl: Purl): string[] {
  const ns = purl.namespace;
  const names = [purl.name];
  if (ns) {
    if (purl.type === 'maven') names.push(`${ns}:${purl.name}`, `${ns}/${purl.name}`);
    else if (purl.type !== 'deb' && purl.type !== 'rpm') names.push(`${ns}/${purl.name}`);
  }
  return unique(names.map((n) => n.toLowerCase()));
}

/**
 * Package registries a CNA names in `collectionURL`, by host and path, and the purl type of their
 * packages. Source hosts (GitHub, GitLab) and vendor portals are not registries: they name no
 * ecosystem.
 */
const REGISTRIES: { prefix: string; type: PurlType }[] = [
  { prefix: 'repo.maven.apache.org/maven2', type: 'maven' },
  { prefix: 'repo1.maven.org/maven2', type: 'maven' },
  { prefix: 'central.sonatype.com', type: 'maven' },
  { prefix: 'search.maven.org', type: 'maven' },
  { prefix: 'registry.npmjs.org', type: 'npm' },
  { prefix: 'www.npmjs.com', type: 'npm' },
  { prefix: 'npmjs.com', type: 'npm' },
  { prefix: 'pypi.org', type: 'pypi' },
  { prefix: 'pypi.python.org', type: 'pypi' },
  { prefix: 'rubygems.org', type: 'gem' },
  { prefix: 'crates.io', type: 'cargo' },
  { prefix: 'www.nuget.org', type: 'nuget' },
  { prefix: 'nuget.org', type: 'nuget' },
  { prefix: 'packagist.org', type: 'composer' },
  { prefix: 'pkg.go.dev', type: 'golang' },
  { prefix: 'proxy.golang.org', type: 'golang' },
];

/** The purl type of the package registry a `collectionURL` names; undefined for any other URL. */
export function registryPurlType(collectionURL: string): PurlType | undefined {
  const where = collectionURL
    .trim()
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, '');
  return REGISTRIES.find((r) => where === r.prefix || where.startsWith(`${r.prefix}/`))?.type;
}
