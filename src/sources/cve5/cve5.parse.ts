/**
 * CVE JSON 5.x records (the CVE Program's record format, also used by CISA vulnrichment). The CNA
 * container becomes the `mitre` statement (with the CVE Program ADP container's references), the
 * CISA-ADP container the `vulnrichment` statement.
 */
import { vendorKeysOfCpe } from '../../domain/cpe.ts';
import { isCveId, normalizeCweId } from '../../domain/cve-id.ts';
import {
  emptyDocument,
  type AffectedProduct,
  type CvssData,
  type NvdConfiguration,
  type Reference,
  type SourceDocument,
  type SourceMetrics,
  type SourceRecord,
} from '../../domain/cve.ts';
import { toIsoUtc } from '../../domain/timestamps.ts';
import { RecordError, type ImportItem } from '../source.ts';
import { preferredText } from '../language.ts';

type Json = Record<string, unknown>;

const asObject = (v: unknown): Json | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const asString = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function cvss(data: unknown): CvssData | undefined {
  const d = asObject(data);
  const score = d?.baseScore;
  const vector = asString(d?.vectorString);
  if (typeof score !== 'number' || !vector) return undefined;
  return { score, vector };
}

function metricsOf(container: Json): SourceMetrics {
  const metrics: SourceMetrics = {};
  for (const entry of asArray(container.metrics)) {
    const m = asObject(entry);
    if (!m) continue;
    for (const key of ['cvssV2_0', 'cvssV3_0', 'cvssV3_1', 'cvssV4_0'] as const) {
      if (m[key] && !metrics[key]) metrics[key] = cvss(m[key]);
      if (metrics[key] === undefined) delete metrics[key];
    }
    const other = asObject(m.other);
    const content = asObject(other?.content);
    if (other?.type === 'ssvc' && content) {
      const options: Record<string, string> = {};
      for (const o of asArray(content.options)) Object.assign(options, asObject(o));
      metrics.ssvc = { options, version: String(content.version ?? '') };
    } else if (other?.type === 'kev' && content) {
      metrics.kev = {
        ...(content.dateAdded ? { dateAdded: content.dateAdded } : {}),
        ...(content.reference ? { reference: content.reference } : {}),
      };
    }
  }
  return metrics;
}

function weaknessesOf(container: Json): string[] {
  const out = new Set<string>();
  for (const pt of asArray(container.problemTypes)) {
    for (const d of asArray(asObject(pt)?.descriptions)) {
      const desc = asObject(d);
      const id =
        normalizeCweId(desc?.cweId) ?? (desc?.type === 'CWE' ? normalizeCweId(desc.description) : undefined);
      if (id) out.add(id);
    }
  }
  return [...out].sort();
}

function referencesOf(container: Json | undefined): Reference[] {
  return asArray(container?.references)
    .map(asObject)
    .filter((r): r is Json => !!r && !!asString(r.url))
    .map((r) => {
      const ref: Reference = {
        url: String(r.url),
        tags: asArray(r.tags).filter((t): t is string => typeof t === 'string'),
      };
      if (asString(r.name)) ref.name = String(r.name);
      return ref;
    });
}

function affectedOf(container: Json): { cpes: string[]; vendors: string[]; affected: AffectedProduct[] } {
  const cpes = new Set<string>();
  const vendors = new Set<string>();
  const affected: AffectedProduct[] = [];
  for (const a of asArray(container.affected)) {
    const item = asObject(a);
    if (!item) continue;
    const itemCpes = asArray(item.cpes).filter((c): c is string => typeof c === 'string');
    itemCpes.forEach((c) => cpes.add(c));
    // Only CPEs give keys here. An entry without CPEs keeps its vendor and product text, which the
    // import maps to keys with the alias table as it merges (docs/catalog.md, "Vendor keys and their
    // provenance"), so a new table re-maps stored statements without parsing them again.
    for (const c of itemCpes) vendorKeysOfCpe(c).forEach((k) => vendors.add(k));
    const entry: AffectedProduct = {};
    if (asString(item.vendor)) entry.vendor = String(item.vendor);
    if (asString(item.product)) entry.product = String(item.product);
    if (asString(item.defaultStatus)) entry.defaultStatus = String(item.defaultStatus);
    if (Array.isArray(item.versions)) entry.versions = item.versions;
    if (itemCpes.length) entry.cpes = itemCpes;
    if (asString(item.packageName)) entry.packageName = String(item.packageName);
    if (asString(item.collectionURL)) entry.collectionURL = String(item.collectionURL);
    if (asString(item.packageURL)) entry.packageURL = String(item.packageURL);
    const platforms = asArray(item.platforms).filter((p): p is string => typeof p === 'string' && p !== '');
    if (platforms.length) entry.platforms = platforms;
    affected.push(entry);
  }
  return { cpes: [...cpes].sort(), vendors: [...vendors].sort(), affected };
}

/**
 * A container's CVE 5.1 `cpeApplicability`: configurations in NVD's layout (operator, negate, nodes of
 * `cpeMatch`), each match with its CPE (`criteria`); undefined when there is none.
 */
