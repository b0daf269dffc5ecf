import type { AffectedProduct } from './affected.ts';
import type { NvdConfiguration } from './nvd-configuration.ts';
import { deriveVendorKeys, type TextMapper, type VendorProvenance } from './vendor-provenance.ts';

/**
 * The catalog's model of a CVE: what each provider says about it (a SourceDocument, normalized from
 * its upstream form) and the merged view built from all of them (docs/catalog.md).
 */

/** Who said it. Order of MERGE_ORDER is the priority for single-valued fields. */
export type Provider = 'mitre' | 'vulnrichment' | 'nvd' | 'redhat' | 'enrichment' | 'cisa' | 'first';

export const MERGE_ORDER: readonly Provider[] = [
  'mitre',
  'vulnrichment',
  'nvd',
  'redhat',
  'enrichment',
  'cisa',
  'first',
];

/** KEV: the CISA catalog itself first, then CISA-ADP's copy, then NVD's copy. */
const KEV_ORDER: readonly Provider[] = ['cisa', 'vulnrichment', 'nvd', 'mitre', 'redhat'];

/**
 * Providers of a CVE's record: a CVE enters the catalog once one of them has published it, and its
 * dates are theirs. A KEV entry or an EPSS score about a CVE not yet published is kept and merged in
 * when the record arrives; being listed in KEV is an enrichment, not a modification of the record.
 */
export const RECORD_PROVIDERS: ReadonlySet<Provider> = new Set([
  'mitre',
  'vulnrichment',
  'nvd',
  'redhat',
  'enrichment',
]);

/** Whether these statements include a record's: the CVE is published and in the catalog. */
export function hasRecord(providers: Iterable<Provider>): boolean {
  for (const p of providers) if (RECORD_PROVIDERS.has(p)) return true;
  return false;
}

export const CVSS_METRICS = ['cvssV2_0', 'cvssV3_0', 'cvssV3_1', 'cvssV4_0'] as const;
export type CvssMetric = (typeof CVSS_METRICS)[number];
export const METRIC_KEYS = ['kev', 'ssvc', ...CVSS_METRICS, 'threat_severity'] as const;
export type MetricKey = (typeof METRIC_KEYS)[number];

export interface CvssData {
  score: number;
  vector: string;
}

export interface SsvcData {
  options: Record<string, string>;
  version: string;
}

export interface EpssData {
  score: number;
  percentile?: number;
}

export interface SourceMetrics {
  cvssV2_0?: CvssData;
  cvssV3_0?: CvssData;
  cvssV3_1?: CvssData;
  cvssV4_0?: CvssData;
  kev?: Record<string, unknown>;
  ssvc?: SsvcData;
  threat_severity?: string;
  epss?: EpssData;
}

export interface Reference {
  url: string;
  name?: string;
  tags: string[];
  source?: string;
}

export type { NvdConfiguration } from './nvd-configuration.ts';
export type { AffectedProduct } from './affected.ts';

export type CveState = 'PUBLISHED' | 'REJECTED';

export interface SourceDocument {
  state?: CveState;
  title?: string;
  description?: string;
  /** The description's language tag as the record gives it (`en`, `en-US`…; BCP 47). */
  descriptionLang?: string;
  /** ISO 8601 UTC. */
  created?: string;
  updated?: string;
  metrics: SourceMetrics;
  vendors: string[];
  cpes: string[];
  weaknesses: string[];
  references: Reference[];
  nvdConfigurations?: NvdConfiguration[];
  /**
   * `mitre`: the CNA's `affected[]` entries. `vulnrichment`: only the ADP's entries without CPEs, as
   * text for the alias table (its whole entries are `adpAffected`).
   */
  affected?: AffectedProduct[];
  /** `vulnrichment`: every `affected[]` entry of CISA-ADP's container, as stated (docs/api-v2.md). */
  adpAffected?: AffectedProduct[];
  /** The container's CVE 5.1 `cpeApplicability` (configurations in NVD's layout). */
  cpeApplicability?: NvdConfiguration[];
  /**
   * A CVE 5 statement (`mitre`, `vulnrichment`) that keeps its container's affected entries whole
   * (parser `cve5/4` on). One stored before lacks `platforms`, `packageURL`, `cpeApplicability` and
   * the ADP's entries, so it is not compared for `affected` changes (docs/catalog.md).
   */
  affectedComplete?: true;
  /**
   * The CNA that wrote the record, by its short name (`intel`): a CVE 5 record's CNA statement. A CNA
   * that is a vendor may name itself only there (affected vendor "n/a"); see docs/catalog.md.
   */
  assigner?: string;
}

