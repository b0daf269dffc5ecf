/**
 * `POST /api/v2/match` for components written as free text, `{vendor, product, version}`, when the
 * catalog has no product key for them: the alias table maps CNA text to keys only when it is
 * confident, so a CVE whose CNA names a product no CPE has named is listed under its vendor alone.
 * Such a component is found through the CNA's own names (the CNA names index, migration 0034), and
 * its text is mapped as a CNA's would be (an operator's alias included). And what a process keeps
 * between calls (InventoryMatchCache) never answers for a catalog that has moved on. Both databases;
 * the world has the bundled sample's table only (no operator alias for Log4j2, unlike
 * test/api/match.test.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CveRepository } from '../../src/db/cve.repository.ts';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fixture, readJson, tempDir } from '../helpers/catalog.ts';
import { addOperatorAlias, SAMPLE_RECORDS, storeAliasTable } from '../helpers/aliases.ts';

interface Answer {
  error: string | null;
  looked_up: { vendor_keys: string[]; package_names: string[] };
  cves: { cve_id: string; verdict: string; rules: { source: string; [key: string]: unknown }[] }[];
}

describeEachDatabase('API v2 inventory match: components written as text', (use) => {
  let api: TestApi;
  let reader: string;

  beforeAll(async () => {
    api = await buildTestApi(use());
    await api.app.ready();
    await storeAliasTable(use().db, [SAMPLE_RECORDS]);
    await api.services.imports.importInputs(sources.cve5, [fixture('cve5', 'cves')]);
    await api.services.imports.importInputs(sources.nvd, [fixture('nvd', 'feed-1.1-heartbleed.json.gz')]);
    const { org, actor } = await createOrganization(api.services, 'inventory-names');
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

  it('finds Log4Shell for "Apache Software Foundation / Apache Log4j2" by the CNA\'s own range', async () => {
    const cve = await api.services.catalog.getCve('CVE-2021-44228');
    // The text is looked up as the alias table maps it: under the product key minted from the same
    // CNA text (issue 30), which the catalog lists Log4Shell under.
    const [typed] = await answers([{ vendor: 'Apache Software Foundation', product: 'Apache Log4j2' }]);
    expect(cve!.vendors).toContain('apache$PRODUCT$log4j');
    expect(typed!.looked_up.vendor_keys).toContain('apache$PRODUCT$log4j');

    const [affected, fixedVersion, otherCase] = await answers([
      { vendor: 'Apache Software Foundation', product: 'Apache Log4j2', version: '2.14.1' },
      { vendor: 'Apache Software Foundation', product: 'Apache Log4j2', version: '2.17.1' },
      { vendor: 'apache software foundation ', product: 'APACHE LOG4J2', version: '2.14.1' },
    ]);
    for (const a of [affected!, otherCase!]) {
      expect(a.cves.map((c) => c.cve_id)).toEqual(['CVE-2021-44228']);
      expect(a.cves[0]!.rules).toEqual([
        expect.objectContaining({ source: 'cna', matched_by: 'vendor_product', decided_by: 'version' }),
      ]);
    }
    expect(fixedVersion!.cves).toEqual([]);
  });

  it('maps the text through the alias table: an operator alias to OpenSSL finds Heartbleed by its NVD range', async () => {
    const component = { vendor: 'Acme Distribution', product: 'Acme TLS Library', version: '1.0.1f' };
    const [before] = await answers([component]);
    expect(before!.cves).toEqual([]);

    await addOperatorAlias(use().db, 'Acme Distribution', 'Acme TLS Library', 'openssl$PRODUCT$openssl');
    const [after, fixedVersion] = await answers([component, { ...component, version: '1.0.1g' }]);
    expect(after!.looked_up.vendor_keys).toContain('openssl$PRODUCT$openssl');
    expect(after!.cves.map((c) => c.cve_id)).toEqual(['CVE-2014-0160']);
    expect(after!.cves[0]!.rules).toContainEqual(
      expect.objectContaining({ source: 'nvd', version_end_excluding: '1.0.1g', conditions: 'met' }),
    );
    expect(fixedVersion!.cves).toEqual([]);
  });

  it('answers from the catalog as it is now: a CNA that widens its range is matched on the next call', async () => {
    const component = { vendor: 'Apache Software Foundation', product: 'Apache Log4j2', version: '2.17.1' };
    const [before] = await answers([component]); // read, and kept by the process
    expect(before!.cves).toEqual([]);
    const version = await new CveRepository(use().db).catalogVersion();

    // The same record with only its version ranges changed: the merged CVE (title, dates, keys) is
    // the same, only the CNA statement is rewritten.
    const record = await readJson<{ containers: { cna: { affected: { versions: unknown[] }[] } } }>(
      fixture('cve5', 'cves', '2021', '44xxx', 'CVE-2021-44228.json'),
    );
    record.containers.cna.affected[0]!.versions = [
      { version: '2.0-beta9', lessThan: '2.18.0', status: 'affected', versionType: 'custom' },
    ];
    const { dir, remove } = await tempDir();
    try {
      await fs.writeFile(path.join(dir, 'CVE-2021-44228.json'), JSON.stringify(record));
      const report = await api.services.imports.importInputs(sources.cve5, [dir]);
      expect(report.counts.unchanged + report.counts.updated).toBe(1);
    } finally {
      await remove();
    }
    expect(await new CveRepository(use().db).catalogVersion()).toBeGreaterThan(version);

    const [after] = await answers([component]);
    expect(after!.cves.map((c) => c.cve_id)).toEqual(['CVE-2021-44228']);
    expect(after!.cves[0]!.rules).toEqual([
      expect.objectContaining({ source: 'cna', version: expect.objectContaining({ less_than: '2.18.0' }) }),
    ]);
  });
});
