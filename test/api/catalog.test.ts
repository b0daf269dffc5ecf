import fs from 'node:fs';
import { storeTestAliases } from '../helpers/aliases.ts';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';

const NVD = [
  'CVE-2019-25161',
  'CVE-2021-36593',
  'CVE-2022-20698',
  'CVE-2023-4863',
  'CVE-2024-3094',
  'CVE-2024-31331',
].map((id) => `test/fixtures/nvd/${id}.json`);
const ALL_IDS = [
  'CVE-2011-0611',
  'CVE-2019-25161',
  'CVE-2021-36593',
  'CVE-2021-44228',
  'CVE-2022-20698',
  'CVE-2023-4863',
  'CVE-2024-31331',
  'CVE-2024-3094',
  'CVE-2024-4577',
  'CVE-2024-6387',
].sort();

describeEachDatabase('API v2 catalog', (use) => {
  let api: TestApi;
  let auth: string;
  const get = (url: string, header: string | undefined = auth) =>
    api.app.inject({ method: 'GET', url, headers: header ? { authorization: header } : {} });

  beforeAll(async () => {
    api = await buildTestApi(use());
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(api.services.database.db);
    await api.services.imports.importInputs(sources.cve5, ['test/fixtures/cve5/cves']);
    await api.services.imports.importInputs(sources.nvd, NVD);
    const { org, actor } = await createOrganization(api.services, 'acme');
    auth = (await createToken(api.services, org.id, actor, { mode: 'read' })).header;
  });
  afterAll(() => api.close());

  describe('GET /api/v2/cves', () => {
    it('lists the whole catalog newest-updated first with an exact count', async () => {
      const res = await get('/api/v2/cves?page_size=100');
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.count).toBe(ALL_IDS.length);
      expect(body.next).toBeNull();
      expect(body.previous).toBeNull();
      expect(body.results.map((r: { cve_id: string }) => r.cve_id).sort()).toEqual(ALL_IDS);
      const updated = body.results.map((r: { updated_at: string }) => r.updated_at);
      expect(updated).toEqual([...updated].sort().reverse());
      for (const item of body.results) {
        expect(Object.keys(item).sort()).toEqual(['created_at', 'cve_id', 'description', 'updated_at']);
        expect(item.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      }
    });

    it('pages with absolute next/previous links that keep the filters', async () => {
      const first = (await get('/api/v2/cves?page_size=4&ordering=cve_id&foo=bar')).json();
      expect(first.count).toBe(10);
      expect(first.results.map((r: { cve_id: string }) => r.cve_id)).toEqual(ALL_IDS.slice(0, 4));
      expect(first.next).toBe('http://localhost:80/api/v2/cves?page_size=4&ordering=cve_id&foo=bar&page=2');
      expect(first.previous).toBeNull();
      const last = (await get('/api/v2/cves?page_size=4&ordering=cve_id&page=3')).json();
      expect(last.results.map((r: { cve_id: string }) => r.cve_id)).toEqual(ALL_IDS.slice(8));
      expect(last.next).toBeNull();
      expect(last.previous).toBe('http://localhost:80/api/v2/cves?page_size=4&ordering=cve_id&page=2');
    });

    it('answers 404 not_found for a page past the last', async () => {
      const res = await get('/api/v2/cves?page=4&page_size=4');
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: { code: 'not_found', message: 'Not found.' } });
    });

    it.each([
      ['page=0', 'page'],
      ['page=abc', 'page'],
      ['page_size=101', 'page_size'],
      ['page_size=-1', 'page_size'],
      ['cvss=severe', 'cvss'],
      ['kev=maybe', 'kev'],
      ['epss_gte=2', 'epss_gte'],
      ['created_gte=yesterday', 'created_gte'],
      ['ordering=random', 'ordering'],
      ['weakness=XSS', 'weakness'],
    ])('answers 400 validation_error naming the parameter for %s', async (query, field) => {
      const res = await get(`/api/v2/cves?${query}`);
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body.error.code).toBe('validation_error');
      expect(body.error.message).toBe('Validation error.');
      expect(Object.keys(body.error.details)).toEqual([field]);
    });

    it('reads created_gte and updated_gte strictly: an impossible or out-of-range date is a 400 saying so', async () => {
      for (const name of ['created_gte', 'updated_gte']) {
        for (const [value, message] of [
          ['2024-02-30', `${name} is not a real date: "2024-02-30" does not exist in the calendar`],
          [
            '2024-01-01T24:30:00Z',
            `${name} is not a real date: "2024-01-01T24:30:00Z" does not exist in the calendar`,
          ],
          ['0000-01-01', `${name} is out of range: dates run from 0001-01-01 to 9999-12-31`],
          [
            'yesterday',
            `${name} must be a date (YYYY-MM-DD) or an ISO 8601 date-time such as 2024-03-29T16:51:12Z`,
          ],
        ]) {
          const res = await get(`/api/v2/cves?${name}=${encodeURIComponent(value!)}`);
          expect({ status: res.statusCode, body: res.json() }).toEqual({
            status: 400,
            body: {
              error: {
                code: 'validation_error',
                message: 'Validation error.',
                details: { [name]: [message] },
              },
            },
          });
        }
      }
      // The same impossible date is refused by q, as it always was.
      expect((await get('/api/v2/cves?q=created>=2024-02-30')).statusCode).toBe(400);
      // The first and last days that exist are read as themselves.
      expect((await get('/api/v2/cves?created_gte=0001-01-01')).json().count).toBe(
        (await get('/api/v2/cves')).json().count,
      );
      expect((await get('/api/v2/cves?created_gte=9999-12-31T23:59:59Z')).json().count).toBe(0);
    });

    const ids = async (query: string) =>
      (
        (await get(`/api/v2/cves?page_size=100&ordering=cve_id&${query}`)).json().results as {
          cve_id: string;
        }[]
      ).map((r) => r.cve_id);

    it('filters by vendor, product and both', async () => {
      expect(await ids('vendor=tukaani')).toEqual(['CVE-2024-3094']);
      expect(await ids('vendor=tukaani&product=xz')).toEqual(['CVE-2024-3094']);
      expect(await ids('product=xz')).toEqual(['CVE-2024-3094']);
      expect(await ids('vendor=apache&product=log4j2')).toEqual(['CVE-2021-44228']);
      expect(await ids('vendor=redhat')).toEqual(['CVE-2024-3094', 'CVE-2024-6387']);
      expect(await ids('vendor=no-such-vendor')).toEqual([]);
      // Names in any case, as people type them.
      expect(await ids('vendor=Tukaani&product=XZ')).toEqual(['CVE-2024-3094']);
      expect(await ids('vendor=REDHAT')).toEqual(['CVE-2024-3094', 'CVE-2024-6387']);
    });

    it('filters by weakness, CVSS v3.1 level, KEV and dates', async () => {
      expect(await ids('weakness=CWE-506')).toEqual(['CVE-2024-3094']);
      expect(await ids('weakness=506')).toEqual(['CVE-2024-3094']);
      const critical = await ids('cvss=critical');
      expect(critical).toContain('CVE-2021-44228');
      expect(critical).toContain('CVE-2024-3094');
      for (const id of await ids('cvss=empty')) expect(critical).not.toContain(id);
      const kev = await ids('kev=true');
      expect(kev).toEqual(expect.arrayContaining(['CVE-2011-0611', 'CVE-2021-44228', 'CVE-2024-4577']));
      expect(kev).not.toContain('CVE-2024-6387');
      expect((await ids('kev=false')).length + kev.length).toBe(10);
      expect(await ids('created_gte=2024-01-01')).toEqual(
        ['CVE-2019-25161', 'CVE-2024-3094', 'CVE-2024-31331', 'CVE-2024-4577', 'CVE-2024-6387'].sort(),
      );
    });

    it('searches words in descriptions and fragments of ids', async () => {
      expect(await ids('search=liblzma')).toEqual(['CVE-2024-3094']);
      expect(await ids('search=2024-6387')).toEqual(['CVE-2024-6387']);
      expect(await ids('search=CVE-2021')).toEqual(['CVE-2021-36593', 'CVE-2021-44228']);
    });
  });

  describe('counts', () => {
    it('stay exact when an import changes the catalog (cached counts are per catalog version)', async () => {
      const before = (await get('/api/v2/cves?kev=true')).json().count;
      expect((await get('/api/v2/cves?kev=true&page_size=5')).json().count).toBe(before);
      // A new CVE in KEV: the import bumps the catalog version, so the cached count is not reused.
      const record = JSON.parse(fs.readFileSync('test/fixtures/nvd/CVE-2023-4863.json', 'utf8')) as object;
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-count-'));
      fs.writeFileSync(
        path.join(dir, 'CVE-2099-4863.json'),
        JSON.stringify({ ...record, id: 'CVE-2099-4863' }),
      );
      await api.services.imports.importInputs(sources.nvd, [path.join(dir, 'CVE-2099-4863.json')]);
      fs.rmSync(dir, { recursive: true, force: true });
      const after = (await get('/api/v2/cves?kev=true')).json();
      expect(after.count).toBe(before + 1);
      expect(after.results.map((r: { cve_id: string }) => r.cve_id)).toContain('CVE-2099-4863');
    });
  });

  describe('GET /api/v2/cves/:cve_id', () => {
    it('returns the merged detail in the seed shape', async () => {
      const res = await get('/api/v2/cves/CVE-2024-3094');
      expect(res.statusCode).toBe(200);
      const cve = res.json();
      expect(Object.keys(cve).sort()).toEqual(
        [
          'affected',
          'created_at',
          'cve_id',
          'description',
          'metrics',
          'state',
          'title',
          'updated_at',
          'vendors',
          'weaknesses',
        ].sort(),
      );
      expect(cve.title).toBe('Xz: malicious code in distributed source');
      expect(cve.metrics.cvssV3_1).toEqual({
        data: { score: 10, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H' },
        provider: 'mitre',
      });
      expect(cve.metrics.threat_severity).toEqual({ data: null, provider: null });
      expect(cve.metrics.cvssV2_0).toEqual({ data: {}, provider: null });
      expect(cve.vendors).toEqual(expect.arrayContaining(['tukaani', 'tukaani$PRODUCT$xz']));
      expect(cve.weaknesses).toEqual(['CWE-506']);
    });

    it('adds NVD CPE configurations and references on request', async () => {
      const cve = (await get('/api/v2/cves/CVE-2024-3094?include=nvd_cpe_configurations,references')).json();
      const match = cve.nvd_cpe_configurations[0].nodes[0].cpeMatch[0];
      expect(match).toMatchObject({ criteria: 'cpe:2.3:a:tukaani:xz:5.6.0:*:*:*:*:*:*:*', vulnerable: true });
      expect(typeof match.matchCriteriaId).toBe('string');
      expect(cve.references.length).toBeGreaterThan(10);
      expect(cve.references[0]).toHaveProperty('url');
    });

    it('answers 400 for an unknown include, 400 for a malformed id, 404 for an unknown one', async () => {
      const bad = await get('/api/v2/cves/CVE-2024-3094?include=everything');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.details).toEqual({
        include: [
          'Unknown include value(s): everything. Allowed values: nvd_cpe_configurations, references.',
        ],
      });
      expect((await get('/api/v2/cves/CVE-24-1')).statusCode).toBe(400);
      // Any case, as API v1 and q accept it.
      const lower = await get('/api/v2/cves/cve-2024-3094');
      expect(lower.statusCode).toBe(200);
      expect(lower.json()).toEqual((await get('/api/v2/cves/CVE-2024-3094')).json());
      expect((await get('/api/v2/cves/cve-2024-3094/changes')).json().count).toBeGreaterThan(0);
      expect((await get('/api/v2/cves/../../etc/passwd')).statusCode).toBe(404);
      const missing = await get('/api/v2/cves/CVE-1999-0001');
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe('not_found');
    });
  });

  describe('GET /api/v2/cves/:cve_id/changes', () => {
    it('lists the change history and shows one change with its data', async () => {
      const list = (await get('/api/v2/cves/CVE-2024-3094/changes')).json();
      expect(list.count).toBe(2);
      expect(list.results[0].types).toEqual(expect.arrayContaining(['cpes', 'vendors', 'first_time']));
      expect(list.results[1].types).toContain('created');
      expect(list.results[0].created_at).toMatch(/\.\d{6}Z$/);
      const detail = (await get(`/api/v2/cves/CVE-2024-3094/changes/${list.results[0].id}`)).json();
      const vendors = detail.data.find((e: { type: string }) => e.type === 'vendors');
      expect(vendors.details.added).toEqual(expect.arrayContaining(['tukaani', 'tukaani$PRODUCT$xz']));
      // OpenCVE's change detail carries the KB's change object as `change_data` (its id, date, entries).
      expect(detail.change_data).toEqual({
        id: list.results[0].id,
        created: expect.any(String),
        data: detail.data,
      });
      expect(detail.change_data.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/);
      expect(Date.parse(detail.change_data.created)).toBe(Date.parse(list.results[0].created_at));
      expect((await get(`/api/v2/cves/CVE-2024-4577/changes/${list.results[0].id}`)).statusCode).toBe(404);
      expect((await get('/api/v2/cves/CVE-2024-3094/changes/not-a-uuid')).statusCode).toBe(400);
    });
  });

  describe('vendors, products and weaknesses', () => {
    it('lists vendors by name with search, and a vendor and its products', async () => {
      const list = (await get('/api/v2/vendors?search=tuka')).json();
      expect(list.results.map((v: { name: string }) => v.name)).toEqual(['tukaani']);
      expect(Object.keys(list.results[0]).sort()).toEqual(['created_at', 'id', 'name', 'updated_at']);
      expect((await get('/api/v2/vendors/tukaani')).json().name).toBe('tukaani');
      expect(
        (await get('/api/v2/vendors/tukaani/products')).json().results.map((p: { name: string }) => p.name),
      ).toEqual(['xz']);
      expect((await get('/api/v2/vendors/tukaani/products/xz')).json().name).toBe('xz');
      const cves = (await get('/api/v2/vendors/tukaani/products/xz/cves')).json();
      expect(cves.results.map((c: { cve_id: string }) => c.cve_id)).toEqual(['CVE-2024-3094']);
      expect(
        (await get('/api/v2/vendors/apache/cves')).json().results.map((c: { cve_id: string }) => c.cve_id),
      ).toContain('CVE-2021-44228');
      expect((await get('/api/v2/vendors/nobody')).statusCode).toBe(404);
      expect((await get('/api/v2/vendors/nobody/cves')).statusCode).toBe(404);
      expect((await get('/api/v2/vendors/tukaani/products/nothing')).statusCode).toBe(404);
    });

    it('lists weaknesses referenced by CVEs and the CVEs of one', async () => {
      const w = (await get('/api/v2/weaknesses/CWE-506')).json();
      expect(w.cwe_id).toBe('CWE-506');
      const cves = (await get('/api/v2/weaknesses/CWE-506/cves')).json();
      expect(cves.results.map((c: { cve_id: string }) => c.cve_id)).toEqual(['CVE-2024-3094']);
      expect((await get('/api/v2/weaknesses/CWE-999999')).statusCode).toBe(404);
      expect((await get('/api/v2/weaknesses/NVD-CWE-Other')).statusCode).toBe(400);
    });
  });
});

