/**
 * NVD's legacy JSON 1.1 feed layout (`CVE_Items[]`), which API v1's `raw_nvd_data` serves (seed
 * §2.8): an NVD CVE API 2.0 object converted to it, or an item built from the merged catalog for a
 * CVE NVD has no record of. Pure: no I/O.
 */
import type { NvdConfiguration, Reference } from './cve.ts';
import { toIsoUtc } from './timestamps.ts';

type Json = Record<string, unknown>;

const asObject = (v: unknown): Json | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
const objects = (v: unknown): Json[] =>
  (Array.isArray(v) ? v : []).map(asObject).filter((x): x is Json => !!x);
const strings = (v: unknown): string[] =>
  (Array.isArray(v) ? v : []).filter((x): x is string => typeof x === 'string');

/** What API v1 keeps of NVD's record (`cve_source.raw` of provider `nvd`). */
export interface StoredNvdRecord {
  format: '1.1' | '2.0';
  record: Json;
}

/** The fields of a catalog CVE a 1.1 item can be built from. */
export interface CatalogCveForNvd {
  cve_id: string;
  description: string | null;
  created_at: Date;
  updated_at: Date;
  metrics: Record<string, unknown>;
  weaknesses: string[];
  references: unknown[];
  nvd_configurations: unknown[] | null;
}

/** `2024-03-29T17:15:21.150` → `2024-03-29T17:15Z`: the feeds' minute precision. */
export function toMinuteZ(value: unknown): string | undefined {
  const iso = value instanceof Date ? value.toISOString() : toIsoUtc(value);
  return iso ? `${iso.slice(0, 16)}Z` : undefined;
}

/** Copies `keys` of `from` that are present, in that order (the feeds' key order). */
function pick(from: Json | undefined, keys: readonly string[]): Json {
  const out: Json = {};
  if (!from) return out;
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
}

const CVSS_V3_KEYS = [
  'version',
  'vectorString',
  'attackVector',
  'attackComplexity',
  'privilegesRequired',
  'userInteraction',
  'scope',
  'confidentialityImpact',
  'integrityImpact',
  'availabilityImpact',
  'baseScore',
  'baseSeverity',
] as const;

const CVSS_V2_KEYS = [
  'version',
  'vectorString',
  'accessVector',
  'accessComplexity',
  'authentication',
  'confidentialityImpact',
  'integrityImpact',
  'availabilityImpact',
  'baseScore',
] as const;

const VERSION_BOUNDS = [
  'versionStartIncluding',
  'versionStartExcluding',
  'versionEndIncluding',
  'versionEndExcluding',
] as const;

type Node20 = NvdConfiguration['nodes'][number];

function node11(node: Node20): Json {
  const out: Json = { operator: node.operator === 'AND' ? 'AND' : 'OR' };
  if (node.negate) out.negate = true;
  out.children = [];
  out.cpe_match = (node.cpeMatch ?? []).map((m) => ({
    vulnerable: m.vulnerable === true,
    cpe23Uri: m.criteria,
    ...pick(m as unknown as Json, VERSION_BOUNDS),
    cpe_name: [],
  }));
  return out;
}

/**
 * 2.0 configurations in the 1.1 layout, the inverse of the importer's reading of 1.1: a configuration
 * of one node is that node; one of several nodes (an `AND` of platforms) is a parent node with them
 * as `children`.
 */
export function configurations11(configurations: readonly NvdConfiguration[] | null | undefined): Json {
  const nodes = (configurations ?? []).map((c) => {
    if (c.nodes.length === 1 && c.operator === undefined && !c.negate) return node11(c.nodes[0]!);
    const parent: Json = { operator: c.operator === 'OR' ? 'OR' : 'AND' };
    if (c.negate) parent.negate = true;
    parent.children = c.nodes.map(node11);
    parent.cpe_match = [];
    return parent;
  });
  return { CVE_data_version: '4.0', nodes };
}

function configurationsOf20(value: unknown): NvdConfiguration[] {
  return objects(value).map((c) => {
    const conf: NvdConfiguration = {
      nodes: objects(c.nodes).map((n) => ({
        operator: n.operator === 'AND' ? 'AND' : 'OR',
        negate: n.negate === true,
        cpeMatch: objects(n.cpeMatch).map((m) => ({
          criteria: String(m.criteria ?? ''),
          matchCriteriaId: String(m.matchCriteriaId ?? ''),
          vulnerable: m.vulnerable === true,
          ...(pick(m, VERSION_BOUNDS) as Record<(typeof VERSION_BOUNDS)[number], string>),
        })),
      })),
    };
    if (c.operator === 'AND' || c.operator === 'OR') conf.operator = c.operator;
    if (c.negate === true) conf.negate = true;
    return conf;
  });
}

