/**
 * NVD records in both of NVD's layouts: the CVE API 2.0 `cve` object and the legacy JSON 1.1 feed
 * item. Both become one `nvd` statement; 1.1 configurations are converted to the 2.0 layout, and the
 * upstream record is kept as it came (API v1 renders `raw_nvd_data` from it).
 */
import { vendorKeysOfCpe } from '../../domain/cpe.ts';
import { isCveId } from '../../domain/cve-id.ts';
import {
  emptyDocument,
  type CvssData,
  type NvdConfiguration,
  type Reference,
  type SourceDocument,
  type SourceRecord,
} from '../../domain/cve.ts';
import { toIsoUtc, toSecondsZ } from '../../domain/timestamps.ts';
import { RecordError } from '../source.ts';
import { preferredText } from '../language.ts';

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const objects = (v: unknown): Json[] =>
  asArray(v)
    .map(asObject)
    .filter((x): x is Json => !!x);

function finishDocument(doc: SourceDocument): SourceDocument {
  const vendors = new Set<string>();
  for (const c of doc.cpes) vendorKeysOfCpe(c).forEach((k) => vendors.add(k));
  doc.vendors = [...vendors].sort();
  doc.cpes = [...new Set(doc.cpes)].sort();
  doc.weaknesses = [...new Set(doc.weaknesses)].sort();
  doc.references.sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  return doc;
}

/** The metric of a 2.0 list to use: NVD's own (Primary) assessment, else the first one. */
function pickCvss(list: unknown): CvssData | undefined {
  const items = objects(list);
  const chosen = items.find((m) => m.type === 'Primary') ?? items[0];
  const data = asObject(chosen?.cvssData);
  if (typeof data?.baseScore !== 'number' || typeof data.vectorString !== 'string') return undefined;
  return { score: data.baseScore, vector: data.vectorString };
}

type CpeMatch = NvdConfiguration['nodes'][number]['cpeMatch'][number];

/** The version bounds of a CPE match, the same four fields in both NVD layouts. */
function copyVersionRange(from: Json, to: CpeMatch): void {
  for (const k of [
    'versionStartIncluding',
    'versionStartExcluding',
    'versionEndIncluding',
    'versionEndExcluding',
  ] as const) {
    if (typeof from[k] === 'string') to[k] = from[k];
  }
}

/** An NVD CVE API 2.0 `cve` object as the `nvd` statement. Throws RecordError when it is not one. */
export function parseNvd20(value: unknown): SourceRecord {
  const cve = asObject(value);
  const cveId = cve?.id;
  if (!cve) throw new RecordError('not an NVD CVE object');
  if (!isCveId(cveId)) throw new RecordError(`invalid CVE id ${JSON.stringify(cveId)}`);
  const doc = emptyDocument();
  if (cve.vulnStatus === 'Rejected') doc.state = 'REJECTED';
  const description = preferredText(cve.descriptions);
  if (description) {
    doc.description = description.value;
    if (description.lang) doc.descriptionLang = description.lang;
  }
  const created = toIsoUtc(cve.published);
  const updated = toIsoUtc(cve.lastModified);
  if (created) doc.created = created;
  if (updated) doc.updated = updated;
  const metrics = asObject(cve.metrics) ?? {};
  const keys = [
    ['cvssMetricV2', 'cvssV2_0'],
    ['cvssMetricV30', 'cvssV3_0'],
    ['cvssMetricV31', 'cvssV3_1'],
    ['cvssMetricV40', 'cvssV4_0'],
  ] as const;
  for (const [from, to] of keys) {
    const m = pickCvss(metrics[from]);
    if (m) doc.metrics[to] = m;
  }
  // NVD's copy of the KEV entry (used when the KEV catalog itself has not been imported).
  const kevAdded = toIsoUtc(cve.cisaExploitAdd);
  if (kevAdded) {
    const kev: Record<string, unknown> = { dateAdded: toSecondsZ(kevAdded) };
    const due = toIsoUtc(cve.cisaActionDue);
    if (due) kev.dueDate = toSecondsZ(due);
    if (typeof cve.cisaRequiredAction === 'string') kev.requiredAction = cve.cisaRequiredAction;
    if (typeof cve.cisaVulnerabilityName === 'string') kev.vulnerabilityName = cve.cisaVulnerabilityName;
    doc.metrics.kev = kev;
  }
  for (const w of objects(cve.weaknesses)) {
    for (const d of objects(w.description)) if (typeof d.value === 'string') doc.weaknesses.push(d.value);
  }
  const configurations: NvdConfiguration[] = [];
  for (const conf of objects(cve.configurations)) {
    const nodes = objects(conf.nodes).map((node) => ({
      operator: node.operator === 'AND' ? ('AND' as const) : ('OR' as const),
      negate: node.negate === true,
      cpeMatch: objects(node.cpeMatch).map((m) => {
        const match: CpeMatch = {
          criteria: String(m.criteria ?? ''),
          matchCriteriaId: String(m.matchCriteriaId ?? ''),
          vulnerable: m.vulnerable === true,
        };
        copyVersionRange(m, match);
        if (match.criteria) doc.cpes.push(match.criteria);
        return match;
      }),
    }));
    const c: NvdConfiguration = { nodes };
    if (conf.operator === 'AND' || conf.operator === 'OR') c.operator = conf.operator;
    if (typeof conf.negate === 'boolean') c.negate = conf.negate;
    configurations.push(c);
  }
  if (configurations.length) doc.nvdConfigurations = configurations;
  doc.references = objects(cve.references)
    .filter((r) => typeof r.url === 'string')
    .map((r) => {
      const ref: Reference = {
        url: String(r.url),
        tags: asArray(r.tags).filter((t): t is string => typeof t === 'string'),
      };
      if (typeof r.source === 'string') ref.source = r.source;
      return ref;
    });
  return { cveId, provider: 'nvd', doc: finishDocument(doc), raw: { format: '2.0', record: cve } };
}

