/**
 * The catalog's tools (scope `catalog:read`): search CVEs, one CVE merged, vendor and product names
 * with their CVE counts, and the inventory matcher.
 */
import { z } from 'zod';
import { catalogName } from '../domain/cpe.ts';
import { CVE_ORDERINGS, decodeCveCursor, encodeCveCursor, type CveOrdering } from '../domain/cve-list.ts';
import { CVSS_LEVELS } from '../domain/cvss.ts';
import { validationError } from '../domain/errors.ts';
import type { ComponentMatch, MatchRule } from '../domain/inventory-match.ts';
import { cveDetailView, cveListEntry, cveSentence } from './cve-view.ts';
import { COMPONENTS_MAX, PAGE_MAX } from './results.ts';
import { tool } from './tool.ts';

const read = { scope: 'catalog:read', write: false } as const;

export const CveId = z
  .string()
  .regex(/^[Cc][Vv][Ee]-\d{4}-\d{4,}$/, 'a CVE id such as CVE-2021-44228')
  .describe('A CVE id, e.g. CVE-2021-44228.');

/** The list filters `search_cves` and `project_cves` share. */
export const ListFilters = {
  text: z
    .string()
    .max(200)
    .optional()
    .describe(
      'Plain words, each found case-insensitively in the CVE id, title, description or vendor and product names ("log4j", "fortinet fortios").',
    ),
  q: z
    .string()
    .max(1000)
    .optional()
    .describe(
      'The advanced query language: field<op>value terms joined by AND/OR with parentheses. Fields cve, description, title, vendor, product, cwe, cvss31, cvss40, epss, kev, created, updated, project; operators : (contains) = != > >= < <=; dates YYYY-MM-DD or 7d/2w/3m/1y. Example: vendor=fortinet AND cvss31>=9 AND created>30d.',
    ),
  kev: z
    .boolean()
    .optional()
    .describe('true: only CVEs in the CISA KEV catalog (known exploited); false: none of them.'),
  cvss: z.enum(CVSS_LEVELS).optional().describe('CVSS v3.1 severity level (empty: no v3.1 score).'),
  epss_gte: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe('Only CVEs whose EPSS probability is at least this (0 to 1).'),
  ordering: z
    .enum(CVE_ORDERINGS)
    .optional()
    .describe(
      'Sort: -updated_at (default, newest change first), -created_at, -cvss (highest first), -epss, cve_id, …',
    ),
  page_size: z
    .number()
    .int()
    .min(1)
    .max(PAGE_MAX)
    .optional()
    .describe(`CVEs per page, 1 to ${PAGE_MAX} (default 20).`),
  cursor: z.string().max(200).optional().describe('`next_cursor` of the previous page, to read on.'),
};

/** The cursor of a page, or a 400 that says where cursors come from. */
export function cursorOf(text: string | undefined, ordering: CveOrdering) {
  if (text === undefined) return undefined;
  const cursor = decodeCveCursor(text, ordering);
  if (!cursor)
    throw validationError({ cursor: ['not a cursor of this list and ordering: use next_cursor as given'] });
  return cursor;
}

export const nextCursor = (page: { next: Parameters<typeof encodeCveCursor>[0] | undefined }) =>
  page.next ? encodeCveCursor(page.next) : null;

const searchCves = tool({
  name: 'search_cves',
  title: 'Search CVEs',
  description:
    'Search the whole CVE catalog (every CVE, not only the organization’s projects). Give plain words in `text` ' +
    '("log4j", "fortinet ssl vpn") or the query language in `q`, and optionally kev/cvss/epss filters. Returns ' +
    'compact CVEs (best CVSS, KEV, EPSS, vendors) newest first, with `next_cursor` to read on. To see whether ' +
    'the organization is affected, use project_cves instead.',
  requires: read,
  input: {
    ...ListFilters,
    vendor: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Only CVEs of this vendor (catalog name, e.g. "fortinet").'),
    product: z.string().min(1).max(200).optional().describe('Only CVEs of this product (with `vendor`).'),
  },
  async run(args, services, caller) {
    const ordering = args.ordering ?? '-updated_at';
    const size = args.page_size ?? 20;
    const { cursor: _c, page_size: _s, ordering: _o, ...filtersAsked } = args;
    const page = await services.catalog.browseCves(
      {
        search: args.text || undefined,
        vendor: args.vendor === undefined ? undefined : catalogName(args.vendor),
        product: args.product === undefined ? undefined : catalogName(args.product),
        kev: args.kev,
        cvss: args.cvss,
        epssGte: args.epss_gte,
      },
      ordering,
      cursorOf(args.cursor, ordering),
      size,
      JSON.stringify(['mcp:catalog', caller.auth.organizationId, filtersAsked]),
      { q: { text: args.q, organizationId: caller.auth.organizationId } },
    );
    const cves = page.items.map(cveListEntry);
    const total = `${page.count}${page.capped ? '+' : ''}`;
    const summary = cves.length
      ? `${total} CVEs match; ${cves.length} from #${page.position + 1}: ${cves.map((c) => c.cve_id).join(', ')}.`
      : `No CVE matches (${total}).`;
    return {
      summary,
      data: { count: page.count, count_capped: page.capped, cves, next_cursor: nextCursor(page) },
    };
  },
});

