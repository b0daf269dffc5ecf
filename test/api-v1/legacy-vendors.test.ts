/**
 * API v1 legacy shape: OpenCVE 1.5's `/api/vendors`, `/api/vendors/<vendor>`, `/api/vendors/<vendor>/cve`
 * and `/api/products` (with `search`), on real records, through HTTP, with the legacy shape's Basic
 * authentication, paging, errors and rate limit.
 */
import { Type } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApi, type TestApi } from '../helpers/api.ts';
import { buildV1World, expectShape, Legacy, type V1World } from '../helpers/api-v1.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

const strict = <T extends Parameters<typeof Type.Object>[0]>(props: T) =>
  Type.Object(props, { additionalProperties: false });
/** OpenCVE 1.5's shapes (opencve/api/vendors.py, products.py of the 1.5 line). */
const VendorItem = strict({
  name: Type.String(),
  human_name: Type.String(),
  vendor_id: Type.String({ format: 'uuid' }),
});
const VendorDetail = strict({ ...VendorItem.properties, products: Type.Array(Type.String()) });
const FlatProduct = strict({
  name: Type.String(),
  human_name: Type.String(),
  vendor_name: Type.String(),
  vendor_human_name: Type.String(),
});

describeEachDatabase('API v1 legacy shape: vendors and products of OpenCVE 1.5', (use) => {
  let w: V1World;
  const get = (url: string, auth?: string) => w.get(w.legacy, url, auth ?? w.bob.basic);
  const json = async <T = unknown>(url: string): Promise<T> => {
    const res = await get(url);
    expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
    expect(res.headers.deprecation).toBe('true');
    return res.json<T>();
  };
  const vendorNames = async () =>
    (await sql<{ name: string; id: string }>`SELECT name, id FROM vendor ORDER BY name`.execute(use().db))
      .rows;

  beforeAll(async () => {
    w = await buildV1World(use(), 'lgv');
  });
  afterAll(() => w.close());

  it('lists vendors by name, 20 a page, with name, human_name and vendor_id', async () => {
    const all = await vendorNames();
    expect(all.length).toBeGreaterThan(20);
    const first = await json<{ name: string; vendor_id: string }[]>('/api/vendors');
    for (const v of first) expectShape(v, VendorItem);
    expect(first.map((v) => [v.name, v.vendor_id])).toEqual(all.slice(0, 20).map((v) => [v.name, v.id]));
    const second = await json<{ name: string }[]>('/api/vendors?page=2');
    expect(second.map((v) => v.name)).toEqual(all.slice(20, 40).map((v) => v.name));
    const past = Math.ceil(all.length / 20) + 1;
    const end = await get(`/api/vendors?page=${past}`);
    expect({ status: end.statusCode, body: end.json() }).toEqual({
      status: 404,
      body: { message: 'Not found.' },
    });
    const bad = await get('/api/vendors?page=zero');
    expect({ status: bad.statusCode, body: bad.json() }).toEqual({
      status: 400,
      body: { message: 'Invalid page.' },
    });
  });

  it('searches vendor names as 1.5 did: any case, a space standing for an underscore', async () => {
    expect(await json('/api/vendors?search=OpenSS')).toEqual([
      expect.objectContaining({ name: 'openssl', human_name: 'Openssl' }),
    ]);
    const all = await vendorNames();
    const spaced = all.find((v) => v.name.includes('_'))!;
    const found = await json<{ name: string }[]>(
      `/api/vendors?search=${encodeURIComponent(spaced.name.replace(/_/g, ' '))}`,
    );
    expect(found.map((v) => v.name)).toContain(spaced.name);
    expect(await json('/api/vendors?search=no-such-vendor-anywhere')).toEqual([]);
  });

  it('shows one vendor with every product name, sorted', async () => {
    const redhat = await json<{ name: string; products: string[] }>('/api/vendors/redhat');
    expectShape(redhat, VendorDetail);
    const products = (
      await sql<{ name: string }>`SELECT p.name FROM product p JOIN vendor v ON v.id = p.vendor_id
                                    WHERE v.name = 'redhat' ORDER BY p.name`.execute(use().db)
    ).rows.map((r) => r.name);
    expect(products.length).toBeGreaterThan(1);
    expect(redhat).toEqual({
      name: 'redhat',
      human_name: 'Redhat',
      vendor_id: (await vendorNames()).find((v) => v.name === 'redhat')!.id,
      products,
    });
    const missing = await get('/api/vendors/no-such-vendor');
    expect({ status: missing.statusCode, body: missing.json() }).toEqual({
      status: 404,
      body: { message: 'Not found.' },
    });
  });

  it("lists a vendor's CVEs with the CVE list's filters, and 404 for an unknown vendor", async () => {
    const cves = await json<{ id: string }[]>('/api/vendors/openssl/cve');
    for (const c of cves) expectShape(c, Legacy.CveSummary);
    expect(cves.map((c) => c.id)).toContain('CVE-2014-0160');
    expect(
      (await json<{ id: string }[]>('/api/vendors/openssl/cve?search=heartbeat&cvss=high&cwe=CWE-125')).map(
        (c) => c.id,
      ),
    ).toEqual(['CVE-2014-0160']);
    expect(await json('/api/vendors/openssl/cve?cvss=critical')).toEqual([]);
    expect(await json('/api/vendors/tukaani/cve')).toEqual([
      expect.objectContaining({ id: 'CVE-2024-3094' }),
    ]);
    expect((await get('/api/vendors/no-such-vendor/cve')).statusCode).toBe(404);
  });

  it('lists the products of every vendor with their vendor, searched as 1.5 did', async () => {
    const page = await json<unknown[]>('/api/products');
    expect(page).toHaveLength(20);
    for (const p of page) expectShape(p, FlatProduct);
    expect(await json('/api/products?search=Enterprise%20Linux')).toContainEqual({
      name: 'enterprise_linux',
      human_name: 'Enterprise Linux',
      vendor_name: 'redhat',
      vendor_human_name: 'Redhat',
    });
    const xz = await json<{ name: string; vendor_name: string }[]>('/api/products?search=xz');
    expect(xz.every((p) => p.name.includes('xz'))).toBe(true);
    expect(xz).toContainEqual(expect.objectContaining({ name: 'xz', vendor_name: 'tukaani' }));
    const end = await get('/api/products?page=100000');
    expect({ status: end.statusCode, body: end.json() }).toEqual({
      status: 404,
      body: { message: 'Not found.' },
    });
    expect(await json('/api/products?search=nothing-by-this-name')).toEqual([]);
  });

  it('takes HTTP Basic only: no credentials, a bad password or a token are 401', async () => {
    for (const url of ['/api/vendors', '/api/vendors/redhat', '/api/vendors/redhat/cve', '/api/products']) {
      const none = await w.get(w.legacy, url);
      expect({ url, status: none.statusCode, body: none.json() }).toEqual({
        url,
        status: 401,
        body: { message: 'Authentication credentials were not provided.' },
      });
      const token = await get(url, w.acmeToken);
      expect(token.statusCode).toBe(401);
      expect(token.headers['www-authenticate']).toBe('Basic realm="vulntrack"');
    }
    expect((await w.get(w.legacy, '/api/products', w.bob.basic.replace(/.$/, 'A'))).statusCode).toBe(401);
  });

  it('answers another method with 405', async () => {
    const res = await w.legacy.app.inject({
      method: 'POST',
      url: '/api/products',
      headers: { authorization: w.bob.basic },
    });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET');
  });

  describe('with RATE_LIMIT_PER_MINUTE=3', () => {
    let limited: TestApi;
    beforeAll(async () => {
      limited = await buildTestApi(use(), { API_V1_SHAPE: 'legacy', RATE_LIMIT_PER_MINUTE: '3' });
    });
    afterAll(() => limited.close());

    it("counts these routes in the user's budget, as the other legacy routes", async () => {
      const urls = ['/api/vendors', '/api/products', '/api/vendors/redhat', '/api/vendors/openssl/cve'];
      const statuses = [];
      for (const url of urls) statuses.push((await w.get(limited, url, w.alice.basic)).statusCode);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const res = await w.get(limited, '/api/cve', w.alice.basic);
      expect(res.statusCode).toBe(429);
      expect(res.headers['retry-after']).toBeDefined();
    });
  });
});
