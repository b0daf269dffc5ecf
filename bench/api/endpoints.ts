/**
 * The nine endpoints of the issue (and issue 16's three searches), built from the catalog's own vendors, words and ids. Every list
 * endpoint has a hand-written SQL count (not the repository's query) that its `count` must equal.
 */
import type { EndpointParams } from './types.ts';

export interface Endpoint {
  key: string;
  /** As the results table shows it. */
  label: string;
  path: string;
  /** True for paginated lists: the answer's `count` is checked against `countSql`. */
  list: boolean;
}

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
const textArray = (values: string[]) => `ARRAY[${values.map(quote).join(', ')}]::text[]`;

/** The `q` of the issue: three terms, a vendor, a score range and a date. */
export const qOf = (vendor: string) => `vendor=${vendor} AND cvss31>=7 AND created>=2020-01-01`;

/**
 * The searches of issue 16 (OpenCVE users' scripts): a rare word, a piece of a common one, two words
 * as people type them (a vendor and a product), and two common words rarely together (the hard case).
 */
export const SEARCHES = {
  log4j: 'log4j',
  micro: 'micro',
  words: 'microsoft exchange',
  words2: 'linux overflow',
} as const;

/**
 * `search`'s definition, written by hand from the API's documentation: each word is in the id, the
 * title, the description or a vendor or product name, in any case.
 */
const searchCondition = (search: string) =>
  search
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => {
      const p = quote(`%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      return `(cve_id ILIKE ${p} OR title ILIKE ${p} OR description ILIKE ${p}
        OR EXISTS (SELECT 1 FROM unnest(vendors) k WHERE replace(k, '$PRODUCT$', ' ') ILIKE ${p}))`;
    })
    .join(' AND ');

/** Page 5,000 of 20 on 300,000 CVEs; the same depth (a third of the list) on other sizes. */
export const deepPageOf = (rows: number) => Math.max(2, Math.round((5_000 * rows) / 300_000));

export function endpoints(p: EndpointParams): Endpoint[] {
  const org = encodeURIComponent(p.org);
  return [
    { key: 'list', label: '/cves page 1', path: '/api/v2/cves', list: true },
    {
      key: 'deep',
      label: `/cves page ${p.deepPage.toLocaleString('en-US')} of 20`,
      path: `/api/v2/cves?page=${p.deepPage}&page_size=20`,
      list: true,
    },
    {
      key: 'search',
      label: `search=${p.searchWord}`,
      path: `/api/v2/cves?search=${encodeURIComponent(p.searchWord)}`,
      list: true,
    },
    ...Object.entries(SEARCHES).map(([key, search]) => ({
      key,
      label: `search=${search}`,
      path: `/api/v2/cves?search=${encodeURIComponent(search)}`,
      list: true,
    })),
    {
      key: 'vendor',
      label: `vendor=${p.vendor}`,
      path: `/api/v2/cves?vendor=${encodeURIComponent(p.vendor)}`,
      list: true,
    },
    { key: 'critical', label: 'cvss=critical', path: '/api/v2/cves?cvss=critical', list: true },
    { key: 'q', label: `q=${p.q}`, path: `/api/v2/cves?q=${encodeURIComponent(p.q)}`, list: true },
    { key: 'detail', label: `/cves/${p.cveId}`, path: `/api/v2/cves/${p.cveId}`, list: false },
    {
      key: 'project',
      label: `project CVEs (${p.subscriptionKeys.length} subscriptions)`,
      path: `/api/v2/organizations/${org}/projects/${encodeURIComponent(p.project)}/cves`,
      list: true,
    },
    {
      key: 'token',
      label: 'token check (+ org summary)',
      path: `/api/v2/organizations/${org}`,
      list: false,
    },
  ];
}

/** `SELECT count(*)` with each list endpoint's condition, written by hand from the API's documentation. */
export function countSql(p: EndpointParams): Record<string, string> {
  const all = 'SELECT count(*)::int AS n FROM cve';
  const vendor = `vendors @> ${textArray([p.vendor])}`;
  return {
    list: all,
    deep: all,
    search: `${all} WHERE ${searchCondition(p.searchWord)}`,
    ...Object.fromEntries(
      Object.entries(SEARCHES).map(([key, search]) => [key, `${all} WHERE ${searchCondition(search)}`]),
    ),
    vendor: `${all} WHERE ${vendor}`,
    critical: `${all} WHERE cvss31 >= 9 AND cvss31 < 10.01`,
    q: `${all} WHERE ${vendor} AND cvss31 >= 7 AND created_at >= '2020-01-01T00:00:00Z'`,
    project: `${all} WHERE vendors && ${textArray(p.subscriptionKeys)} AND state <> 'REJECTED'`,
  };
}