/** NVD's own assessment of a 2.0 metric list (type Primary), else the first. */
function primary(list: unknown): Json | undefined {
  const items = objects(list);
  return items.find((m) => m.type === 'Primary') ?? items[0];
}

function cveSection(input: {
  id: string;
  assigner: string;
  weaknesses: string[];
  references: Json[];
  descriptions: { lang: string; value: string }[];
}): Json {
  return {
    data_type: 'CVE',
    data_format: 'MITRE',
    data_version: '4.0',
    CVE_data_meta: { ID: input.id, ASSIGNER: input.assigner },
    problemtype: {
      problemtype_data: [{ description: input.weaknesses.map((value) => ({ lang: 'en', value })) }],
    },
    references: { reference_data: input.references },
    description: { description_data: input.descriptions },
  };
}

/**
 * An NVD CVE API 2.0 `cve` object in the JSON 1.1 feed layout, as NVD itself rendered its last 1.1
 * feeds from 2.0 data: one reference entry per 2.0 reference (`name` = URL, `refsource` empty),
 * the Primary CVSS assessments, the English description (prefixed `** REJECT **` for a rejected CVE,
 * as 1.1 marked them), CWE ids of every source (once each).
 */
export function nvd20To11(cve: Json): Json {
  const weaknesses = [
    ...new Set(
      objects(cve.weaknesses).flatMap((w) =>
        objects(w.description)
          .map((d) => d.value)
          .filter((v): v is string => typeof v === 'string'),
      ),
    ),
  ];
  const references = objects(cve.references)
    .filter((r) => typeof r.url === 'string')
    .map((r) => ({ url: r.url, name: r.url, refsource: '', tags: strings(r.tags) }));
  const descriptions = objects(cve.descriptions)
    .filter((d) => d.lang === 'en' && typeof d.value === 'string')
    .map((d) => ({ lang: 'en', value: d.value as string }))
    // 1.1 had no status field: NVD marked a rejected CVE by its description.
    .map((d) =>
      cve.vulnStatus === 'Rejected' && !d.value.startsWith('** REJECT **')
        ? { ...d, value: `** REJECT ** ${d.value}` }
        : d,
    );
  const metrics = asObject(cve.metrics) ?? {};
  const impact: Json = {};
  const v3 = primary(metrics.cvssMetricV31) ?? primary(metrics.cvssMetricV30);
  if (v3) {
    impact.baseMetricV3 = {
      cvssV3: pick(asObject(v3.cvssData), CVSS_V3_KEYS),
      ...pick(v3, ['exploitabilityScore', 'impactScore']),
    };
  }
  const v2 = primary(metrics.cvssMetricV2);
  if (v2) {
    impact.baseMetricV2 = {
      cvssV2: pick(asObject(v2.cvssData), CVSS_V2_KEYS),
      ...(typeof v2.baseSeverity === 'string' ? { severity: v2.baseSeverity } : {}),
      ...pick(v2, [
        'exploitabilityScore',
        'impactScore',
        'acInsufInfo',
        'obtainAllPrivilege',
        'obtainUserPrivilege',
        'obtainOtherPrivilege',
        'userInteractionRequired',
      ]),
    };
  }
  const item: Json = {
    cve: cveSection({
      id: String(cve.id ?? ''),
      assigner: typeof cve.sourceIdentifier === 'string' ? cve.sourceIdentifier : '',
      weaknesses,
      references,
      descriptions,
    }),
    configurations: configurations11(configurationsOf20(cve.configurations)),
    impact,
  };
  const published = toMinuteZ(cve.published);
  const modified = toMinuteZ(cve.lastModified);
  if (published) item.publishedDate = published;
  if (modified) item.lastModifiedDate = modified;
  return item;
}

const V3_NAMES: Record<string, [key: string, values: Record<string, string>]> = {
  AV: ['attackVector', { N: 'NETWORK', A: 'ADJACENT_NETWORK', L: 'LOCAL', P: 'PHYSICAL' }],
  AC: ['attackComplexity', { L: 'LOW', H: 'HIGH' }],
  PR: ['privilegesRequired', { N: 'NONE', L: 'LOW', H: 'HIGH' }],
  UI: ['userInteraction', { N: 'NONE', R: 'REQUIRED' }],
  S: ['scope', { U: 'UNCHANGED', C: 'CHANGED' }],
  C: ['confidentialityImpact', { N: 'NONE', L: 'LOW', H: 'HIGH' }],
  I: ['integrityImpact', { N: 'NONE', L: 'LOW', H: 'HIGH' }],
  A: ['availabilityImpact', { N: 'NONE', L: 'LOW', H: 'HIGH' }],
};