describeEachDatabase('API v2 authentication', (use) => {
  let api: TestApi;
  let orgId: string;
  let actor: Parameters<typeof createToken>[2];

  beforeAll(async () => {
    api = await buildTestApi(use(), { RATE_LIMIT_PER_MINUTE: '5' });
    ({
      org: { id: orgId },
      actor,
    } = await createOrganization(api.services, 'authco'));
  });
  afterAll(() => api.close());

  const call = (authorization?: string) =>
    api.app.inject({
      method: 'GET',
      url: '/api/v2/vendors',
      headers: authorization ? { authorization } : {},
    });

  it.each([
    ['missing', undefined],
    ['not bearer', 'Basic dXNlcjpwYXNz'],
    ['malformed', 'Bearer vtr_org.short.secret'],
    ['unknown id', 'Bearer vtr_org.AAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB'],
  ])('answers 401 invalid_token with WWW-Authenticate for a %s token', async (_name, header) => {
    const res = await call(header);
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.json()).toEqual({ error: { code: 'invalid_token', message: 'Invalid or missing token.' } });
  });

  it('rejects a right id with a wrong secret, and a revoked token on its next request', async () => {
    const { token, record } = await createToken(api.services, orgId, actor);
    const wrong = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expect((await call(`Bearer ${wrong}`)).statusCode).toBe(401);
    expect((await call(`Bearer ${token}`)).statusCode).toBe(200);
    await api.services.tokens.revoke(orgId, record.tokenId, actor);
    expect((await call(`Bearer ${token}`)).statusCode).toBe(401);
  });

  it('stores only a hash of the secret, and records last use', async () => {
    const { token, record } = await createToken(api.services, orgId, actor);
    const secret = token.split('.')[2]!;
    expect(record.secretHash).not.toContain(secret);
    expect(record.secretHash).toMatch(/^[0-9a-f]{64}$/);
    await call(`Bearer ${token}`);
    await new Promise((r) => setTimeout(r, 100));
    const after = (await api.services.tokens.list(orgId)).find((t) => t.tokenId === record.tokenId)!;
    expect(after.lastUsedAt).toBeInstanceOf(Date);
  });

  it('answers 403 missing_scope with required_scope when a token lacks catalog:read', async () => {
    const { header } = await createToken(api.services, orgId, actor, { scopes: ['projects:read'] });
    const res = await call(header);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      error: {
        code: 'missing_scope',
        message: 'This token lacks the scope catalog:read.',
        required_scope: 'catalog:read',
      },
    });
  });

  it('limits requests per token with 429 rate_limited and Retry-After', async () => {
    const { header } = await createToken(api.services, orgId, actor);
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 6; i++) {
      last = await call(header);
      statuses.push(last.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(last!.json().error.code).toBe('rate_limited');
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    // Another token has its own budget.
    expect((await call((await createToken(api.services, orgId, actor)).header)).statusCode).toBe(200);
  });
});

