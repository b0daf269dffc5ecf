/** API v1, legacy array shape (seed §4.4, §2.8): every route but reports, on real records. */
import fs from 'node:fs';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nvd20To11 } from '../../src/domain/nvd11.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { buildV1World, expectShape, HEARTBLEED_FEED, ids, Legacy, type V1World } from '../helpers/api-v1.ts';

const ALL = 13;
type Json = Record<string, unknown>;

const feedItem = (id: string) =>
  (
    JSON.parse(zlib.gunzipSync(fs.readFileSync(HEARTBLEED_FEED)).toString('utf8')) as {
      CVE_Items: { cve: { CVE_data_meta: { ID: string } } }[];
    }
  ).CVE_Items.find((i) => i.cve.CVE_data_meta.ID === id);

describeEachDatabase('API v1 legacy shape', (use) => {
  let w: V1World;
  const get = (url: string, auth?: string) => w.get(w.legacy, url, auth);
  const json = async (url: string, auth = w.bob.basic) => {
    const res = await get(url, auth);
    expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
    return res.json();
  };

  beforeAll(async () => {
    w = await buildV1World(use(), 'lg1');
  });
  afterAll(() => w.close());

  it('answers every route of seed §4.4 (reports aside) with bare arrays of the seed shapes', async () => {
    const Array = (item: unknown) => ({ type: 'array', items: item, minItems: 1 }) as never;
    const routes = [
      ['/api/cve', Array(Legacy.CveSummary)],
      [
        '/api/cve?search=heartbeat&vendor=openssl&product=openssl&cvss=high&cwe=CWE-125&page=1',
        Array(Legacy.CveSummary),
      ],
      ['/api/cve/CVE-2014-0160', Legacy.CveDetail],
      ['/api/cve/CVE-2024-3094', Legacy.CveDetail],
      ['/api/cve/CVE-2021-44228', Legacy.CveDetail],
      ['/api/cve/CVE-2022-20698', Legacy.CveDetail],
      ['/api/cwe', Array(Legacy.Cwe)],
      ['/api/cwe?search=read&page=1', Array(Legacy.Cwe)],
      ['/api/cwe/CWE-125', Legacy.Cwe],
      ['/api/cwe/CWE-125/cve', Array(Legacy.CveSummary)],
      [
        '/api/cwe/CWE-125/cve?search=heartbeat&vendor=openssl&product=openssl&cvss=high&page=1',
        Array(Legacy.CveSummary),
      ],
      ['/api/vendors/redhat/products', Array(Legacy.Product)],
      ['/api/vendors/redhat/products?search=linux&page=1', Array(Legacy.Product)],
      ['/api/vendors/redhat/products/enterprise_linux', Legacy.Product],
      ['/api/vendors/redhat/products/enterprise_linux/cve', Array(Legacy.CveSummary)],
      [
        '/api/vendors/openssl/products/openssl/cve?search=heartbeat&cvss=high&cwe=CWE-125&page=1',
        Array(Legacy.CveSummary),
      ],
      ['/api/account/subscriptions/vendors', Array(Legacy.VendorSubscription)],
      ['/api/account/subscriptions/products', Array(Legacy.ProductSubscription)],
    ] as const;
    for (const [url, schema] of routes) {
      const body = await json(url);
      expectShape(body, schema);
    }
  });

  it('marks responses deprecated and takes HTTP Basic only (a token is not a credential here)', async () => {
    const res = await get('/api/cve', w.acmeToken);
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 401,
      body: { message: 'Invalid username/password.' },
    });
    expect(res.headers['www-authenticate']).toBe('Basic realm="vulntrack"');
    expect(res.headers.deprecation).toBe('true');
    expect(res.headers.link).toBe('<http://localhost:80/api/v2/docs/>; rel="successor-version"');
    const none = await get('/api/cve');
    expect({ status: none.statusCode, body: none.json() }).toEqual({
      status: 401,
      body: { message: 'Authentication credentials were not provided.' },
    });
  });

  describe('raw_nvd_data', () => {
    it('is the NVD 1.1 feed item itself for a CVE imported from the feed (Heartbleed)', async () => {
      const heartbleed = await json('/api/cve/CVE-2014-0160');
      expect(heartbleed.raw_nvd_data).toEqual(feedItem('CVE-2014-0160'));
      expect(heartbleed.cvss).toEqual({ v2: 5, v3: 7.5 });
      expect(heartbleed.cwes).toEqual(['CWE-125']);
      expect(heartbleed.vendors.openssl).toEqual(['openssl']);
    });

    it('is the 1.1 layout of the record, same values, for a CVE imported from NVD API 2.0 (xz)', async () => {
      const xz = await json('/api/cve/CVE-2024-3094');
      const record = JSON.parse(fs.readFileSync('test/fixtures/nvd/CVE-2024-3094.json', 'utf8')) as Json;
      expect(xz.raw_nvd_data).toEqual(nvd20To11(record));
      const raw = xz.raw_nvd_data;
      expect(raw.cve.CVE_data_meta).toEqual({ ID: 'CVE-2024-3094', ASSIGNER: 'secalert@redhat.com' });
      expect(raw.impact.baseMetricV3.cvssV3).toMatchObject({
        baseScore: 10,
        vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H',
        scope: 'CHANGED',
      });
      expect(raw.configurations.nodes[0].cpe_match.map((m: Json) => m.cpe23Uri)).toEqual([
        'cpe:2.3:a:tukaani:xz:5.6.0:*:*:*:*:*:*:*',
        'cpe:2.3:a:tukaani:xz:5.6.1:*:*:*:*:*:*:*',
      ]);
      expect(raw.publishedDate).toBe('2024-03-29T17:15Z');
      expect(xz.vendors).toEqual({
        redhat: ['enterprise_linux', 'jboss_enterprise_application_platform'],
        tukaani: ['xz'],
      });
      expect(xz.cvss).toEqual({ v2: null, v3: 10 });
    });

    it('is built from the catalog for a CVE NVD has no record of (Log4Shell)', async () => {
      const log4shell = await json('/api/cve/CVE-2021-44228');
      expect(log4shell.raw_nvd_data.cve.CVE_data_meta.ID).toBe('CVE-2021-44228');
      expect(log4shell.raw_nvd_data.impact.baseMetricV3.cvssV3).toMatchObject({
        baseScore: 10,
        baseSeverity: 'CRITICAL',
        attackVector: 'NETWORK',
      });
      expect(log4shell.raw_nvd_data.cve.description.description_data[0].value).toBe(log4shell.summary);
    });
  });

  describe('filters', () => {
    const list = async (url: string) => ids(await json(url)).sort();

    it('lists the catalog in one page of 20 (13 CVEs), newest-updated first; page 2 is a 404', async () => {
      const all = await json('/api/cve');
      expect(all).toHaveLength(ALL);
      expect(all[0].id).toBe('CVE-2021-44228');
      const res = await get('/api/cve?page=2', w.bob.basic);
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 404,
        body: { message: 'Not found.' },
      });
    });

    it('filters on CVSS v3 levels (none, low 0.1–3.9, …, critical 9–10), CWE, vendor and product', async () => {
      expect(await list('/api/cve?cvss=critical')).toEqual([
        'CVE-2021-44228',
        'CVE-2024-3094',
        'CVE-2024-4577',
      ]);
      expect(await list('/api/cve?cvss=none')).toEqual(['CVE-2014-0159', 'CVE-2019-25161', 'CVE-2021-36593']);
      expect(await list('/api/cve?cvss=medium')).toEqual(['CVE-2014-0161']);
      expect(await list('/api/cve?cvss=low')).toEqual([]);
      expect(await list('/api/cve?cwe=CWE-125')).toEqual(['CVE-2014-0160', 'CVE-2022-20698']);
      expect(await list('/api/cve?vendor=redhat&product=jboss_enterprise_application_platform')).toEqual([
        'CVE-2024-3094',
      ]);
      expect(await list('/api/cve?search=heartbeat')).toEqual(['CVE-2014-0160']);
      expect(await list('/api/cwe/CWE-125/cve?cvss=high&vendor=clamav')).toEqual(['CVE-2022-20698']);
      expect(await list('/api/vendors/debian/products/debian_linux/cve?cvss=high&cwe=CWE-125')).toEqual([
        'CVE-2014-0160',
        'CVE-2022-20698',
      ]);
    });

    it('ignores an unknown cvss level (scripts send cvss=7) and a product without its vendor', async () => {
      expect(await list('/api/cve?cvss=7')).toHaveLength(ALL);
      expect(await list('/api/cve?cvss=empty')).toHaveLength(ALL);
      expect(await list('/api/cve?product=xz')).toHaveLength(ALL);
    });

    it('answers 404 {message} for an unknown vendor, product, CWE or CVE', async () => {
      for (const url of [
        '/api/cve?vendor=nope',
        '/api/cve?vendor=redhat&product=nope',
        '/api/cve/CVE-1999-0001',
        '/api/cwe/CWE-999999',
        '/api/cwe/CWE-999999/cve',
        '/api/vendors/nope/products',
        '/api/vendors/redhat/products/nope',
        '/api/vendors/redhat/products/nope/cve',
      ]) {
        const res = await get(url, w.bob.basic);
        expect({ url, status: res.statusCode, body: res.json() }).toEqual({
          url,
          status: 404,
          body: { message: 'Not found.' },
        });
      }
    });

    it('searches CWEs and products', async () => {
      expect((await json('/api/cwe?search=read')).map((c: Json) => c.id)).toEqual(['CWE-125']);
      expect(await json('/api/cwe/CWE-125')).toEqual({
        id: 'CWE-125',
        name: 'Out-of-bounds Read',
        description: expect.any(String),
      });
      expect(await json('/api/vendors/redhat/products?search=server_eus')).toEqual([
        { name: 'enterprise_linux_server_eus', human_name: 'Enterprise Linux Server Eus' },
      ]);
    });
  });

  describe('account subscriptions', () => {
    it("are the union of the subscriptions of the user's organizations' projects", async () => {
      expect(await json('/api/account/subscriptions/vendors')).toEqual([
        { name: 'tukaani', human_name: 'Tukaani' },
      ]);
      expect(await json('/api/account/subscriptions/products')).toEqual([
        { name: 'log4j2', human_name: 'Log4j2', parent_vendor: 'apache' },
        { name: 'android', human_name: 'Android', parent_vendor: 'google' },
      ]);
      expect(await json('/api/account/subscriptions/vendors', w.eve.basic)).toEqual([
        { name: 'openafs', human_name: 'Openafs' },
      ]);
      expect(await json('/api/account/subscriptions/products', w.eve.basic)).toEqual([
        { name: 'flash_player', human_name: 'Flash Player', parent_vendor: 'adobe' },
      ]);
      expect(await json('/api/account/subscriptions/vendors', w.dave.basic)).toEqual([]);
      expect(await json('/api/account/subscriptions/products', w.carol.basic)).toEqual([]);
    });
  });

  describe('bad input', () => {
    it.each([
      ['0', 400, 'Invalid page.'],
      ['-1', 400, 'Invalid page.'],
      ['abc', 400, 'Invalid page.'],
      ['1.5', 400, 'Invalid page.'],
      ['2', 404, 'Not found.'],
      ['99999999999999999999', 404, 'Not found.'],
    ] as const)('page=%s is a %i {"message": "%s"}', async (page, status, message) => {
      for (const url of [
        '/api/cve',
        '/api/cwe',
        '/api/cwe/CWE-125/cve',
        '/api/vendors/redhat/products',
        '/api/vendors/redhat/products/enterprise_linux/cve',
      ]) {
        const res = await get(`${url}?page=${page}`, w.bob.basic);
        expect({ url, status: res.statusCode, body: res.json() }).toEqual({ url, status, body: { message } });
      }
    });

    it('answers an unknown path 404 and another method 405, in the shape', async () => {
      const post = await w.legacy.app.inject({
        method: 'DELETE',
        url: '/api/cwe/CWE-125',
        headers: { authorization: w.bob.basic },
      });
      expect({ status: post.statusCode, allow: post.headers.allow, body: post.json() }).toEqual({
        status: 405,
        allow: 'GET',
        body: { message: 'Method "DELETE" not allowed.' },
      });
      const v2 = await get('/api/v2/nope', w.acmeToken);
      expect(v2.json()).toEqual({ error: { code: 'not_found', message: 'Not found.' } });
    });

    it('answers a URL the router cannot read (invalid UTF-8, a parameter too long) 400 in the shape', async () => {
      for (const url of ['/api/cve/%FF%FE', `/api/vendors/${'a'.repeat(300)}/cve`]) {
        const res = await get(url, w.bob.basic);
        expect({ url, status: res.statusCode, keys: Object.keys(res.json()) }).toEqual({
          url,
          status: 400,
          keys: ['message'],
        });
      }
      const v2 = await get('/api/v2/cves/%FF%FE', w.acmeToken);
      expect(v2.json()).toMatchObject({
        error: { code: 'validation_error', details: { path: [expect.any(String)] } },
      });
    });
  });
});
