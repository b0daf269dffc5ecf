/**
 * Inventories in reports and on the dashboard (issue 33: "a CVE with a finding … shows on the
 * dashboard"): after a CycloneDX SBOM upload in a project with no subscription, the project's period
 * report and its dashboard feed list Log4Shell as entering the project through the inventory and
 * affecting a component; a project whose inventory has no finding lists nothing; a later catalog
 * change of the CVE (its CVE 5 record re-imported, edited) reaches both as a change, never as
 * entering again; the organization's weekly report counts it as entered. Real records, both databases.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VISIT_GAP_MS } from '../../src/domain/dashboard.ts';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { fixture } from '../helpers/catalog.ts';
import { SAMPLE_RECORDS, storeAliasTable } from '../helpers/aliases.ts';

const LOG4SHELL = 'CVE-2021-44228';
const LOG4SHELL_RECORD = 'test/fixtures/cve5/cves/2021/44xxx/CVE-2021-44228.json';

const sbom = (name: string) => fs.readFileSync(`test/fixtures/sbom/${name}`, 'utf8');
const HOUR_MS = 3_600_000;

describeEachDatabase('inventories in reports and on the dashboard', (use) => {
  let api: TestApi;
  let admin: string;
  let owner: Awaited<ReturnType<typeof createOrganization>>;
  let uploadedAt: Date;
  let tmp: string;
  const org = 'invrep';
  const base = `/api/v2/organizations/${org}/projects`;

  const call = (method: 'POST' | 'PUT', url: string, body: string | object) =>
    api.app.inject({
      method,
      url,
      headers: { authorization: admin, 'content-type': 'application/json' },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });

  const projectId = async (name: string) =>
    (
      await use()
        .db.selectFrom('project')
        .select('id')
        .where('name', '=', name)
        .where('organization_id', '=', owner.org.id)
        .executeTakeFirstOrThrow()
    ).id;

  /** The project's period report's events of `cve` over [start, now + 1h): its types, change id. */
  const reportOf = async (name: string, start = new Date('2000-01-01')) => {
    const { kept } = await api.services.reports.periodMatches(
      await projectId(name),
      { operator: 'AND', children: [] },
      { start, end: new Date(Date.now() + HOUR_MS) },
      new Date(),
    );
    return kept;
  };

  /** Log4Shell's row of the project's dashboard feed, seen at `now` (a visit: the next feed starts there). */
  const feedRow = async (name: string, now = new Date()) => {
    const dashboard = await api.services.dashboards.projectDashboard(owner.org.id, name, owner.user.id, now);
    return { feed: dashboard.feed, row: dashboard.feed.cves.find((c) => c.cve_id === LOG4SHELL) };
  };

  beforeAll(async () => {
    api = await buildTestApi(use(), { SYNC_SOURCES: 'none' });
    await api.app.ready();
    await storeAliasTable(use().db, [SAMPLE_RECORDS]);
    await api.services.imports.importInputs(sources.cve5, [fixture('cve5', 'cves')]);
    await api.services.imports.importInputs(sources.nvd, [
      fixture('nvd', 'feed-1.1-heartbleed.json.gz'),
      fixture('nvd', 'CVE-2024-3094.json'),
    ]);
    owner = await createOrganization(api.services, org);
    admin = (await createToken(api.services, owner.org.id, owner.actor, { mode: 'write', scopes: [] }))
      .header;
    for (const name of ['shop', 'other']) expect((await call('POST', base, { name })).statusCode).toBe(201);
    uploadedAt = new Date();
    const shop = await call('PUT', `${base}/shop/inventories/backend`, sbom('cyclonedx-1.6-vulnerable.json'));
    expect(shop.statusCode, shop.body).toBe(200);
    expect(shop.json().entered).toContain(LOG4SHELL);
    // An inventory without a finding: the project has inventories, none has Log4Shell.
    const other = await call('PUT', `${base}/other/inventories/backend`, sbom('cyclonedx-1.6-fixed.json'));
    expect(other.statusCode, other.body).toBe(200);
    expect(other.json()).toMatchObject({ cves: 0 });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'invrep-'));
  });
  afterAll(async () => {
    fs.rmSync(tmp, { recursive: true, force: true });
    await api.close();
  });

  describe('after the upload', () => {
    it("lists Log4Shell in the project's period report as entering through the inventory and affecting its component", async () => {
      const events = (await reportOf('shop')).filter((e) => e.cve_id === LOG4SHELL);
      // The catalog's import came before the project existed: the inventory event alone.
      expect(events).toHaveLength(1);
      expect(events[0]!.change_id).toBeNull();
      expect(events[0]!.types).toEqual(['cve_enters_project', 'cve_affects_component']);
      expect(events[0]!.events).toEqual([
        { type: 'cve_enters_project', details: { created: false, cause: 'inventory' } },
        {
          type: 'cve_affects_component',
          details: expect.objectContaining({
            inventory: 'backend',
            component: expect.objectContaining({ name: 'log4j-core', version: '2.14.1' }),
          }),
        },
      ]);
      // No subscription matched it: the inventory's flag is no matched key.
      expect(events[0]!.matched_keys).toEqual([]);
    });

    it('lists nothing for a project whose inventory has no finding', async () => {
      expect(await reportOf('other')).toEqual([]);
    });

    it("shows it in the project's dashboard feed, affecting a component and entering, and in no other's", async () => {
      const { feed, row } = await feedRow('shop');
      expect(row?.events).toEqual(['cve_enters_project', 'cve_affects_component']);
      expect(feed.total).toBe(3);
      const other = await feedRow('other');
      expect(other.feed.total).toBe(0);
    });

    it("puts the inventory event in the user's Atom feed of the project, with an id of its own", async () => {
      await api.services.dashboards.rotateFeed(owner.org.id, 'shop', owner.user.id);
      const { atom } = await api.services.dashboards.projectDashboard(owner.org.id, 'shop', owner.user.id);
      const res = await api.app.inject({ method: 'GET', url: `/feeds/${atom!.secret}.atom` });
      expect(res.statusCode, res.body).toBe(200);
      const entries = res.body.split('<entry>').slice(1);
      const entry = entries.find((e) =>
        e.includes(`>${LOG4SHELL}: entered the project, affects an inventory component</title>`),
      );
      expect(entry).toContain('cve_affects_component');
      expect(entry).toMatch(/<id>[^<]*#inventory-event-\d+<\/id>/);
      expect(entries).toHaveLength(3);
    });

    it("counts it as entered in the organization's weekly report", async () => {
      const week = await api.services.reports.organizationWeek(owner.org.id, {
        start: new Date(Date.now() - 7 * 24 * HOUR_MS),
        end: new Date(Date.now() + HOUR_MS),
      });
      const shop = week.projects.find((p) => p.name === 'shop');
      expect(shop?.cves.find((c) => c.cve_id === LOG4SHELL)).toMatchObject({ entered: true });
      expect(shop).toMatchObject({ entered: 3, changed: 0 });
      expect(week.projects.find((p) => p.name === 'other')).toMatchObject({ entered: 0, changed: 0 });
    });
  });

  describe('a later catalog change of the CVE', () => {
    let changedFrom: Date;
    beforeAll(async () => {
      // The dashboard's feed starts at the last visit: this one, before the change.
      await feedRow('shop');
      const record = JSON.parse(fs.readFileSync(LOG4SHELL_RECORD, 'utf8'));
      record.cveMetadata.dateUpdated = '2026-11-28T12:00:00.000Z';
      record.containers.cna.descriptions[0].value += ' (Edited for the test.)';
      const file = path.join(tmp, `${LOG4SHELL}.json`);
      fs.writeFileSync(file, JSON.stringify(record));
      changedFrom = new Date();
      await api.services.imports.importInputs(sources.cve5, [file]);
    });

    it('reaches the report as a change of a CVE already the project’s, not as entering again', async () => {
      const events = (await reportOf('shop')).filter((e) => e.cve_id === LOG4SHELL);
      expect(events.map((e) => [e.change_id === null, e.types])).toEqual([
        [true, ['cve_enters_project', 'cve_affects_component']],
        [false, ['description_changed']],
      ]);
      // A period of the change alone: a change, nothing entering.
      const later = (await reportOf('shop', changedFrom)).filter((e) => e.cve_id === LOG4SHELL);
      expect(later.map((e) => e.types)).toEqual([['description_changed']]);
      // A found_at after the change would make it no change of the project's: the rule holds.
      expect(uploadedAt.getTime()).toBeLessThanOrEqual(changedFrom.getTime());
      expect(await reportOf('other')).toEqual([]);
    });

    it('reaches the feed as a change, not as entering again', async () => {
      // A visit after the last one's gap: its feed starts where that one (before the change) was.
      const { feed, row } = await feedRow('shop', new Date(Date.now() + VISIT_GAP_MS + 60_000));
      expect(feed.total).toBe(1);
      expect(row).toMatchObject({ events: ['description_changed'], changes: 1 });
      expect((await feedRow('other', new Date(Date.now() + VISIT_GAP_MS + 60_000))).feed.total).toBe(0);
    });

    it('counts it as changed, not entered, in a weekly report of the change alone', async () => {
      const week = await api.services.reports.organizationWeek(owner.org.id, {
        start: changedFrom,
        end: new Date(Date.now() + HOUR_MS),
      });
      const shop = week.projects.find((p) => p.name === 'shop');
      expect(shop?.cves).toEqual([expect.objectContaining({ cve_id: LOG4SHELL, entered: false })]);
      expect(shop).toMatchObject({ entered: 0, changed: 1 });
    });
  });
});
