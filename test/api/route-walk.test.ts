/**
 * Walks every API v2 route (from the app's own route table, so a new route is covered the day it is
 * added) with the tokens that must be refused: another organization's, one lacking the route's
 * scope, a read-only one on writes; then with malformed input. Nothing may answer 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { SCOPES, type Scope } from '../../src/domain/scopes.ts';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';

const UUID = '00000000-0000-4000-8000-000000000000';

/** A concrete path for a route pattern, naming organization `org`. */
function pathFor(url: string, org: string): string {
  const values: Record<string, string> = {
    org,
    project: 'web',
    cve_id: 'CVE-2024-3094',
    vendor: 'tukaani',
    product: 'xz',
    cwe_id: 'CWE-506',
    id: UUID,
    name: 'default',
    link: 'ABCDEF123456',
    position: '1',
  };
  return url.replace(/:(\w+)/g, (_m, key: string) => encodeURIComponent(values[key] ?? 'x'));
}

/** Every scope except those that would satisfy `scope` (itself, its write twin, its alternatives). */
function scopesLacking(scope: Scope, anyOf: Scope[] = []): Scope[] {
  const satisfying = new Set<string>();
  for (const s of [scope, ...anyOf]) {
    satisfying.add(s);
    satisfying.add(s.replace(/:read$/, ':write'));
  }
  return SCOPES.filter((s) => !satisfying.has(s));
}

/** A snapshot of organization-owned rows, to prove that refused requests changed nothing. */
async function snapshot(api: TestApi): Promise<string> {
  const db = api.services.database.db;
  const tables = [
    'organization',
    'membership',
    'project',
    'project_subscription',
    'tracker_entry',
    'tracker_comment',
    'notification',
    'automation',
    'automation_execution',
    'report',
    'delivery',
  ];
  const counts: Record<string, unknown> = {};
  for (const t of tables) {
    counts[t] = (
      await sql`SELECT count(*)::int AS n, md5(string_agg(t::text, ',' ORDER BY t::text)) AS h FROM ${sql.table(t)} t`.execute(
        db,
      )
    ).rows[0];
  }
  // Tokens: everything but last_used_at, which a refused request may legitimately touch.
  counts.api_token = (
    await sql`SELECT md5(string_agg(concat_ws('|', id, organization_id, name, mode, scopes, revoked_at), ',' ORDER BY id)) AS h
      FROM api_token`.execute(db)
  ).rows[0];
  return JSON.stringify(counts);
}

