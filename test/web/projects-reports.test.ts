/**
 * The project's report pages (the list by period with the schedules and Generate now, the printable
 * report page, its CSV) and the organization's weekly report across projects.
 */
import { storeTestAliases } from '../helpers/aliases.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { sources } from '../../src/sources/index.ts';
import { formatIsoWeek, isoWeekOf } from '../../src/domain/iso-week.ts';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { fixture } from '../helpers/catalog.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, WebClient } from '../helpers/web.ts';
import { startReceiver, type Receiver } from '../notifications/receivers.ts';

const PASSWORD = 'correct horse battery staple';
const base = '/org/acme/projects/web/reports';

describeEachDatabase('web: project reports and the weekly report', (use) => {
  let api: TestApi;
  let owner: Awaited<ReturnType<typeof createOrganization>>;
  let browser: WebClient;
  let member: WebClient;
  let reportId: string;

  beforeAll(async () => {
    // Webhooks to loopback receivers (five attempts: the fewest allowed).
    api = await buildTestApi(use(), {
      VULNTRACK_BASE_URL: 'https://vt.example.org',
      OUTBOUND_ALLOW_PRIVATE: 'true',
      DELIVERY_ATTEMPTS: '5',
    });
    owner = await createOrganization(api.services, 'acme');
    // The catalog, then the projects, made "long ago": the import counts as changes of theirs.
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(api.services.database.db);
    await api.services.imports.importInputs(sources.cve5, [fixture('cve5', 'cves')]);
    await api.services.projects.create(owner.org.id, { name: 'web' }, owner.actor, { vendors: ['apache'] });
    await api.services.projects.create(owner.org.id, { name: 'quiet' }, owner.actor);
    await sql`UPDATE project SET created_at = now() - interval '30 days'`.execute(api.services.database.db);
    await api.services.tracker.update(
      owner.org.id,
      'web',
      'CVE-2021-44228',
      { status: 'resolved' },
      owner.actor,
    );
    await api.services.automations.create(
      owner.org.id,
      'web',
      {
        name: 'weekly-summary',
        trigger_type: 'report',
        frequency: 'weekly',
        schedule_weekday: 'friday',
        schedule_time: '09:30',
        schedule_timezone: 'Europe/Paris',
        configuration: { actions: [{ type: 'generate_report' }] },
      },
      owner.actor,
    );
    browser = await signedIn(api, owner.user.username, PASSWORD);
    const plain = await api.services.accounts.createUser({
      username: 'plain',
      email: 'plain@acme.example',
      password: PASSWORD,
    });
    await api.services.members.invite(owner.org.id, { email: 'plain@acme.example' }, owner.actor);
    await api.services.accounts.acceptInvitation(plain.id, 'acme');
    member = await signedIn(api, 'plain', PASSWORD);
  });
  afterAll(() => api.close());

  describe('the list', () => {
    it('shows the schedules, and no report yet', async () => {
      const page = await browser.get(base);
      expect(page.status).toBe(200);
      expect(page.text).toContain('No report yet.');
      const schedule = page.html.querySelector('.report-schedules li')!;
      expect(schedule.text.replace(/\s+/g, ' ')).toContain(
        'weekly-summary Weekly, Friday at 09:30 (Europe/Paris)',
      );
      expect(schedule.querySelector('form button')?.text.trim()).toBe('Generate now');
      // A member reads, without the button, and may not generate.
      const seen = await member.get(base);
      expect(seen.status).toBe(200);
      expect(seen.html.querySelector('.report-schedules form')).toBeNull();
      expect((await member.post(`${base}/generate`, { automation: 'weekly-summary' })).status).toBe(403);
    });

    it('generates a report now (owners), which the list shows by period', async () => {
      await browser.get(base);
      const bad = await browser.post(`${base}/generate`, { automation: 'nope' });
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('Choose one of the report automations of this project.');
      const made = await browser.post(`${base}/generate`, { automation: 'weekly-summary' });
      expect(made.status).toBe(303);
      const match = /\/reports\/([0-9a-f-]{36})\?done=generated$/.exec(made.location ?? '');
      expect(match).toBeTruthy();
      reportId = match![1]!;

      const list = await browser.get(base);
      const cells = list.html
        .querySelectorAll('table.data tbody tr td')
        .map((td) => td.text.replace(/\s+/g, ' ').trim());
      expect(cells[1]).toBe('Weekly');
      expect(cells[2]).toBe('weekly-summary');
      expect(Number(cells[3])).toBeGreaterThan(0);
      expect(cells[4]).toMatch(/^10\.0/);
      expect(cells[5]).toMatch(/critical/);
      expect(
        (await browser.get(`${base}?period=weekly`)).html.querySelectorAll('table.data tbody tr a'),
      ).toHaveLength(1);
      expect((await browser.get(`${base}?period=daily`)).text).toContain('No report yet.');
      expect(
        (await browser.get(`${base}?period=weekly`)).html.querySelector(
          'nav.report-periods a[aria-current=page]',
        )?.text,
      ).toBe('Weekly');
    });
  });

  describe('a report', () => {
    it('reads well: its period, counts by severity, each CVE with absolute links, and its changes', async () => {
      const page = await member.get(`${base}/${reportId}`);
      expect(page.status).toBe(200);
      expect(page.html.querySelector('.report-doc h2')?.text).toBe('Weekly report of web');
      const row = page.html.querySelector('table.report-cves tbody tr')!;
      expect(row.querySelector('a')?.getAttribute('href')).toBe('https://vt.example.org/cves/CVE-2021-44228');
      expect(row.text).toContain('Apache');
      expect(page.body).not.toContain('$PRODUCT$');
      expect(page.html.querySelectorAll('.report-cve').length).toBeGreaterThan(0);
      expect(page.html.querySelector('.report-stats .stat')?.text).toMatch(/^\d+$/);
      // The download and the print hint are there; the print rules leave out what is not the report.
      expect(page.html.querySelector(`a[href="${base}/${reportId}/csv"]`)).toBeTruthy();
      expect(page.text).toContain('print this page');
      const css = await new WebClient(api.app).get(
        page.html.querySelector('link[rel=stylesheet]')!.getAttribute('href')!,
      );
      const print = css.body.slice(css.body.indexOf('/* ==== notifications and reports ==== */'));
      expect(print).toMatch(/@media print \{[\s\S]*nav\.tabs,[\s\S]*display: none !important/);
      expect(print).toContain("a[href^='http']::after");
      expect(print).toContain('break-inside: avoid');
    });

    it("downloads as CSV, one row per CVE, in people's words (API v2's CSV keeps its columns)", async () => {
      const csv = await member.get(`${base}/${reportId}/csv`);
      expect(csv.status).toBe(200);
      expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(csv.headers['content-disposition']).toMatch(
        /^attachment; filename="report-web-[A-Z0-9]{12}\.csv"$/,
      );
      const lines = csv.body.trim().split('\r\n');
      expect(lines[0]).toBe(
        'CVE,Title,Highest CVSS,Severity,CVSS 3.1,KEV,EPSS,Matched,Events,Changes,Change types',
      );
      const log4j = lines.find((l) => l.startsWith('CVE-2021-44228,'));
      expect(log4j).toContain(',Critical,');
      expect(log4j).toContain(',Yes,');
      expect(log4j).toContain(',Apache,');
      expect(csv.body).not.toContain('$PRODUCT$');
    });

    it('is a 404 for an unknown id or another project', async () => {
      expect((await browser.get(`${base}/not-an-id`)).status).toBe(404);
      expect((await browser.get(`/org/acme/projects/quiet/reports/${reportId}`)).status).toBe(404);
      expect((await browser.get(`/org/acme/projects/quiet/reports/${reportId}/csv`)).status).toBe(404);
    });
  });

  describe('what became of its notifications', () => {
    let receiver: Receiver;
    beforeAll(async () => {
      receiver = await startReceiver(() => ({ status: 200, body: 'ok' }));
      const hooks = [
        { name: 'hook', url: `${receiver.base}/in`, is_enabled: true },
        // Nothing listens on port 1: the attempt is refused.
        { name: 'broken', url: 'http://127.0.0.1:1/in', is_enabled: true },
        { name: 'paused', url: `${receiver.base}/paused`, is_enabled: false },
      ];
      for (const { name, url, is_enabled } of hooks)
        await api.services.notifications.create(
          owner.org.id,
          'web',
          { name, type: 'webhook', is_enabled, configuration: { url } },
          owner.actor,
        );
      await api.services.automations.create(
        owner.org.id,
        'web',
        {
          name: 'weekly-sends',
          trigger_type: 'report',
          frequency: 'weekly',
          schedule_weekday: 'monday',
          schedule_time: '08:00',
          schedule_timezone: 'UTC',
          configuration: {
            actions: [
              { type: 'generate_report' },
              ...hooks.map((h) => ({ type: 'send_notification' as const, value: h.name })),
            ],
          },
        },
        owner.actor,
      );
    });
    afterAll(() => receiver?.close());

    /** Per notification on the report page: its status and the whole line. */
    const sendsOf = (page: Awaited<ReturnType<WebClient['get']>>) =>
      Object.fromEntries(
        page.html
          .querySelectorAll('.report-sends li')
          .map((li) => [
            li.querySelector('strong')!.text,
            [
              li.querySelector('[data-send-status]')!.getAttribute('data-send-status'),
              li.text.replace(/\s+/g, ' '),
            ],
          ]),
      );

    it('says on the report which notifications were sent, are queued, failed or were not sent, and why', async () => {
      await browser.get(base);
      const made = await browser.post(`${base}/generate`, { automation: 'weekly-sends' });
      expect(made.location).toMatch(/\?done=generated$/);
      const page = await browser.get(made.location!);
      // Not "sent" before anything was: the page says what became of each.
      expect(page.html.querySelector('.notice')?.text).toContain('The report was generated.');
      expect(page.text).not.toMatch(/generated and sent/);
      const queued = sendsOf(page);
      expect(Object.keys(queued)).toEqual(['hook', 'broken', 'paused']);
      expect(queued.hook![0]).toBe('queued');
      expect(queued.broken![0]).toBe('queued');
      expect(queued.paused).toEqual([
        'not_sent',
        expect.stringContaining('Not sent — the notification is disabled'),
      ]);

      const { rows } = await sql<{ id: string }>`
        SELECT d.id FROM delivery d JOIN notification n ON n.id = d.notification_id
         WHERE n.name IN ('hook', 'broken') AND d.kind = 'report'`.execute(api.services.database.db);
      expect(rows).toHaveLength(2);
      for (const { id } of rows) await api.services.deliveries.attempt(id);
      expect(receiver.requests.filter((r) => r.path === '/in')).toHaveLength(1);
      // A refused attempt with attempts left: still queued, with the error.
      const retrying = sendsOf(await browser.get(made.location!));
      expect(retrying.broken![0]).toBe('queued');
      expect(retrying.broken![1]).toMatch(/Queued — \S/);
      for (let i = 0; i < 4; i++) for (const { id } of rows) await api.services.deliveries.attempt(id);

      const after = sendsOf(await browser.get(made.location!));
      expect(after.hook).toEqual(['sent', expect.stringContaining('hook: Sent')]);
      expect(after.broken![0]).toBe('failed');
      expect(after.broken![1]).toMatch(/broken: Failed — \S/);
      expect(after.paused![0]).toBe('not_sent');
    });

    it('says what counts as changed, as the dashboard does', async () => {
      const report = await browser.get(`${base}/${reportId}`);
      expect(report.html.querySelector('.changed-definition')?.text).toContain(
        'A report counts only changes recorded since the project was created',
      );
      const dashboard = await browser.get('/org/acme/projects/web');
      expect(dashboard.html.querySelector('.changed-definition')?.text).toContain(
        'A CVE counts as changed when a change was recorded on it in the period',
      );
    });
  });

  describe('the organization’s weekly report', () => {
    it('shows the week across projects: new and changed CVEs, by severity and status, KEV additions', async () => {
      const week = formatIsoWeek(isoWeekOf(new Date()));
      const page = await member.get(`/org/acme/reports?week=${week}`);
      expect(page.status).toBe(200);
      expect(page.html.querySelector('nav.tabs a[aria-current=page]')?.text).toBe('Weekly report');
      expect(page.html.querySelector('.report-doc h2')?.text).toContain(`Weekly report, ${week}`);
      const rows = page.html.querySelectorAll('.report-doc > .table-wrap table tbody tr');
      expect(rows.map((r) => r.querySelector('a')?.text)).toEqual(['quiet', 'web']);
      const web = rows[1]!.querySelectorAll('td').map((td) => td.text.replace(/\s+/g, ' ').trim());
      expect(Number(web[1])).toBeGreaterThan(0);
      expect(web[4]).toMatch(/critical/);
      expect(web[5]).toContain('1 resolved');
      expect(rows[0]!.text).toContain('–');
      const log4shell = page.html
        .querySelector('a[href="/org/acme/projects/web/cves/CVE-2021-44228"]')!
        .closest('tr')!;
      expect(log4shell.text).toContain('Resolved');
      expect(page.text).toContain('No CVE entered or changed this week.');
    });

    it('opens the current week so far (not last week, all zeros on day one), and refuses a week that does not exist beside the field', async () => {
      const page = await browser.get('/org/acme/reports');
      expect(page.status).toBe(200);
      const week = formatIsoWeek(isoWeekOf(new Date()));
      expect(page.html.querySelector('#f-week')?.getAttribute('value')).toBe(week);
      expect(page.html.querySelector('.report-doc h2')?.text).toMatch(
        new RegExp(`^Weekly report, ${week}: .*, so far$`),
      );
      const web = page.html.querySelectorAll('.report-doc > .table-wrap table tbody tr')[1]!;
      expect(Number(web.querySelectorAll('td')[1]!.text.trim())).toBeGreaterThan(0);
      const bad = await browser.get('/org/acme/reports?week=2025-W53');
      expect(bad.status).toBe(400);
      expect(bad.html.querySelector('#f-week-error')?.text).toMatch(/Give a week as YYYY-Www/);
      expect(bad.html.querySelector('#f-week')?.getAttribute('value')).toBe('2025-W53');
      const future = await browser.get('/org/acme/reports?week=2999-W01');
      expect(future.html.querySelector('#f-week-error')?.text).toBe('That week has not started yet.');
    });
  });
});
