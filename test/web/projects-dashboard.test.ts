/**
 * The project dashboard, its Atom feed and the organization overview, after real imports: the cve5
 * history fixture's base records, then real upstream commits (CVE-2024-28125 gets a new description
 * and CWE-78, CVE-2024-9380 enters KEV, CVE-2024-38817 enters the catalog). Last visits, every link,
 * the feed (parsed as XML: entries, escaping, secret rotation, 404s), the overview across two
 * projects, tenancy.
 */
import { storeTestAliases } from '../helpers/aliases.ts';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { SaxesParser } from 'saxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import { CVSS_RANGES } from '../../src/domain/cvss.ts';
import { DashboardRepository } from '../../src/db/dashboard.repository.ts';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { cveIdOf, loadHistory, type Json } from '../helpers/cve5-history.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, WebClient, type PageResponse } from '../helpers/web.ts';

const PASSWORD = 'correct horse battery staple';
const { base, commits } = await loadHistory();
const KEYS = ['ivanti', 'fitnesse', 'vmware'];

interface AtomEntry {
  id: string;
  title: string;
  updated: string;
  link: string;
  summary: string;
  categories: string[];
}

/** Parses an Atom document strictly (saxes throws on any well-formedness error). */
function parseAtom(xml: string): {
  root: string;
  ns: string;
  title: string;
  id: string;
  entries: AtomEntry[];
} {
  const parser = new SaxesParser({ xmlns: true });
  const stack: string[] = [];
  const feed = { root: '', ns: '', title: '', id: '', entries: [] as AtomEntry[] };
  let entry: AtomEntry | undefined;
  let text = '';
  parser.on('opentag', (tag) => {
    if (!stack.length) {
      feed.root = tag.local;
      feed.ns = tag.uri;
    }
    stack.push(tag.local);
    text = '';
    if (tag.local === 'entry')
      entry = { id: '', title: '', updated: '', link: '', summary: '', categories: [] };
    if (tag.local === 'link' && entry && tag.attributes.rel?.value === 'alternate')
      entry.link = tag.attributes.href!.value;
    if (tag.local === 'category' && entry) entry.categories.push(tag.attributes.term!.value);
  });
  parser.on('text', (t) => (text += t));
  parser.on('closetag', (tag) => {
    stack.pop();
    const name = tag.local;
    if (entry && name === 'entry') {
      feed.entries.push(entry);
      entry = undefined;
    } else if (entry && (name === 'id' || name === 'title' || name === 'updated' || name === 'summary'))
      entry[name] = text;
    else if (!entry && stack.length === 1 && (name === 'title' || name === 'id')) feed[name] = text;
    text = '';
  });
  parser.write(xml).close();
  return feed;
}

const feedRows = (page: PageResponse) =>
  page.html.querySelectorAll('.dash-feed tbody tr').map((tr) => ({
    cve: tr.querySelector('td a')!.text,
    events: tr.querySelectorAll('.dash-events .chip').map((c) => c.text),
  }));

