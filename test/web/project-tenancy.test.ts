/**
 * The tenancy walk of the project pages: every `/org/:org/projects…` page and form, asked by a user of
 * another organization, answers 404 (GET and POST) and changes nothing; a member who is not an owner
 * reads and triages, but every owner action answers 403 and changes nothing; every form needs the
 * CSRF token; the owner can do each action. The list of routes (`project-walk/*.ts`, one file per
 * area) is checked against the app's own route tree, so a new project page cannot be left out.
 */
import { storeTestAliases } from '../helpers/aliases.ts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { readFile } from 'node:fs/promises';
import { sources } from '../../src/sources/index.ts';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { fixture } from '../helpers/catalog.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, type WebClient } from '../helpers/web.ts';
import { PROJECT_ROUTES } from './project-walk/routes.ts';
import type { WalkIds, WalkRoute } from './project-walk/walk.ts';
import { routesUnder } from './route-tree.ts';

const PASSWORD = 'correct horse battery staple';

/** Every table a project page may write, to prove that refused requests changed nothing. */
const PROJECT_TABLES = [
  'project',
  'project_subscription',
  'inventory',
  'inventory_component',
  'tracker_entry',
  'tracker_comment',
  'notification',
  'automation',
  'automation_execution',
  'report',
  'delivery',
  'user_cve_tag',
  'saved_view',
  'audit_log',
  'project_visit',
  'project_feed',
] as const;