type Node11 = Json & { operator?: string; negate?: boolean; children?: unknown; cpe_match?: unknown };

function convertNode11(node: Node11, cpes: string[]): NvdConfiguration['nodes'][number] {
  return {
    operator: node.operator === 'AND' ? 'AND' : 'OR',
    negate: node.negate === true,
    cpeMatch: objects(node.cpe_match).map((m) => {
      const criteria = String(m.cpe23Uri ?? '');
      if (criteria) cpes.push(criteria);
      const match: CpeMatch = {
        criteria,
        matchCriteriaId: '',
        vulnerable: m.vulnerable === true,
      };
      copyVersionRange(m, match);
      return match;
    }),
  };
}

/** A JSON 1.1 feed item (`CVE_Items[]`) as the `nvd` statement. Throws RecordError when it is not one. */
export function parseNvd11(value: unknown): SourceRecord {
  const item = asObject(value);
  const cve = asObject(item?.cve);
  const cveId = asObject(cve?.CVE_data_meta)?.ID;
  if (!item || !cve) throw new RecordError('not an NVD 1.1 feed item');
  if (!isCveId(cveId)) throw new RecordError(`invalid CVE id ${JSON.stringify(cveId)}`);
  const doc = emptyDocument();
  const description = preferredText(asObject(cve.description)?.description_data);
  if (description) {
    doc.description = description.value;
    if (description.lang) doc.descriptionLang = description.lang;
    if (description.value.startsWith('** REJECT **')) doc.state = 'REJECTED';
  }
  const created = toIsoUtc(item.publishedDate);
  const updated = toIsoUtc(item.lastModifiedDate);
  if (created) doc.created = created;
  if (updated) doc.updated = updated;
  const impact = asObject(item.impact) ?? {};
  const v3 = asObject(asObject(impact.baseMetricV3)?.cvssV3);
  if (v3 && typeof v3.baseScore === 'number' && typeof v3.vectorString === 'string') {
    const key = v3.version === '3.0' ? 'cvssV3_0' : 'cvssV3_1';
    doc.metrics[key] = { score: v3.baseScore, vector: v3.vectorString };
  }
  const v2 = asObject(asObject(impact.baseMetricV2)?.cvssV2);
  if (v2 && typeof v2.baseScore === 'number' && typeof v2.vectorString === 'string') {
    doc.metrics.cvssV2_0 = { score: v2.baseScore, vector: v2.vectorString };
  }
  for (const pt of objects(asObject(cve.problemtype)?.problemtype_data)) {
    for (const d of objects(pt.description)) if (typeof d.value === 'string') doc.weaknesses.push(d.value);
  }
  const configurations: NvdConfiguration[] = [];
  for (const node of objects(asObject(item.configurations)?.nodes) as Node11[]) {
    const children = objects(node.children) as Node11[];
    if (children.length) {
      configurations.push({
        operator: node.operator === 'AND' ? 'AND' : 'OR',
        negate: node.negate === true,
        nodes: children.map((c) => convertNode11(c, doc.cpes)),
      });
    } else {
      configurations.push({ nodes: [convertNode11(node, doc.cpes)] });
    }
  }
  if (configurations.length) doc.nvdConfigurations = configurations;
  doc.references = objects(asObject(cve.references)?.reference_data)
    .filter((r) => typeof r.url === 'string')
    .map((r) => {
      const ref: Reference = {
        url: String(r.url),
        tags: asArray(r.tags).filter((t): t is string => typeof t === 'string'),
      };
      if (typeof r.name === 'string' && r.name !== r.url) ref.name = r.name;
      if (typeof r.refsource === 'string') ref.source = r.refsource;
      return ref;
    });
  return { cveId, provider: 'nvd', doc: finishDocument(doc), raw: { format: '1.1', record: item } };
}