const V2_NAMES: Record<string, [key: string, values: Record<string, string>]> = {
  AV: ['accessVector', { N: 'NETWORK', A: 'ADJACENT_NETWORK', L: 'LOCAL' }],
  AC: ['accessComplexity', { L: 'LOW', M: 'MEDIUM', H: 'HIGH' }],
  Au: ['authentication', { N: 'NONE', S: 'SINGLE', M: 'MULTIPLE' }],
  C: ['confidentialityImpact', { N: 'NONE', P: 'PARTIAL', C: 'COMPLETE' }],
  I: ['integrityImpact', { N: 'NONE', P: 'PARTIAL', C: 'COMPLETE' }],
  A: ['availabilityImpact', { N: 'NONE', P: 'PARTIAL', C: 'COMPLETE' }],
};

/** The named base metrics of a CVSS vector (`AV:N/AC:L/…`); unknown parts are left out. */
function vectorFields(vector: string, names: typeof V3_NAMES): Json {
  const out: Json = {};
  for (const part of vector.split('/')) {
    const [metric, value] = part.split(':');
    const entry = metric !== undefined ? names[metric] : undefined;
    const name = entry && value !== undefined ? entry[1][value] : undefined;
    if (entry && name) out[entry[0]] = name;
  }
  return out;
}

/** CVSS v3 qualitative severity of a base score (CVSS v3.1 specification, table 14). */
export function severityV3(score: number): string {
  if (score === 0) return 'NONE';
  if (score < 4) return 'LOW';
  if (score < 7) return 'MEDIUM';
  if (score < 9) return 'HIGH';
  return 'CRITICAL';
}

/** CVSS v2 severity of a base score, as NVD assigned it. */
export function severityV2(score: number): string {
  return score < 4 ? 'LOW' : score < 7 ? 'MEDIUM' : 'HIGH';
}

function cvssOf(
  metrics: CatalogCveForNvd['metrics'],
  key: string,
): { score: number; vector: string } | undefined {
  const data = asObject(asObject(metrics[key])?.data);
  return typeof data?.score === 'number' && typeof data.vector === 'string'
    ? { score: data.score, vector: data.vector }
    : undefined;
}

/**
 * A 1.1 item built from the merged catalog, for a CVE NVD has no record of: the description,
 * references, weaknesses, CPE configurations, dates and the CVSS v3.x and v2 base metrics named from
 * their vectors. NVD's sub-scores (`exploitabilityScore`, `impactScore`) are not in the catalog and
 * are left out.
 */
export function nvd11FromCatalog(cve: CatalogCveForNvd): Json {
  const references = objects(cve.references as unknown[])
    .filter((r) => typeof r.url === 'string')
    .map((r) => {
      const ref = r as unknown as Reference;
      return { url: ref.url, name: ref.name ?? ref.url, refsource: '', tags: strings(ref.tags) };
    });
  const impact: Json = {};
  const v31 = cvssOf(cve.metrics, 'cvssV3_1');
  const v3 = v31 ?? cvssOf(cve.metrics, 'cvssV3_0');
  if (v3) {
    impact.baseMetricV3 = {
      cvssV3: {
        version: v31 ? '3.1' : '3.0',
        vectorString: v3.vector,
        ...vectorFields(v3.vector, V3_NAMES),
        baseScore: v3.score,
        baseSeverity: severityV3(v3.score),
      },
    };
  }
  const v2 = cvssOf(cve.metrics, 'cvssV2_0');
  if (v2) {
    impact.baseMetricV2 = {
      cvssV2: {
        version: '2.0',
        vectorString: v2.vector,
        ...vectorFields(v2.vector, V2_NAMES),
        baseScore: v2.score,
      },
      severity: severityV2(v2.score),
    };
  }
  return {
    cve: cveSection({
      id: cve.cve_id,
      assigner: '',
      weaknesses: cve.weaknesses,
      references,
      descriptions: cve.description ? [{ lang: 'en', value: cve.description }] : [],
    }),
    configurations: configurations11(cve.nvd_configurations as NvdConfiguration[] | null),
    impact,
    publishedDate: toMinuteZ(cve.created_at),
    lastModifiedDate: toMinuteZ(cve.updated_at),
  };
}

/**
 * `raw_nvd_data` of a CVE: NVD's 1.1 item as it came, a 2.0 record converted, or (no NVD record)
 * an item built from the catalog.
 */
export function rawNvdData(stored: StoredNvdRecord | undefined, cve: CatalogCveForNvd): Json {
  if (stored?.format === '1.1') return stored.record;
  if (stored?.format === '2.0') return nvd20To11(stored.record);
  return nvd11FromCatalog(cve);
}
