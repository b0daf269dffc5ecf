/**
 * A CycloneDX JSON document's components, after the CycloneDX library validated it against its
 * spec version's schema (src/sources/sbom/sbom.ts): nested `components` at any depth, and the subject
 * (`metadata.component`) when it carries a purl or a CPE (`subjectIsListed`).
 */
import { distinctComponents, sbomComponent, subjectIsListed, type SbomComponent } from './sbom.ts';

type Json = Record<string, unknown>;

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function objects(value: unknown): Json[] {
  return Array.isArray(value)
    ? value.filter((v): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v))
    : [];
}

function nameOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? text((value as Json).name) : undefined;
}

/** Supplier first, then publisher, manufacturer (1.6) and author (deprecated in 1.6): the party that ships it. */
function supplierOf(c: Json): string | undefined {
  return nameOf(c.supplier) ?? text(c.publisher) ?? nameOf(c.manufacturer) ?? text(c.author);
}

function componentOf(c: Json): SbomComponent {
  return sbomComponent({
    name: text(c.name) ?? '',
    version: text(c.version),
    purl: text(c.purl),
    cpe: text(c.cpe),
    supplier: supplierOf(c),
    ref: text(c['bom-ref']),
  });
}

/** Walks components and their nested `components`, depth first in document order. */
function walk(roots: Json[], out: SbomComponent[]): void {
  const pending = [...roots].reverse();
  while (pending.length > 0) {
    const c = pending.pop()!;
    const component = componentOf(c);
    if (component.name !== '') out.push(component);
    pending.push(...objects(c.components).reverse());
  }
}

/** The components a validated CycloneDX document lists, in document order, once each. */
export function cycloneDxComponents(bom: Json): SbomComponent[] {
  const out: SbomComponent[] = [];
  const metadata = objects([bom.metadata])[0] ?? {};
  const subjectJson = objects([metadata.component])[0];
  if (subjectJson) {
    const subject = componentOf(subjectJson);
    if (subject.name !== '' && subjectIsListed(subject)) out.push(subject);
  }
  walk(objects(bom.components), out);
  // The subject's own sub-components are real components even when the subject is not listed.
  if (subjectJson) walk(objects(subjectJson.components), out);
  return distinctComponents(out);
}
