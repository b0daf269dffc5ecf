/**
 * The tenancy walk of the organization pages: every `/org/:org/...` page and form, asked by a user
 * of another organization, answers 404 (GET and POST) and changes nothing; a member who is not an
 * owner cannot do any owner action (403) and changes nothing. (The project pages have their own walk,
 * project-tenancy.test.ts.) The list of routes is checked against
 * the app's own route tree, so a new organization page cannot be left out of the walk.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, type WebClient } from '../helpers/web.ts';
import { routesUnder } from './route-tree.ts';

const PASSWORD = 'correct horse battery staple';

interface WalkRoute {
  method: 'GET' | 'POST';
  url: string;
  /** Owners only: a member is refused (403). */
  ownerOnly: boolean;
  form?: Record<string, string | string[]>;
}

/** Every organization page and form, with a form that would succeed for an owner. */
const ROUTES: WalkRoute[] = [
  { method: 'GET', url: '/org/:org', ownerOnly: false },
  { method: 'POST', url: '/org/:org/rename', ownerOnly: true, form: { name: 'renamed-by-walk' } },
  { method: 'POST', url: '/org/:org/delete', ownerOnly: true, form: { confirm: ':org' } },
  { method: 'GET', url: '/org/:org/members', ownerOnly: false },
  {
    method: 'POST',
    url: '/org/:org/members',
    ownerOnly: true,
    form: { email: 'walk@example.org', role: 'owner' },
  },
  { method: 'POST', url: '/org/:org/members/:id/role', ownerOnly: true, form: { role: 'member' } },
  { method: 'POST', url: '/org/:org/members/:id/resend', ownerOnly: true },
  { method: 'POST', url: '/org/:org/members/:id/remove', ownerOnly: true },
  { method: 'GET', url: '/org/:org/tokens', ownerOnly: true },
  { method: 'POST', url: '/org/:org/tokens', ownerOnly: true, form: { name: 'walk', mode: 'write' } },
  { method: 'POST', url: '/org/:org/tokens/:tokenId/revoke', ownerOnly: true },
  { method: 'GET', url: '/org/:org/audit', ownerOnly: true },
  // The onboarding of a new project (its project pages have their own walk).
  { method: 'GET', url: '/org/:org/new-project', ownerOnly: true },
  { method: 'POST', url: '/org/:org/new-project', ownerOnly: true, form: { name: 'walk-onboarded' } },
  { method: 'GET', url: '/org/:org/new-project/vendors', ownerOnly: true },
  { method: 'POST', url: '/org/:org/new-project/vendors', ownerOnly: true },
  { method: 'POST', url: '/org/:org/new-project/keywords', ownerOnly: true, form: { keywords: 'xz' } },
  { method: 'GET', url: '/org/:org/new-project/alerts', ownerOnly: true },
  { method: 'POST', url: '/org/:org/new-project/alerts', ownerOnly: true, form: { weekly_report: 'on' } },

  { method: 'GET', url: '/org/:org/reports', ownerOnly: false },

  { method: 'GET', url: '/org/:org/overview', ownerOnly: false },
];