describeEachDatabase('web: project tenancy walk', (use) => {
  let api: TestApi;
  let victim: Awaited<ReturnType<typeof createOrganization>>;
  let outsider: WebClient;
  let member: WebClient;
  const ids: WalkIds = { org: 'victim', project: 'walked', cve: 'CVE-2021-44228' };

  beforeAll(async () => {
    api = await buildTestApi(use());
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(api.services.database.db);
    await api.services.imports.importInputs(sources.cve5, [fixture('cve5', 'cves')]);
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
    await api.services.projects.create(victim.org.id, { name: 'walked' }, victim.actor, {
      vendors: ['apache'],
    });
    // Each area adds here what its routes name (a notification, an automation, a report, a comment).
    // Automations, notifications and reports: a weekly report automation and one of its runs (a
    // report); a webhook made while loopback was allowed (this app refuses it at
    // send time, so Try fails at once, without the network), a failed delivery of it, and a weekly
    // report automation with one report.
    const allowing = await buildTestApi(use(), { OUTBOUND_ALLOW_PRIVATE: 'true' });
    const hook = await allowing.services.notifications.create(
      victim.org.id,
      'walked',
      { name: 'walk-hook', type: 'webhook', configuration: { url: 'http://127.0.0.1:9/hook' } },
      victim.actor,
    );
    await allowing.close();
    ids.notification = hook.notification.name;
    const [delivery] = await api.services.deliveries.queue(api.services.database.db, [
      {
        notification: hook.notification,
        kind: 'alert',
        organization: 'victim',
        project: 'walked',
        title: 'walk',
        period: { start: new Date(), end: new Date() },
        changes: [],
      },
    ]);
    await api.services.deliveries.attempt(delivery!);
    ids.delivery = delivery!;
    ids.automation = 'walk-weekly';
    ids.reportAutomation = ids.automation;
    await api.services.automations.create(
      victim.org.id,
      'walked',
      {
        name: ids.automation,
        trigger_type: 'report',
        frequency: 'weekly',
        configuration: { actions: [{ type: 'generate_report' }] },
      },
      victim.actor,
    );
    const execution = await api.services.automations.run(victim.org.id, 'walked', ids.automation);
    ids.execution = execution.id;
    ids.report = execution.report_id!;
    // One CVE in a project: the owner's comment on the walked CVE.
    const comment = await api.services.trackerComments.addComment(
      victim.org.id,
      'walked',
      ids.cve!,
      'Owner note',
      victim.actor,
    );
    ids.comment = comment.id;
    // Inventories: one SBOM and its first component.
    const sbom = await readFile(fixture('sbom', 'cyclonedx-1.6-vulnerable.json'), 'utf8');
    await api.services.inventories.upload(
      victim.org.id,
      'walked',
      'walk-sbom',
      sbom,
      undefined,
      victim.actor,
    );
    ids.name = 'walk-sbom';
    const stored = await api.services.inventories.get(victim.org.id, 'walked', 'walk-sbom', {
      limit: 1,
      offset: 0,
    });
    ids.position = String(stored.components[0]!.position);
  });
  afterAll(() => api.close());

  const fill = (text: string) => text.replace(/:([a-z][a-zA-Z]*)/g, (m, key: string) => ids[key] ?? m);
  const urlOf = (route: WalkRoute) => fill(route.url);
  const formOf = (route: WalkRoute) =>
    Object.fromEntries(
      Object.entries(route.form ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v.map(fill) : fill(v)]),
    );
  const send = (client: WebClient, route: WalkRoute, form = formOf(route)) =>
    route.method === 'GET'
      ? client.get(urlOf(route))
      : route.files
        ? client.postFiles(urlOf(route), form as Record<string, string>, route.files)
        : client.post(urlOf(route), form);

  async function snapshot(): Promise<string> {
    const db = api.services.database.db;
    const parts: unknown[] = [];
    for (const t of PROJECT_TABLES)
      parts.push(
        (
          await sql`SELECT count(*)::int AS n, md5(string_agg(t::text, ',' ORDER BY t::text)) AS h FROM ${sql.table(t)} t`.execute(
            db,
          )
        ).rows,
      );
    return JSON.stringify(parts);
  }

  it('walks every project page and form the app serves', () => {
    const served = routesUnder(api.app.printRoutes({ commonPrefix: false }), '/org/:org/projects');
    expect(served.length).toBeGreaterThan(1);
    expect(served).toEqual(PROJECT_ROUTES.map((r) => `${r.method} ${r.url}`).sort());
  });

  it('answers 404 to a user of another organization on every page and form, and changes nothing', async () => {
    const before = await snapshot();
    for (const route of PROJECT_ROUTES) {
      const response = await send(outsider, route);
      expect(response.status, `${route.method} ${route.url}`).toBe(404);
      expect(response.text).not.toContain('walked');
    }
    expect(await snapshot()).toBe(before);
  });

  it('refuses every form without the CSRF token, even to the owner', async () => {
    const owner = await signedIn(api, victim.user.username, PASSWORD);
    const before = await snapshot();
    for (const route of PROJECT_ROUTES.filter((r) => r.method === 'POST')) {
      const response = await send(owner, route, { ...formOf(route), _csrf: 'forged' });
      expect(response.status, route.url).toBe(403);
    }
    expect(await snapshot()).toBe(before);
  });

  it('answers 403 to a member (not an owner) on every owner page and action, and changes nothing', async () => {
    const before = await snapshot();
    for (const route of PROJECT_ROUTES.filter((r) => r.allowed === 'owner')) {
      const response = await send(member, route);
      expect(response.status, `${route.method} ${route.url}`).toBe(403);
    }
    expect(await snapshot()).toBe(before);
  });

  it('lets a member open every member page and do each member action', async () => {
    for (const route of PROJECT_ROUTES.filter((r) => r.allowed === 'member' && !r.last)) {
      const response = await send(member, route);
      expect([200, 303], `${route.method} ${route.url}: ${response.text.slice(0, 200)}`).toContain(
        response.status,
      );
    }
  });

  it('lets the owner do each action (so the refusals above are not a broken route)', async () => {
    const owner = await signedIn(api, victim.user.username, PASSWORD);
    // The project's own deletion goes after every other area's last route (which still needs the project).
    const deletesProject = (r: WalkRoute) => r.url === '/org/:org/projects/:project/settings/delete';
    const lastOnes = PROJECT_ROUTES.filter((r) => r.last);
    for (const route of [
      ...PROJECT_ROUTES.filter((r) => !r.last),
      ...lastOnes.filter((r) => !deletesProject(r)),
      ...lastOnes.filter(deletesProject),
    ]) {
      const response = await send(owner, route);
      expect([200, 303], `${route.method} ${route.url}: ${response.text.slice(0, 200)}`).toContain(
        response.status,
      );
    }
  });
});
