/**
 * Issue 33's proof for the matcher: the SBOM of test/fixtures/sbom/ (log4j-core 2.14.1 by its Maven
 * purl, OpenSSL 1.0.1f by its CPE, xz-utils 5.6.0), read by the real parser in each format and sent to
 * `POST /api/v2/match` as SBOM components, finds Log4Shell, Heartbleed and the xz backdoor; the same
 * SBOM with 2.17.1, 1.0.1g and 5.4.6 finds none of them. Both databases; a new install's alias table
 * (the bundled sample's, no operator alias), real records imported by the real importers.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import { parseSbom, type SbomComponent } from '../../src/sources/sbom/sbom.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { fixture } from '../helpers/catalog.ts';
import { SAMPLE_RECORDS, storeAliasTable } from '../helpers/aliases.ts';

interface Answer {
  error: string | null;
  version: string | null;
  cves: { cve_id: string; verdict: string; rules: { source: string; [key: string]: unknown }[] }[];
}

const THE_THREE = ['CVE-2021-44228', 'CVE-2014-0160', 'CVE-2024-3094'];

const sbom = (name: string) => readFileSync(new URL(`../fixtures/sbom/${name}`, import.meta.url), 'utf8');

/** An SBOM component as `POST /api/v2/match` takes it. */
const asInput = (c: SbomComponent) => ({
  name: c.name,
  version: c.version,
  purl: c.purl,
  cpe: c.cpe,
  vendor: c.supplier,
});

describeEachDatabase('API v2 inventory match: an SBOM', (use) => {
  let api: TestApi;
  let reader: string;

  beforeAll(async () => {
    api = await buildTestApi(use());
    await api.app.ready();
    await storeAliasTable(use().db, [SAMPLE_RECORDS]);
    await api.services.imports.importInputs(sources.cve5, [fixture('cve5', 'cves')]);
    await api.services.imports.importInputs(sources.nvd, [
      fixture('nvd', 'feed-1.1-heartbleed.json.gz'),
      fixture('nvd', 'CVE-2024-3094.json'),
    ]);
    const { org, actor } = await createOrganization(api.services, 'inventory-sbom');
    reader = (await createToken(api.services, org.id, actor, { mode: 'read', scopes: ['catalog:read'] }))
      .header;
  });
  afterAll(() => api.close());

  async function answers(components: unknown[]): Promise<Answer[]> {
    const res = await api.app.inject({
      method: 'POST',
      url: '/api/v2/match',
      headers: { authorization: reader },
      payload: { components },
    });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { components: Answer[] }).components;
  }

  /** Of the three CVEs, those found for each component of the SBOM, by component name. */
  async function found(file: string): Promise<Record<string, string[]>> {
    const doc = await parseSbom(sbom(file));
    const got = await answers(doc.components.map(asInput));
    return Object.fromEntries(
      doc.components.map((c, i) => {
        expect(got[i]!.error).toBeNull();
        return [c.name, got[i]!.cves.map((v) => v.cve_id).filter((id) => THE_THREE.includes(id))];
      }),
    );
  }

  describe('the issue SBOM', () => {
    it.each([
      'cyclonedx-1.4-vulnerable.json',
      'cyclonedx-1.5-vulnerable.json',
      'cyclonedx-1.6-vulnerable.json',
      'spdx-2.3-vulnerable.spdx.json',
      'spdx-2.3-vulnerable.spdx',
    ])('%s finds CVE-2021-44228, CVE-2014-0160 and CVE-2024-3094', async (file) => {
      expect(await found(file)).toEqual({
        'log4j-core': ['CVE-2021-44228'],
        openssl: ['CVE-2014-0160'],
        'xz-utils': ['CVE-2024-3094'],
      });
    });

    it.each(['cyclonedx-1.6-fixed.json', 'spdx-2.3-fixed.spdx.json', 'spdx-2.3-fixed.spdx'])(
      '%s (2.17.1, 1.0.1g, 5.4.6) finds none of them',
      async (file) => {
        expect(await found(file)).toEqual({ 'log4j-core': [], openssl: [], 'xz-utils': [] });
      },
    );
  });

  describe('identifiers as a person means them', () => {
    it('finds Log4Shell for the log4j-core purl through the alias table, by the CNA range', async () => {
      const [vulnerable, fixed] = await answers([
        'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
        'pkg:maven/org.apache.logging.log4j/log4j-core@2.17.1',
      ]);
      expect(vulnerable!.cves.find((c) => c.cve_id === 'CVE-2021-44228')?.rules).toEqual([
        expect.objectContaining({
          source: 'cna',
          vendor: 'Apache Software Foundation',
          product: 'Apache Log4j2',
          matched_by: 'alias',
          decided_by: 'version',
          change: { at: '2.13.0', status: 'affected' },
          comparison: 'generic',
        }),
      ]);
      expect(fixed!.cves.map((c) => c.cve_id)).not.toContain('CVE-2021-44228');
    });

    it('reads pkg:generic by its name as a product, and by its CPE when it has one', async () => {
      const [byName, byCpe, generic] = await answers([
        'pkg:generic/openssl@1.0.1f',
        {
          name: 'xz-utils',
          purl: 'pkg:generic/xz-utils@5.6.1',
          cpe: 'cpe:2.3:a:tukaani:xz:5.6.1:*:*:*:*:*:*:*',
        },
        'pkg:generic/left-pad@1.3.0',
      ]);
      expect(byName!.cves.map((c) => c.cve_id)).toContain('CVE-2014-0160');
      expect(byCpe!.cves.map((c) => c.cve_id)).toEqual(['CVE-2024-3094']);
      expect(byCpe!.version).toBe('5.6.1');
      expect(generic).toMatchObject({ error: null, version: '1.3.0', cves: [] });
    });

    it('lists a component without a version as version unknown', async () => {
      const [a] = await answers([
        { name: 'log4j-core', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core' },
      ]);
      expect(a).toMatchObject({ error: null, version: null });
      expect(a!.cves.find((c) => c.cve_id === 'CVE-2021-44228')?.verdict).toBe('version_unknown');
    });
  });
});