describeEachDatabase('web: project dashboard, Atom feed, organization overview', (use) => {
  let api: TestApi;
  let dir: string;
  let acme: Awaited<ReturnType<typeof createOrganization>>;
  let owner: WebClient;
  let member: WebClient;
  let outsider: WebClient;
  let memberId: string;
  let firstVisit: PageResponse;
  let firstVisitCves: number;
  let outsiderId: string;
  let secondVisit: PageResponse;

  const write = async (name: string, records: Json[]) => {
    const file = path.join(dir, name);
    await fs.writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    return file;
  };
  const db = () => api.services.database.db;
  const dashboard = '/org/acme/projects/watch';

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vulntrack-dashboard-'));
    api = await buildTestApi(use());
    const { services } = api;
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(services.database.db);
    await services.imports.importInputs(sources.cve5, [await write('base.jsonl', base)]);
    acme = await createOrganization(services, 'acme');
    const globex = await createOrganization(services, 'globex');
    await services.projects.create(acme.org.id, { name: 'watch' }, acme.actor, { vendors: KEYS.slice(0, 2) });
    await services.projects.create(acme.org.id, { name: 'kernel' }, acme.actor, { vendors: ['linux'] });
    await services.projects.create(globex.org.id, { name: 'secret-plans' }, globex.actor, {
      vendors: KEYS.slice(0, 2),
    });
    const plain = await services.accounts.createUser({
      username: 'plain',
      email: 'plain@acme.example',
      password: PASSWORD,
    });
    const invited = await services.members.invite(acme.org.id, { email: 'plain@acme.example' }, acme.actor);
    memberId = invited.id;
    await services.accounts.acceptInvitation(plain.id, 'acme');
    owner = await signedIn(api, acme.user.username, PASSWORD);
    member = await signedIn(api, 'plain', PASSWORD);
    outsider = await signedIn(api, globex.user.username, PASSWORD);

    // The base import happened two hours ago; the owner's first visit was an hour ago.
    firstVisit = await owner.get(dashboard);
    const inProject = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM cve WHERE vendors && ${KEYS.slice(0, 2)}::text[]`.execute(db());
    firstVisitCves = inProject.rows[0]!.n;
    outsiderId = globex.user.id;
    await sql`UPDATE cve_change SET created_at = created_at - interval '2 hours'`.execute(db());
    await sql`UPDATE project_visit SET visited_at = visited_at - interval '1 hour'`.execute(db());
    // Then commits 1 to 7 of the real upstream history.
    for (const [i, c] of commits.slice(0, 7).entries())
      await services.imports.importInputs(sources.cve5, [
        await write(
          `c${i}.jsonl`,
          c.lines.map((l) => l.record),
        ),
      ]);
    // vmware enters the catalog with CVE-2024-38817 (commit 7); the project subscribes to it now.
    await services.projects.addSubscription(acme.org.id, 'watch', { vendor: 'vmware' }, acme.actor);
    secondVisit = await owner.get(dashboard);
  }, 240_000);

  afterAll(async () => {
    await api?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  describe('the feed since the last visit', () => {
    it('shows the last 7 days on a first visit: every CVE of the project the import brought in', async () => {
      expect(firstVisit.status).toBe(200);
      expect(firstVisit.html.querySelector('#feed-title')!.text).toBe('Changed in the last 7 days');
      const rows = feedRows(firstVisit);
      expect(rows.length).toBe(Math.min(50, firstVisitCves));
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row.events).toContain('entered the project');
      // Each row opens the CVE in this project (its triage, comments and why it is here).
      const href = firstVisit.html.querySelector('.dash-feed tbody tr td a')!.getAttribute('href');
      expect(href).toBe(`${dashboard}/cves/${rows[0]!.cve}`);
    });

    it('shows since the previous visit only what changed after it, with the kind of each change', () => {
      expect(secondVisit.html.querySelector('#feed-title')!.text).toBe('Since your last visit');
      const rows = new Map(feedRows(secondVisit).map((r) => [r.cve, r.events]));
      expect(rows.get('CVE-2024-28125')).toEqual(
        expect.arrayContaining(['description changed', 'new weakness']),
      );
      expect(rows.get('CVE-2024-9380')).toContain('added to KEV');
      // A CVE new to the catalog enters the project.
      expect(rows.get('CVE-2024-38817')).toContain('entered the project');
      // Nothing of the base import (before the last visit), nothing of other vendors.
      const ids = [...rows.keys()];
      const carried = new Set(commits.slice(0, 7).flatMap((c) => c.lines.map((l) => cveIdOf(l.record))));
      for (const id of ids) expect(carried.has(id), id).toBe(true);
      expect(ids).not.toContain('CVE-2024-47823');
    });

    it('keeps the feed on a reload during the same visit, and starts it at this visit after a pause', async () => {
      const reload = await owner.get(dashboard);
      expect(feedRows(reload)).toEqual(feedRows(secondVisit));
      // Back 31 minutes later (the service's clock): the feed starts at the reload.
      const visited = await sql<{ visited_at: Date }>`
        SELECT visited_at FROM project_visit WHERE user_id = ${acme.user.id}
           AND project_id = (SELECT id FROM project WHERE name = 'watch')`.execute(db());
      const later = await api.services.dashboards.projectDashboard(
        acme.org.id,
        'watch',
        acme.user.id,
        new Date(Date.now() + 31 * 60_000),
      );
      expect(later.feed.since).toEqual(new Date(visited.rows[0]!.visited_at));
      expect(later.feed.firstVisit).toBe(false);
      expect(later.feed.cves).toEqual([]);
    });

    it('keeps a last visit per user: another member sees the last 7 days on their first visit', async () => {
      const page = await member.get(dashboard);
      expect(page.status).toBe(200);
      expect(page.html.querySelector('#feed-title')!.text).toBe('Changed in the last 7 days');
      expect(feedRows(page).map((r) => r.cve)).toContain('CVE-2024-9380');
      // A reload is the same (first) visit.
      const reload = await member.get(dashboard);
      expect(reload.html.querySelector('#feed-title')!.text).toBe('Changed in the last 7 days');
      expect(feedRows(reload)).toEqual(feedRows(page));
    });
  });

  it('reads the same changes in small chunks as at once (the keyset crosses ties of one import batch)', async () => {
    const repository = new DashboardRepository(db());
    const since = new Date(Date.now() - 7 * 86_400_000);
    const keys = [...KEYS, 'linux'];
    const whole = await repository.recentChanges(keys, since, new Date(), 5000, 100_000);
    const chunked = await repository.recentChanges(keys, since, new Date(), 5000, 7);
    expect(whole.length).toBeGreaterThan(20);
    expect(chunked.map((r) => r.change_id)).toEqual(whole.map((r) => r.change_id));
    const capped = await repository.recentChanges(keys, since, new Date(), 10, 3);
    expect(capped.map((r) => r.change_id)).toEqual(whole.slice(0, 10).map((r) => r.change_id));
  });

  describe('counts, assignees, KEV, reports, subscriptions', () => {
    let page: PageResponse;
    beforeAll(async () => {
      const { tracker } = api.services;
      await tracker.update(
        acme.org.id,
        'watch',
        'CVE-2024-28125',
        { status: 'resolved', assignee: acme.user.email },
        acme.actor,
      );
      await tracker.update(
        acme.org.id,
        'watch',
        'CVE-2024-9380',
        { status: 'analysis_in_progress', assignee: acme.user.email },
        acme.actor,
      );
      await tracker.update(
        acme.org.id,
        'watch',
        'CVE-2024-38817',
        { assignee: 'plain@acme.example' },
        acme.actor,
      );
      const automation = await api.services.automations.create(
        acme.org.id,
        'watch',
        {
          name: 'daily',
          trigger_type: 'report',
          frequency: 'daily',
          configuration: { actions: [{ type: 'generate_report' }] },
        },
        acme.actor,
      );
      await api.services.reports.runNow(acme.org.id, automation);
      page = await owner.get(dashboard);
    });

    const countsOf = (id: string) =>
      new Map(
        page.html
          .querySelectorAll(`section[aria-labelledby=${id}] tbody tr`)
          .map((tr) => [
            tr.querySelector('a')!.getAttribute('href')!,
            Number(tr.querySelector('td.num')!.text.replace(/,/g, '')),
          ]),
      );

    it('counts the CVEs by triage status, each a link into the filtered tracker', async () => {
      const counts = countsOf('status-title');
      const total = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM cve WHERE vendors && ${KEYS}::text[] AND state <> 'REJECTED'`.execute(
        db(),
      );
      expect(counts.get(`${dashboard}/cves?status=resolved`)).toBe(1);
      expect(counts.get(`${dashboard}/cves?status=analysis_in_progress`)).toBe(1);
      expect(counts.get(`${dashboard}/cves?status=no_status`)).toBe(total.rows[0]!.n - 2);
      expect(counts.get(`${dashboard}/cves?status=to_evaluate`)).toBe(0);
      expect(counts.size).toBe(9);
    });

    it('counts them by CVSS 3.1 level as the tracker filters them, each a link', async () => {
      const counts = countsOf('severity-title');
      for (const [level, [min, max]] of Object.entries(CVSS_RANGES)) {
        const n = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM cve WHERE vendors && ${KEYS}::text[] AND state <> 'REJECTED'
             AND cvss31 >= ${min} AND cvss31 < ${max}`.execute(db());
        expect(counts.get(`${dashboard}/cves?cvss=${level}`), level).toBe(n.rows[0]!.n);
      }
      const empty = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM cve WHERE vendors && ${KEYS}::text[] AND state <> 'REJECTED'
           AND cvss31 IS NULL`.execute(db());
      expect(counts.get(`${dashboard}/cves?cvss=empty`)).toBe(empty.rows[0]!.n);
    });

    it('lists the top assignees by open CVEs (a resolved one does not count), each a link', () => {
      const rows = page.html
        .querySelectorAll('section[aria-labelledby=assignees-title] tbody tr')
        .map((tr) => ({
          href: tr.querySelector('a')!.getAttribute('href'),
          open: tr.querySelector('td.num')!.text,
        }));
      expect(rows).toEqual([
        { href: `${dashboard}/cves?assignee=${encodeURIComponent(acme.user.email)}`, open: '1' },
        { href: `${dashboard}/cves?assignee=plain%40acme.example`, open: '1' },
      ]);
    });

    it('lists the KEV CVEs not yet fixed, with status and assignee', async () => {
      const section = page.html.querySelector('section[aria-labelledby=kev-title]')!;
      const open = await sql<{ cve_id: string }>`
        SELECT c.cve_id FROM cve c
          LEFT JOIN tracker_entry te ON te.cve_id = c.cve_id
               AND te.project_id = (SELECT id FROM project WHERE name = 'watch')
         WHERE c.kev AND c.vendors && ${KEYS}::text[] AND c.state <> 'REJECTED'
           AND (te.status IS NULL OR te.status NOT IN ('resolved', 'not_applicable', 'risk_accepted'))`.execute(
        db(),
      );
      expect(open.rows.map((r) => r.cve_id)).toContain('CVE-2024-9380');
      expect(section.querySelector('.dash-count')!.text).toBe(String(open.rows.length));
      const row = section.querySelectorAll('tbody tr').find((tr) => tr.text.includes('CVE-2024-9380'))!;
      expect(row.text).toContain('Analysis in progress');
      expect(row.text).toContain(acme.user.email);
      // Resolved: no longer listed.
      await api.services.tracker.update(
        acme.org.id,
        'watch',
        'CVE-2024-9380',
        { status: 'resolved' },
        acme.actor,
      );
      const after = await owner.get(dashboard);
      const kev = after.html.querySelector('section[aria-labelledby=kev-title]')!;
      expect(kev.text).not.toContain('CVE-2024-9380');
      expect(kev.querySelector('.dash-count')!.text).toBe(String(open.rows.length - 1));
      await api.services.tracker.update(
        acme.org.id,
        'watch',
        'CVE-2024-9380',
        { status: 'analysis_in_progress' },
        acme.actor,
      );
    });

    it('links the last reports and the subscriptions', async () => {
      const reports = await api.services.reports.list(acme.org.id, 'watch', { page: 1, pageSize: 10 });
      expect(reports.count).toBe(1);
      const links = page.html
        .querySelectorAll('section[aria-labelledby=reports-title] a')
        .map((a) => a.getAttribute('href'));
      expect(links).toEqual([`${dashboard}/reports/${reports.items[0]!.id}`, `${dashboard}/reports`]);
      const subs = page.html.querySelector('section[aria-labelledby=subscriptions-title]')!;
      expect(subs.querySelectorAll('.chip').map((c) => c.text)).toEqual(['fitnesse', 'ivanti', 'vmware']);
      expect(subs.querySelector('p a')!.getAttribute('href')).toBe(`${dashboard}/subscriptions`);
    });
  });

  describe('the Atom feed', () => {
    let url: string;

    const feedUrl = (page: PageResponse) => {
      const value = page.html.querySelector('#atom-url')?.getAttribute('value');
      return value && new URL(value).pathname;
    };

    it('is made on the dashboard and shown there with a copy button', async () => {
      const before = await owner.get(dashboard);
      expect(feedUrl(before)).toBeUndefined();
      const made = await owner.post(`${dashboard}/feed`);
      expect(made.status).toBe(303);
      expect(made.location).toBe(`${dashboard}?done=feed#feed`);
      const page = await owner.get(made.location!);
      expect(page.text).toContain('Your feed URL is ready.');
      url = feedUrl(page)!;
      expect(url).toMatch(/^\/feeds\/[A-Za-z0-9_-]{43}\.atom$/);
      expect(page.html.querySelector('button[data-copy=atom-url]')).not.toBeNull();
      // Only a hash is stored.
      const stored = await sql<{ secret_hash: string }>`SELECT secret_hash FROM project_feed`.execute(db());
      expect(stored.rows.map((r) => r.secret_hash).join()).not.toContain(url.slice(7, 50));
    });

    it('is valid Atom 1.0 without a session: entries with id, title, updated, link and summary', async () => {
      const response = await api.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
      const feed = parseAtom(response.body);
      expect(feed.root).toBe('feed');
      expect(feed.ns).toBe('http://www.w3.org/2005/Atom');
      expect(feed.title).toBe('acme / watch: CVE changes');
      expect(feed.entries.length).toBeGreaterThan(0);
      for (const e of feed.entries) {
        expect(e.id).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);
        expect(e.title).toMatch(/^CVE-\d{4}-\d+: /);
        expect(new Date(e.updated).toISOString()).toBe(e.updated);
        expect(e.link).toMatch(/^http:\/\/localhost(:\d+)?\/cves\/CVE-/);
        expect(e.summary.length).toBeGreaterThan(0);
      }
      const kev = feed.entries.find((e) => e.title.startsWith('CVE-2024-9380'))!;
      expect(kev.title).toContain('added to KEV');
      expect(kev.categories).toContain('kev_added');
      expect(kev.summary).toContain('in CISA KEV');
      // Latest first, one entry per recorded change.
      const times = feed.entries.map((e) => e.updated);
      expect([...times].sort().reverse()).toEqual(times);
      expect(new Set(feed.entries.map((e) => e.id)).size).toBe(feed.entries.length);
    });

    it('escapes upstream text (markup, ampersands, quotes) and drops what XML cannot hold', async () => {
      const record = structuredClone(
        commits.flatMap((c) => c.lines).findLast((l) => cveIdOf(l.record) === 'CVE-2024-28125')!.record,
      ) as { containers: { cna: { title?: string } } };
      record.containers.cna.title = 'FitNesse <img src=x onerror=alert(1)> & "quoted" \'it\' \u0007]]>';
      await api.services.imports.importInputs(sources.cve5, [await write('markup.jsonl', [record as Json])]);
      const response = await api.app.inject({ method: 'GET', url });
      expect(response.body).toContain(
        '&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quoted&quot; &apos;it&apos;',
      );
      expect(response.body).not.toContain('<img');
      expect(response.body).not.toContain('\u0007');
      const entry = parseAtom(response.body).entries.find((e) => e.title.startsWith('CVE-2024-28125'))!;
      expect(entry.summary).toContain('FitNesse <img src=x onerror=alert(1)> & "quoted" \'it\' ]]>');
    });

    it('answers 404 to a secret that is wrong, malformed or replaced by a new URL', async () => {
      for (const bad of [
        '/feeds/' + 'A'.repeat(43) + '.atom',
        '/feeds/short.atom',
        url.replace('.atom', '.xml'),
      ])
        expect((await api.app.inject({ method: 'GET', url: bad })).statusCode, bad).toBe(404);
      await owner.get(dashboard);
      expect((await owner.post(`${dashboard}/feed`)).status).toBe(303);
      const fresh = feedUrl(await owner.get(dashboard))!;
      expect(fresh).not.toBe(url);
      expect((await api.app.inject({ method: 'GET', url })).statusCode).toBe(404);
      expect((await api.app.inject({ method: 'GET', url: fresh })).statusCode).toBe(200);
      url = fresh;
    });

    it('is per user: a member makes their own, which stops working when they leave the organization', async () => {
      await member.get(dashboard);
      expect((await member.post(`${dashboard}/feed`)).status).toBe(303);
      const own = feedUrl(await member.get(dashboard))!;
      expect(own).not.toBe(url);
      expect((await api.app.inject({ method: 'GET', url: own })).statusCode).toBe(200);
      await api.services.members.remove(acme.org.id, memberId, acme.actor);
      expect((await api.app.inject({ method: 'GET', url: own })).statusCode).toBe(404);
      expect((await member.get(dashboard)).status).toBe(404);
      // The owner's feed is not affected.
      expect((await api.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    });

    it('refuses a feed form without the CSRF token', async () => {
      await owner.get(dashboard);
      const response = await owner.post(`${dashboard}/feed`, { _csrf: 'forged' });
      expect(response.status).toBe(403);
      expect((await api.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    });
  });

  it('answers 404 to the feed of an inactive project, and serves it again once active', async () => {
    await owner.get(dashboard);
    await owner.post(`${dashboard}/feed`);
    const url = new URL((await owner.get(dashboard)).html.querySelector('#atom-url')!.getAttribute('value')!)
      .pathname;
    await api.services.projects.update(acme.org.id, 'watch', { active: false }, acme.actor);
    expect((await api.app.inject({ method: 'GET', url })).statusCode).toBe(404);
    expect((await owner.get(dashboard)).status).toBe(404);
    await api.services.projects.update(acme.org.id, 'watch', { active: true }, acme.actor);
    expect((await api.app.inject({ method: 'GET', url })).statusCode).toBe(200);
  });

  describe('tenancy', () => {
    it("answers 404 to another organization's user for the dashboard, the feed form and the overview", async () => {
      for (const page of [dashboard, '/org/acme/overview', '/org/acme/projects/kernel']) {
        const response = await outsider.get(page);
        expect(response.status, page).toBe(404);
        expect(response.text).not.toContain('watch');
      }
      await outsider.get('/org/globex/projects/secret-plans');
      expect((await outsider.post(`${dashboard}/feed`)).status).toBe(404);
      const feeds = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM project_feed WHERE user_id = ${outsiderId}`.execute(db());
      expect(feeds.rows[0]!.n).toBe(0);
    });

    it('shows another organization the same-named subscriptions of its own project only', async () => {
      const page = await outsider.get('/org/globex/projects/secret-plans');
      expect(page.status).toBe(200);
      // Tracker moves of acme's project do not count in globex's.
      expect(page.html.querySelector('section[aria-labelledby=assignees-title]')!.text).toContain(
        'Nobody is assigned',
      );
    });
  });

  describe('the organization overview', () => {
    it('is linked from the projects list and the organization page', async () => {
      for (const from of ['/org/acme/projects', '/org/acme']) {
        const page = await owner.get(from);
        expect(page.html.querySelector('a[href="/org/acme/overview"]'), from).not.toBeNull();
      }
    });

    it('shows each project: new this week, open by severity, open KEV, and who holds open CVEs', async () => {
      const page = await owner.get('/org/acme/overview');
      expect(page.status).toBe(200);
      const rows = new Map(
        page.html
          .querySelectorAll('.dash-overview tbody tr')
          .map((tr) => [
            tr.querySelector('th a')!.text,
            tr.querySelectorAll('td').map((td) => Number(td.text.replace(/,/g, ''))),
          ]),
      );
      expect([...rows.keys()]).toEqual(['kernel', 'watch']);
      for (const [name, keys] of [
        ['watch', KEYS],
        ['kernel', ['linux']],
      ] as const) {
        const expected = await sql<{ recent: number; critical: number; open: number; kev: number }>`
          SELECT count(*) FILTER (WHERE c.created_at >= now() - interval '7 days')::int AS recent,
                 count(*) FILTER (WHERE open AND c.cvss31 >= 9)::int AS critical,
                 count(*) FILTER (WHERE open)::int AS open,
                 count(*) FILTER (WHERE open AND c.kev)::int AS kev
            FROM cve c
            LEFT JOIN tracker_entry te ON te.cve_id = c.cve_id
                 AND te.project_id = (SELECT id FROM project WHERE name = ${name})
            CROSS JOIN LATERAL (SELECT te.status IS NULL
                 OR te.status NOT IN ('resolved', 'not_applicable', 'risk_accepted') AS open) o
           WHERE c.vendors && ${[...keys]}::text[] AND c.state <> 'REJECTED'`.execute(db());
        const e = expected.rows[0]!;
        const [, recent, critical, , , , , open, kev] = rows.get(name)!;
        expect({ recent, critical, open, kev }, name).toEqual(e);
      }
      expect(rows.get('watch')![7]).toBeGreaterThan(0);
      expect(rows.get('kernel')![7]).toBeGreaterThan(0);
      const holders = page.html
        .querySelectorAll('section[aria-labelledby=org-assignees] tbody tr')
        .map((tr) => [
          tr.querySelector('th')!.text.replace(/\s+/g, ' ').trim(),
          tr.querySelector('td')!.text,
        ]);
      // The owner holds CVE-2024-9380 (open); CVE-2024-28125 is resolved; plain's CVE was
      // unassigned when they left the organization.
      expect(holders).toEqual([[`${acme.user.username} ${acme.user.email}`, '1']]);
    });

    it('counts per project what entered or changed since the member last opened its dashboard', async () => {
      /** The "Changed since your visit" cell of a project: its count and what it is counted since. */
      const sinceVisit = async (project: string) => {
        const page = await owner.get('/org/acme/overview');
        const cell = page.html
          .querySelectorAll('.dash-overview tbody tr')
          .find((tr) => tr.querySelector('th a')!.text === project)!
          .querySelector('td[data-since-visit]')!;
        return {
          count: cell.querySelector('a')!.text.trim(),
          note: cell.querySelector('.muted')!.text.trim(),
        };
      };
      /** How many CVEs the dashboard's "Since your last visit" says changed (opening it). */
      const feedCount = async () => {
        const line = (await owner.get(dashboard)).html.querySelector(
          'section[aria-labelledby=feed-title] p',
        )!;
        return /^No CVE/.test(line.text) ? '0' : /^([\d,]+) CVEs? changed since/.exec(line.text)![1]!;
      };
      // The overview says what the dashboard then says.
      const now = await sinceVisit('watch');
      expect(now.note).toMatch(/^since /);
      expect(await feedCount()).toBe(now.count);
      // A visit that starts now: nothing since; then a change of one of its CVEs is recorded.
      await sql`
        UPDATE project_visit SET since = now(), visited_at = now()
         WHERE user_id = ${acme.user.id}
           AND project_id = (SELECT id FROM project WHERE name = 'watch')`.execute(db());
      expect((await sinceVisit('watch')).count).toBe('0');
      await sql`
        INSERT INTO cve_change (cve_id, types, data, created_at)
        SELECT ch.cve_id, ch.types, ch.data, now() + interval '1 second'
          FROM cve_change ch JOIN cve c ON c.cve_id = ch.cve_id
         WHERE c.vendors && ${KEYS.slice(0, 2)}::text[] AND ch.origin IS NULL
         ORDER BY ch.seq DESC LIMIT 1`.execute(db());
      // As an import batch that records a change does (what the counts are kept by).
      await sql`UPDATE catalog_state SET version = version + 1 WHERE id = 1`.execute(db());
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await sinceVisit('watch')).count).toBe('1');
      expect(await feedCount()).toBe('1');
      // A project the member never opened counts the last 7 days.
      const fresh = await api.services.accounts.createUser({
        username: 'fresh-eyes',
        email: 'fresh-eyes@acme.example',
        password: PASSWORD,
      });
      await api.services.members.invite(acme.org.id, { email: 'fresh-eyes@acme.example' }, acme.actor);
      await api.services.accounts.acceptInvitation(fresh.id, 'acme');
      const page = await (await signedIn(api, 'fresh-eyes', PASSWORD)).get('/org/acme/overview');
      const kernel = page.html
        .querySelectorAll('.dash-overview tbody tr')
        .find((tr) => tr.querySelector('th a')!.text === 'kernel')
        ?.querySelector('td[data-since-visit] .muted');
      expect(kernel?.text.trim()).toBe('in 7 days (not opened yet)');
    });

    it('is the home: / sends a member there (a user of no organization to the catalog)', async () => {
      const home = await owner.get('/');
      expect(home.status).toBe(302);
      expect(home.location).toBe('/org/acme/overview');
      const loner = await api.services.accounts.createUser({
        username: 'loner',
        email: 'loner@example.org',
        password: PASSWORD,
      });
      const lonerBrowser = await signedIn(api, loner.username, PASSWORD);
      expect((await lonerBrowser.get('/')).location).toBe('/cves');
    });

    it('lists the open CVEs assigned to the member looking, and to nobody else', async () => {
      const mine = (page: PageResponse) =>
        page.html
          .querySelectorAll('section[aria-labelledby=org-assigned] tbody tr')
          .map((tr) => tr.querySelectorAll('td a').map((a) => a.text));
      const page = await owner.get('/org/acme/overview');
      // As "who holds the most" counts them: CVE-2024-9380 open in watch; CVE-2024-28125 is resolved.
      expect(mine(page)).toEqual([['CVE-2024-9380', 'watch']]);
      expect(
        page.html.querySelector('section[aria-labelledby=org-assigned] td a')!.getAttribute('href'),
      ).toBe('/org/acme/projects/watch/cves/CVE-2024-9380');
      // A member who joins now holds nothing.
      const newcomer = await api.services.accounts.createUser({
        username: 'newcomer',
        email: 'newcomer@acme.example',
        password: PASSWORD,
      });
      await api.services.members.invite(acme.org.id, { email: 'newcomer@acme.example' }, acme.actor);
      await api.services.accounts.acceptInvitation(newcomer.id, 'acme');
      const theirs = await (await signedIn(api, 'newcomer', PASSWORD)).get('/org/acme/overview');
      expect(theirs.status).toBe(200);
      expect(mine(theirs)).toEqual([]);
      expect(theirs.text).toContain("No open CVE of this organization's projects is assigned to you.");
    });

    it('follows triage at once (the catalog part is kept, the statuses are read each time)', async () => {
      const watchRow = async () => {
        const page = await owner.get('/org/acme/overview');
        const tr = page.html
          .querySelectorAll('.dash-overview tbody tr')
          .find((r) => r.text.includes('watch'))!;
        const cells = tr.querySelectorAll('td').map((td) => Number(td.text.replace(/,/g, '')));
        return { open: cells[7], kev: cells[8] };
      };
      const before = await watchRow();
      await api.services.tracker.update(
        acme.org.id,
        'watch',
        'CVE-2024-9380',
        { status: 'resolved' },
        acme.actor,
      );
      expect(await watchRow()).toEqual({ open: before.open! - 1, kev: before.kev! - 1 });
      await api.services.tracker.update(
        acme.org.id,
        'watch',
        'CVE-2024-9380',
        { status: 'analysis_in_progress' },
        acme.actor,
      );
      expect(await watchRow()).toEqual(before);
    });

    it('counts as new this week the CVEs published in the 7 days before now', async () => {
      const published = await sql<{ created_at: Date }>`
        SELECT created_at FROM cve WHERE cve_id = 'CVE-2024-38817'`.execute(db());
      const now = new Date(new Date(published.rows[0]!.created_at).getTime() + 86_400_000);
      const overview = await api.services.dashboards.organizationOverview(acme.org.id, acme.user.id, now);
      const expected = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM cve WHERE vendors && ${KEYS}::text[] AND state <> 'REJECTED'
           AND created_at >= ${overview.weekStart}`.execute(db());
      const watch = overview.projects.find((p) => p.name === 'watch')!;
      expect(watch.newThisWeek).toBe(expected.rows[0]!.n);
      expect(watch.newThisWeek).toBeGreaterThan(0);
    });

    it('shows a project without subscriptions as such, on its dashboard and in the overview', async () => {
      await api.services.projects.create(acme.org.id, { name: 'empty' }, acme.actor);
      const page = await owner.get('/org/acme/projects/empty');
      expect(page.status).toBe(200);
      expect(page.text).toContain('This project subscribes to nothing yet');
      expect(page.html.querySelector('.dash-stat .stat')!.text).toBe('0');
      const overview = await owner.get('/org/acme/overview');
      const row = overview.html
        .querySelectorAll('.dash-overview tbody tr')
        .find((r) => r.text.includes('empty'))!;
      expect(row.text).toContain('no subscriptions');
      expect(row.querySelector('td[data-since-visit] a')?.text.trim()).toBe('0');
      expect(row.querySelectorAll('td:not([data-since-visit])').map((td) => td.text)).toEqual([
        '0',
        '0',
        '0',
        '0',
        '0',
        '0',
        '0',
        '0',
      ]);
    });

    it('lets a member open it (and nobody outside the organization)', async () => {
      const again = await signedIn(api, acme.user.username, PASSWORD);
      expect((await again.get('/org/acme/overview')).status).toBe(200);
      expect((await outsider.get('/org/acme/overview')).status).toBe(404);
    });
  });
});
