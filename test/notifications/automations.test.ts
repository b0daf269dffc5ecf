/**
 * Alert automations on real changes: every trigger (SPEC §7) fires for the change it names and for no
 * other, every condition holds and fails on real records, and the actions move the tracker (audited
 * as the system), make reports and skip disabled notifications. The API refuses bad automations.
 *
 * The changes come from real records (test/fixtures/cve5, the KEV excerpt) imported as sync would;
 * where a change does not occur naturally, a real record's JSON is edited before it is imported again
 * (a lower CVSS score, a new reference…). EPSS moves come from CSV files in FIRST's daily layout.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import { ALERT_TRIGGERS } from '../../src/domain/automation.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { addOperatorAlias, storeTestAliases } from '../helpers/aliases.ts';
import { fixture, readJson } from '../helpers/catalog.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const XZ = 'CVE-2024-3094'; // Red Hat (cpes), CVSS 3.1 10, CWE-506, published 2024-03-29
const PHP = 'CVE-2024-4577'; // PHP Group, CVSS 3.1 9.8, in KEV, published 2024-06-09
const LOG4J = 'CVE-2021-44228'; // Apache log4j2, CVSS 3.1 10, in KEV, published 2021-12-10
const OPENSSH = 'CVE-2024-6387'; // Red Hat (cpes), CVSS 3.1 8.1, published 2024-07-01
const WEBP = 'CVE-2023-4863'; // Google Chrome, no CVSS, published 2023-09-12

const RECORDS: Record<string, string> = {
  [XZ]: fixture('cve5', 'cves', '2024', '3xxx', 'CVE-2024-3094.json'),
  [PHP]: fixture('cve5', 'cves', '2024', '4xxx', 'CVE-2024-4577.json'),
  [LOG4J]: fixture('cve5', 'cves', '2021', '44xxx', 'CVE-2021-44228.json'),
  [OPENSSH]: fixture('cve5', 'cves', '2024', '6xxx', 'CVE-2024-6387.json'),
  [WEBP]: fixture('cve5', 'cves', '2023', '4xxx', 'CVE-2023-4863.json'),
};
const KEV_EXCERPT = fixture('kev', 'known_exploited_vulnerabilities-excerpt.json');

const DAY_MS = 86_400_000;

describeEachDatabase('alert automations', (use) => {
  let api: TestApi;
  let dir: string;
  let auth: { authorization: string };
  let ownerEmail: string;
  let files = 0;
  let epssDay = 0;
  const org = `auto-${Math.random().toString(36).slice(2, 8)}`;

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    api.app.inject({
      method,
      url: `/api/v2/organizations/${org}${url}`,
      headers: auth,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  /** Imports these records (one JSON line each) as a cve5 sync would, then runs the event processor. */
  async function importRecords(...records: Json[]) {
    const file = path.join(dir, `records-${++files}.jsonl`);
    await fs.writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const report = await api.services.imports.importInputs(sources.cve5, [file]);
    expect(report.status).toBe('completed');
    await api.services.events.processPending();
    return report;
  }

  /** Imports one day of EPSS scores (FIRST's layout, one day later than the last), then processes. */
  async function importEpss(scores: Record<string, number>) {
    const date = new Date(Date.UTC(2025, 0, 1) + epssDay++ * DAY_MS).toISOString().slice(0, 10);
    const lines = [`#model_version:v2025.03.14,score_date:${date}T00:00:00+0000`, 'cve,epss,percentile'];
    for (const [id, score] of Object.entries(scores)) lines.push(`${id},${score},0.5`);
    const file = path.join(dir, `epss_scores-${date}.csv.gz`);
    await fs.writeFile(file, zlib.gzipSync(lines.join('\n') + '\n'));
    expect((await api.services.imports.importInputs(sources.epss, [file])).status).toBe('completed');
    await api.services.events.processPending();
  }

  async function createAutomation(project: string, body: Json) {
    const res = await call('POST', `/projects/${project}/automations`, body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<Json>();
  }

  /** Executions so far per automation of a project (by name). */
  async function executionCounts(project: string): Promise<Map<string, number>> {
    const rows = await sql<{ name: string; n: number }>`
      SELECT a.name, count(e.id)::int AS n
        FROM automation a JOIN project p ON p.id = a.project_id
        LEFT JOIN automation_execution e ON e.automation_id = a.id
       WHERE p.name = ${project}
       GROUP BY a.name`.execute(use().db);
    return new Map(rows.rows.map((r) => [r.name, r.n]));
  }

  /** The CVEs of the report that an automation's newest execution made. */
  async function lastReportCves(project: string, automation: string): Promise<string[] | undefined> {
    const list = await call('GET', `/projects/${project}/automations/${automation}/executions`);
    expect(list.statusCode).toBe(200);
    const [execution] = list.json<{ results: { report_id: string | null }[] }>().results;
    if (!execution) return undefined;
    const report = await call('GET', `/projects/${project}/reports/${execution.report_id}`);
    expect(report.statusCode).toBe(200);
    return report
      .json<{ cves: { cve_id: string }[] }>()
      .cves.map((c) => c.cve_id)
      .sort();
  }

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vulntrack-automations-'));
    api = await buildTestApi(use(), { SYNC_SOURCES: 'none' });
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(use().db);
    // The bundled sample names no Tukaani CPE: an operator maps the vendor the "new vendor" step adds.
    await addOperatorAlias(use().db, 'Tukaani', undefined, 'tukaani');
    await addOperatorAlias(use().db, 'Tukaani', 'xz', 'tukaani$PRODUCT$xz');
    const owner = await createOrganization(api.services, org);
    ownerEmail = owner.user.email;
    auth = { authorization: (await createToken(api.services, owner.org.id, owner.actor)).header };
    // A real catalog lists these vendors already (through other CVEs); this one starts empty, so
    // their rows are made here and the CVEs under test arrive after the subscriptions.
    for (const name of ['redhat', 'php_group', 'tukaani', 'apache', 'google'])
      await sql`INSERT INTO vendor (name) VALUES (${name}) ON CONFLICT DO NOTHING`.execute(use().db);
    const { projects } = api.services;
    await projects.create(owner.org.id, { name: 'triggers' }, owner.actor, {
      vendors: ['redhat', 'php_group'],
    });
    await projects.create(owner.org.id, { name: 'newcomer' }, owner.actor, { vendors: ['tukaani'] });
    await projects.create(owner.org.id, { name: 'conditions' }, owner.actor, {
      vendors: ['redhat', 'php_group', 'apache', 'google'],
    });
    await projects.create(owner.org.id, { name: 'actions' }, owner.actor, { vendors: ['google'] });
    await projects.create(owner.org.id, { name: 'validation' }, owner.actor, { vendors: ['google'] });
  });

  afterAll(async () => {
    await api?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  describe('each trigger fires for its change and for no other', () => {
    let xz: Json;
    let php: Json;
    const cna = () => xz.containers.cna as Json;
    const cvss = () => (cna().metrics as Json[]).find((m) => m.cvssV3_1)!.cvssV3_1 as Json;

    beforeAll(async () => {
      xz = await readJson<Json>(RECORDS[XZ]!);
      php = await readJson<Json>(RECORDS[PHP]!);
      // Without its vulnrichment KEV entry, so that the real KEV catalog adds it later.
      for (const adp of php.containers.adp as Json[])
        if (adp.metrics) adp.metrics = (adp.metrics as Json[]).filter((m) => m.other?.type !== 'kev');
      for (const trigger of ALERT_TRIGGERS) {
        await createAutomation('triggers', {
          name: `on-${trigger}`,
          trigger_type: 'alert',
          configuration: { triggers: [trigger], actions: [{ type: 'generate_report' }] },
        });
      }
      await createAutomation('newcomer', {
        name: 'on-cve_enters_project',
        trigger_type: 'alert',
        configuration: { triggers: ['cve_enters_project'], actions: [{ type: 'generate_report' }] },
      });
    });

    /** Each step makes one kind of change; `fires` lists the triggers that must fire (and no other). */
    const STEPS: {
      name: string;
      run: () => Promise<unknown>;
      fires: string[];
      /** The CVEs the fired automations' reports list. */
      cves: string[];
      /** Whether the CVE enters the `newcomer` project (subscribed to tukaani only). */
      newcomer?: boolean;
    }[] = [
      {
        name: 'two new CVEs enter the catalog',
        run: () => importRecords(xz, php),
        fires: ['cve_enters_project'],
        cves: [XZ, PHP].sort(),
      },
      {
        name: 'the description changes',
        run: () => {
          (cna().descriptions as Json[])[0]!.value += ' Fixed in xz 5.6.2.';
          return importRecords(xz);
        },
        fires: ['description_changed'],
        cves: [XZ],
      },
      {
        name: 'the title changes',
        run: () => {
          cna().title = 'xz/liblzma: malicious code in distributed source tarballs';
          return importRecords(xz);
        },
        fires: ['title_changed'],
        cves: [XZ],
      },
      {
        name: 'a reference is added',
        run: () => {
          (cna().references as Json[]).push({
            url: 'https://www.openwall.com/lists/oss-security/2024/04/01/1',
          });
          return importRecords(xz);
        },
        fires: ['new_reference'],
        cves: [XZ],
      },
      {
        name: 'a weakness is added',
        run: () => {
          (cna().problemTypes as Json[])[0]!.descriptions.push({
            lang: 'en',
            type: 'CWE',
            cweId: 'CWE-20',
            description: 'Improper Input Validation',
          });
          return importRecords(xz);
        },
        fires: ['new_weakness'],
        cves: [XZ],
      },
      {
        name: 'the CNA adds an affected range (xz from 5.6.2 before 5.6.3)',
        run: () => {
          ((cna().affected as Json[])[0]!.versions as Json[]).push({
            status: 'affected',
            version: '5.6.2',
            lessThan: '5.6.3',
            versionType: 'semver',
          });
          return importRecords(xz);
        },
        fires: ['affected_changed'],
        cves: [XZ],
      },
      {
        name: 'the CVSS 3.1 score goes down (10 → 7.5)',
        run: () => {
          cvss().baseScore = 7.5;
          cvss().baseSeverity = 'HIGH';
          return importRecords(xz);
        },
        fires: ['cvss_decreased'],
        cves: [XZ],
      },
      {
        name: 'the CVSS 3.1 score goes up (7.5 → 9.1)',
        run: () => {
          cvss().baseScore = 9.1;
          cvss().baseSeverity = 'CRITICAL';
          return importRecords(xz);
        },
        fires: ['cvss_increased'],
        cves: [XZ],
      },
      {
        name: 'a product of a known vendor is added (a Red Hat OpenShift CPE)',
        run: () => {
          (cna().affected as Json[]).push({
            cpes: ['cpe:/a:redhat:openshift:4'],
            vendor: 'Red Hat',
            product: 'Red Hat OpenShift Container Platform 4',
            packageName: 'xz',
            defaultStatus: 'unaffected',
          });
          return importRecords(xz);
        },
        fires: ['new_product', 'affected_changed'],
        cves: [XZ],
      },
      {
        name: 'a new vendor (and its product) is added: the CVE enters a project subscribed to it',
        run: () => {
          (cna().affected as Json[]).push({
            vendor: 'Tukaani',
            product: 'xz',
            versions: [{ status: 'affected', version: '5.6.0' }],
            defaultStatus: 'unaffected',
          });
          return importRecords(xz);
        },
        fires: ['new_vendor', 'new_product', 'affected_changed'],
        cves: [XZ],
        newcomer: true,
      },
      {
        name: "an inventory lists xz 5.6.0, which the CNA's new range covers: the CVE affects a component",
        run: async () => {
          const sbom = {
            bomFormat: 'CycloneDX',
            specVersion: '1.6',
            version: 1,
            components: [{ type: 'library', name: 'xz', version: '5.6.0', supplier: { name: 'Tukaani' } }],
          };
          const res = await api.app.inject({
            method: 'PUT',
            url: `/api/v2/organizations/${org}/projects/triggers/inventories/firmware`,
            headers: { ...auth, 'content-type': 'application/json' },
            payload: JSON.stringify(sbom),
          });
          expect(res.statusCode, res.body).toBeLessThan(300);
          await api.services.events.processPending();
        },
        // Already the project's through its subscriptions: it does not enter again.
        fires: ['cve_affects_component'],
        cves: [XZ],
      },
      {
        name: 'the real KEV catalog adds a CVE',
        run: async () => {
          const report = await api.services.imports.importInputs(sources.kev, [KEV_EXCERPT]);
          expect(report.status).toBe('completed');
          await api.services.events.processPending();
        },
        fires: ['kev_added'],
        cves: [PHP],
      },
      {
        name: 'first EPSS scores arrive',
        run: () => importEpss({ [XZ]: 0.5, [PHP]: 0.9 }),
        fires: ['epss_increased'],
        cves: [XZ, PHP].sort(),
      },
      {
        name: 'an EPSS score goes down',
        run: () => importEpss({ [XZ]: 0.2, [PHP]: 0.9 }),
        fires: ['epss_decreased'],
        cves: [XZ],
      },
      {
        name: 'an EPSS score moves by less than 0.01',
        run: () => importEpss({ [XZ]: 0.205, [PHP]: 0.9 }),
        fires: [],
        cves: [],
      },
      {
        name: 'the same record is imported again',
        run: () => importRecords(xz, php),
        fires: [],
        cves: [],
      },
    ];

    it('covers every trigger', () => {
      expect(new Set(STEPS.flatMap((s) => s.fires))).toEqual(new Set(ALERT_TRIGGERS));
    });

    for (const step of STEPS) {
      it(`${step.name}: fires ${step.fires.join(', ') || 'nothing'}`, async () => {
        const before = await executionCounts('triggers');
        const newcomerBefore = (await executionCounts('newcomer')).get('on-cve_enters_project')!;
        await step.run();
        const after = await executionCounts('triggers');
        const fired = [...after].filter(([name, n]) => n > before.get(name)!).map(([name]) => name);
        expect(fired.sort()).toEqual(step.fires.map((t) => `on-${t}`).sort());
        // One execution per automation and processed chunk, whatever the number of CVEs.
        for (const name of fired) expect(after.get(name)! - before.get(name)!).toBe(1);
        for (const trigger of step.fires)
          expect(await lastReportCves('triggers', `on-${trigger}`)).toEqual(step.cves);
        const newcomerAfter = (await executionCounts('newcomer')).get('on-cve_enters_project')!;
        expect(newcomerAfter - newcomerBefore).toBe(step.newcomer ? 1 : 0);
      });
    }

    it('gives each event its details, in the reports of the automations it fired', async () => {
      const reportEvents = async (project: string) =>
        (
          await sql<{ name: string; events: { type: string; details: Json }[] }>`
            SELECT a.name, i.events FROM report_item i
              JOIN report r ON r.id = i.report_id
              JOIN automation a ON a.id = r.automation_id
              JOIN project p ON p.id = a.project_id
             WHERE p.name = ${project} AND i.cve_id = ${XZ}
             ORDER BY r.created_at, r.id`.execute(use().db)
        ).rows;
      const triggers = await reportEvents('triggers');
      const details = (type: string) =>
        triggers
          .filter((r) => r.name === `on-${type}`)
          .flatMap((r) => r.events.filter((e) => e.type === type).map((e) => e.details));
      expect(details('cvss_decreased')).toEqual([{ cvssV3_1: { old: 10, new: 7.5 } }]);
      expect(details('cvss_increased')).toEqual([{ cvssV3_1: { old: 7.5, new: 9.1 } }]);
      expect(details('new_product')).toEqual(
        expect.arrayContaining([{ added: ['redhat$PRODUCT$openshift'] }, { added: ['tukaani$PRODUCT$xz'] }]),
      );
      expect(details('new_product')).toHaveLength(2);
      expect(details('new_vendor')).toEqual([{ added: ['tukaani'] }]);
      // The range added: the CNA's container before and after (the first of three affected changes).
      const range = details('affected_changed')[0] as { old: Json[]; new: Json[] };
      expect(range.old[0]!.entries[0].versions).toHaveLength(2);
      expect(range.new[0]!.entries[0].versions[2]).toEqual({
        version: '5.6.2',
        status: 'affected',
        lessThan: '5.6.3',
        versionType: 'semver',
      });
      expect(details('epss_decreased')).toEqual([{ old: 0.5, new: 0.2 }]);
      expect(details('cve_enters_project')).toEqual([{ created: true }]);
      // In the project subscribed to tukaani only, xz enters with the new vendor (not created: it
      // was in the catalog already), and that change's other events come along.
      const newcomer = await reportEvents('newcomer');
      expect(newcomer.map((r) => r.events.map((e) => e.type))).toEqual([
        ['cve_enters_project', 'new_vendor', 'new_product', 'affected_changed'],
      ]);
      expect(newcomer[0]!.events[0]).toEqual({ type: 'cve_enters_project', details: { created: false } });
    });
  });

  describe('each condition holds for some real CVEs and not for others', () => {
    let publishedDays: number;
    /** name → the condition tree, and the CVEs it must let through (empty: no execution at all). */
    const CASES: { name: string; conditions: Json; matches: string[] }[] = [
      {
        name: 'cvss-3.1-gte-9.5',
        conditions: {
          operator: 'AND',
          children: [{ type: 'cvss_gte', value: { version: '3.1', value: 9.5 } }],
        },
        matches: [LOG4J, PHP],
      },
      {
        name: 'cvss-3.1-gte-8',
        conditions: {
          operator: 'AND',
          children: [{ type: 'cvss_gte', value: { version: '3.1', value: 8 } }],
        },
        matches: [LOG4J, PHP, OPENSSH, XZ],
      },
      {
        name: 'cvss-4.0-gte-0',
        conditions: {
          operator: 'AND',
          children: [{ type: 'cvss_gte', value: { version: '4.0', value: 0 } }],
        },
        matches: [],
      },
      {
        name: 'epss-gte-0.9',
        conditions: { operator: 'AND', children: [{ type: 'epss_gte', value: 0.9 }] },
        matches: [LOG4J, PHP],
      },
      {
        name: 'kev',
        conditions: { operator: 'AND', children: [{ type: 'kev_present' }] },
        matches: [LOG4J, PHP],
      },
      {
        name: 'not-kev',
        conditions: { operator: 'AND', children: [{ type: 'kev_present', value: false }] },
        matches: [OPENSSH, WEBP, XZ],
      },
      {
        name: 'vendor-redhat',
        conditions: { operator: 'AND', children: [{ type: 'vendor_equals', value: 'redhat' }] },
        matches: [OPENSSH, XZ],
      },
      {
        name: 'product-log4j2',
        conditions: { operator: 'AND', children: [{ type: 'product_equals', value: 'log4j2' }] },
        matches: [LOG4J],
      },
      {
        name: 'product-chrome-by-key',
        conditions: {
          operator: 'AND',
          children: [{ type: 'product_equals', value: 'google$PRODUCT$chrome' }],
        },
        matches: [WEBP],
      },
      {
        name: 'newer-than',
        // Filled in beforeAll: days since 2024-06-01 (PHP and OpenSSH are newer, the others older).
        conditions: { operator: 'AND', children: [{ type: 'cve_newer_than', value: 0 }] },
        matches: [OPENSSH, PHP],
      },
      {
        name: 'unassigned',
        conditions: { operator: 'AND', children: [{ type: 'cve_unassigned' }] },
        matches: [LOG4J, OPENSSH, PHP, XZ],
      },
      {
        name: 'status-resolved',
        conditions: { operator: 'AND', children: [{ type: 'cve_status', value: 'resolved' }] },
        matches: [OPENSSH],
      },
      {
        name: 'status-none',
        conditions: { operator: 'AND', children: [{ type: 'cve_status', value: 'no_status' }] },
        matches: [LOG4J, PHP, WEBP, XZ],
      },
      {
        name: 'nested',
        conditions: {
          operator: 'OR',
          children: [
            {
              operator: 'AND',
              children: [
                { type: 'vendor_equals', value: 'redhat' },
                { type: 'cvss_gte', value: { version: '3.1', value: 9 } },
              ],
            },
            { type: 'product_equals', value: 'log4j2' },
          ],
        },
        matches: [LOG4J, XZ],
      },
      {
        name: 'and-of-two',
        conditions: {
          operator: 'AND',
          children: [{ type: 'kev_present' }, { type: 'cve_newer_than', value: 0 }],
        },
        matches: [PHP],
      },
      {
        name: 'empty-and',
        conditions: { operator: 'AND', children: [] },
        matches: [LOG4J, OPENSSH, PHP, WEBP, XZ],
      },
      { name: 'empty-or', conditions: { operator: 'OR', children: [] }, matches: [] },
    ];

    beforeAll(async () => {
      publishedDays = Math.floor((Date.now() - Date.UTC(2024, 5, 1)) / DAY_MS);
      for (const c of CASES)
        for (const leaf of JSON.stringify(c.conditions).includes('cve_newer_than')
          ? (c.conditions.children as Json[])
          : [])
          if (leaf.type === 'cve_newer_than') leaf.value = publishedDays;
      await importRecords(
        await readJson(RECORDS[LOG4J]!),
        await readJson(RECORDS[OPENSSH]!),
        await readJson(RECORDS[WEBP]!),
      );
      // Triage before the change: OpenSSH resolved, WebP assigned.
      expect(
        (await call('PATCH', `/projects/conditions/cves/${OPENSSH}`, { status: 'resolved' })).statusCode,
      ).toBe(200);
      expect(
        (await call('PATCH', `/projects/conditions/cves/${WEBP}`, { assignee: ownerEmail })).statusCode,
      ).toBe(200);
      for (const c of CASES) {
        await createAutomation('conditions', {
          name: c.name,
          trigger_type: 'alert',
          configuration: {
            triggers: ['epss_increased'],
            conditions: c.conditions,
            actions: [{ type: 'generate_report' }],
          },
        });
      }
      // One EPSS day in which every CVE's score goes up: each automation sees all five.
      await importEpss({ [XZ]: 0.3, [PHP]: 0.95, [LOG4J]: 0.97, [OPENSSH]: 0.05, [WEBP]: 0.6 });
    });

    it('has a real world that the cases rely on', async () => {
      const rows = await use()
        .db.selectFrom('cve')
        .select(['cve_id', 'cvss31', 'kev', 'epss'])
        .where('cve_id', 'in', [XZ, PHP, LOG4J, OPENSSH, WEBP])
        .orderBy('cve_id')
        .execute();
      expect(rows).toEqual([
        { cve_id: LOG4J, cvss31: 10, kev: true, epss: 0.97 },
        { cve_id: WEBP, cvss31: null, kev: false, epss: 0.6 },
        { cve_id: XZ, cvss31: 9.1, kev: false, epss: 0.3 },
        { cve_id: PHP, cvss31: 9.8, kev: true, epss: 0.95 },
        { cve_id: OPENSSH, cvss31: 8.1, kev: false, epss: 0.05 },
      ]);
    });

    for (const c of CASES) {
      it(`${c.name}: ${c.matches.length ? c.matches.join(', ') : 'no execution'}`, async () => {
        const counts = await executionCounts('conditions');
        expect(counts.get(c.name)).toBe(c.matches.length ? 1 : 0);
        if (c.matches.length)
          expect(await lastReportCves('conditions', c.name)).toEqual([...c.matches].sort());
      });
    }
  });

  describe('actions', () => {
    let execution: { id: string; results: { action: string; status: string; details: Json }[] };

    beforeAll(async () => {
      const off = await call('POST', '/projects/actions/notifications', {
        name: 'off',
        type: 'webhook',
        is_enabled: false,
        configuration: { url: 'https://hooks.example.org/vulntrack' },
      });
      expect(off.statusCode).toBe(201);
      await createAutomation('actions', {
        name: 'triage',
        trigger_type: 'alert',
        configuration: {
          triggers: ['description_changed'],
          actions: [
            { type: 'change_status', value: 'to_evaluate' },
            { type: 'assign_user', value: ownerEmail.toUpperCase() },
            { type: 'generate_report' },
            { type: 'send_notification', value: 'off' },
          ],
        },
      });
      const webp = await readJson<Json>(RECORDS[WEBP]!);
      (webp.containers.cna.descriptions as Json[])[0]!.value += ' (Exploited in the wild.)';
      await importRecords(webp);
      const list = await call('GET', '/projects/actions/automations/triage/executions');
      const body = list.json<{ count: number; results: { id: string }[] }>();
      expect(body.count).toBe(1);
      // The list item has no results (OpenCVE's shape); the execution's detail has them.
      expect(body.results[0]).not.toHaveProperty('results');
      const detail = await call(
        'GET',
        `/projects/actions/automations/triage/executions/${body.results[0]!.id}`,
      );
      execution = detail.json<typeof execution>();
    });

    it("keeps the matched CVE as it was, and labels each result, in OpenCVE's shapes", async () => {
      const detail = await call('GET', `/projects/actions/automations/triage/executions/${execution.id}`);
      const body = detail.json<Json>();
      expect(body.cves_table_data).toEqual([
        expect.objectContaining({
          cve_id: WEBP,
          kev: expect.any(Boolean),
          matched_vendors_or_products: expect.any(Array),
        }),
      ]);
      expect((body.cves_table_data as Json[])[0]!.matched_vendors_or_products).not.toHaveLength(0);
      expect(body.impact_summary).toMatchObject({ cves_count: 1 });
      expect((body.results as Json[]).map((r) => [r.output_type, r.label, r.status])).toEqual([
        ['status_change', 'Status changed', 'success'],
        ['assignment', 'CVEs assigned', 'success'],
        ['report', 'Report generated', 'success'],
        ['notification_sent', 'Notification sent', 'skipped'],
      ]);
    });

    it('records one result per action: the disabled notification is skipped', () => {
      expect(execution.results.map((r) => `${r.action}:${r.status}`)).toEqual([
        'change_status:success',
        'assign_user:success',
        'generate_report:success',
        'send_notification:skipped',
      ]);
      expect(execution.results[3]!.details).toEqual({ notification: 'off', reason: 'disabled' });
    });

    it('moves the tracker: status and assignee', async () => {
      const res = await call('GET', `/projects/actions/cves/${WEBP}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        tracker: { status: 'to_evaluate', assignee: { email: ownerEmail } },
      });
    });

    it('audits the tracker moves as the system, naming the automation', async () => {
      const res = await call('GET', '/audit-logs?resource=tracker_entry');
      const entries = res.json<{
        results: { action: string; actor: { type: string; name: string }; resource: { name: string } }[];
      }>().results;
      const mine = entries.filter((e) => e.resource.name.startsWith('actions/'));
      expect(mine.length).toBeGreaterThanOrEqual(1);
      for (const e of mine) expect(e.actor).toMatchObject({ type: 'system', name: 'automation:triage' });
      expect(JSON.stringify(mine)).toContain('to_evaluate');
      expect(JSON.stringify(mine)).toContain(ownerEmail);
    });

    it('makes a report visible in the project, naming the automation and the CVE', async () => {
      const res = await call('GET', '/projects/actions/reports');
      const body = res.json<{
        count: number;
        results: { id: string; automation: string; cves_count: number }[];
      }>();
      expect(body.count).toBe(1);
      expect(body.results[0]).toMatchObject({ automation: 'triage', cves_count: 1 });
      const detail = await call('GET', `/projects/actions/reports/${body.results[0]!.id}`);
      const cves = detail.json<{ cves: { cve_id: string; event_types: string[] }[] }>().cves;
      expect(cves).toEqual([expect.objectContaining({ cve_id: WEBP, event_types: ['description_changed'] })]);
    });

    it('does not run a disabled automation', async () => {
      expect(
        (await call('PATCH', '/projects/actions/automations/triage', { is_enabled: false })).statusCode,
      ).toBe(200);
      const webp = await readJson<Json>(RECORDS[WEBP]!);
      (webp.containers.cna.descriptions as Json[])[0]!.value += ' (Second edit.)';
      await importRecords(webp);
      expect((await executionCounts('actions')).get('triage')).toBe(1);
    });
  });

  describe('the API', () => {
    const alert = (over: Json = {}) => ({
      name: 'valid',
      trigger_type: 'alert',
      configuration: { triggers: ['kev_added'], actions: [{ type: 'generate_report' }] },
      ...over,
    });
    const report = (over: Json = {}) => ({
      name: 'weekly',
      trigger_type: 'report',
      frequency: 'weekly',
      configuration: { actions: [{ type: 'generate_report' }] },
      ...over,
    });
    const post = (body: unknown) => call('POST', '/projects/validation/automations', body);
    const expect400 = async (body: unknown, field: string, pattern?: RegExp) => {
      const res = await post(body);
      expect(res.statusCode, res.body).toBe(400);
      const error = res.json<{ error: { code: string; details: Record<string, string[]> } }>().error;
      expect(error.code).toBe('validation_error');
      expect(Object.keys(error.details)).toContain(field);
      if (pattern) expect(error.details[field]!.join(' ')).toMatch(pattern);
    };

    beforeAll(async () => {
      const n = await call('POST', '/projects/validation/notifications', {
        name: 'hook',
        type: 'webhook',
        configuration: { url: 'https://hooks.example.org/in' },
      });
      expect(n.statusCode).toBe(201);
    });

    it('refuses an unknown trigger', async () => {
      const res = await post(
        alert({ configuration: { triggers: ['cve_deleted'], actions: [{ type: 'generate_report' }] } }),
      );
      expect(res.statusCode).toBe(400);
      expect(res.json<{ error: { code: string } }>().error.code).toBe('validation_error');
    });

    it('refuses an alert without triggers', () =>
      expect400(
        alert({ configuration: { triggers: [], actions: [{ type: 'generate_report' }] } }),
        'configuration',
        /trigger/,
      ));

    it('refuses a report without frequency', () => expect400(report({ frequency: undefined }), 'frequency'));

    it('refuses a bad schedule_time and a bad schedule_timezone', async () => {
      await expect400(report({ schedule_time: '25:00' }), 'schedule_time');
      await expect400(report({ schedule_time: '8:00' }), 'schedule_time');
      await expect400(report({ schedule_timezone: 'Mars/Olympus_Mons' }), 'schedule_timezone');
      await expect400(report({ schedule_timezone: '../../etc/passwd' }), 'schedule_timezone');
      await expect400(alert({ schedule_time: '08:00' }), 'schedule_time');
    });

    it('refuses send_notification naming a missing notification', () =>
      expect400(
        alert({
          configuration: { triggers: ['kev_added'], actions: [{ type: 'send_notification', value: 'nope' }] },
        }),
        'configuration',
        /actions\[0\]: send_notification/,
      ));

    it('refuses assign_user of someone who is not a member', () =>
      expect400(
        alert({
          configuration: {
            triggers: ['kev_added'],
            actions: [{ type: 'assign_user', value: 'someone@elsewhere.example' }],
          },
        }),
        'configuration',
        /actions\[0\]: assign_user/,
      ));

    it('refuses a condition with a value of the wrong type, naming it', async () => {
      for (const [leaf, pattern] of [
        [{ type: 'cvss_gte', value: 9 }, /conditions\.children\[0\]: cvss_gte/],
        [{ type: 'cvss_gte', value: { version: '5.0', value: 9 } }, /cvss_gte/],
        [{ type: 'epss_gte', value: '0.5' }, /conditions\.children\[0\]: epss_gte/],
        [{ type: 'cve_newer_than', value: 1.5 }, /cve_newer_than/],
        [{ type: 'cve_status', value: 'done' }, /cve_status/],
        [{ type: 'vendor_equals', value: 3 }, /vendor_equals/],
        [{ type: 'kev_present', value: 'yes' }, /kev_present/],
      ] as const) {
        await expect400(
          alert({
            configuration: {
              triggers: ['kev_added'],
              conditions: { operator: 'AND', children: [leaf] },
              actions: [{ type: 'generate_report' }],
            },
          }),
          'configuration',
          pattern,
        );
      }
    });

    it('creates, refuses a duplicate name, reads, changes and deletes', async () => {
      const created = await post(alert({ name: 'crud' }));
      expect(created.statusCode).toBe(201);
      expect(created.json()).toMatchObject({
        name: 'crud',
        is_enabled: true,
        trigger_type: 'alert',
        frequency: null,
      });
      await expect400(alert({ name: 'crud' }), 'name', /exists/);

      const patched = await call('PATCH', '/projects/validation/automations/crud', {
        name: 'crud2',
        configuration: {
          triggers: ['new_reference'],
          actions: [{ type: 'send_notification', value: 'hook' }],
        },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json()).toMatchObject({
        name: 'crud2',
        configuration: {
          triggers: ['new_reference'],
          actions: [{ type: 'send_notification', value: 'hook' }],
        },
      });
      expect((await call('GET', '/projects/validation/automations/crud')).statusCode).toBe(404);
      expect((await call('GET', '/projects/validation/automations/crud2')).json()).toMatchObject({
        name: 'crud2',
      });
      // A change is validated as a whole: no report fields on an alert.
      const bad = await call('PATCH', '/projects/validation/automations/crud2', { schedule_time: '08:00' });
      expect(bad.statusCode).toBe(400);

      const weekly = await post(report());
      expect(weekly.statusCode).toBe(201);
      // As OpenCVE writes them: the time with seconds, the weekday by name.
      expect(weekly.json()).toMatchObject({
        frequency: 'weekly',
        schedule_time: '08:00:00',
        schedule_timezone: 'UTC',
        schedule_weekday: 'monday',
      });

      // Weekly to daily: the weekday goes with it (it cannot be sent as null); daily to weekly: Monday.
      const daily = await call('PATCH', '/projects/validation/automations/weekly', { frequency: 'daily' });
      expect(daily.statusCode, daily.body).toBe(200);
      expect(daily.json()).toMatchObject({ frequency: 'daily', schedule_weekday: null });
      const back = await call('PATCH', '/projects/validation/automations/weekly', {
        frequency: 'weekly',
        schedule_weekday: 5,
        schedule_timezone: 'Europe/Paris',
      });
      expect(back.json()).toMatchObject({
        frequency: 'weekly',
        schedule_weekday: 'friday',
        schedule_timezone: 'Europe/Paris',
      });

      const list = await call('GET', '/projects/validation/automations');
      expect(list.json<{ results: { name: string }[] }>().results.map((a) => a.name)).toEqual([
        'crud2',
        'weekly',
      ]);

      expect((await call('DELETE', '/projects/validation/automations/crud2')).statusCode).toBe(204);
      expect((await call('GET', '/projects/validation/automations/crud2')).statusCode).toBe(404);
      expect((await call('DELETE', '/projects/validation/automations/crud2')).statusCode).toBe(404);

      const audit = await call('GET', '/audit-logs?resource=automation');
      const actions = audit.json<{ results: { action: string; resource: { name: string } }[] }>().results;
      expect(
        actions
          .filter((a) => a.resource.name.startsWith('validation/crud'))
          .map((a) => a.action)
          .sort(),
      ).toEqual(['automation.create', 'automation.delete', 'automation.update']);
    });

    it('lists executions and shows one; 404 for unknown names and ids', async () => {
      const list = await call('GET', '/projects/triggers/automations/on-kev_added/executions');
      expect(list.statusCode).toBe(200);
      const body = list.json<{ count: number; results: { id: string; matched_cves_count: number }[] }>();
      expect(body.count).toBe(1);
      const one = await call(
        'GET',
        `/projects/triggers/automations/on-kev_added/executions/${body.results[0]!.id}`,
      );
      expect(one.statusCode).toBe(200);
      expect(one.json()).toMatchObject({
        id: body.results[0]!.id,
        matched_cves_count: 1,
        results: [{ action: 'generate_report', status: 'success' }],
      });
      // The execution of one automation is not reachable through another.
      expect(
        (await call('GET', `/projects/triggers/automations/on-new_vendor/executions/${body.results[0]!.id}`))
          .statusCode,
      ).toBe(404);
      for (const url of [
        '/projects/triggers/automations/missing',
        '/projects/triggers/automations/missing/executions',
        '/projects/triggers/automations/on-kev_added/executions/00000000-0000-0000-0000-000000000000',
        '/projects/triggers/automations/on-kev_added/executions/not-a-uuid',
        '/projects/missing/automations',
        '/projects/triggers/reports/00000000-0000-0000-0000-000000000000',
      ])
        expect((await call('GET', url)).statusCode, url).toBe(404);
      expect(
        (await call('PATCH', '/projects/triggers/automations/missing', { is_enabled: false })).statusCode,
      ).toBe(404);
      expect((await call('POST', '/projects/triggers/automations/missing/run')).statusCode).toBe(404);
    });
  });

  describe('EPSS moves', () => {
    it('keeps processed moves for 30 days, then purges them', async () => {
      const db = use().db;
      const before = await db.selectFrom('epss_move').select('seq').execute();
      expect(before.length).toBeGreaterThan(0);
      // Every move so far is processed; make them 31 days old.
      await sql`UPDATE epss_move SET created_at = now() - interval '31 days'`.execute(db);
      await importEpss({ [XZ]: 0.9 });
      const after = await db.selectFrom('epss_move').select(['cve_id', 'new_score']).execute();
      expect(after).toEqual([{ cve_id: XZ, new_score: 0.9 }]);
    });
  });
});