/** One provider's statement about one CVE, as an importer produces it. */
export interface SourceRecord {
  cveId: string;
  provider: Provider;
  doc: SourceDocument;
  /** The upstream record itself, kept only where the API renders it (NVD, for API v1). */
  raw?: Record<string, unknown>;
  /**
   * A copy of part of the provider's statement (an OpenCVE KB file's `kev` section holds two of the
   * KEV entry's fields): laid over the stored statement (`overlayDocument`) instead of replacing it,
   * so what it does not say keeps the value the provider's own import gave.
   */
  partial?: true;
}

export interface MetricView {
  data: unknown;
  provider: Provider | null;
}

export type MergedMetrics = Record<MetricKey | 'epss', MetricView>;

/** What the API serves for a CVE, built from every provider's document. */
export interface MergedCve {
  cveId: string;
  state: CveState;
  title: string | null;
  description: string | null;
  created: string;
  updated: string;
  metrics: MergedMetrics;
  vendors: string[];
  cpes: string[];
  weaknesses: string[];
  references: Reference[];
  nvdConfigurations: NvdConfiguration[] | null;
  providers: Provider[];
  /** Where each key of `vendors` comes from; absent for a view stored before migration 0032. */
  vendorSources?: VendorProvenance;
}

export function emptyDocument(): SourceDocument {
  return { metrics: {}, vendors: [], cpes: [], weaknesses: [], references: [] };
}

/**
 * `partial` laid over `base`: each field `partial` states replaces `base`'s, each metric object is
 * merged key by key, and a list `partial` leaves empty keeps `base`'s. Pure.
 */