describeEachDatabase('API v2 route walk', (use) => {
  let api: TestApi;
  let orgA: string;
  let ownA: string;
  let tokenB: string;
  let makeToken: (mode: 'read' | 'write', scopes: string[]) => Promise<string>;

  beforeAll(async () => {
    api = await buildTestApi(use());
    await api.app.ready();
    await api.services.imports.importInputs(sources.cve5, ['test/fixtures/cve5/cves']);
    const a = await createOrganization(api.services, 'walk-a');
    const b = await createOrganization(api.services, 'walk-b');
    orgA = a.org.name;
    ownA = (await createToken(api.services, a.org.id, a.actor)).header;
    tokenB = (await createToken(api.services, b.org.id, b.actor)).header;
    makeToken = async (mode, scopes) =>
      (await createToken(api.services, a.org.id, a.actor, { mode, scopes })).header;
    // Give organization A something to lose: a project with a subscription, when projects exist.
    await api.app.inject({
      method: 'POST',
      url: `/api/v2/organizations/${orgA}/projects`,
      headers: { authorization: ownA },
      payload: { name: 'web', description: 'walk' },
    });
    // …and a notification, an automation and a report named as the walk's paths name them.
    const notification = await api.app.inject({
      method: 'POST',
      url: `/api/v2/organizations/${orgA}/projects/web/notifications`,
      headers: { authorization: ownA },
      payload: {
        name: 'default',
        type: 'slack',
        configuration: { webhook_url: 'https://hooks.example.com/x' },
      },
    });
    const automation = await api.app.inject({
      method: 'POST',
      url: `/api/v2/organizations/${orgA}/projects/web/automations`,
      headers: { authorization: ownA },
      payload: {
        name: 'default',
        trigger_type: 'report',
        frequency: 'daily',
        configuration: { actions: [{ type: 'send_notification', value: 'default' }] },
      },
    });
    expect([notification.statusCode, automation.statusCode]).toEqual([201, 201]);
    const run = await api.app.inject({
      method: 'POST',
      url: `/api/v2/organizations/${orgA}/projects/web/automations/default/run`,
      headers: { authorization: ownA },
    });
    expect(run.statusCode).toBe(200);
  });
  afterAll(() => api.close());

  it('has a route table to walk', () => {
    expect(api.app.v2RouteTable.length).toBeGreaterThanOrEqual(13);
  });

  it('answers 404 not_found to another organization on every organization path, and changes nothing', async () => {
    const before = await snapshot(api);
    const orgRoutes = api.app.v2RouteTable.filter((r) => r.url.includes(':org'));
    expect(orgRoutes.length).toBeGreaterThan(0);
    for (const route of orgRoutes) {
      const res = await api.app.inject({
        method: route.method as 'GET',
        url: pathFor(route.url, orgA),
        headers: { authorization: tokenB },
        ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: {} }),
      });
      expect({ route: `${route.method} ${route.url}`, status: res.statusCode, body: res.json() }).toEqual({
        route: `${route.method} ${route.url}`,
        status: 404,
        body: { error: { code: 'not_found', message: 'Not found.' } },
      });
    }
    expect(await snapshot(api)).toBe(before);
  });

  it('answers 403 missing_scope naming the scope to a token without it, on every route', async () => {
    for (const route of api.app.v2RouteTable) {
      const header = await makeToken('write', scopesLacking(route.auth.scope, route.auth.anyOf));
      const res = await api.app.inject({
        method: route.method as 'GET',
        url: pathFor(route.url, orgA),
        headers: { authorization: header },
        ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: {} }),
      });
      expect({
        route: `${route.method} ${route.url}`,
        status: res.statusCode,
        body: res.json(),
      }).toMatchObject({
        status: 403,
        body: { error: { code: 'missing_scope', required_scope: route.auth.scope } },
      });
    }
  });

  it('answers 403 read_only_token to a read token on every write route', async () => {
    const header = await makeToken('read', []);
    const writes = api.app.v2RouteTable.filter((r) => r.auth.write);
    for (const route of writes) {
      const res = await api.app.inject({
        method: route.method as 'POST',
        url: pathFor(route.url, orgA),
        headers: { authorization: header },
        payload: {},
      });
      expect({
        route: `${route.method} ${route.url}`,
        status: res.statusCode,
        code: res.json().error?.code,
      }).toEqual({
        route: `${route.method} ${route.url}`,
        status: 403,
        code: 'read_only_token',
      });
    }
  });

  it('answers 404 on every route nested under an inactive project (as OpenCVE), and changes nothing', async () => {
    const created = await api.app.inject({
      method: 'POST',
      url: `/api/v2/organizations/${orgA}/projects`,
      headers: { authorization: ownA },
      payload: { name: 'dormant', active: false },
    });
    expect(created.statusCode).toBe(201);
    const before = await snapshot(api);
    const nested = api.app.v2RouteTable.filter((r) => r.url.includes(':project/'));
    expect(nested.length).toBeGreaterThan(10);
    for (const route of nested) {
      const res = await api.app.inject({
        method: route.method as 'GET',
        url: pathFor(route.url, orgA).replace('/projects/web/', '/projects/dormant/'),
        headers: { authorization: ownA },
        ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: {} }),
      });
      // Every read is a 404; a write whose empty body the route refuses may be a 400 first.
      const allowed = route.method === 'GET' ? [404] : [400, 404];
      expect({ route: `${route.method} ${route.url}`, allowed: allowed.includes(res.statusCode) }).toEqual({
        route: `${route.method} ${route.url}`,
        allowed: true,
      });
    }
    expect(await snapshot(api)).toBe(before);
  });

  describe('bad input', () => {
    const badQueries = [
      'page=-1',
      'page=0',
      'page=abc',
      'page=99999999999999999999999',
      'page_size=100000',
      'page_size=1.5',
      'search=' + 'a'.repeat(5000),
      'q=' + encodeURIComponent('(((('),
      'q=' + encodeURIComponent('vendor=' + 'x'.repeat(2000)),
      'since=notadate',
      'created_gte=2024-99-99',
      'include=../../etc/passwd',
      'status=' + encodeURIComponent("'; DROP TABLE cve; --"),
      'period_type=monthly',
      'vendor=&product=' + 'p'.repeat(500),
    ];
    const badBodies: { payload: string | Buffer; contentType: string }[] = [
      { payload: '{"name": ', contentType: 'application/json' },
      { payload: '[]', contentType: 'application/json' },
      { payload: '"text"', contentType: 'application/json' },
      { payload: '{"name": 12345678901234567890, "unknown_field": true}', contentType: 'application/json' },
      { payload: '{"vendors": "not-a-list", "products": 5}', contentType: 'application/json' },
      {
        payload: Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
        contentType: 'application/json',
      },
      { payload: `{"name": "${'x'.repeat(2 * 1024 * 1024)}"}`, contentType: 'application/json' },
      { payload: 'name=x', contentType: 'application/x-www-form-urlencoded' },
      {
        payload: '{"name": "a\\u0000b", "description": "a\\u0000b", "body": "a\\u0000b"}',
        contentType: 'application/json',
      },
    ];

    it('answers every malformed query with a 4xx in the error envelope', async () => {
      for (const route of api.app.v2RouteTable) {
        for (const query of badQueries) {
          const url = `${pathFor(route.url, orgA)}?${query}`;
          const res = await api.app.inject({
            method: route.method as 'GET',
            url,
            headers: { authorization: ownA },
          });
          const where = `${route.method} ${url.slice(0, 120)}`;
          expect({ where, status: Math.floor(res.statusCode / 100) }).not.toEqual({ where, status: 5 });
          if (res.statusCode >= 400)
            expect({ where, code: typeof res.json().error?.code }).toEqual({ where, code: 'string' });
        }
      }
    });

    it('answers every malformed body with a 4xx in the error envelope', async () => {
      for (const route of api.app.v2RouteTable.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method))) {
        for (const { payload, contentType } of badBodies) {
          const res = await api.app.inject({
            method: route.method as 'POST',
            url: pathFor(route.url, orgA),
            headers: { authorization: ownA, 'content-type': contentType },
            payload,
          });
          const where = `${route.method} ${route.url} ${String(payload).slice(0, 40)}`;
          expect({ where, status: Math.floor(res.statusCode / 100) }).toEqual({ where, status: 4 });
          expect({ where, code: typeof res.json().error?.code }).toEqual({ where, code: 'string' });
        }
      }
    });

    it('answers path traversal and oversized path parameters with 4xx', async () => {
      for (const route of api.app.v2RouteTable.filter((r) => /:(?!org\b)\w+/.test(r.url))) {
        for (const evil of ['..%2F..%2Fetc%2Fpasswd', '%00', 'x'.repeat(300), '%E0%A4%A']) {
          const url = route.url.replace(/:(\w+)/g, (_m, key: string) => (key === 'org' ? orgA : evil));
          const res = await api.app.inject({
            method: route.method as 'GET',
            url,
            headers: { authorization: ownA },
          });
          expect({ url, status: Math.floor(res.statusCode / 100) }).toEqual({ url, status: 4 });
          // Also when the router itself refuses the URL (invalid UTF-8, a parameter too long).
          expect({ url, code: typeof res.json<{ error?: { code?: unknown } }>().error?.code }).toEqual({
            url,
            code: 'string',
          });
        }
      }
    });
  });
});
