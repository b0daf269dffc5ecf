/**
 * API v1 legacy reports and alerts (seed §4.4, §2.8) from reports the service really produced: real
 * upstream commits of the cve5 history fixture are imported, matched to a project, and reported by a
 * report automation run now. Every item is checked against the seed's shapes; another organization's
 * reports are invisible.
 */
import { storeTestAliases } from '../helpers/aliases.ts';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Type } from '@fastify/type-provider-typebox';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { basic, expectShape, Legacy, PASSWORD } from '../helpers/api-v1.ts';
import { loadHistory, type Json } from '../helpers/cve5-history.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

const { base, commits } = await loadHistory();

describeEachDatabase('API v1 legacy reports and alerts', (use) => {
  let api: TestApi;
  let dir: string;
  let owner: string;
  let outsider: string;
  let link: string;

  const get = (url: string, authorization = owner) =>
    api.app.inject({ method: 'GET', url, headers: { authorization } });

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vulntrack-v1-reports-'));
    const write = async (name: string, records: Json[]) => {
      const file = path.join(dir, name);
      await fs.writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
      return file;
    };
    api = await buildTestApi(use(), { API_V1_SHAPE: 'legacy' });
    const { services } = api;
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(services.database.db);
    await services.imports.importInputs(sources.cve5, [await write('base.jsonl', base)]);
    await services.events.processPending();

    const a = await createOrganization(services, 'v1rep-a');
    const b = await createOrganization(services, 'v1rep-b');
    owner = basic(a.user.username, PASSWORD);
    outsider = basic(b.user.username, PASSWORD);
    await services.projects.create(a.org.id, { name: 'watch' }, a.actor, { vendors: ['ivanti', 'fitnesse'] });
    await services.projects.create(b.org.id, { name: 'other' }, b.actor, { vendors: ['linux'] });
    const auth = { authorization: (await createToken(services, a.org.id, a.actor)).header };
    const created = await api.app.inject({
      method: 'POST',
      url: `/api/v2/organizations/${a.org.name}/projects/watch/automations`,
      headers: auth,
      payload: {
        name: 'daily',
        trigger_type: 'report',
        frequency: 'daily',
        configuration: { actions: [{ type: 'generate_report' }] },
      },
    });
    expect(created.statusCode).toBe(201);

    // Commits 1 to 7: CVE-2024-28125 (fitnesse) gets a new description and CWE-78; CVE-2024-9380
    // (ivanti) enters KEV; CVE-2024-38817 (vmware) enters the catalog.
    for (const [i, c] of commits.slice(0, 7).entries())
      await services.imports.importInputs(sources.cve5, [
        await write(
          `c${i}.jsonl`,
          c.lines.map((l) => l.record),
        ),
      ]);
    // vmware enters the catalog with CVE-2024-38817 (commit 7): subscribed now, before the changes
    // are processed, the project sees the new CVE.
    await services.projects.addSubscription(a.org.id, 'watch', { vendor: 'vmware' }, a.actor);
    await services.events.processPending();
    const run = await api.app.inject({
      method: 'POST',
      url: `/api/v2/organizations/${a.org.name}/projects/watch/automations/daily/run`,
      headers: auth,
    });
    expect(run.statusCode).toBe(200);
    // Organization B has a report of its own (which A must never see).
    const authB = { authorization: (await createToken(services, b.org.id, b.actor)).header };
    const other = await api.app.inject({
      method: 'POST',
      url: `/api/v2/organizations/${b.org.name}/projects/other/automations`,
      headers: authB,
      payload: {
        name: 'daily',
        trigger_type: 'report',
        frequency: 'daily',
        configuration: { actions: [{ type: 'generate_report' }] },
      },
    });
    expect(other.statusCode).toBe(201);
    const runB = await api.app.inject({
      method: 'POST',
      url: `/api/v2/organizations/${b.org.name}/projects/other/automations/daily/run`,
      headers: authB,
    });
    expect(runB.statusCode).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await api?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("lists the user's reports as a bare array of report items", async () => {
    const res = await get('/api/reports');
    expect(res.statusCode).toBe(200);
    const reports = res.json<{ id: string; details: string[] }[]>();
    expect(reports).toHaveLength(1);
    expectShape(reports[0], Legacy.Report);
    // The project subscribes three vendors; each matched a CVE of the report.
    expect(reports[0]!.details.sort()).toEqual(['fitnesse', 'ivanti', 'vmware']);
    link = reports[0]!.id;
  });

  it('shows a report with its alerts, one per CVE, with the v1 event types as filters', async () => {
    const res = await get(`/api/reports/${link}`);
    expect(res.statusCode).toBe(200);
    const report = res.json<{
      alerts: { cve: string; details: { filters: string[]; vendors: string[] } }[];
    }>();
    expectShape(
      { ...report, alerts: undefined },
      Type.Object({ id: Type.String(), created_at: Type.String(), details: Type.Array(Type.String()) }),
    );
    for (const alert of report.alerts) expectShape(alert, Legacy.AlertItem);
    const byCve = new Map(report.alerts.map((a) => [a.cve, a]));
    expect(byCve.get('CVE-2024-9380')?.details).toMatchObject({ vendors: ['ivanti'], filters: ['cvss'] });
    expect(byCve.get('CVE-2024-28125')?.details.filters.sort()).toEqual(['cwes', 'summary']);
    // A CVE new to the catalog (commit 7 brings CVE-2024-38817): OpenCVE 1.5's one `new_cve` filter,
    // though the change also attached its vendors and products for the first time.
    expect(byCve.get('CVE-2024-38817')?.details).toMatchObject({ vendors: ['vmware'], filters: ['new_cve'] });
    const list = await get(`/api/reports/${link}/alerts`);
    expect(
      list
        .json<{ cve: string }[]>()
        .map((a) => a.cve)
        .sort(),
    ).toEqual(report.alerts.map((a) => a.cve).sort());
    expect((await get(`/api/reports/${link}/alerts?page=2`)).statusCode).toBe(404);
  });

  it('details an alert as v1 events with changed/added/removed', async () => {
    const alerts = (await get(`/api/reports/${link}/alerts`)).json<{ id: string; cve: string }[]>();
    const fitnesse = alerts.find((a) => a.cve === 'CVE-2024-28125')!;
    const res = await get(`/api/reports/${link}/alerts/${fitnesse.id}`);
    expect(res.statusCode).toBe(200);
    const events = res.json<{ type: string; details: { changed: unknown[]; added: unknown[] } }[]>();
    for (const e of events) expectShape(e, Legacy.AlertEvent);
    const created = alerts.find((a) => a.cve === 'CVE-2024-38817')!;
    const createdEvents = (await get(`/api/reports/${link}/alerts/${created.id}`)).json<unknown[]>();
    expect(createdEvents).toEqual([
      {
        cve: 'CVE-2024-38817',
        type: 'new_cve',
        details: { changed: [], added: ['CVE-2024-38817'], removed: [] },
      },
    ]);
    expect(events.find((e) => e.type === 'cwes')?.details.added).toEqual(['CWE-78']);
    const summary = events.find((e) => e.type === 'summary')!;
    expect(summary.details.changed).toEqual([
      {
        old: 'FitNesse all releases allows a remote authenticated attacker to execute arbitrary OS commands.',
        new: expect.stringContaining('A contributor of FitNesse has claimed') as string,
      },
    ]);
  });

  it('hides every report and alert from a user of another organization', async () => {
    const theirs = (await get('/api/reports', outsider)).json<{ id: string }[]>();
    expect(theirs).toHaveLength(1);
    expect(theirs[0]!.id).not.toBe(link);
    expect((await get(`/api/reports/${link}`, outsider)).statusCode).toBe(404);
    expect((await get(`/api/reports/${link}/alerts`, outsider)).statusCode).toBe(404);
    const alerts = (await get(`/api/reports/${link}/alerts`)).json<{ id: string }[]>();
    expect((await get(`/api/reports/${link}/alerts/${alerts[0]!.id}`, outsider)).statusCode).toBe(404);
  });

  it('answers unknown links and ids with 404 in the legacy error shape, and no login with 401', async () => {
    const missing = await get('/api/reports/AAAAAAAAAAAA');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toHaveProperty('message');
    expect((await get('/api/reports/../../etc')).statusCode).toBe(404);
    expect((await get(`/api/reports/${link}/alerts/not-a-uuid`)).statusCode).toBe(404);
    const anonymous = await api.app.inject({ method: 'GET', url: '/api/reports' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Basic/);
  });
});
