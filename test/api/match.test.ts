/**
 * `POST /api/v2/match` on real records imported through the real importers, both databases:
 * Log4Shell (CVE 5 record; the NVD configuration is not in the data we have), Heartbleed (NVD 1.1
 * feed; no CVE 5 record in the data), the xz backdoor (CVE 5 record and NVD API 2.0).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { fixture } from '../helpers/catalog.ts';
import { storeTestAliases } from '../helpers/aliases.ts';
import { expectShape } from '../helpers/api-v1.ts';
import { MatchAnswer } from '../../src/api/v2/match.presenter.ts';

interface Rule {
  source: 'nvd' | 'cna';
  [key: string]: unknown;
}
interface Answer {
  index: number;
  input: unknown;
  error: string | null;
  version: string | null;
  looked_up: { vendor_keys: string[]; package_names: string[] };
  cves: { cve_id: string; verdict: string; rules: Rule[] }[];
}

describeEachDatabase('API v2 inventory match', (use) => {
  let api: TestApi;
  let reader: string;
  let noCatalog: string;

  beforeAll(async () => {
    api = await buildTestApi(use());
    await api.app.ready();
    // A new install's table and the operator alias that keeps Log4Shell's `apache$PRODUCT$log4j2` key
    // (no CPE of the sample names that product, so the table alone gives Log4Shell only `apache`).
    await storeTestAliases(use().db);
    await api.services.imports.importInputs(sources.cve5, [fixture('cve5', 'cves')]);
    await api.services.imports.importInputs(sources.nvd, [
      fixture('nvd', 'feed-1.1-heartbleed.json.gz'),
      fixture('nvd', 'CVE-2024-3094.json'),
    ]);
    const { org, actor } = await createOrganization(api.services, 'inventory');
    reader = (await createToken(api.services, org.id, actor, { mode: 'read', scopes: ['catalog:read'] }))
      .header;
    noCatalog = (await createToken(api.services, org.id, actor, { mode: 'read', scopes: ['tracker:read'] }))
      .header;
  });
  afterAll(() => api.close());

  async function match(components: unknown[], header = reader) {
    const res = await api.app.inject({
      method: 'POST',
      url: '/api/v2/match',
      headers: { authorization: header },
      payload: { components },
    });
    return res;
  }

  async function answers(components: unknown[]): Promise<Answer[]> {
    const res = await match(components);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { components: Answer[] }).components;
  }

  /** The rules by which one CVE was found for one component (empty when it was not). */
  async function rulesFor(component: unknown, cveId: string): Promise<Rule[]> {
    const [a] = await answers([component]);
    expect(a!.error).toBeNull();
    return a!.cves.find((c) => c.cve_id === cveId)?.rules ?? [];
  }

  describe('Log4Shell (CVE-2021-44228): CNA ranges only, no NVD configuration in our data', () => {
    it('finds log4j2 2.14.1 affected by the CNA range and its changes[], 2.17.1 not', async () => {
      const rules = await rulesFor(
        { vendor: 'Apache Software Foundation', product: 'Apache Log4j2', version: '2.14.1' },
        'CVE-2021-44228',
      );
      expect(rules).toEqual([
        {
          source: 'cna',
          entry: 0,
          vendor: 'Apache Software Foundation',
          product: 'Apache Log4j2',
          matched_by: 'vendor_product',
          decided_by: 'version',
          version: {
            version: '2.0-beta9',
            less_than: 'log4j-core*',
            status: 'affected',
            version_type: 'custom',
          },
          change: { at: '2.13.0', status: 'affected' },
          // `custom` names no scheme: the generic comparator, said in the rule.
          comparison: 'generic',
        },
      ]);
      expect(
        await rulesFor({ vendor: 'apache', product: 'log4j2', version: '2.17.1' }, 'CVE-2021-44228'),
      ).toEqual([]);
      expect(
        await rulesFor({ vendor: 'apache', product: 'log4j2', version: '2.12.2' }, 'CVE-2021-44228'),
      ).toEqual([]);
    });

    it('lists it as version_unknown for log4j2 without a version', async () => {
      const [a] = await answers([{ vendor: 'apache', product: 'log4j2' }]);
      expect(a).toMatchObject({
        version: null,
        cves: [{ cve_id: 'CVE-2021-44228', verdict: 'version_unknown' }],
      });
    });
  });

  describe('Heartbleed (CVE-2014-0160): NVD configuration only, no CVE 5 record in our data', () => {
    it('finds OpenSSL 1.0.1f affected by the NVD range, 1.0.1g not, as a CPE, an object and a purl', async () => {
      const [cpe, object, purl, fixed] = await answers([
        'cpe:2.3:a:openssl:openssl:1.0.1f:*:*:*:*:*:*:*',
        { vendor: 'openssl', product: 'openssl', version: '1.0.1f' },
        'pkg:deb/debian/openssl@1.0.1f',
        'cpe:2.3:a:openssl:openssl:1.0.1g:*:*:*:*:*:*:*',
      ]);
      for (const a of [cpe!, object!, purl!]) {
        expect(a.cves.map((c) => c.cve_id)).toContain('CVE-2014-0160');
        expect(a.cves.find((c) => c.cve_id === 'CVE-2014-0160')!.rules).toContainEqual({
          source: 'nvd',
          configuration: 0,
          criteria: 'cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*',
          match_criteria_id: expect.any(String),
          version_start_including: '1.0.1',
          version_end_excluding: '1.0.1g',
          conditions: 'met',
          unknown_conditions: [],
          comparison: 'generic',
        });
      }
      expect(fixed!.cves.map((c) => c.cve_id)).not.toContain('CVE-2014-0160');
    });

    it('reports firmware in an AND configuration with its hardware condition unknown', async () => {
      const rules = await rulesFor('cpe:2.3:o:siemens:cp_1543-1_firmware:1.1:*:*:*:*:*:*:*', 'CVE-2014-0160');
      expect(rules).toEqual([
        expect.objectContaining({
          source: 'nvd',
          criteria: 'cpe:2.3:o:siemens:cp_1543-1_firmware:1.1:*:*:*:*:*:*:*',
          conditions: 'unknown',
          unknown_conditions: ['cpe:2.3:h:siemens:cp_1543-1:-:*:*:*:*:*:*:*'],
        }),
      ]);
      expect(await rulesFor('cpe:2.3:h:siemens:cp_1543-1:-:*:*:*:*:*:*:*', 'CVE-2014-0160')).toEqual([]);
    });
  });

  describe('xz backdoor (CVE-2024-3094): NVD API 2.0 configuration and CNA versions', () => {
    it('finds 5.6.0 and 5.6.1 by the NVD configuration, 5.4.6 not', async () => {
      for (const v of ['5.6.0', '5.6.1']) {
        expect(
          await rulesFor({ vendor: 'tukaani', product: 'xz', version: v }, 'CVE-2024-3094'),
        ).toContainEqual(
          expect.objectContaining({
            source: 'nvd',
            criteria: `cpe:2.3:a:tukaani:xz:${v}:*:*:*:*:*:*:*`,
            conditions: 'met',
          }),
        );
      }
      expect(await rulesFor({ vendor: 'tukaani', product: 'xz', version: '5.4.6' }, 'CVE-2024-3094')).toEqual(
        [],
      );
    });

    it('finds a purl by the CNA packageName and versions: 5.6.1 affected, 5.4.6 not', async () => {
      const rules = await rulesFor('pkg:github/tukaani-project/xz@5.6.1', 'CVE-2024-3094');
      expect(rules.filter((r) => r.source === 'cna')).toEqual([
        {
          source: 'cna',
          entry: 0,
          package_name: 'xz',
          collection_url: 'https://github.com/tukaani-project/xz',
          matched_by: 'package_name',
          decided_by: 'version',
          version: { version: '5.6.1', status: 'affected' },
          comparison: 'generic',
        },
      ]);
      // The purl's owner spelled as NVD does (tukaani-project → tukaani) reaches the NVD rule too.
      expect(rules.filter((r) => r.source === 'nvd')).toHaveLength(1);
      expect(await rulesFor('pkg:rpm/redhat/xz@5.6.0', 'CVE-2024-3094')).toContainEqual(
        expect.objectContaining({
          source: 'cna',
          entry: 0,
          version: { version: '5.6.0', status: 'affected' },
        }),
      );
      expect(await rulesFor('pkg:github/tukaani-project/xz@5.4.6', 'CVE-2024-3094')).toEqual([]);
    });
  });

  describe('per-component answers', () => {
    it('answers each component in order, an unreadable one with its own error', async () => {
      const sent = [
        'cpe:2.3:a:tukaani:xz:5.6.1:*:*:*:*:*:*:*',
        'log4j 2.14.1',
        { vendor: 'tukaani' },
        42,
        'pkg:hex/phoenix@1.7.0',
        { vendor: 'nobody', product: 'nothing', version: '1.0' },
      ];
      const res = await match(sent);
      expect(res.statusCode).toBe(200);
      const body = res.json() as { count: number; matched: number; components: Answer[] };
      expect(body.count).toBe(6);
      expect(body.matched).toBe(1); // phoenix is read (any purl type), and no CVE names it
      expect(body.components.map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(body.components.map((c) => c.input)).toEqual(sent);
      expect(body.components[0]!.cves.map((c) => c.cve_id)).toEqual(['CVE-2024-3094']);
      expect(body.components.slice(1, 5).map((c) => c.error)).toEqual([
        'a text component is a CPE 2.3 name ("cpe:2.3:…") or a package URL ("pkg:…").',
        'a component object needs a vendor and a product, each a non-empty text.',
        'a component is a CPE 2.3 name, a package URL, an object {vendor, product, version} or an SBOM component {purl, cpe, name, version, vendor}.',
        null,
      ]);
      expect(body.components[4]).toMatchObject({
        version: '1.7.0',
        looked_up: { vendor_keys: expect.arrayContaining(['phoenix$PRODUCT$phoenix']) },
        cves: [],
      });
      expect(body.components[5]).toMatchObject({ error: null, version: '1.0', cves: [] });
    });

    it('sends JSON of the documented shape (the route encodes the presenter’s answer itself)', async () => {
      const res = await match([
        'cpe:2.3:a:tukaani:xz:5.6.1:*:*:*:*:*:*:*',
        { vendor: 'Apache Software Foundation', product: 'Apache Log4j2', version: '2.14.1' },
        'cpe:2.3:o:siemens:cp_1543-1_firmware:1.1:*:*:*:*:*:*:*',
        { vendor: 'apache', product: 'log4j2' },
        42,
      ]);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const body = res.json() as { components: Answer[] };
      expect(body.components.flatMap((c) => c.cves.flatMap((v) => v.rules.map((r) => r.source)))).toEqual(
        expect.arrayContaining(['nvd', 'cna']),
      );
      expectShape(body, MatchAnswer);
    });

    it('accepts 1,000 components and refuses 1,001 with a sentence', async () => {
      const many = Array.from({ length: 1000 }, (_, i) => ({
        vendor: 'openssl',
        product: 'openssl',
        version: `1.0.${i}`,
      }));
      const ok = await match(many);
      expect(ok.statusCode).toBe(200);
      expect((ok.json() as { count: number }).count).toBe(1000);
      const res = await match([...many, 'cpe:2.3:a:tukaani:xz:5.6.1:*:*:*:*:*:*:*']);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        error: { code: 'validation_error', details: { components: [expect.stringMatching(/1000/)] } },
      });
    });

    it('refuses a body that is not a list of components, with a sentence', async () => {
      for (const payload of [
        { components: 'cpe:2.3:a:x:y:1' },
        { components: [] },
        {},
        { components: [], extra: 1 },
      ]) {
        const res = await api.app.inject({
          method: 'POST',
          url: '/api/v2/match',
          headers: { authorization: reader },
          payload,
        });
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        const details = (res.json() as { error: { details: Record<string, string[]> } }).error.details;
        expect(Object.values(details).flat().join(' ')).toMatch(/[a-z]/);
      }
    });

    it('requires catalog:read', async () => {
      const res = await match(['cpe:2.3:a:tukaani:xz:5.6.1:*:*:*:*:*:*:*'], noCatalog);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: { code: 'missing_scope', required_scope: 'catalog:read' } });
      const anonymous = await api.app.inject({
        method: 'POST',
        url: '/api/v2/match',
        payload: { components: ['x'] },
      });
      expect(anonymous.statusCode).toBe(401);
    });
  });
});