describeEachDatabase('API v2 advanced query', (use) => {
  let api: TestApi;
  let auth: string;
  const get = (url: string) => api.app.inject({ method: 'GET', url, headers: { authorization: auth } });

  beforeAll(async () => {
    api = await buildTestApi(use());
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(api.services.database.db);
    await api.services.imports.importInputs(sources.cve5, ['test/fixtures/cve5/cves']);
    const { org, actor } = await createOrganization(api.services, 'queryco');
    auth = (await createToken(api.services, org.id, actor, { mode: 'read' })).header;
  });
  afterAll(() => api.close());

  it('filters /cves with q, combined with the other filters', async () => {
    const q = encodeURIComponent('(vendor=redhat OR vendor=apache) AND cvss31>=9');
    const body = (await get(`/api/v2/cves?q=${q}&ordering=cve_id`)).json();
    expect(body.results.map((r: { cve_id: string }) => r.cve_id)).toEqual([
      'CVE-2021-44228',
      'CVE-2024-3094',
    ]);
    const kevOnly = (await get(`/api/v2/cves?q=${q}&kev=true`)).json();
    expect(kevOnly.results.map((r: { cve_id: string }) => r.cve_id)).toEqual(['CVE-2021-44228']);
  });

  it('answers 400 validation_error naming the problem for a malformed q, never a 500', async () => {
    for (const q of ['vendr=apache', 'cvss31>=', '(vendor=apache', 'created>2024-13-01', 'project=nope']) {
      const res = await get(`/api/v2/cves?q=${encodeURIComponent(q)}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('validation_error');
      expect(res.json().error.details.q[0]).toEqual(expect.any(String));
    }
    expect((await get(`/api/v2/cves?q=project%3Dnope`)).json().error.details.q).toEqual([
      'unknown project "nope"',
    ]);
  });
});