function cpeApplicabilityOf(container: Json): NvdConfiguration[] | undefined {
  const operator = (v: unknown) => (v === 'AND' ? 'AND' : 'OR');
  const configurations: NvdConfiguration[] = [];
  for (const c of asArray(container.cpeApplicability).map(asObject)) {
    if (!c) continue;
    const nodes: NvdConfiguration['nodes'] = [];
    for (const n of asArray(c.nodes).map(asObject)) {
      if (!n) continue;
      const cpeMatch: NvdConfiguration['nodes'][number]['cpeMatch'] = [];
      for (const m of asArray(n.cpeMatch).map(asObject)) {
        const criteria = asString(m?.criteria);
        if (!m || !criteria) continue;
        const match: NvdConfiguration['nodes'][number]['cpeMatch'][number] = {
          criteria,
          matchCriteriaId: asString(m.matchCriteriaId) ?? '',
          vulnerable: m.vulnerable !== false,
        };
        for (const key of [
          'versionStartIncluding',
          'versionStartExcluding',
          'versionEndIncluding',
          'versionEndExcluding',
        ] as const) {
          const v = asString(m[key]);
          if (v) match[key] = v;
        }
        cpeMatch.push(match);
      }
      if (cpeMatch.length)
        nodes.push({ operator: operator(n.operator), negate: n.negate === true, cpeMatch });
    }
    if (nodes.length)
      configurations.push({
        ...(c.operator ? { operator: operator(c.operator) } : {}),
        ...(c.negate === true ? { negate: true } : {}),
        nodes,
      });
  }
  return configurations.length ? configurations : undefined;
}

/** Parses one CVE 5 record into its provider statements. Throws RecordError when it is not one. */
export function parseCve5Record(value: unknown): { cveId: string; records: SourceRecord[] } {
  const record = asObject(value);
  const meta = asObject(record?.cveMetadata);
  const cveId = meta?.cveId;
  if (!record || !meta) throw new RecordError('not a CVE 5 record (no cveMetadata)');
  if (!isCveId(cveId)) throw new RecordError(`invalid CVE id ${JSON.stringify(cveId)}`);
  const containers = asObject(record.containers);
  const cna = asObject(containers?.cna);
  if (!cna) throw new RecordError('no CNA container');
  const state = meta.state === 'REJECTED' ? 'REJECTED' : 'PUBLISHED';
  const published = toIsoUtc(meta.datePublished) ?? toIsoUtc(meta.dateReserved);
  const updated = toIsoUtc(meta.dateUpdated) ?? published;

  const mitre: SourceDocument = emptyDocument();
  mitre.state = state;
  const description =
    state === 'REJECTED'
      ? (preferredText(cna.rejectedReasons) ?? preferredText(cna.descriptions))
      : preferredText(cna.descriptions);
  if (description) {
    mitre.description = description.value;
    if (description.lang) mitre.descriptionLang = description.lang;
  }
  const title = asString(cna.title);
  if (title) mitre.title = title;
  if (published) mitre.created = published;
  if (updated) mitre.updated = updated;
  mitre.metrics = metricsOf(cna);
  mitre.weaknesses = weaknessesOf(cna);
  const cnaAffected = affectedOf(cna);
  mitre.cpes = cnaAffected.cpes;
  mitre.vendors = cnaAffected.vendors;
  if (cnaAffected.affected.length) mitre.affected = cnaAffected.affected;
  const cnaApplicability = cpeApplicabilityOf(cna);
  if (cnaApplicability) mitre.cpeApplicability = cnaApplicability;
  mitre.references = referencesOf(cna);
  mitre.affectedComplete = true;
  const assigner = asString(asObject(cna?.providerMetadata)?.shortName) ?? asString(meta.assignerShortName);
  if (assigner) mitre.assigner = assigner;
  const records: SourceRecord[] = [{ cveId, provider: 'mitre', doc: mitre }];

  for (const adpValue of asArray(containers?.adp)) {
    const adp = asObject(adpValue);
    const shortName = asString(asObject(adp?.providerMetadata)?.shortName);
    if (!adp) continue;
    if (shortName === 'CVE' || adp.title === 'CVE Program Container') {
      // The CVE Program's copy of references that used to live in the CNA container.
      const known = new Set(mitre.references.map((r) => r.url));
      for (const ref of referencesOf(adp)) if (!known.has(ref.url)) mitre.references.push(ref);
    } else if (shortName === 'CISA-ADP') {
      const doc = emptyDocument();
      if (published) doc.created = published;
      const adpUpdated = toIsoUtc(asObject(adp.providerMetadata)?.dateUpdated);
      if (adpUpdated) doc.updated = adpUpdated;
      doc.metrics = metricsOf(adp);
      doc.weaknesses = weaknessesOf(adp);
      const a = affectedOf(adp);
      doc.cpes = a.cpes;
      doc.vendors = a.vendors;
      // The ADP's entries without CPEs, as text to map (those with CPEs gave their keys above).
      const text = a.affected
        .filter((e) => !e.cpes && (e.vendor || e.product))
        .map((e) => ({
          ...(e.vendor ? { vendor: e.vendor } : {}),
          ...(e.product ? { product: e.product } : {}),
        }));
      if (text.length) doc.affected = text;
      if (a.affected.length) doc.adpAffected = a.affected;
      const adpApplicability = cpeApplicabilityOf(adp);
      if (adpApplicability) doc.cpeApplicability = adpApplicability;
      doc.references = referencesOf(adp);
      doc.affectedComplete = true;
      records.push({ cveId, provider: 'vulnrichment', doc });
    }
  }
  mitre.references.sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  return { cveId, records };
}

/** One CVE 5 record as an import item (a skip with the reason when it is malformed). */
export function cve5Item(value: unknown, position: string): ImportItem {
  try {
    const { cveId, records } = parseCve5Record(value);
    return { kind: 'cve', cveId, position, records, replaces: ['mitre', 'vulnrichment'] };
  } catch (err) {
    const id = asString(asObject(asObject(value)?.cveMetadata)?.cveId);
    return { kind: 'skip', position, ...(id ? { id } : {}), reason: (err as Error).message };
  }
}
