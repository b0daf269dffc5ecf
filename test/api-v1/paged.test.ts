/** API v1, paged shape (seed §4.3, §2.1–2.7): every route, on real records, with the seed's shapes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.ts';
import { createToken } from '../helpers/api.ts';
import { buildV1World, Envelope, expectShape, ids, Paged, type V1World } from '../helpers/api-v1.ts';

const ALL = 13;

describeEachDatabase('API v1 paged shape', (use) => {
  let w: V1World;
  const get = (url: string, auth?: string) => w.get(w.paged, url, auth);

  beforeAll(async () => {
    w = await buildV1World(use(), 'pg1');
  });
  afterAll(() => w.close());

  describe('every route of seed §4.3 answers 200 with the seed shape (user and token)', () => {
    const routes = (acme: string) =>
      [
        ['/api/organizations', Envelope(Paged.Organization)],
        [`/api/organizations/${acme}`, Paged.Organization],
        [`/api/organizations/${acme}/projects`, Envelope(Paged.Project)],
        [`/api/organizations/${acme}/projects/web`, Paged.ProjectDetail],
        [`/api/organizations/${acme}/projects/web/cve`, Envelope(Paged.Cve)],
        ['/api/vendors', Envelope(Paged.Named)],
        ['/api/vendors/redhat', Paged.Named],
        ['/api/vendors/redhat/cve', Envelope(Paged.Cve)],
        ['/api/vendors/redhat/products', Envelope(Paged.Named)],
        ['/api/vendors/redhat/products/enterprise_linux', Paged.Named],
        ['/api/vendors/redhat/products/enterprise_linux/cve', Envelope(Paged.Cve)],
        ['/api/weaknesses', Envelope(Paged.Weakness)],
        ['/api/weaknesses/CWE-125', Paged.Weakness],
        ['/api/weaknesses/CWE-125/cve', Envelope(Paged.Cve)],
        ['/api/cve', Envelope(Paged.Cve)],
        [
          '/api/cve?search=heartbeat&vendor=openssl&product=openssl&weakness=CWE-125&cvss=high&page=1',
          Envelope(Paged.Cve),
        ],
        ['/api/cve/CVE-2021-44228', Paged.CveDetail(false)],
        ['/api/cve/CVE-2024-3094?include=nvd_cpe_configurations', Paged.CveDetail(true)],
        ['/api/cve/CVE-2014-0160?include=nvd_cpe_configurations', Paged.CveDetail(true)],
      ] as const;

    it('as a joined member (HTTP Basic)', async () => {
      for (const [url, schema] of routes(w.acme.name)) {
        const res = await get(url, w.bob.basic);
        expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
        expectShape(res.json(), schema);
        const body = res.json();
        if ('results' in body)
          expect({ url, empty: body.results.length === 0 }).toEqual({ url, empty: false });
      }
    });

    it('as an organization token (Bearer)', async () => {
      for (const [url, schema] of routes(w.acme.name)) {
        const res = await get(url, w.acmeToken);
        expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
        expectShape(res.json(), schema);
      }
    });

    it('marks every response deprecated with a link to API v2', async () => {
      for (const [url, auth] of [
        ['/api/cve', w.bob.basic],
        ['/api/cve', undefined],
        ['/api/nope', w.bob.basic],
      ] as const) {
        const res = await get(url, auth);
        expect(res.headers.deprecation).toBe('true');
        expect(res.headers.link).toBe('<http://localhost:80/api/v2/docs/>; rel="successor-version"');
      }
    });
  });

  describe('organizations and projects', () => {
    it('lists the organizations the user has joined, and a token its own', async () => {
      const names = async (auth: string) => (await get('/api/organizations', auth)).json();
      expect((await names(w.bob.basic)).results.map((o: { name: string }) => o.name)).toEqual([w.acme.name]);
      expect((await names(w.acmeToken)).results.map((o: { name: string }) => o.name)).toEqual([w.acme.name]);
      expect(await names(w.dave.basic)).toEqual({ count: 0, next: null, previous: null, results: [] });
      // An invitation not accepted gives nothing.
      expect((await names(w.carol.basic)).count).toBe(0);
      const acme = (await get(`/api/organizations/${w.acme.name}`, w.bob.basic)).json();
      expect(acme).toEqual({
        id: w.acme.id,
        name: w.acme.name,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
    });

    it('shows a project with its subscriptions and its CVEs, newest-updated first', async () => {
      const web = (await get(`/api/organizations/${w.acme.name}/projects/web`, w.bob.basic)).json();
      expect(web).toMatchObject({
        name: 'web',
        description: 'The web shop',
        subscriptions: { vendors: ['tukaani'], products: { apache: ['log4j2'] } },
      });
      const list = (await get(`/api/organizations/${w.acme.name}/projects`, w.bob.basic)).json();
      expect(list.results.map((p: { name: string }) => p.name)).toEqual(['mobile', 'web']);
      const cves = (await get(`/api/organizations/${w.acme.name}/projects/web/cve`, w.acmeToken)).json();
      expect(ids(cves)).toEqual(['CVE-2021-44228', 'CVE-2024-3094']);
      expect(cves.count).toBe(2);
    });

    it("never shows another organization's data, by any path, to a user or a token", async () => {
      const other = w.globex.name;
      const paths = [
        `/api/organizations/${other}`,
        `/api/organizations/${other}/projects`,
        `/api/organizations/${other}/projects/secret`,
        `/api/organizations/${other}/projects/secret/cve`,
        `/api/organizations/no-such-org`,
        `/api/organizations/${w.acme.name}/projects/secret`,
        `/api/organizations/${w.acme.name}/projects/secret/cve`,
      ];
      for (const auth of [w.bob.basic, w.acmeToken, w.dave.basic, w.carol.basic]) {
        for (const url of paths) {
          const res = await get(url, auth);
          expect({ url, status: res.statusCode, body: res.json() }).toEqual({
            url,
            status: 404,
            body: { detail: 'Not found.' },
          });
        }
      }
      for (const url of [
        `/api/organizations/${w.acme.name}`,
        `/api/organizations/${w.acme.name}/projects/web`,
      ])
        expect((await get(url, w.globexToken)).statusCode).toBe(404);
      expect(
        (await get('/api/organizations', w.globexToken)).json().results.map((o: { name: string }) => o.name),
      ).toEqual([other]);
    });

    it('limits a scoped token to its scopes (403 {detail})', async () => {
      const actor = { type: 'user' as const, id: w.alice.id, name: w.alice.username };
      const catalogOnly = (
        await createToken(w.paged.services, w.acme.id, actor, { mode: 'read', scopes: ['catalog:read'] })
      ).header;
      expect((await get('/api/cve', catalogOnly)).statusCode).toBe(200);
      const res = await get('/api/organizations', catalogOnly);
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 403,
        body: { detail: 'You do not have permission to perform this action.' },
      });
    });
  });

  describe('/api/cve filters', () => {
    const cves = async (query: string, auth = w.bob.basic) => {
      const res = await get(`/api/cve${query}`, auth);
      expect(res.statusCode).toBe(200);
      return ids(res.json()).sort();
    };

    it('pages the whole catalog by 10, newest-updated first, with links that keep the filters', async () => {
      const first = (await get('/api/cve?cvss=7&foo=bar', w.bob.basic)).json();
      expect(first.count).toBe(ALL);
      expect(first.results).toHaveLength(10);
      expect(first.results[0].cve_id).toBe('CVE-2021-44228');
      expect(first.previous).toBeNull();
      expect(first.next).toBe('http://localhost:80/api/cve?cvss=7&foo=bar&page=2');
      const second = (await get('/api/cve?cvss=7&foo=bar&page=2', w.bob.basic)).json();
      expect(second.results).toHaveLength(ALL - 10);
      expect(second.next).toBeNull();
      expect(second.previous).toBe('http://localhost:80/api/cve?cvss=7&foo=bar&page=1');
      const updated = [...first.results, ...second.results].map((r: { updated_at: string }) => r.updated_at);
      expect(updated).toEqual([...updated].sort().reverse());
    });

    it('filters by keyword, vendor, product of the vendor, weakness and CVSS 3.1 level', async () => {
      expect(await cves('?search=heartbeat')).toEqual(['CVE-2014-0160']);
      expect(await cves('?search=2024-3094')).toEqual(['CVE-2024-3094']);
      expect(await cves('?vendor=redhat')).toEqual(['CVE-2014-0160', 'CVE-2024-3094', 'CVE-2024-6387']);
      expect(await cves('?vendor=redhat&product=jboss_enterprise_application_platform')).toEqual([
        'CVE-2024-3094',
      ]);
      expect(await cves('?weakness=CWE-125')).toEqual(['CVE-2014-0160', 'CVE-2022-20698']);
      expect(await cves('?cvss=critical')).toEqual(['CVE-2021-44228', 'CVE-2024-3094', 'CVE-2024-4577']);
      expect(await cves('?cvss=empty')).toEqual(['CVE-2014-0159', 'CVE-2019-25161', 'CVE-2021-36593']);
      expect(await cves('?cvss=low')).toEqual([]);
      expect(await cves('?cvss=high&vendor=debian')).toEqual([
        'CVE-2014-0160',
        'CVE-2022-20698',
        'CVE-2023-4863',
      ]);
    });

    it('ignores an unknown cvss level and a product without its vendor, as OpenCVE does', async () => {
      for (const query of ['?cvss=7', '?cvss=', '?cvss=none', '?product=xz'])
        expect({ query, count: (await get(`/api/cve${query}`, w.bob.basic)).json().count }).toEqual({
          query,
          count: ALL,
        });
    });

    it('filters by the caller’s own tags', async () => {
      expect(await cves('?tag=urgent')).toEqual(['CVE-2021-44228', 'CVE-2024-3094']);
      expect(await cves('?tag=java')).toEqual(['CVE-2021-44228']);
      expect(await cves('?tag=urgent', w.alice.basic)).toEqual(['CVE-2014-0160']);
    });

    it('answers 404 {detail} for an unknown vendor, product or tag (tokens have no tags)', async () => {
      for (const [query, auth] of [
        ['?vendor=acme-unknown', w.bob.basic],
        ['?vendor=redhat&product=nope', w.bob.basic],
        ['?tag=nope', w.bob.basic],
        ['?tag=java', w.alice.basic],
        ['?tag=urgent', w.acmeToken],
      ] as const) {
        const res = await get(`/api/cve${query}`, auth);
        expect({ query, status: res.statusCode, body: res.json() }).toEqual({
          query,
          status: 404,
          body: { detail: 'Not found.' },
        });
      }
    });
  });

  describe('one CVE', () => {
    it('has the seed metrics, weaknesses and vendors; configurations only when asked', async () => {
      const log4shell = (await get('/api/cve/CVE-2021-44228', w.bob.basic)).json();
      expect(Object.keys(log4shell.metrics).sort()).toEqual([
        'cvssV2_0',
        'cvssV3_0',
        'cvssV3_1',
        'cvssV4_0',
        'kev',
        'ssvc',
        'threat_severity',
      ]);
      expect(log4shell.metrics.cvssV3_1.data).toEqual({
        score: 10,
        vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H',
      });
      expect(log4shell.vendors).toEqual(['apache', 'apache$PRODUCT$log4j2']);
      expect(log4shell).not.toHaveProperty('nvd_cpe_configurations');
      const xz = (await get('/api/cve/CVE-2024-3094?include=nvd_cpe_configurations', w.bob.basic)).json();
      expect(xz.nvd_cpe_configurations[0].nodes[0].cpeMatch[0]).toEqual({
        criteria: 'cpe:2.3:a:tukaani:xz:5.6.0:*:*:*:*:*:*:*',
        matchCriteriaId: '73F1DAD7-F362-4C5B-B980-2E5313C369DA',
        vulnerable: true,
      });
      expect((await get('/api/cve/CVE-2024-3094?include=bogus', w.bob.basic)).json()).not.toHaveProperty(
        'nvd_cpe_configurations',
      );
    });

    it('answers 404 {detail} for a CVE not in the catalog', async () => {
      for (const url of [
        '/api/cve/CVE-1999-0001',
        '/api/cve/not-a-cve',
        '/api/weaknesses/CWE-999999',
        '/api/vendors/nope',
        '/api/vendors/redhat/products/nope',
      ]) {
        const res = await get(url, w.bob.basic);
        expect({ url, status: res.statusCode, body: res.json() }).toEqual({
          url,
          status: 404,
          body: { detail: 'Not found.' },
        });
      }
    });
  });

  describe('bad input', () => {
    it.each(['0', '-1', 'abc', '1.5', '50', '99999999999999999999', '1e3', '%20'])(
      'page=%s is a 404 {"detail": "Invalid page."}',
      async (page) => {
        for (const url of ['/api/cve', '/api/vendors', '/api/organizations', '/api/weaknesses/CWE-125/cve']) {
          const res = await get(`${url}?page=${page}`, w.bob.basic);
          expect({ url, status: res.statusCode, body: res.json() }).toEqual({
            url,
            status: 404,
            body: { detail: 'Invalid page.' },
          });
        }
      },
    );

    it('answers odd values with a 4xx in the shape, never a 5xx', async () => {
      const long = 'a'.repeat(300);
      for (const url of [
        `/api/cve?search=${long}`,
        `/api/vendors/${long}`,
        '/api/cve?vendor=%00',
        '/api/cve/%FF%FE',
        '/api/cve?search=%FF',
        "/api/cve?search=' OR 1=1 --",
        '/api/cve?page=1&page=2',
        '/api/organizations/..%2F..%2Fetc',
      ]) {
        const res = await get(url, w.bob.basic);
        expect({
          url,
          ok: (res.statusCode >= 400 && res.statusCode < 500) || res.statusCode === 200,
        }).toEqual({ url, ok: true });
        // Also a path the router itself refuses (over 200 characters, invalid UTF-8).
        const body = res.json();
        if (res.statusCode !== 200)
          expect({ url, keys: Object.keys(body) }).toEqual({ url, keys: ['detail'] });
      }
    });

    it('answers an unknown path 404 and another method 405, in the shape; API v2 keeps its own', async () => {
      const unknown = await get('/api/nope', w.bob.basic);
      expect({ status: unknown.statusCode, body: unknown.json() }).toEqual({
        status: 404,
        body: { detail: 'Not found.' },
      });
      const post = await w.paged.app.inject({
        method: 'POST',
        url: '/api/cve',
        headers: { authorization: w.bob.basic },
      });
      expect(post.statusCode).toBe(405);
      expect(post.headers.allow).toBe('GET');
      expect(post.json()).toEqual({ detail: 'Method "POST" not allowed.' });
      const v2 = await get('/api/v2/nope', w.acmeToken);
      expect({ status: v2.statusCode, body: v2.json() }).toEqual({
        status: 404,
        body: { error: { code: 'not_found', message: 'Not found.' } },
      });
      expect(v2.headers.deprecation).toBeUndefined();
      const v2Post = await w.paged.app.inject({
        method: 'POST',
        url: '/api/v2/cves',
        headers: { authorization: w.acmeToken },
      });
      expect(v2Post.statusCode).toBe(405);
      expect(v2Post.json().error.code).toBe('method_not_allowed');
      expect((await get('/api/v2/cves', w.acmeToken)).statusCode).toBe(200);
    });
  });
});