const getCve = tool({
  name: 'get_cve',
  title: 'One CVE, merged',
  description:
    'One CVE as vulntrack merges its sources: description, best CVSS with its source (and the other versions), ' +
    'CISA KEV with its dates, EPSS, SSVC, CWEs, vendors and products, affected products and version ranges, ' +
    'references; `history: true` adds its change history (newest first).',
  requires: read,
  input: {
    cve_id: CveId,
    history: z.boolean().optional().describe('Also list the recorded changes of the CVE (the latest 20).'),
  },
  async run(args, services) {
    const cveId = args.cve_id.toUpperCase();
    const view = cveDetailView(await services.catalog.getCve(cveId));
    if (!args.history) return { summary: cveSentence(view), data: view };
    const changes = await services.catalog.listChanges(cveId, { page: 1, pageSize: 20 });
    return {
      summary: `${cveSentence(view)} ${changes.count} recorded changes.`,
      data: {
        ...view,
        history: changes.items.map((c) => ({ at: c.created_at.toISOString(), types: c.types })),
        history_total: changes.count,
      },
    };
  },
});

const listVendorsProducts = tool({
  name: 'list_vendors_products',
  title: 'Vendors and products',
  description:
    'Find vendor and product names as the catalog writes them (lower case, e.g. "fortinet", "apache / log4j"), ' +
    'with their CVE counts: the names search_cves `vendor`/`product`, the query language and subscriptions use. ' +
    'Give `search` (a piece of the name); give `vendor` to list that vendor’s products.',
  requires: read,
  input: {
    search: z.string().max(200).optional().describe('A piece of the name, any case.'),
    vendor: z.string().min(1).max(200).optional().describe('List the products of this vendor.'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(PAGE_MAX)
      .optional()
      .describe(`At most this many (default 20, at most ${PAGE_MAX}).`),
    after: z
      .string()
      .max(200)
      .optional()
      .describe('Continue after this name (the last one of the previous answer).'),
  },
  async run(args, services) {
    const limit = args.limit ?? 20;
    const search = args.search?.trim() || undefined;
    if (args.vendor !== undefined) {
      const { vendor, cveCount, products } = await services.catalog.browseProducts(
        catalogName(args.vendor),
        search,
        args.after,
        limit + 1,
      );
      const shown = products.slice(0, limit).map((p) => ({ product: p.name, cves: p.cve_count }));
      return {
        summary: `${vendor.name}: ${cveCount} CVEs; ${shown.length} products${products.length > limit ? ' (more after the last)' : ''}.`,
        data: { vendor: vendor.name, cves: cveCount, products: shown, more: products.length > limit },
      };
    }
    const vendors = await services.catalog.browseVendors(search, args.after, limit + 1);
    const shown = vendors
      .slice(0, limit)
      .map((v) => ({ vendor: v.name, products: v.product_count, cves: v.cve_count }));
    // Products whose names start with the words (any vendor): "log4j" is a product of apache.
    const products =
      search && args.after === undefined
        ? (await services.catalog.subscriptionCandidates(search, 10))
            .filter((c) => c.product !== undefined)
            .map((c) => ({ vendor: c.vendor, product: c.product, cves: c.cveCount }))
        : [];
    return {
      summary:
        `${shown.length} vendors${vendors.length > limit ? ' (more after the last)' : ''}` +
        (products.length ? ` and ${products.length} products named so` : '') +
        (search ? ` for "${search}"` : '') +
        '.',
      data: { vendors: shown, more: vendors.length > limit, products },
    };
  },
});

const Component = z.union([
  z
    .string()
    .min(1)
    .max(1000)
    .describe('A CPE 2.3 name or a package URL (pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1).'),
  z
    .object({
      vendor: z.string().min(1).max(200),
      product: z.string().min(1).max(200),
      version: z.string().min(1).max(200).optional(),
    })
    .describe('A product by vendor, product and version.'),
]);

const ruleView = (rule: MatchRule) =>
  rule.source === 'nvd'
    ? { by: 'nvd', criteria: rule.criteria, bounds: rule.bounds, conditions: rule.conditions }
    : {
        by: 'cna',
        vendor: rule.vendor,
        product: rule.product ?? rule.packageName,
        version: rule.version,
        ...(rule.change ? { change: rule.change } : {}),
        decided_by: rule.decidedBy,
      };

const componentView = (m: ComponentMatch) =>
  m.ok
    ? {
        input: m.input,
        cves: m.cves.map((c) => ({ cve_id: c.cveId, verdict: c.verdict, rules: c.rules.map(ruleView) })),
      }
    : { input: m.input, error: m.reason };

const matchComponents = tool({
  name: 'match_components',
  title: 'Match an inventory',
  description:
    `Which CVEs affect each component of an inventory at its version (1 to ${COMPONENTS_MAX} components): CPE ` +
    'names, package URLs or {vendor, product, version}. Each CVE comes with the rule that says so: NVD’s CPE ' +
    'configuration (version bounds) or the CNA’s affected version range. Without a version, CVEs of the product ' +
    'are listed with verdict version_unknown.',
  requires: read,
  input: {
    components: z.array(Component).min(1).max(COMPONENTS_MAX).describe('The components, in any order.'),
  },
  async run(args, services) {
    const answers = (await services.inventoryMatch.match(args.components)).map(componentView);
    const lines = answers.map((a) => {
      const name = typeof a.input === 'string' ? a.input : JSON.stringify(a.input);
      return 'error' in a ? `${name}: ${a.error}` : `${name}: ${a.cves.length} CVEs`;
    });
    return { summary: lines.join('; '), data: { components: answers } };
  },
});

export const CATALOG_TOOLS = [searchCves, getCve, listVendorsProducts, matchComponents];
