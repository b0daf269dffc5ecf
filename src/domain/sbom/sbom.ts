/**
 * A software bill of materials read into the components we match: the SBOM's own words (name,
 * version, package URL, CPE, supplier), nothing inferred. docs/inventories.md, "SBOM formats".
 */

export type SbomFormat = 'cyclonedx' | 'spdx-json' | 'spdx-tag-value';

export interface SbomComponent {
  /** As the SBOM writes it. */
  name: string;
  /** Absent: "version unknown" (the component is kept, never dropped). */
  version?: string;
  /** As written. */
  purl?: string;
  /** A CPE 2.3 formatted string, as written. */
  cpe?: string;
  /** Supplier, publisher, manufacturer or author (CycloneDX); supplier or originator (SPDX); as written. */
  supplier?: string;
  /** The CycloneDX bom-ref or the SPDX SPDXID. */
  ref?: string;
}

export interface SbomDocument {
  format: SbomFormat;
  specVersion: string;
  components: SbomComponent[];
}

/** A document we cannot read: the message is one sentence naming the first problem. */
export class SbomError extends Error {
  override name = 'SbomError';
  /** The JSON pointer of the first problem (JSON documents), `''` for the document itself. */
  readonly pointer?: string;
  /** The 1-based line of the first problem (tag-value documents, JSON syntax errors). */
  readonly line?: number;

  constructor(message: string, where: { pointer?: string; line?: number } = {}) {
    super(message);
    if (where.pointer !== undefined) this.pointer = where.pointer;
    if (where.line !== undefined) this.line = where.line;
  }
}

/** A value an SBOM writes for "no information": empty, or SPDX's NOASSERTION / NONE. */
function stated(value: string | undefined): string | undefined {
  const v = value?.trim();
  if (!v || v === 'NOASSERTION' || v === 'NONE') return undefined;
  return v;
}

/** A component from the fields an SBOM states; empty and "no assertion" values are left out. */
export function sbomComponent(fields: {
  name: string;
  version?: string | undefined;
  purl?: string | undefined;
  cpe?: string | undefined;
  supplier?: string | undefined;
  ref?: string | undefined;
}): SbomComponent {
  const component: SbomComponent = { name: fields.name.trim() };
  const version = stated(fields.version);
  const purl = stated(fields.purl);
  const cpe = stated(fields.cpe);
  const supplier = stated(fields.supplier);
  const ref = stated(fields.ref);
  if (version !== undefined) component.version = version;
  if (purl !== undefined) component.purl = purl;
  if (cpe !== undefined) component.cpe = cpe;
  if (supplier !== undefined) component.supplier = supplier;
  if (ref !== undefined) component.ref = ref;
  return component;
}

/**
 * The components once each: two entries that state the same name, version, purl, CPE and supplier
 * are one component (the first one's ref is kept), whatever their refs.
 */
export function distinctComponents(components: readonly SbomComponent[]): SbomComponent[] {
  const seen = new Set<string>();
  const out: SbomComponent[] = [];
  for (const c of components) {
    const key = JSON.stringify([c.name, c.version, c.purl, c.cpe, c.supplier]);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(c);
  }
  return out;
}

/**
 * The subject of the document (CycloneDX `metadata.component`, the package an SPDX document
 * describes) is listed only when it carries an identifier a CVE can name (a purl or a CPE): a bare
 * subject is usually the scanned folder or image ("/app", "alpine:3.19"), not something published.
 */
export function subjectIsListed(component: SbomComponent): boolean {
  return component.purl !== undefined || component.cpe !== undefined;
}
