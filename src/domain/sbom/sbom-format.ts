/**
 * Which SBOM a text is: told by its content (`bomFormat: "CycloneDX"`, `spdxVersion`, a tag-value
 * `SPDXVersion:` line) and, when the sender states one, by its content type. Formats and versions
 * we do not read are refused with a sentence saying what is read.
 */
import { SbomError } from './sbom.ts';

/** The CycloneDX JSON versions read (the CycloneDX library validates each against its schema). */
export const CYCLONEDX_VERSIONS = ['1.4', '1.5', '1.6', '1.7'] as const;
export type CycloneDxVersion = (typeof CYCLONEDX_VERSIONS)[number];
/** The SPDX versions read, JSON and tag-value. */
export const SPDX_VERSIONS = ['SPDX-2.2', 'SPDX-2.3'] as const;

export type SniffedSbom =
  | { format: 'cyclonedx'; specVersion: CycloneDxVersion; json: Record<string, unknown>; text: string }
  | { format: 'spdx-json'; specVersion: string; json: Record<string, unknown> }
  | { format: 'spdx-tag-value'; text: string };

const XML_TYPES = new Set([
  'application/xml',
  'text/xml',
  'application/vnd.cyclonedx+xml',
  'application/spdx+xml',
  'application/rdf+xml',
]);

type Declared = 'cyclonedx' | 'spdx-json' | 'spdx-tag-value' | 'xml' | undefined;

function declaredFormat(contentType: string | undefined): Declared {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (!type) return undefined;
  if (XML_TYPES.has(type)) return 'xml';
  if (type === 'application/vnd.cyclonedx+json') return 'cyclonedx';
  if (type === 'application/spdx+json') return 'spdx-json';
  if (type === 'text/spdx') return 'spdx-tag-value';
  return undefined; // application/json, text/plain, …: the content tells
}

const DECLARED_NAME = {
  cyclonedx: 'CycloneDX JSON',
  'spdx-json': 'SPDX JSON',
  'spdx-tag-value': 'SPDX tag-value',
} as const;

const READ = 'CycloneDX JSON 1.4 to 1.7, SPDX 2.2 and 2.3 in JSON or tag-value';

/** The 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const raw = err instanceof Error ? err.message : String(err);
    // V8 quotes the start of the text in some messages ("…, "{…" is not valid JSON"): keep the reason only.
    const reason = raw.replace(/,\s*".*" is not valid JSON$/s, '').replace(/ in JSON at position \d+$/, '');
    const position = /at position (\d+)/.exec(raw)?.[1];
    const line = position !== undefined ? lineAt(text, Number(position)) : lineAt(text, text.length);
    throw new SbomError(`The document is not valid JSON: ${reason} (line ${line}).`, { line });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sniffJson(text: string, declared: Declared): SniffedSbom {
  const json = parseJson(text);
  if (!isObject(json))
    throw new SbomError('The document is JSON but not an object: an SBOM is a JSON object.', {
      pointer: '',
    });
  if (json.bomFormat === 'CycloneDX') {
    if (declared === 'spdx-json' || declared === 'spdx-tag-value')
      throw new SbomError(
        `The content type says ${DECLARED_NAME[declared]}, but the document is CycloneDX JSON.`,
        { pointer: '/bomFormat' },
      );
    const version = json.specVersion;
    if (typeof version !== 'string')
      throw new SbomError('The CycloneDX document has no specVersion (a string such as "1.6").', {
        pointer: '/specVersion',
      });
    if (!(CYCLONEDX_VERSIONS as readonly string[]).includes(version))
      throw new SbomError(
        `CycloneDX ${version} is not read: send CycloneDX JSON ${CYCLONEDX_VERSIONS.join(', ')}.`,
        { pointer: '/specVersion' },
      );
    return { format: 'cyclonedx', specVersion: version as CycloneDxVersion, json, text };
  }
  if ('spdxVersion' in json) {
    if (declared === 'cyclonedx' || declared === 'spdx-tag-value')
      throw new SbomError(
        `The content type says ${DECLARED_NAME[declared]}, but the document is SPDX JSON.`,
        { pointer: '/spdxVersion' },
      );
    const version = json.spdxVersion;
    if (typeof version !== 'string' || !(SPDX_VERSIONS as readonly string[]).includes(version))
      throw new SbomError(
        `SPDX version ${JSON.stringify(version)} is not read: send ${SPDX_VERSIONS.join(' or ')}.`,
        { pointer: '/spdxVersion' },
      );
    return { format: 'spdx-json', specVersion: version, json };
  }
  if (declared === 'cyclonedx')
    throw new SbomError('The document is not CycloneDX JSON: it has no "bomFormat": "CycloneDX".', {
      pointer: '/bomFormat',
    });
  if (declared === 'spdx-json')
    throw new SbomError('The document is not SPDX JSON: it has no "spdxVersion".', {
      pointer: '/spdxVersion',
    });
  throw new SbomError(
    `This JSON is not an SBOM we read: neither CycloneDX ("bomFormat": "CycloneDX") nor SPDX ("spdxVersion"); we read ${READ}.`,
    { pointer: '' },
  );
}

/** Tells which SBOM `text` is; throws SbomError for a format or version not read. */
export function sniffSbom(text: string, contentType?: string): SniffedSbom {
  const body = text.replace(/^\uFEFF/, '');
  const start = body.trimStart();
  const declared = declaredFormat(contentType);
  if (start === '') throw new SbomError('The document is empty.', { line: 1 });
  if (declared === 'xml' || start.startsWith('<')) {
    const cyclonedx = /cyclonedx/i.test(contentType ?? '') || /cyclonedx/i.test(start.slice(0, 2000));
    throw new SbomError(
      cyclonedx
        ? 'CycloneDX XML is not read: send the same SBOM as CycloneDX JSON (for example `cyclonedx convert --output-format json`).'
        : `XML documents are not read: send ${READ}.`,
      { line: 1 },
    );
  }
  if (start.startsWith('{') || start.startsWith('[')) return sniffJson(body, declared);
  if (/^[ \t]*SPDXVersion[ \t]*:/m.test(body)) {
    if (declared === 'cyclonedx' || declared === 'spdx-json')
      throw new SbomError(
        `The content type says ${DECLARED_NAME[declared]}, but the document is SPDX tag-value.`,
        { line: 1 },
      );
    return { format: 'spdx-tag-value', text: body };
  }
  if (declared === 'spdx-tag-value')
    throw new SbomError('The document is not SPDX tag-value: it has no "SPDXVersion:" line.', {
      line: 1,
    });
  throw new SbomError(`The document is not an SBOM we read: we read ${READ}.`, { line: 1 });
}
