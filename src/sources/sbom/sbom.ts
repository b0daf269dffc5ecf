/**
 * `parseSbom`: a CycloneDX JSON, SPDX JSON or SPDX tag-value text → the components we match
 * (docs/inventories.md, "SBOM formats"). CycloneDX is validated against its spec version's JSON schema
 * by the CycloneDX project's own library (`@cyclonedx/cyclonedx-library`, strict schemas); that
 * validator reads and compiles the schema on first use, so this lives in sources/ (I/O) and is async.
 * The mapping itself is pure, in src/domain/sbom/.
 */
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { cycloneDxComponents } from '../../domain/sbom/cyclonedx.ts';
import { sniffSbom, type CycloneDxVersion } from '../../domain/sbom/sbom-format.ts';
import { SbomError, type SbomDocument } from '../../domain/sbom/sbom.ts';
import { spdxJsonComponents } from '../../domain/sbom/spdx-json.ts';
import { spdxTagValueDocument } from '../../domain/sbom/spdx-tag-value.ts';

export { SbomError } from '../../domain/sbom/sbom.ts';
export type { SbomComponent, SbomDocument, SbomFormat } from '../../domain/sbom/sbom.ts';

const SPEC_VERSIONS: Record<CycloneDxVersion, Spec.Version> = {
  '1.4': Spec.Version.v1dot4,
  '1.5': Spec.Version.v1dot5,
  '1.6': Spec.Version.v1dot6,
  '1.7': Spec.Version.v1dot7,
};

/** One strict validator per spec version, kept: each compiles its schema once (about a second). */
const validators = new Map<CycloneDxVersion, Validation.JsonStrictValidator>();

interface SchemaError {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** The validator's first error as a sentence: where (JSON pointer) and what. */
function schemaProblem(version: string, error: SchemaError): SbomError {
  const at = error.instancePath ?? '';
  let problem = error.message ?? 'does not match the schema';
  const params = error.params ?? {};
  if (typeof params.additionalProperty === 'string') problem += ` ("${params.additionalProperty}")`;
  if (Array.isArray(params.allowedValues))
    problem += ` (${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')})`;
  return new SbomError(
    `The CycloneDX ${version} document is not valid at ${at === '' ? 'its top level' : at}: ${problem}.`,
    { pointer: at },
  );
}

async function validateCycloneDx(version: CycloneDxVersion, text: string): Promise<void> {
  let validator = validators.get(version);
  if (!validator) {
    validator = new Validation.JsonStrictValidator(SPEC_VERSIONS[version]);
    validators.set(version, validator);
  }
  let errors: unknown;
  try {
    errors = await validator.validate(text);
  } catch (err) {
    // A document nested deeper than the validator's recursion can follow.
    if (err instanceof RangeError)
      throw new SbomError(`The CycloneDX ${version} document is nested too deeply to be read.`, {
        pointer: '',
      });
    throw err;
  }
  if (Array.isArray(errors) && errors.length > 0) throw schemaProblem(version, errors[0] as SchemaError);
}

/**
 * Reads an SBOM: the format from the content and the content type (`application/vnd.cyclonedx+json`,
 * `application/spdx+json`, `text/spdx`, `application/json`). Rejects with an SbomError naming the
 * first problem (its JSON pointer or line when known).
 */
export async function parseSbom(text: string, contentType?: string): Promise<SbomDocument> {
  const sniffed = sniffSbom(text, contentType);
  switch (sniffed.format) {
    case 'cyclonedx':
      // The text as sent: a deeply nested document cannot be written out again (JSON.stringify recurses).
      await validateCycloneDx(sniffed.specVersion, sniffed.text);
      return {
        format: 'cyclonedx',
        specVersion: sniffed.specVersion,
        components: cycloneDxComponents(sniffed.json),
      };
    case 'spdx-json':
      return {
        format: 'spdx-json',
        specVersion: sniffed.specVersion,
        components: spdxJsonComponents(sniffed.json),
      };
    case 'spdx-tag-value': {
      const { specVersion, components } = spdxTagValueDocument(sniffed.text);
      return { format: 'spdx-tag-value', specVersion, components };
    }
  }
}