describeEachDatabase('web: organization tenancy walk', (use) => {
  let api: TestApi;
  let victim: Awaited<ReturnType<typeof createOrganization>>;
  let outsider: WebClient;
  let member: WebClient;
  let pendingId: string;
  let tokenId: string;

  beforeAll(async () => {
    api = await buildTestApi(use());
    victim = await createOrganization(api.services, 'victim');
    const other = await createOrganization(api.services, 'intruder');
    outsider = await signedIn(api, other.user.username, PASSWORD);
    const memberUser = await api.services.accounts.createUser({
      username: 'plain',
      email: 'plain@victim.example',
      password: PASSWORD,
    });
    await api.services.members.invite(victim.org.id, { email: 'plain@victim.example' }, victim.actor);
    await api.services.accounts.acceptInvitation(memberUser.id, 'victim');
    member = await signedIn(api, 'plain', PASSWORD);
    pendingId = (
      await api.services.members.invite(victim.org.id, { email: 'pending@victim.example' }, victim.actor)
    ).id;
    tokenId = (await createToken(api.services, victim.org.id, victim.actor)).record.tokenId;
  });
  afterAll(() => api.close());

  const urlOf = (route: WalkRoute) =>
    route.url.replace(':org', 'victim').replace(':id', pendingId).replace(':tokenId', tokenId);
  const formOf = (route: WalkRoute) =>
    Object.fromEntries(Object.entries(route.form ?? {}).map(([k, v]) => [k, v === ':org' ? 'victim' : v]));

  /** Everything the victim organization owns, to prove that refused requests changed nothing. */
  async function snapshot(): Promise<string> {
    const db = api.services.database.db;
    const parts: unknown[] = [];
    for (const t of ['organization', 'membership', 'api_token', 'audit_log', 'one_time_link']) {
      parts.push(
        (
          await sql`SELECT count(*)::int AS n, md5(string_agg(t::text, ',' ORDER BY t::text)) AS h FROM ${sql.table(t)} t`.execute(
            db,
          )
        ).rows,
      );
    }
    return JSON.stringify(parts);
  }

  it('walks every organization page and form the app serves', () => {
    const served = routesUnder(api.app.printRoutes({ commonPrefix: false }), '/org/:org').filter(
      (r) => !r.includes('/org/:org/projects'),
    );
    expect(served.length).toBeGreaterThan(5);
    expect(served).toEqual(ROUTES.map((r) => `${r.method} ${r.url}`).sort());
  });

  it('answers 404 to a user of another organization on every page and form, and changes nothing', async () => {
    const before = await snapshot();
    await outsider.get('/org/intruder');
    for (const route of ROUTES) {
      const response =
        route.method === 'GET'
          ? await outsider.get(urlOf(route))
          : await outsider.post(urlOf(route), formOf(route));
      expect(response.status, `${route.method} ${route.url}`).toBe(404);
      expect(response.text).not.toContain('pending@victim.example');
    }
    expect(await snapshot()).toBe(before);
  });

  it('answers 403 to a member (not an owner) on every owner page and action, and changes nothing', async () => {
    const before = await snapshot();
    await member.get('/org/victim');
    for (const route of ROUTES) {
      const response =
        route.method === 'GET'
          ? await member.get(urlOf(route))
          : await member.post(urlOf(route), formOf(route));
      expect(response.status, `${route.method} ${route.url}`).toBe(route.ownerOnly ? 403 : 200);
    }
    expect(await snapshot()).toBe(before);
  });

  it('refuses every form without the CSRF token, even to the owner', async () => {
    const owner = await signedIn(api, victim.user.username, PASSWORD);
    const before = await snapshot();
    for (const route of ROUTES.filter((r) => r.method === 'POST')) {
      const response = await owner.post(urlOf(route), { ...formOf(route), _csrf: 'forged' });
      expect(response.status, route.url).toBe(403);
    }
    expect(await snapshot()).toBe(before);
  });

  it('lets the owner do each action (so the refusals above are not a broken route)', async () => {
    const owner = await signedIn(api, victim.user.username, PASSWORD);
    await owner.get('/org/victim');
    // In an order that keeps the later routes meaningful: delete last.
    for (const route of [
      ...ROUTES.filter((r) => r.url !== '/org/:org/delete' && r.url !== '/org/:org/rename'),
      ROUTES[1]!,
      ROUTES[2]!,
    ]) {
      const url = urlOf(route).replace(
        '/org/victim',
        route === ROUTES[2] ? '/org/renamed-by-walk' : '/org/victim',
      );
      const form = route === ROUTES[2] ? { confirm: 'renamed-by-walk' } : formOf(route);
      const response = route.method === 'GET' ? await owner.get(url) : await owner.post(url, form);
      expect([200, 201, 303], `${route.method} ${route.url}: ${response.text.slice(0, 200)}`).toContain(
        response.status,
      );
    }
    expect((await owner.get('/org/renamed-by-walk')).status).toBe(404);
  });
});
