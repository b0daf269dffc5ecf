/**
 * SPDX 2.2 / 2.3 tag-value, read by hand: no JavaScript library for it is kept up. Reads the document's
 * SPDXVersion and SPDXID, each package's PackageName, SPDXID, PackageVersion, PackageSupplier,
 * PackageOriginator and ExternalRef lines, and Relationship lines; skips every other tag, comments
 * (`#`) and `<text>…</text>` values over several lines. Errors name their line.
 */
import { SPDX_VERSIONS } from './sbom-format.ts';
import { SbomError, type SbomComponent } from './sbom.ts';
import { describedIds, spdxComponents } from './spdx-json.ts';

interface Field {
  tag: string;
  value: string;
  line: number;
}

/** The `Tag: value` fields of a tag-value text; a `<text>` value runs to its `</text>`. */
function fields(text: string): Field[] {
  const lines = text.split(/\r\n|\n|\r/);
  const out: Field[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const line = i + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const m = /^([A-Za-z][A-Za-z0-9_-]*)[ \t]*:[ \t]*(.*)$/.exec(trimmed);
    if (!m)
      throw new SbomError(
        `Line ${line} of the SPDX tag-value document is not a "Tag: value" line: ${JSON.stringify(trimmed.slice(0, 60))}.`,
        { line },
      );
    let value = m[2]!;
    if (value.startsWith('<text>')) {
      let body = value.slice('<text>'.length);
      let end = body.indexOf('</text>');
      let j = i;
      while (end < 0) {
        j++;
        if (j >= lines.length)
          throw new SbomError(
            `The <text> value of ${m[1]} on line ${line} of the SPDX tag-value document has no closing </text>.`,
            { line },
          );
        body += `\n${lines[j]!}`;
        end = body.indexOf('</text>');
      }
      value = body.slice(0, end);
      i = j;
    }
    out.push({ tag: m[1]!, value: value.trim(), line });
  }
  return out;
}

interface TagValuePackage {
  id: string;
  name: string;
  version?: string;
  supplier?: string;
  originator?: string;
  refs: { referenceType: string; referenceLocator: string }[];
  line: number;
}

/** Tags that open a section which is not a package: they end the package before them. */
const OTHER_SECTIONS = new Set(['FileName', 'SnippetSPDXID', 'LicenseID']);

/** The SPDX version and components of a tag-value document; throws SbomError with the line of the first problem. */
export function spdxTagValueDocument(text: string): { specVersion: string; components: SbomComponent[] } {
  let specVersion: string | undefined;
  let documentId = 'SPDXRef-DOCUMENT';
  const packages: TagValuePackage[] = [];
  const relationships: { spdxElementId: string; relationshipType: string; relatedSpdxElement: string }[] = [];
  let current: Omit<TagValuePackage, 'id'> & { id?: string } = { name: '', refs: [], line: 0 };
  let inPackage = false;

  const close = () => {
    if (!inPackage) return;
    if (current.id === undefined)
      throw new SbomError(
        `The package "${current.name}" on line ${current.line} of the SPDX tag-value document has no SPDXID.`,
        { line: current.line },
      );
    packages.push({ ...current, id: current.id });
    inPackage = false;
  };

  for (const { tag, value, line } of fields(text)) {
    if (tag === 'PackageName') {
      close();
      if (value === '')
        throw new SbomError(`PackageName on line ${line} of the SPDX tag-value document is empty.`, { line });
      current = { name: value, refs: [], line };
      inPackage = true;
      continue;
    }
    if (OTHER_SECTIONS.has(tag)) {
      close();
      continue;
    }
    if (tag === 'SPDXVersion') {
      if (!(SPDX_VERSIONS as readonly string[]).includes(value))
        throw new SbomError(
          `SPDX version "${value}" on line ${line} is not read: send ${SPDX_VERSIONS.join(' or ')}.`,
          { line },
        );
      specVersion = value;
      continue;
    }
    if (tag === 'Relationship') {
      const [from, type, to] = value.split(/\s+/);
      if (from === undefined || type === undefined || to === undefined)
        throw new SbomError(
          `Relationship on line ${line} of the SPDX tag-value document needs three parts: element, type, related element.`,
          { line },
        );
      relationships.push({ spdxElementId: from, relationshipType: type, relatedSpdxElement: to });
      continue;
    }
    if (!inPackage) {
      if (tag === 'SPDXID' && packages.length === 0) documentId = value;
      continue;
    }
    switch (tag) {
      case 'SPDXID':
        current.id ??= value;
        break;
      case 'PackageVersion':
        current.version ??= value;
        break;
      case 'PackageSupplier':
        current.supplier ??= value;
        break;
      case 'PackageOriginator':
        current.originator ??= value;
        break;
      case 'ExternalRef': {
        const [category, type, locator] = value.split(/\s+/);
        if (category === undefined || type === undefined || locator === undefined)
          throw new SbomError(
            `ExternalRef on line ${line} of the SPDX tag-value document needs three parts: category, type, locator (e.g. "PACKAGE-MANAGER purl pkg:npm/left-pad@1.3.0").`,
            { line },
          );
        current.refs.push({ referenceType: type, referenceLocator: locator });
        break;
      }
      default:
        break;
    }
  }
  close();
  if (specVersion === undefined)
    throw new SbomError('The SPDX tag-value document has no "SPDXVersion:" line.', { line: 1 });
  return {
    specVersion,
    components: spdxComponents(packages, describedIds([], relationships, documentId)),
  };
}
