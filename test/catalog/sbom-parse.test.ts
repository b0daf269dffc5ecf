import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseSbom, SbomError, type SbomComponent } from '../../src/sources/sbom/sbom.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/sbom/${name}`, import.meta.url), 'utf8');

async function refusal(text: string, contentType?: string): Promise<SbomError> {
  try {
    await parseSbom(text, contentType);
  } catch (err) {
    if (err instanceof SbomError) return err;
    throw err;
  }
  throw new Error('parseSbom accepted the document');
}

const LOG4J = {
  name: 'log4j-core',
  version: '2.14.1',
  purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
  supplier: 'The Apache Software Foundation',
};
const OPENSSL_CPE = 'cpe:2.3:a:openssl:openssl:1.0.1f:*:*:*:*:*:*:*';
const XZ_CPE = 'cpe:2.3:a:tukaani:xz:5.6.0:*:*:*:*:*:*:*';

/** What the matcher reads of a component (refs differ between formats). */
const identity = (c: SbomComponent) => ({
  name: c.name,
  version: c.version,
  purl: c.purl,
  cpe: c.cpe,
});

describe('parseSbom', () => {
  it('reads the issue SBOM from CycloneDX 1.4, 1.5 and 1.6 JSON', async () => {
    const v14 = await parseSbom(fixture('cyclonedx-1.4-vulnerable.json'), 'application/vnd.cyclonedx+json');
    expect(v14).toEqual({
      format: 'cyclonedx',
      specVersion: '1.4',
      components: [
        { ...LOG4J, ref: LOG4J.purl },
        { name: 'openssl', version: '1.0.1f', cpe: OPENSSL_CPE, ref: 'openssl' },
        {
          name: 'xz-utils',
          version: '5.6.0',
          purl: 'pkg:deb/debian/xz-utils@5.6.0?arch=amd64&distro=debian-13',
          cpe: XZ_CPE,
          ref: 'pkg:deb/debian/xz-utils@5.6.0?arch=amd64&distro=debian-13',
        },
      ],
    });
    for (const version of ['1.5', '1.6']) {
      const doc = await parseSbom(fixture(`cyclonedx-${version}-vulnerable.json`), 'application/json');
      expect(doc.format).toBe('cyclonedx');
      expect(doc.specVersion).toBe(version);
      expect(doc.components).toEqual([
        { ...LOG4J, ref: LOG4J.purl },
        {
          name: 'openssl',
          version: '1.0.1f',
          purl: 'pkg:generic/openssl@1.0.1f',
          cpe: OPENSSL_CPE,
          ref: 'pkg:generic/openssl@1.0.1f',
        },
        {
          name: 'xz-utils',
          version: '5.6.0',
          purl: 'pkg:generic/xz-utils@5.6.0',
          cpe: XZ_CPE,
          ref: 'pkg:generic/xz-utils@5.6.0',
        },
      ]);
    }
  });

  it('reads the same SBOM from SPDX 2.3 JSON and tag-value, leaving out the bare described package', async () => {
    const json = await parseSbom(fixture('spdx-2.3-vulnerable.spdx.json'), 'application/spdx+json');
    const tagValue = await parseSbom(fixture('spdx-2.3-vulnerable.spdx'), 'text/spdx');
    expect(json.format).toBe('spdx-json');
    expect(tagValue.format).toBe('spdx-tag-value');
    expect(json.specVersion).toBe('SPDX-2.3');
    expect(tagValue.specVersion).toBe('SPDX-2.3');
    const expected = [
      { ...LOG4J, ref: 'SPDXRef-Package-maven-log4j-core' },
      {
        name: 'openssl',
        version: '1.0.1f',
        purl: 'pkg:generic/openssl@1.0.1f',
        cpe: OPENSSL_CPE,
        // PackageSupplier NOASSERTION: the originator names the party.
        supplier: 'OpenSSL Software Foundation',
        ref: 'SPDXRef-Package-generic-openssl',
      },
      {
        name: 'xz-utils',
        version: '5.6.0',
        purl: 'pkg:generic/xz-utils@5.6.0', // SPDX 2.2's PACKAGE_MANAGER spelling
        cpe: XZ_CPE,
        ref: 'SPDXRef-Package-generic-xz-utils',
      },
    ];
    expect(json.components).toEqual(expected);
    expect(tagValue.components).toEqual(expected);
    // The same components as the CycloneDX form.
    const cdx = await parseSbom(fixture('cyclonedx-1.6-vulnerable.json'));
    expect(json.components.map(identity)).toEqual(cdx.components.map(identity));
  });

  it('reads the fixed versions in every format', async () => {
    for (const name of ['cyclonedx-1.6-fixed.json', 'spdx-2.3-fixed.spdx.json', 'spdx-2.3-fixed.spdx']) {
      const doc = await parseSbom(fixture(name));
      expect(doc.components.map((c) => [c.name, c.version])).toEqual([
        ['log4j-core', '2.17.1'],
        ['openssl', '1.0.1g'],
        ['xz-utils', '5.4.6'],
      ]);
    }
  });

  it('walks nested components, lists a subject with a purl, keeps a component without version and drops duplicates', async () => {
    const doc = await parseSbom(fixture('cyclonedx-1.6-nested.json'));
    expect(doc.components.map((c) => [c.name, c.version ?? 'version unknown'])).toEqual([
      ['shop', '3.2.0'], // metadata.component, listed: it has a purl
      ['shop-web', '3.2.0'],
      ['WEB-INF/lib', 'version unknown'],
      ['log4j-core', '2.14.1'], // two levels down
      ['openssl', '1.0.1f'], // once: the second copy differs only by its bom-ref
      ['libjpeg', 'version unknown'],
      ['xz-utils', '5.6.0'],
      ['shop-ui', '3.2.0'], // the subject's own component
    ]);
    expect(doc.components.find((c) => c.name === 'libjpeg')).toEqual({
      name: 'libjpeg',
      supplier: 'Independent JPEG Group', // CycloneDX 1.6 manufacturer
      ref: 'libjpeg-copy',
    });
    expect(doc.components.find((c) => c.name === 'openssl')?.ref).toBe('pkg:generic/openssl@1.0.1f');
  });

  it('leaves out a CycloneDX subject without purl or CPE', async () => {
    const doc = await parseSbom(fixture('cyclonedx-1.6-vulnerable.json'));
    expect(doc.components.map((c) => c.name)).not.toContain('shop-backend');
  });

  it('names the first schema problem of a CycloneDX document by its JSON pointer', async () => {
    const purl = await refusal(fixture('broken-cyclonedx-1.5-purl-not-string.json'));
    expect(purl.pointer).toBe('/components/1/purl');
    expect(purl.message).toBe(
      'The CycloneDX 1.5 document is not valid at /components/1/purl: must be string.',
    );
    const type = await refusal(fixture('broken-cyclonedx-1.6-bad-type.json'));
    expect(type.pointer).toBe('/components/0/type');
    expect(type.message).toMatch(
      /^The CycloneDX 1\.6 document is not valid at \/components\/0\/type: must be equal to one of the allowed values \("application", .*"library"/,
    );
  });

  it('refuses CycloneDX 1.3 and XML, saying what is read', async () => {
    const old = await refusal(fixture('broken-cyclonedx-1.3.json'));
    expect(old.message).toBe('CycloneDX 1.3 is not read: send CycloneDX JSON 1.4, 1.5, 1.6, 1.7.');
    expect(old.pointer).toBe('/specVersion');
    const xml = await refusal(fixture('broken-cyclonedx-1.5.xml'), 'application/vnd.cyclonedx+xml');
    expect(xml.message).toMatch(/^CycloneDX XML is not read: send the same SBOM as CycloneDX JSON/);
    expect((await refusal(fixture('broken-cyclonedx-1.5.xml'))).message).toMatch(
      /^CycloneDX XML is not read/,
    );
  });

  it('names the line of a JSON syntax error', async () => {
    const err = await refusal(fixture('broken-not-json.json'));
    expect(err.line).toBe(15);
    expect(err.message).toMatch(/^The document is not valid JSON: .* \(line 15\)\.$/);
  });

  it('names the JSON pointer of the first problem of an SPDX JSON document', async () => {
    const err = await refusal(fixture('broken-spdx-2.3-package-without-name.spdx.json'));
    expect(err.pointer).toBe('/packages/2');
    expect(err.message).toBe('The SPDX document is not valid at /packages/2: "name" is required.');
    const doc = JSON.parse(fixture('spdx-2.3-vulnerable.spdx.json')) as {
      packages: { externalRefs: unknown[] }[];
    };
    doc.packages[1]!.externalRefs = [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl' }];
    const ref = await refusal(JSON.stringify(doc));
    expect(ref.pointer).toBe('/packages/1/externalRefs/0');
    expect(ref.message).toMatch(/"referenceLocator" is required/);
    const v3 = await refusal(JSON.stringify({ ...doc, spdxVersion: 'SPDX-3.0' }));
    expect(v3.message).toBe('SPDX version "SPDX-3.0" is not read: send SPDX-2.2 or SPDX-2.3.');
  });

  it('names the line of the first problem of an SPDX tag-value document', async () => {
    const unclosed = await refusal(fixture('broken-spdx-2.3-unclosed-text.spdx'));
    expect(unclosed.line).toBe(33);
    expect(unclosed.message).toBe(
      'The <text> value of PackageDescription on line 33 of the SPDX tag-value document has no closing </text>.',
    );
    const colon = await refusal(fixture('broken-spdx-2.3-line-without-colon.spdx'));
    expect(colon.line).toBe(41);
    expect(colon.message).toBe(
      'Line 41 of the SPDX tag-value document is not a "Tag: value" line: "PackageVersion 1.0.1f".',
    );
  });

  it('refuses a document whose content type says another format, and what is no SBOM', async () => {
    expect(
      (await refusal(fixture('spdx-2.3-vulnerable.spdx.json'), 'application/vnd.cyclonedx+json')).message,
    ).toBe('The content type says CycloneDX JSON, but the document is SPDX JSON.');
    expect((await refusal('{"name": "x"}')).message).toMatch(/^This JSON is not an SBOM we read/);
    expect((await refusal('hello')).message).toMatch(/^The document is not an SBOM we read/);
    expect((await refusal('')).message).toBe('The document is empty.');
    expect((await refusal('[]')).message).toBe(
      'The document is JSON but not an object: an SBOM is a JSON object.',
    );
  });

  it('reads SPDX 2.2 and CycloneDX 1.7 as well', async () => {
    const spdx = JSON.parse(fixture('spdx-2.3-vulnerable.spdx.json')) as Record<string, unknown>;
    const v22 = await parseSbom(JSON.stringify({ ...spdx, spdxVersion: 'SPDX-2.2' }));
    expect(v22.specVersion).toBe('SPDX-2.2');
    expect(v22.components).toHaveLength(3);
    const cdx = JSON.parse(fixture('cyclonedx-1.6-vulnerable.json')) as Record<string, unknown>;
    const v17 = await parseSbom(
      JSON.stringify({
        ...cdx,
        specVersion: '1.7',
        $schema: 'http://cyclonedx.org/schema/bom-1.7.schema.json',
      }),
    );
    expect(v17.specVersion).toBe('1.7');
    expect(v17.components).toHaveLength(3);
  });

  it('refuses a document nested deeper than can be read with a sentence, not a crash', async () => {
    const depth = 20_000;
    const text = `{"bomFormat":"CycloneDX","specVersion":"1.6","version":1,"components":[${'{"type":"library","name":"n","components":['.repeat(depth)}{"type":"library","name":"leaf"}${']}'.repeat(depth)}]}`;
    const err = await refusal(text);
    expect(err.message).toMatch(/nested too deeply|not valid JSON/);
  });
});
