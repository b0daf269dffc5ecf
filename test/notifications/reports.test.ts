/**
 * Report automations (SPEC §7): one report per automation and period, the period being the last
 * complete one in the automation's time zone (America/New_York at 08:00: local midnight is not UTC
 * midnight, and the period is 23 or 25 hours across a DST switch); the report lists every CVE of the
 * project that changed in the period with its changes, highest CVSS and counts by severity; it is
 * delivered through the automation's notifications.
 *
 * Real records are imported (their changes become project events), then the events are put at
 * controlled instants in SQL, around the period boundaries.
 */
import { storeTestAliases } from '../helpers/aliases.ts';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import type { NotificationPayload } from '../../src/notifications/payload.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { fixture, readJson } from '../helpers/catalog.ts';
import { startReceiver, type Receiver } from './receivers.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const XZ = 'CVE-2024-3094'; // CVSS 3.1 10 (critical)
const PHP = 'CVE-2024-4577'; // CVSS 3.1 9.8 (critical)
const LOG4J = 'CVE-2021-44228'; // CVSS 3.1 10
const OPENSSH = 'CVE-2024-6387'; // CVSS 3.1 8.1 (high)
const WEBP = 'CVE-2023-4863'; // no CVSS
const FILES = [
  fixture('cve5', 'cves', '2024', '3xxx', 'CVE-2024-3094.json'),
  fixture('cve5', 'cves', '2024', '4xxx', 'CVE-2024-4577.json'),
  fixture('cve5', 'cves', '2021', '44xxx', 'CVE-2021-44228.json'),
  fixture('cve5', 'cves', '2024', '6xxx', 'CVE-2024-6387.json'),
  fixture('cve5', 'cves', '2023', '4xxx', 'CVE-2023-4863.json'),
];
const PROJECTS = ['daily', 'weekly', 'dst', 'filtered', 'late'] as const;

/** `toMicrosZ` of an ISO instant. */
const micros = (iso: string) => new Date(iso).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
const HOUR_MS = 3_600_000;

interface ReportItem {
  id: string;
  automation: string;
  period: { start: string; end: string };
  cves_count: number;
  highest_cvss: number | null;
  severity_counts: Record<string, number>;
}
interface ReportDetail extends ReportItem {
  cves: {
    cve_id: string;
    highest_cvss: number | null;
    event_types: string[];
    changes: { id: string; created_at: string; types: string[]; data: Json[] }[];
  }[];
}