export function overlayDocument(base: SourceDocument, partial: SourceDocument): SourceDocument {
  const doc: SourceDocument = { ...base, metrics: { ...base.metrics } };
  for (const key of ['state', 'title', 'description', 'created', 'updated'] as const) {
    if (partial[key] !== undefined) (doc as unknown as Record<string, unknown>)[key] = partial[key];
  }
  // A description replaced takes its language with it (none stated: none kept).
  if (partial.description !== undefined) {
    if (partial.descriptionLang === undefined) delete doc.descriptionLang;
    else doc.descriptionLang = partial.descriptionLang;
  }
  for (const [key, value] of Object.entries(partial.metrics) as [keyof SourceMetrics, unknown][]) {
    const old = base.metrics[key];
    (doc.metrics as Record<string, unknown>)[key] =
      isPlainObject(old) && isPlainObject(value) ? { ...old, ...value } : value;
  }
  for (const key of ['vendors', 'cpes', 'weaknesses', 'references'] as const) {
    if (partial[key].length) (doc as unknown as Record<string, unknown>)[key] = partial[key];
  }
  if (partial.nvdConfigurations) doc.nvdConfigurations = partial.nvdConfigurations;
  if (partial.affected) doc.affected = partial.affected;
  if (partial.adpAffected) doc.adpAffected = partial.adpAffected;
  if (partial.cpeApplicability) doc.cpeApplicability = partial.cpeApplicability;
  if (partial.affectedComplete) doc.affectedComplete = partial.affectedComplete;
  if (partial.assigner) doc.assigner = partial.assigner;
  return doc;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sortedUnion(lists: Iterable<string[]>): string[] {
  const set = new Set<string>();
  for (const list of lists) for (const v of list) set.add(v);
  return [...set].sort();
}

function firstBy<T>(
  docs: Map<Provider, SourceDocument>,
  order: readonly Provider[],
  pick: (d: SourceDocument) => T | undefined,
): { value: T; provider: Provider } | undefined {
  for (const p of order) {
    const doc = docs.get(p);
    if (!doc) continue;
    const v = pick(doc);
    if (v !== undefined && v !== null && v !== '') return { value: v, provider: p };
  }
  return undefined;
}

function mergeReferences(docs: Map<Provider, SourceDocument>): Reference[] {
  const byUrl = new Map<string, Reference>();
  for (const p of MERGE_ORDER) {
    for (const ref of docs.get(p)?.references ?? []) {
      const known = byUrl.get(ref.url);
      if (!known) {
        byUrl.set(ref.url, { ...ref, tags: [...new Set(ref.tags)].sort() });
      } else {
        known.tags = sortedUnion([known.tags, ref.tags]);
        known.name ??= ref.name;
        known.source ??= ref.source;
      }
    }
  }
  return [...byUrl.values()].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
}

/**
 * Builds the merged view (docs/catalog.md) of one CVE from the documents of its providers. `mapText`
 * maps the CNA's and ADPs' affected text to keys (the alias table); without it, text gives none. Pure.
 */
export function mergeCve(
  cveId: string,
  sources: Map<Provider, SourceDocument>,
  mapText?: TextMapper,
): MergedCve {
  const metric = (key: MetricKey | 'epss', order: readonly Provider[] = MERGE_ORDER): MetricView => {
    const found = firstBy(sources, order, (d) => d.metrics[key]);
    if (found) return { data: found.value, provider: found.provider };
    return { data: key === 'threat_severity' ? null : {}, provider: null };
  };
  // The record's own dates: published first, modified last (CVE record, NVD, the later of them). A
  // KEV listing or an EPSS score enriches a CVE without modifying its record (they show as changes).
  const records = [...sources].filter(([p]) => RECORD_PROVIDERS.has(p)).map(([, d]) => d);
  const dates = (pick: (d: SourceDocument) => string | undefined) =>
    records
      .map(pick)
      .filter((d): d is string => !!d)
      .sort();
  const created = dates((d) => d.created);
  const updated = dates((d) => d.updated ?? d.created);
  // Only for a record without dates (the catalog merges none without a record).
  const fallback = created[0] ?? updated[0] ?? '1970-01-01T00:00:00.000Z';
  const nvd = sources.get('nvd');
  const keys = deriveVendorKeys(
    MERGE_ORDER.filter((p) => sources.has(p)).map((p) => [p, sources.get(p)!] as const),
    mapText,
  );
  return {
    cveId,
    state: firstBy(sources, MERGE_ORDER, (d) => d.state)?.value ?? 'PUBLISHED',
    title: firstBy(sources, MERGE_ORDER, (d) => d.title)?.value ?? null,
    description: firstBy(sources, MERGE_ORDER, (d) => d.description)?.value ?? null,
    created: created[0] ?? fallback,
    updated: updated.at(-1) ?? fallback,
    metrics: {
      kev: metric('kev', KEV_ORDER),
      ssvc: metric('ssvc'),
      cvssV2_0: metric('cvssV2_0'),
      cvssV3_0: metric('cvssV3_0'),
      cvssV3_1: metric('cvssV3_1'),
      cvssV4_0: metric('cvssV4_0'),
      threat_severity: metric('threat_severity'),
      epss: metric('epss'),
    },
    vendors: keys.vendors,
    cpes: sortedUnion([...sources.values()].map((d) => d.cpes)),
    weaknesses: sortedUnion([...sources.values()].map((d) => d.weaknesses)),
    references: mergeReferences(sources),
    nvdConfigurations: nvd?.nvdConfigurations ?? null,
    providers: MERGE_ORDER.filter((p) => sources.has(p)),
    vendorSources: keys.provenance,
  };
}

/** CVSS score of a metric view, or null. */
export function scoreOf(view: MetricView): number | null {
  const data = view.data as { score?: unknown } | null;
  return data && typeof data.score === 'number' ? data.score : null;
}
