/**
 * Keyword watches (issue 30 item 3): API v2's `…/projects/<project>/keywords`, the CVEs a keyword
 * brings into a project's list (those of the catalog at once, new ones through the event processor,
 * which alerts them as entering the project), and the "why" answer naming the keyword. Real records:
 * CVE-2024-3094 (the xz backdoor), whose CVE 5 record names only Red Hat products; "xz" is in its
 * title and description.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { sources } from '../../src/sources/index.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import {
  buildProjectWorld,
  expectMissingScope,
  expectNotFound,
  expectReadOnly,
  expectValidation,
  type ProjectWorld,
} from '../helpers/projects.ts';

const XZ = 'CVE-2024-3094';
const XZ_RECORD = 'test/fixtures/cve5/cves/2024/3xxx/CVE-2024-3094.json';

describeEachDatabase('API v2 keyword watches', (use) => {
  let w: ProjectWorld;
  let admin: string;
  let base: string;
  let keywords: string;

  const cveIds = async (project: string, token = admin) => {
    const res = await w.call('GET', `${base}/${project}/cves?page_size=100`, token);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { count: number; results: { cve_id: string }[] };
    // The count too: it is cached per catalog version, and keywords move the list without one.
    expect(body.count).toBe(body.results.length);
    return body.results.map((r) => r.cve_id);
  };

  beforeAll(async () => {
    w = await buildProjectWorld(use(), 'kw');
    admin = await w.token({ mode: 'write', scopes: [] });
    base = `/api/v2/organizations/${w.org.name}/projects`;
    keywords = `${base}/web/keywords`;
    for (const name of ['web', 'prefix'])
      expect((await w.call('POST', base, admin, { name })).statusCode).toBe(201);
  });
  afterAll(() => w.close());

  describe('PUT and GET …/keywords', () => {
    it('stores the keywords normalized, duplicates in any case once, and answers them sorted', async () => {
      const res = await w.call('PUT', keywords, admin, { keywords: [' XZ ', 'xz', 'Log4j   Core'] });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ keywords: ['log4j core', 'xz'] });
      const reader = await w.token({ mode: 'read', scopes: ['projects:read'] });
      const got = await w.call('GET', keywords, reader);
      expect(got.statusCode).toBe(200);
      expect(got.json()).toEqual({ keywords: ['log4j core', 'xz'] });
    });

    it('audits a change with what was added and removed, and nothing for no change', async () => {
      await w.call('PUT', keywords, admin, { keywords: ['xz', 'openssh'] });
      await w.call('PUT', keywords, admin, { keywords: ['OpenSSH', 'xz'] });
      const entries = await w.services.database.db
        .selectFrom('audit_log')
        .select(['action', 'resource_type', 'resource_name', 'changes'])
        .where('organization_id', '=', w.org.id)
        .where('action', '=', 'keyword.update')
        .orderBy('created_at')
        .execute();
      expect(entries.map((e) => e.changes)).toEqual([
        { added: ['log4j core', 'xz'], removed: [] },
        { added: ['openssh'], removed: ['log4j core'] },
      ]);
      expect(entries[0]).toMatchObject({ resource_type: 'keyword', resource_name: 'web' });
    });

    it('refuses, in the error envelope, a keyword too short, too long or without a letter, and too many', async () => {
      expectValidation(await w.call('PUT', keywords, admin, { keywords: ['x', 'a'.repeat(101), ' -- '] }), {
        keywords: [
          "'x' is too short: a keyword has 2 to 100 characters.",
          `'${'a'.repeat(40)}…' is too long (101 characters): a keyword has 2 to 100.`,
          "' -- ' has no letter or digit to match.",
        ],
      });
      const many = Array.from({ length: 101 }, (_, i) => `word${i}`);
      expectValidation(await w.call('PUT', keywords, admin, { keywords: many }), {
        keywords: ['A project watches at most 100 keywords; this list has 101.'],
      });
      const bad = await w.call('PUT', keywords, admin, { keywords: 'xz' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ error: { code: 'validation_error' } });
      // Nothing changed.
      expect((await w.call('GET', keywords, admin)).json()).toEqual({ keywords: ['openssh', 'xz'] });
    });

    it('needs projects:read to read and subscriptions:write with write access to write', async () => {
      const noScope = await w.token({ mode: 'write', scopes: ['tracker:read'] });
      expectMissingScope(await w.call('GET', keywords, noScope), 'projects:read');
      const reader = await w.token({ mode: 'read', scopes: ['projects:read', 'subscriptions:write'] });
      expectReadOnly(await w.call('PUT', keywords, reader, { keywords: ['xz'] }));
      const projectsOnly = await w.token({ mode: 'write', scopes: ['projects:read', 'projects:write'] });
      expectMissingScope(
        await w.call('PUT', keywords, projectsOnly, { keywords: ['xz'] }),
        'subscriptions:write',
      );
    });

    it('is a 404 for another organization and for a project the organization does not have', async () => {
      expectNotFound(await w.call('GET', keywords, w.other.header));
      expectNotFound(await w.call('PUT', keywords, w.other.header, { keywords: ['xz'] }));
      expectNotFound(await w.call('GET', `${base}/nope/keywords`, admin));
      expectNotFound(await w.call('PUT', `${base}/nope/keywords`, admin, { keywords: ['xz'] }));
    });
  });

  describe("the project's CVEs", () => {
    it('holds the catalog CVEs a new keyword matches as a whole word, at once, without subscriptions', async () => {
      expect(await cveIds('web')).toContain(XZ);
      // "malicio" is a piece of "malicious" (CVE-2024-3094's title): not a whole word, no match.
      await w.call('PUT', `${base}/prefix/keywords`, admin, { keywords: ['malicio'] });
      expect(await cveIds('prefix')).toEqual([]);
      await w.call('PUT', `${base}/prefix/keywords`, admin, { keywords: ['Malicious'] });
      expect(await cveIds('prefix')).toContain(XZ);
      const one = await w.call('GET', `${base}/prefix/cves/${XZ}`, admin);
      expect(one.statusCode, one.body).toBe(200);
    });

    it('drops them when the keyword goes', async () => {
      await w.call('PUT', `${base}/prefix/keywords`, admin, { keywords: [] });
      expect(await cveIds('prefix')).toEqual([]);
      expect(await w.call('GET', `${base}/prefix/cves/${XZ}`, admin)).toHaveProperty('statusCode', 404);
    });

    it('answers why: the keyword and where it matched', async () => {
      const res = await w.call('GET', `${base}/web/cves/${XZ}/match`, admin);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        in_project: true,
        outcome: 'matched',
        matched: [],
        matched_keywords: [{ keyword: 'xz', fields: ['title', 'description'] }],
        entered: { key: null, keyword: 'xz', cause: 'keyword' },
      });
      const not = await w.call('GET', `${base}/prefix/cves/${XZ}/match`, admin);
      expect(not.json()).toMatchObject({ in_project: false, matched_keywords: [], keywords_count: 0 });
    });
  });
});

describeEachDatabase('keyword watches and new CVEs', (use) => {
  let api: TestApi;
  let auth: { authorization: string };
  let ownerId: string;
  let orgId: string;
  const org = `kwev-${Math.random().toString(36).slice(2, 8)}`;

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    api.app.inject({
      method,
      url: `/api/v2/organizations/${org}${url}`,
      headers: auth,
      ...(payload ? { payload: payload as object } : {}),
    });

  beforeAll(async () => {
    api = await buildTestApi(use(), { SYNC_SOURCES: 'none' });
    const owner = await createOrganization(api.services, org);
    ownerId = owner.user.id;
    orgId = owner.org.id;
    auth = { authorization: (await createToken(api.services, owner.org.id, owner.actor)).header };
    for (const [name, words] of [
      ['watch', ['xz']],
      ['near', ['xzone', 'liblzm']],
    ] as const) {
      expect((await call('POST', '/projects', { name })).statusCode).toBe(201);
      expect((await call('PUT', `/projects/${name}/keywords`, { keywords: words })).statusCode).toBe(200);
      const automation = await call('POST', `/projects/${name}/automations`, {
        name: 'triage',
        trigger_type: 'alert',
        configuration: {
          triggers: ['cve_enters_project'],
          actions: [{ type: 'change_status', value: 'to_evaluate' }],
        },
      });
      expect(automation.statusCode, automation.body).toBe(201);
    }
    // The CVE 5 record alone: no NVD CPE, no tukaani key.
    await api.services.imports.importInputs(sources.cve5, [XZ_RECORD]);
    await api.services.events.processPending();
  });
  afterAll(() => api.app.close());

  it('brings CVE-2024-3094 from its CVE 5 record into the project watching xz, as entering it', async () => {
    const vendors = await sql<{ vendors: string[] }>`SELECT vendors FROM cve WHERE cve_id = ${XZ}`.execute(
      use().db,
    );
    expect(vendors.rows[0]!.vendors).not.toContain('tukaani');
    const list = await call('GET', '/projects/watch/cves');
    expect((list.json() as { results: { cve_id: string }[] }).results.map((r) => r.cve_id)).toEqual([XZ]);
    // The alert automation ran for the CVE entering the project: it set its status.
    const cve = await call('GET', `/projects/watch/cves/${XZ}`);
    expect(cve.json()).toMatchObject({ cve_id: XZ, tracker: { status: 'to_evaluate' } });
  });

  it("puts it in the period report of the project watching xz, as entering it, and in no other's", async () => {
    const period = { start: new Date('2000-01-01'), end: new Date(Date.now() + 3_600_000) };
    const reportOf = async (name: string) => {
      const { id } = await use()
        .db.selectFrom('project')
        .select('id')
        .where('name', '=', name)
        .executeTakeFirstOrThrow();
      const { kept } = await api.services.reports.periodMatches(
        id,
        { operator: 'AND', children: [] },
        period,
        new Date(),
      );
      return kept.map((e) => [e.cve_id, e.types.includes('cve_enters_project')]);
    };
    expect(await reportOf('watch')).toEqual([[XZ, true]]);
    expect(await reportOf('near')).toEqual([]);
  });

  it("counts it on the dashboard of the project watching xz, with its status, in its feed, and on no other's", async () => {
    const watch = await api.services.dashboards.projectDashboard(orgId, 'watch', ownerId);
    expect(watch.counts).toMatchObject({ total: 1 });
    expect(watch.counts.byStatus).toContainEqual({ status: 'to_evaluate', count: 1 });
    // Its feed of recent changes: the CVE, entering the project.
    expect(watch.feed.total).toBe(1);
    expect(JSON.stringify(watch.feed.cves)).toContain(XZ);
    expect(JSON.stringify(watch.feed.cves)).toContain('cve_enters_project');
    const near = await api.services.dashboards.projectDashboard(orgId, 'near', ownerId);
    expect(near.counts).toMatchObject({ total: 0 });
    expect(near.feed.total).toBe(0);
  });

  it('does not bring it into a project watching "xzone" and "liblzm" (no whole word of it)', async () => {
    const list = await call('GET', '/projects/near/cves');
    expect(list.json()).toMatchObject({ count: 0 });
    const executions = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM automation_execution e JOIN automation a ON a.id = e.automation_id
        JOIN project p ON p.id = a.project_id WHERE p.name = 'near'`.execute(use().db);
    expect(executions.rows[0]!.n).toBe(0);
  });
});