describeEachDatabase('report automations', (use) => {
  let api: TestApi;
  let dir: string;
  let auth: { authorization: string };
  let receiver: Receiver;
  let signingSecret: string;
  const org = `rep-${Math.random().toString(36).slice(2, 8)}`;

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    api.app.inject({
      method,
      url: `/api/v2/organizations/${org}${url}`,
      headers: auth,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  async function reportsOf(project: string): Promise<ReportItem[]> {
    const res = await call('GET', `/projects/${project}/reports?page_size=100`);
    expect(res.statusCode).toBe(200);
    return res.json<{ results: ReportItem[] }>().results;
  }

  async function reportFor(project: string, start: string, end: string): Promise<ReportDetail> {
    const matching = (await reportsOf(project)).filter(
      (r) => r.period.start === micros(start) && r.period.end === micros(end),
    );
    expect(matching).toHaveLength(1);
    const res = await call('GET', `/projects/${project}/reports/${matching[0]!.id}`);
    expect(res.statusCode).toBe(200);
    return res.json<ReportDetail>();
  }

  /** The executions of an automation, newest first, each as its detail (with its results). */
  async function executionsOf(project: string, automation: string) {
    const base = `/projects/${project}/automations/${automation}/executions`;
    const res = await call('GET', `${base}?page_size=100`);
    expect(res.statusCode).toBe(200);
    const details = [];
    for (const { id } of res.json<{ results: { id: string }[] }>().results) {
      const detail = await call('GET', `${base}/${id}`);
      expect(detail.statusCode).toBe(200);
      details.push(
        detail.json<{
          window_start: string;
          window_end: string;
          matched_cves_count: number;
          report_id: string;
          results: { action: string; status: string; details: Json }[];
        }>(),
      );
    }
    return details;
  }

  /**
   * Puts a CVE's recorded changes at `at` (project null), or records them again at `at` (as the same
   * changes recorded once more, which every project sees: the DST periods, months after June).
   */
  async function placeEvents(project: 'dst' | null, cveId: string, at: string) {
    if (project === null)
      await sql`UPDATE cve_change SET created_at = ${new Date(at)} WHERE cve_id = ${cveId}`.execute(use().db);
    else
      await sql`
        INSERT INTO cve_change (id, cve_id, created_at, types, data)
        SELECT gen_random_uuid(), cve_id, ${new Date(at)}, types, data FROM cve_change
         WHERE cve_id = ${cveId} AND created_at < '2024-07-01'`.execute(use().db);
  }

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vulntrack-reports-'));
    receiver = await startReceiver();
    api = await buildTestApi(use(), { SYNC_SOURCES: 'none', OUTBOUND_ALLOW_PRIVATE: 'true' });
    const owner = await createOrganization(api.services, org);
    auth = { authorization: (await createToken(api.services, owner.org.id, owner.actor)).header };
    // A real catalog lists these vendors already; this one starts empty, so their rows are made
    // here and the CVEs arrive after the subscriptions (their entry becomes a project event).
    for (const name of ['redhat', 'php_group', 'apache', 'google'])
      await sql`INSERT INTO vendor (name) VALUES (${name}) ON CONFLICT DO NOTHING`.execute(use().db);
    for (const name of PROJECTS)
      await api.services.projects.create(owner.org.id, { name }, owner.actor, {
        vendors: ['redhat', 'php_group', 'apache', 'google'],
      });

    const hook = await call('POST', '/projects/daily/notifications', {
      name: 'hook',
      type: 'webhook',
      configuration: { url: `${receiver.base}/reports` },
    });
    expect(hook.statusCode).toBe(201);
    signingSecret = hook.json<{ signing_secret: string }>().signing_secret;
    const automations: [string, Json][] = [
      [
        'daily',
        {
          name: 'morning',
          frequency: 'daily',
          schedule_time: '08:00',
          schedule_timezone: 'America/New_York',
          configuration: {
            actions: [{ type: 'generate_report' }, { type: 'send_notification', value: 'hook' }],
          },
        },
      ],
      [
        'weekly',
        {
          name: 'monday',
          frequency: 'weekly',
          schedule_time: '08:00',
          schedule_timezone: 'America/New_York',
          schedule_weekday: 1,
          configuration: { actions: [{ type: 'generate_report' }] },
        },
      ],
      [
        'dst',
        {
          name: 'morning',
          frequency: 'daily',
          schedule_time: '08:00',
          schedule_timezone: 'America/New_York',
          configuration: { actions: [{ type: 'generate_report' }] },
        },
      ],
      [
        'filtered',
        {
          name: 'critical',
          frequency: 'daily',
          schedule_time: '08:00',
          schedule_timezone: 'America/New_York',
          configuration: {
            conditions: {
              operator: 'AND',
              children: [{ type: 'cvss_gte', value: { version: '3.1', value: 9 } }],
            },
            actions: [{ type: 'generate_report' }],
          },
        },
      ],
      [
        'late',
        {
          name: 'morning',
          frequency: 'daily',
          schedule_time: '08:00',
          schedule_timezone: 'America/New_York',
          configuration: { actions: [{ type: 'generate_report' }] },
        },
      ],
      [
        'daily',
        {
          name: 'alert',
          trigger_type: 'alert',
          configuration: { triggers: ['kev_added'], actions: [{ type: 'generate_report' }] },
        },
      ],
    ];
    for (const [project, body] of automations) {
      const res = await call('POST', `/projects/${project}/automations`, { trigger_type: 'report', ...body });
      expect(res.statusCode, res.body).toBe(201);
    }
    // The projects and report automations existed long before the periods under test; `late`'s
    // automation was made today.
    await sql`
      UPDATE project SET created_at = '2024-01-01T00:00:00Z'
       WHERE organization_id = (SELECT id FROM organization WHERE name = ${org})`.execute(use().db);
    await sql`
      UPDATE automation SET created_at = '2024-01-01T00:00:00Z'
       WHERE trigger_type = 'report' AND project_id <> (SELECT id FROM project WHERE name = 'late')`.execute(
      use().db,
    );

    const records = await Promise.all(FILES.map((f) => readJson<Json>(f)));
    const file = path.join(dir, 'records.jsonl');
    await fs.writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(api.services.database.db);
    expect((await api.services.imports.importInputs(sources.cve5, [file])).counts.imported).toBe(5);
    // A second change of xz: its description.
    const xz = records[0]!;
    (xz.containers.cna.descriptions as Json[])[0]!.value += ' Fixed in xz 5.6.2.';
    await fs.writeFile(file, JSON.stringify(xz) + '\n');
    expect((await api.services.imports.importInputs(sources.cve5, [file])).counts.updated).toBe(1);
    await api.services.events.processPending();

    // Around the June period of a daily report at 08:00 New York (EDT, UTC-4):
    // [2024-06-10T12:00Z, 2024-06-11T12:00Z).
    await placeEvents(null, LOG4J, '2024-06-10T11:59:59.999Z'); // 07:59:59.999 local: before
    await placeEvents(null, XZ, '2024-06-10T12:00:00.000Z'); // 08:00 local: the first instant
    await placeEvents(null, PHP, '2024-06-11T03:30:00.000Z'); // 23:30 local on the 10th, next UTC day
    await placeEvents(null, OPENSSH, '2024-06-11T11:59:59.999Z'); // the last millisecond
    await placeEvents(null, WEBP, '2024-06-11T12:00:00.000Z'); // 08:00 local on the 11th: after
    // The xz description change a few hours later than its entry.
    await sql`
      UPDATE cve_change SET created_at = '2024-06-10T18:00:00Z'
       WHERE cve_id = ${XZ} AND 'description' = ANY(types)`.execute(use().db);

    // Around the DST switch of 2024-11-03 (02:00 EDT → 01:00 EST), checked on the `dst` project.
    await placeEvents('dst', LOG4J, '2024-11-02T11:59:59.999Z'); // 07:59:59 EDT on the 2nd: before
    await placeEvents('dst', XZ, '2024-11-02T12:00:00.000Z'); // 08:00 EDT on the 2nd: first instant
    await placeEvents('dst', PHP, '2024-11-02T12:30:00.000Z'); // in, though 24 h before the end is 13:00Z
    await placeEvents('dst', OPENSSH, '2024-11-03T12:59:59.999Z'); // 07:59:59 EST on the 3rd: in
    await placeEvents('dst', WEBP, '2024-11-03T13:00:00.000Z'); // 08:00 EST on the 3rd: after
  });

  afterAll(async () => {
    await api?.close();
    await receiver?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  describe('a daily report at 08:00 America/New_York', () => {
    const NOW = new Date('2024-06-11T12:00:30Z'); // 08:00:30 EDT
    const START = '2024-06-10T12:00:00Z';
    const END = '2024-06-11T12:00:00Z';
    let made: number;

    beforeAll(async () => {
      made = await api.services.reports.runDue(NOW);
    });

    it('covers exactly [previous local 08:00, this local 08:00), in UTC instants', async () => {
      const report = await reportFor('daily', START, END);
      expect(report.automation).toBe('morning');
      expect(new Date(report.period.end).getTime() - new Date(report.period.start).getTime()).toBe(
        24 * HOUR_MS,
      );
    });

    it('lists the CVEs whose events fall in the period, the boundaries included at the start only', async () => {
      const report = await reportFor('daily', START, END);
      expect(report.cves.map((c) => c.cve_id)).toEqual([XZ, PHP, OPENSSH]); // by highest CVSS
      expect(report.cves_count).toBe(3);
    });

    it('shows every change of each CVE, with the highest CVSS and the counts by severity', async () => {
      const report = await reportFor('daily', START, END);
      expect(report.highest_cvss).toBe(10);
      expect(report.severity_counts).toEqual({ critical: 2, high: 1, medium: 0, low: 0, none: 0 });
      const xz = report.cves.find((c) => c.cve_id === XZ)!;
      expect(xz.highest_cvss).toBe(10);
      expect(xz.event_types).toEqual(['cve_enters_project', 'description_changed']);
      expect(xz.changes.map((c) => c.types)).toEqual([['created', 'first_time'], ['description']]);
      expect(xz.changes.map((c) => c.created_at)).toEqual([micros(START), micros('2024-06-10T18:00:00Z')]);
      const description = xz.changes[1]!.data[0]!;
      expect(description.type).toBe('description');
      expect(description.details.new).toMatch(/Fixed in xz 5\.6\.2\.$/);
      const php = report.cves.find((c) => c.cve_id === PHP)!;
      expect(php.highest_cvss).toBe(9.8);
      expect(php.changes.map((c) => c.types)).toEqual([['created', 'first_time']]);
      expect(report.cves.find((c) => c.cve_id === OPENSSH)!.highest_cvss).toBe(8.1);
    });

    it('makes one report per automation and period: a second run, or a later one in the period, makes none', async () => {
      expect(made).toBeGreaterThanOrEqual(1);
      expect(await api.services.reports.runDue(NOW)).toBe(0);
      expect(await api.services.reports.runDue(new Date(NOW.getTime() + 6 * HOUR_MS))).toBe(0);
      const all = await reportsOf('daily');
      expect(all.filter((r) => r.period.start === micros(START))).toHaveLength(1);
      expect(await executionsOf('daily', 'morning')).toHaveLength(1);
    });

    it('makes no report for a period that ended before the automation existed', async () => {
      expect(await reportsOf('late')).toEqual([]);
    });

    it('filters the CVEs by the conditions (CVSS 3.1 ≥ 9)', async () => {
      const report = await reportFor('filtered', START, END);
      expect(report.cves.map((c) => c.cve_id)).toEqual([XZ, PHP]);
      expect(report.severity_counts).toEqual({ critical: 2, high: 0, medium: 0, low: 0, none: 0 });
    });

    it('queues a delivery of the report, delivered signed with a `report` payload', async () => {
      const [execution] = await executionsOf('daily', 'morning');
      expect(execution).toMatchObject({
        window_start: micros(START),
        window_end: micros(END),
        matched_cves_count: 3,
        results: [
          { action: 'generate_report', status: 'success' },
          { action: 'send_notification', status: 'success' },
        ],
      });
      const deliveryId = execution!.results[1]!.details.delivery as string;
      const row = await use()
        .db.selectFrom('delivery')
        .select(['kind', 'status', 'payload'])
        .where('id', '=', deliveryId)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ kind: 'report', status: 'pending' });

      await api.services.deliveries.attempt(deliveryId);
      expect(receiver.requests).toHaveLength(1);
      const request = receiver.requests[0]!;
      const payload = new Webhook(signingSecret).verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      }) as NotificationPayload;
      expect(payload).toMatchObject({
        id: deliveryId,
        type: 'report',
        organization: org,
        project: 'daily',
        notification: 'hook',
        period: { start: new Date(START).toISOString(), end: new Date(END).toISOString() },
      });
      expect(payload.changes.map((c) => c.cve.cve_id)).toEqual([XZ, PHP, OPENSSH]);
      expect(payload.changes[0]!.events.map((e) => e.type)).toEqual([
        'cve_enters_project',
        'description_changed',
      ]);
    });
  });

  describe('a period with no change', () => {
    const NOW = new Date('2024-07-01T12:00:30Z');

    it('makes a report with no CVE and sends nothing', async () => {
      const sent = receiver.requests.length;
      await api.services.reports.runDue(NOW);
      const report = await reportFor('daily', '2024-06-30T12:00:00Z', '2024-07-01T12:00:00Z');
      expect(report).toMatchObject({ cves_count: 0, highest_cvss: null, cves: [] });
      expect(report.severity_counts).toEqual({ critical: 0, high: 0, medium: 0, low: 0, none: 0 });
      const [execution] = await executionsOf('daily', 'morning');
      expect(execution!.window_start).toBe(micros('2024-06-30T12:00:00Z'));
      expect(execution!.results.map(({ action, status, details }) => ({ action, status, details }))).toEqual([
        { action: 'generate_report', status: 'success', details: { report: report.id } },
        {
          action: 'send_notification',
          status: 'skipped',
          details: { notification: 'hook', reason: 'no changes in the period' },
        },
      ]);
      const deliveries = await use()
        .db.selectFrom('delivery')
        .select('id')
        .where('kind', '=', 'report')
        .execute();
      expect(deliveries).toHaveLength(1);
      expect(receiver.requests).toHaveLength(sent);
    });
  });

  describe('across the DST switches of America/New_York', () => {
    it('covers 25 hours on 2024-11-03 (fall back), with the events of the local day', async () => {
      await api.services.reports.runDue(new Date('2024-11-03T13:00:30Z')); // 08:00:30 EST
      const report = await reportFor('dst', '2024-11-02T12:00:00Z', '2024-11-03T13:00:00Z');
      expect(new Date(report.period.end).getTime() - new Date(report.period.start).getTime()).toBe(
        25 * HOUR_MS,
      );
      expect(report.cves.map((c) => c.cve_id)).toEqual([XZ, PHP, OPENSSH]);
    });

    it('covers 24 hours on the next day, in EST', async () => {
      await api.services.reports.runDue(new Date('2024-11-04T13:00:30Z'));
      const report = await reportFor('dst', '2024-11-03T13:00:00Z', '2024-11-04T13:00:00Z');
      expect(report.cves.map((c) => c.cve_id)).toEqual([WEBP]);
    });

    it('covers 23 hours on 2024-03-10 (spring forward)', async () => {
      await api.services.reports.runDue(new Date('2024-03-10T12:00:30Z')); // 08:00:30 EDT
      const report = await reportFor('dst', '2024-03-09T13:00:00Z', '2024-03-10T12:00:00Z');
      expect(new Date(report.period.end).getTime() - new Date(report.period.start).getTime()).toBe(
        23 * HOUR_MS,
      );
    });
  });

  describe('a weekly report on Mondays at 08:00 America/New_York', () => {
    it('covers the last complete week, Monday 08:00 to Monday 08:00, whatever the day of the run', async () => {
      await api.services.reports.runDue(new Date('2024-06-12T15:00:00Z')); // a Wednesday
      const report = await reportFor('weekly', '2024-06-03T12:00:00Z', '2024-06-10T12:00:00Z');
      expect(report.automation).toBe('monday');
      expect(report.cves.map((c) => c.cve_id)).toEqual([LOG4J]);
      // Later in the same week: still that week's report only.
      await api.services.reports.runDue(new Date('2024-06-16T23:00:00Z'));
      expect(
        (await reportsOf('weekly')).filter((r) => r.period.end === micros('2024-06-10T12:00:00Z')),
      ).toHaveLength(1);
      expect((await reportsOf('weekly')).map((r) => r.period.end)).not.toContain(
        micros('2024-06-17T12:00:00Z'),
      );
    });

    it('moves to the next week after the next Monday 08:00', async () => {
      await api.services.reports.runDue(new Date('2024-06-17T12:00:30Z'));
      const report = await reportFor('weekly', '2024-06-10T12:00:00Z', '2024-06-17T12:00:00Z');
      expect(report.cves.map((c) => c.cve_id)).toEqual([XZ, PHP, OPENSSH, WEBP]);
    });
  });

  describe('POST …/automations/<name>/run', () => {
    it('runs a report automation now, from the end of its last report; returns the execution', async () => {
      // The last report of `morning` ended at 08:00 EST on 2024-11-04 (runDue runs every automation).
      const ends = (await reportsOf('daily')).map((r) => r.period.end).sort();
      expect(ends.at(-1)).toBe(micros('2024-11-04T13:00:00Z'));
      const before = Date.now();
      const res = await call('POST', '/projects/daily/automations/morning/run');
      expect(res.statusCode, res.body).toBe(200);
      const execution = res.json<{
        window_start: string;
        window_end: string;
        report_id: string;
        matched_cves_count: number;
      }>();
      expect(execution.window_start).toBe(micros('2024-11-04T13:00:00Z'));
      expect(new Date(execution.window_end).getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(execution.matched_cves_count).toBe(0);
      const report = await call('GET', `/projects/daily/reports/${execution.report_id}`);
      expect(report.statusCode).toBe(200);
    });

    it('refuses an alert automation', async () => {
      const res = await call('POST', '/projects/daily/automations/alert/run');
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: { code: 'validation_error' } });
    });
  });
});
