/**
 * An SPDX 2.2 / 2.3 JSON document's packages. No JSON schema is vendored for SPDX: a check by hand
 * of the parts of the document the specification requires and the parts we read, naming the JSON
 * pointer of the first problem (docs/inventories.md, "SBOM formats").
 */
import { distinctComponents, SbomError, sbomComponent, subjectIsListed, type SbomComponent } from './sbom.ts';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON pointer escaping (RFC 6901). */
function pointer(...parts: (string | number)[]): string {
  return parts.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function fail(at: string, problem: string): never {
  throw new SbomError(`The SPDX document is not valid at ${at || 'its top level'}: ${problem}.`, {
    pointer: at,
  });
}

function requireString(obj: Json, key: string, at: string, nonEmpty = true): void {
  const value = obj[key];
  if (value === undefined) fail(at, `"${key}" is required`);
  if (typeof value !== 'string') fail(pointer(...splitPointer(at), key), 'must be a string');
  if (nonEmpty && value.trim() === '') fail(pointer(...splitPointer(at), key), 'must not be empty');
}

function optionalString(obj: Json, key: string, at: string): void {
  if (obj[key] !== undefined && typeof obj[key] !== 'string')
    fail(pointer(...splitPointer(at), key), 'must be a string');
}

function optionalArray(obj: Json, key: string, at: string): unknown[] {
  const value = obj[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(pointer(...splitPointer(at), key), 'must be an array');
  return value;
}

function splitPointer(at: string): string[] {
  return at === ''
    ? []
    : at
        .slice(1)
        .split('/')
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Throws SbomError at the first part of the document that breaks the SPDX 2.x JSON structure we rely on. */
function checkSpdxJson(doc: Json): void {
  for (const key of ['SPDXID', 'name', 'dataLicense']) requireString(doc, key, '');
  if (!isObject(doc.creationInfo)) fail('/creationInfo', 'must be an object with "created" and "creators"');
  requireString(doc.creationInfo, 'created', '/creationInfo');
  const creators = optionalArray(doc.creationInfo, 'creators', '/creationInfo');
  if (creators.length === 0) fail('/creationInfo/creators', 'must name at least one creator');
  creators.forEach((c, i) => {
    if (typeof c !== 'string') fail(pointer('creationInfo', 'creators', i), 'must be a string');
  });
  optionalArray(doc, 'documentDescribes', '').forEach((d, i) => {
    if (typeof d !== 'string') fail(pointer('documentDescribes', i), 'must be an SPDXID string');
  });
  optionalArray(doc, 'packages', '').forEach((p, i) => {
    const at = pointer('packages', i);
    if (!isObject(p)) fail(at, 'a package must be an object');
    requireString(p, 'SPDXID', at);
    requireString(p, 'name', at);
    for (const key of ['versionInfo', 'supplier', 'originator']) optionalString(p, key, at);
    optionalArray(p, 'externalRefs', at).forEach((r, j) => {
      const refAt = pointer('packages', i, 'externalRefs', j);
      if (!isObject(r)) fail(refAt, 'an external reference must be an object');
      for (const key of ['referenceCategory', 'referenceType', 'referenceLocator'])
        requireString(r, key, refAt);
    });
  });
  optionalArray(doc, 'relationships', '').forEach((r, i) => {
    const at = pointer('relationships', i);
    if (!isObject(r)) fail(at, 'a relationship must be an object');
    for (const key of ['spdxElementId', 'relationshipType', 'relatedSpdxElement']) requireString(r, key, at);
  });
}

/** `Organization: Apache` or `Person: Jane (jane@example.com)` → the name; NOASSERTION → none. */
export function spdxPartyName(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const name = value
    .replace(/^\s*(Organization|Person|Tool)\s*:\s*/i, '')
    .replace(/\s*\([^()]*@[^()]*\)\s*$/, '')
    .trim();
  return name === '' || name === 'NOASSERTION' ? undefined : name;
}

/** The first external reference of a type: `purl`, or `cpe23Type` for a CPE 2.3 name. */
export function externalRef(
  refs: readonly { referenceType: string; referenceLocator: string }[],
  type: 'purl' | 'cpe23Type',
): string | undefined {
  return refs.find((r) => r.referenceType === type)?.referenceLocator;
}

/** The SPDXIDs the document describes (`documentDescribes`, DESCRIBES and DESCRIBED_BY relationships). */
export function describedIds(
  documentDescribes: readonly string[],
  relationships: readonly { spdxElementId: string; relationshipType: string; relatedSpdxElement: string }[],
  documentId = 'SPDXRef-DOCUMENT',
): Set<string> {
  const ids = new Set(documentDescribes);
  for (const r of relationships) {
    if (r.relationshipType === 'DESCRIBES' && r.spdxElementId === documentId) ids.add(r.relatedSpdxElement);
    if (r.relationshipType === 'DESCRIBED_BY' && r.relatedSpdxElement === documentId)
      ids.add(r.spdxElementId);
  }
  return ids;
}

interface SpdxPackage {
  SPDXID: string;
  name: string;
  versionInfo?: string;
  supplier?: string;
  originator?: string;
  externalRefs?: { referenceCategory: string; referenceType: string; referenceLocator: string }[];
}

/** One SPDX package as a component (tag-value reads into the same shape). */
export function spdxPackageComponent(p: {
  id: string;
  name: string;
  version?: string | undefined;
  supplier?: string | undefined;
  originator?: string | undefined;
  refs: readonly { referenceType: string; referenceLocator: string }[];
}): SbomComponent {
  return sbomComponent({
    name: p.name,
    version: p.version,
    purl: externalRef(p.refs, 'purl'),
    cpe: externalRef(p.refs, 'cpe23Type'),
    supplier: spdxPartyName(p.supplier) ?? spdxPartyName(p.originator),
    ref: p.id,
  });
}

/** The packages of a checked list as components: a described package only when it has a purl or CPE. */
export function spdxComponents(
  packages: readonly Parameters<typeof spdxPackageComponent>[0][],
  described: ReadonlySet<string>,
): SbomComponent[] {
  const out: SbomComponent[] = [];
  for (const p of packages) {
    const component = spdxPackageComponent(p);
    if (described.has(p.id) && !subjectIsListed(component)) continue;
    out.push(component);
  }
  return distinctComponents(out);
}

/** The components of an SPDX JSON document; throws SbomError naming the first structural problem. */
export function spdxJsonComponents(doc: Json): SbomComponent[] {
  checkSpdxJson(doc);
  const packages = (doc.packages ?? []) as SpdxPackage[];
  const relationships = (doc.relationships ?? []) as Parameters<typeof describedIds>[1];
  const described = describedIds(
    (doc.documentDescribes ?? []) as string[],
    relationships,
    doc.SPDXID as string,
  );
  return spdxComponents(
    packages.map((p) => ({
      id: p.SPDXID,
      name: p.name,
      version: p.versionInfo,
      supplier: p.supplier,
      originator: p.originator,
      refs: p.externalRefs ?? [],
    })),
    described,
  );
}
