/**
 * The project tracker (`/org/<org>/projects/<project>/cves`) over the real CVE 5 fixtures and KEV
 * excerpt, plus 60 synthetic CVEs of one vendor to page through and to bulk-edit: every catalog
 * filter and the triage filters (status, assignee, the user's tags), every ordering, keyset paging,
 * inline moves (htmx row and plain form), bulk edits (selected and all matching) as one audit entry,
 * validation beside the fields, the CSV export, roles and tenancy.
 */
import { storeTestAliases } from '../helpers/aliases.ts';
import { parse as parseCsv } from 'csv-parse/sync';
import { parse } from 'node-html-parser';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CVE_ORDERINGS } from '../../src/domain/cve-list.ts';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { signedIn, type PageResponse, type WebClient } from '../helpers/web.ts';

const PASSWORD = 'correct horse battery staple';
const SYNTHETIC = 60;
/** The fixtures' CVEs whose vendors the project subscribes to. */
const REAL = ['CVE-2021-44228', 'CVE-2024-3094', 'CVE-2024-4577', 'CVE-2024-6387'];
const synthetic = (n: number) => `CVE-2098-${10000 + n}`;

const ids = (page: PageResponse) =>
  page.html.querySelectorAll('table.tracker tbody tr td:nth-child(2) a').map((a) => a.text);
const rowOf = (page: PageResponse, cveId: string) => page.html.querySelector(`tr#row-${cveId}`);
const selected = (page: PageResponse, cveId: string, control: 'status' | 'assignee') =>
  rowOf(page, cveId)?.querySelector(`select[name=${control}] option[selected]`)?.getAttribute('value');
const errorOf = (page: PageResponse, name: string) =>
  page.html.querySelector(`#f-${name}`)?.closest('.field');

describeEachDatabase('web: the project tracker', (use, backend) => {
  let api: TestApi;
  let owner: Awaited<ReturnType<typeof createOrganization>>;
  let browser: WebClient;
  let member: WebClient;
  let outsider: WebClient;
  let base: string;
  const memberEmail = 'triager@trackers.example';

  const audit = () =>
    api.services.database.db
      .selectFrom('audit_log')
      .select(['action', 'resource_type', 'resource_id', 'resource_name', 'actor_name', 'changes'])
      .where('organization_id', '=', owner.org.id)
      .where('resource_type', '=', 'tracker_entry')
      .orderBy('created_at')
      .execute();

  beforeAll(async () => {
    api = await buildTestApi(use());
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(api.services.database.db);
    await api.services.imports.importInputs(sources.cve5, ['test/fixtures/cve5/cves']);
    await api.services.imports.importInputs(sources.kev, [
      'test/fixtures/kev/known_exploited_vulnerabilities-excerpt.json',
    ]);
    const db = api.services.database.db;
    // 60 CVEs of one vendor, older than every real one; the odd ones are critical.
    await sql`
      INSERT INTO cve (cve_id, state, title, description, created_at, updated_at, metrics, kev, vendors, cvss31)
      SELECT format('CVE-2098-%s', 10000 + g), 'PUBLISHED', 'synthetic ' || g, 'a synthetic record',
             timestamptz '1999-01-01' + g * interval '1 day', timestamptz '2000-01-01' + g * interval '1 second',
             '{}', false, ARRAY['bulkco', 'bulkco$PRODUCT$widget'], CASE WHEN g % 2 = 1 THEN 9.8 ELSE 5.0 END
      FROM generate_series(1, ${SYNTHETIC}) g`.execute(db);
    await sql`INSERT INTO vendor (name) VALUES ('bulkco') ON CONFLICT DO NOTHING`.execute(db);
    owner = await createOrganization(api.services, 'trackers');
    const memberUser = await api.services.accounts.createUser({
      username: 'triager',
      email: memberEmail,
      password: PASSWORD,
    });
    await api.services.members.invite(owner.org.id, { email: memberEmail }, owner.actor);
    await api.services.accounts.acceptInvitation(memberUser.id, 'trackers');
    const other = await createOrganization(api.services, 'elsewhere');
    // The vendors of the real CVEs chosen (as the importer named them), and the synthetic one.
    const { rows } = await sql<{ v: string }>`
      SELECT DISTINCT v FROM cve, unnest(vendors) v
      WHERE cve_id = ANY(${REAL}::text[]) AND strpos(v, '$PRODUCT$') = 0`.execute(db);
    await api.services.projects.create(owner.org.id, { name: 'web' }, owner.actor, {
      vendors: [...rows.map((r) => r.v), 'bulkco'],
    });
    browser = await signedIn(api, owner.user.username, PASSWORD);
    member = await signedIn(api, 'triager', PASSWORD);
    outsider = await signedIn(api, other.user.username, PASSWORD);
    base = '/org/trackers/projects/web/cves';
  }, 120_000);
  afterAll(() => api.close());

  describe('GET …/cves', () => {
    it("lists the project's CVEs only, each row linking to the project's CVE page, with its triage controls", async () => {
      const page = await browser.get(`${base}?size=100`);
      expect(page.status).toBe(200);
      const listed = ids(page);
      expect(listed).toHaveLength(REAL.length + SYNTHETIC);
      expect(listed.slice(0, REAL.length).sort()).toEqual(REAL);
      expect(listed).not.toContain('CVE-2011-0611'); // adobe: not subscribed
      expect(listed).not.toContain('CVE-2023-4863'); // google: not subscribed
      const log4j = rowOf(page, 'CVE-2021-44228')!;
      expect(log4j.querySelector('a[data-open]')?.getAttribute('href')).toBe(`${base}/CVE-2021-44228`);
      expect(log4j.querySelector('.badge.kev')).toBeTruthy();
      expect(log4j.querySelector('.badge.sev-critical')?.text.replace(/\s+/g, ' ')).toBe('10.0 v3.1');
      expect(selected(page, 'CVE-2021-44228', 'status')).toBe('');
      const assignees = log4j.querySelectorAll('select[name=assignee] option').map((o) => o.text);
      expect(assignees).toEqual(
        ['Nobody', owner.user.username, 'triager'].sort((a, b) =>
          a === 'Nobody' ? -1 : b === 'Nobody' ? 1 : a.localeCompare(b),
        ),
      );
      expect(page.html.querySelector('nav.tabs a[aria-current=page]')?.text).toBe('Tracker');
      expect(page.html.querySelector('script[src^="/assets/tracker-"]')).toBeTruthy();
    });

    it('lists the keyboard shortcuts of the tracker in the ? dialog', async () => {
      const page = await browser.get(base);
      const listed = page.html.querySelectorAll('dialog#shortcuts tr').map((tr) => [
        tr
          .querySelectorAll('kbd')
          .map((k) => k.text)
          .join(' '),
        tr.querySelector('td')?.text,
      ]);
      expect(listed).toEqual(
        expect.arrayContaining([
          ['j', 'Next CVE'],
          ['k', 'Previous CVE'],
          ['x', 'Select or unselect the CVE'],
          ['s', "Change the CVE's status (arrows choose, Enter saves)"],
          ['a', "Change the CVE's assignee (arrows choose, Enter saves)"],
          ['0–9', 'In a status or assignee: save that choice at once (0 is none)'],
          ['o', 'Open the CVE (or Enter)'],
        ]),
      );
      // Other pages do not list them.
      const other = await browser.get('/cves');
      expect(other.html.querySelector('dialog#shortcuts')!.text).not.toContain('Next CVE');
    });

    it.each([
      ['kev=true', ['CVE-2021-44228', 'CVE-2024-4577']],
      ['vendor=Apache', ['CVE-2021-44228']],
      ['vendor=apache&product=log4j2', ['CVE-2021-44228']],
      ['weakness=CWE-78', ['CVE-2024-4577']],
      ['search=openssh', ['CVE-2024-6387']],
      ['cvss=critical&created_gte=2024-01-01', ['CVE-2024-3094', 'CVE-2024-4577']],
      ['updated_gte=2025-01-01', ['CVE-2021-44228']],
      ['epss_gte=0.5', []],
      ['q=kev%3Dtrue%20AND%20cvss31%3E%3D9', ['CVE-2021-44228', 'CVE-2024-4577']],
      [
        'q=vendor%3Dbulkco%20AND%20cvss31%3C9&created_gte=1999-02-25',
        ['CVE-2098-10056', 'CVE-2098-10058', 'CVE-2098-10060'],
      ],
    ])('narrows the list with %s', async (query, expected) => {
      const page = await browser.get(`${base}?${query}&size=100`);
      expect(page.status).toBe(200);
      expect(ids(page).sort()).toEqual(expected);
      if (expected.length === 0) expect(page.text).toContain('No CVEs match.');
    });

    it('shows a bad filter beside its control with 400, what was typed kept', async () => {
      for (const [query, name, message] of [
        ['status=fixed', 'status', 'Choose one of the statuses offered.'],
        ['assignee=nobody@else.example', 'assignee', 'Nobody of this organization has this email.'],
        ['tag=never-used', 'tag', 'You have not put the tag "never-used" on any CVE.'],
        ['epss_gte=2', 'epss_gte', 'A probability from 0 to 1, such as 0.8.'],
        ['ordering=severity', 'ordering', 'Choose one of the orders offered.'],
      ] as const) {
        const page = await browser.get(`${base}?${query}`);
        expect(page.status, query).toBe(400);
        const fieldBox = errorOf(page, name)!;
        expect(fieldBox.classList.contains('has-error'), query).toBe(true);
        expect(fieldBox.querySelector('.error')?.text, query).toBe(message);
      }
      const typed = await browser.get(`${base}?epss_gte=2&vendor=apache`);
      expect(typed.html.querySelector('#f-vendor')?.getAttribute('value')).toBe('apache');
      expect(typed.html.querySelector('#f-epss_gte')?.getAttribute('value')).toBe('2');
    });

    it('sorts by every ordering of CVE_ORDERINGS', async () => {
      const options = (await browser.get(base)).html
        .querySelectorAll('#f-ordering option')
        .map((o) => o.getAttribute('value'));
      expect(options.sort()).toEqual([...CVE_ORDERINGS].sort());
      const asc = ids(await browser.get(`${base}?kev=true&ordering=cve_id`));
      expect(asc).toEqual(['CVE-2021-44228', 'CVE-2024-4577']);
      expect(ids(await browser.get(`${base}?kev=true&ordering=-cve_id`))).toEqual([...asc].reverse());
      const published = ids(await browser.get(`${base}?ordering=-created_at&size=100`));
      expect(published.slice(0, 2)).toEqual(['CVE-2024-6387', 'CVE-2024-4577']);
      const oldest = ids(await browser.get(`${base}?ordering=created_at&size=25`));
      expect(oldest.slice(0, 3)).toEqual([synthetic(1), synthetic(2), synthetic(3)]);
      const updated = ids(await browser.get(`${base}?ordering=updated_at&size=25`));
      expect(updated[0]).toBe(synthetic(1));
      for (const ordering of CVE_ORDERINGS)
        expect((await browser.get(`${base}?ordering=${ordering}`)).status, ordering).toBe(200);
    });

    it('pages with keyset links that keep the filter, both ways, with the count', async () => {
      const first = await browser.get(`${base}?vendor=bulkco&ordering=cve_id`);
      expect(first.html.querySelector('#list-count')?.text).toBe('1–25 of 60');
      expect(ids(first)[0]).toBe(synthetic(1));
      const next = first.html
        .querySelector('nav.pager a[rel=next]')!
        .getAttribute('href')!
        .replace(/&amp;/g, '&');
      expect(next).toContain('vendor=bulkco');
      expect(next).toContain('ordering=cve_id');
      const second = await browser.get(next);
      expect(second.html.querySelector('#list-count')?.text).toBe('26–50 of 60');
      expect(ids(second)[0]).toBe(synthetic(26));
      const prev = second.html
        .querySelector('nav.pager a[rel=prev]')!
        .getAttribute('href')!
        .replace(/&amp;/g, '&');
      expect(ids(await browser.get(prev))).toEqual(ids(first));
      const bad = await browser.get(`${base}?after=not-a-cursor`);
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('This page link is not valid');
    });

    it('answers 404 to a user of another organization, and for an unknown project', async () => {
      const page = await outsider.get(base);
      expect(page.status).toBe(404);
      expect(page.text).not.toContain('CVE-2021-44228');
      expect((await browser.get('/org/trackers/projects/nope/cves')).status).toBe(404);
    });
  });

  describe('inline status and assignee', () => {
    it('moves one CVE with a plain form (no JS): 303 back to the same filter, one audit entry', async () => {
      const before = (await audit()).length;
      await browser.get(`${base}?kev=true`);
      const res = await browser.post(`${base}/CVE-2021-44228/move`, {
        status: 'analysis_in_progress',
        assignee: memberEmail,
        back: 'kev=true&ordering=cve_id',
      });
      expect(res.status).toBe(303);
      expect(res.location).toBe(`${base}?kev=true&ordering=cve_id&done=moved`);
      const page = await browser.follow(res);
      expect(page.text).toContain('The CVE is updated.');
      expect(selected(page, 'CVE-2021-44228', 'status')).toBe('analysis_in_progress');
      expect(selected(page, 'CVE-2021-44228', 'assignee')).toBe(memberEmail);
      const entries = (await audit()).slice(before);
      expect(entries.map((e) => [e.action, e.resource_id, e.changes])).toEqual([
        [
          'tracker_entry.create',
          'CVE-2021-44228',
          { status: { old: null, new: 'analysis_in_progress' }, assignee: { old: null, new: memberEmail } },
        ],
      ]);
    });

    it('answers htmx with the row alone, as it is now; a member may triage', async () => {
      await member.get(base);
      const res = await member.post(
        `${base}/CVE-2024-4577/move`,
        { status: 'to_evaluate', assignee: '' },
        { 'hx-request': 'true' },
      );
      expect(res.status).toBe(200);
      expect(res.body.startsWith('<tr')).toBe(true);
      expect(res.body).not.toContain('<html');
      const row = parse(res.body).querySelector('tr#row-CVE-2024-4577')!;
      expect(row.querySelector('select[name=status] option[selected]')?.getAttribute('value')).toBe(
        'to_evaluate',
      );
      expect(row.querySelector('select[name=status]')?.getAttribute('hx-post')).toBe(
        `${base}/CVE-2024-4577/move`,
      );
      const list = await browser.get(`${base}?status=to_evaluate`);
      expect(ids(list)).toEqual(['CVE-2024-4577']);
    });

    it('refuses a non-member assignee and an unknown status beside the row, changing nothing', async () => {
      const before = await audit();
      await browser.get(base);
      const htmx = await browser.post(
        `${base}/CVE-2024-3094/move`,
        { status: '', assignee: 'someone@elsewhere.example' },
        { 'hx-request': 'true' },
      );
      expect(htmx.status).toBe(400);
      const row = parse(htmx.body).querySelector('tr#row-CVE-2024-3094')!;
      expect(row.querySelector('.error')?.text).toBe(
        'someone@elsewhere.example is not a member of this organization',
      );
      const plain = await browser.post(`${base}/CVE-2024-3094/move`, {
        status: 'fixed',
        assignee: '',
        back: 'kev=false',
      });
      expect(plain.status).toBe(400);
      expect(rowOf(plain, 'CVE-2024-3094')?.querySelector('.error')?.text).toBe(
        'Choose one of the statuses offered.',
      );
      expect(plain.html.querySelector('#f-kev option[selected]')?.getAttribute('value')).toBe('false');
      expect(await audit()).toEqual(before);
    });

    it('answers 404 for a CVE that is not the project’s, and refuses a forged CSRF token', async () => {
      await browser.get(base);
      expect((await browser.post(`${base}/CVE-2011-0611/move`, { status: 'resolved' })).status).toBe(404);
      expect(
        (await browser.post(`${base}/CVE-2024-3094/move`, { status: 'resolved', _csrf: 'forged' })).status,
      ).toBe(403);
      expect((await outsider.post(`${base}/CVE-2024-3094/move`, { status: 'resolved' })).status).toBe(404);
    });

    it('filters by assignee, by nobody and by no status', async () => {
      expect(ids(await browser.get(`${base}?assignee=${encodeURIComponent(memberEmail)}`))).toEqual([
        'CVE-2021-44228',
      ]);
      const nobody = ids(await browser.get(`${base}?assignee=none&size=100`));
      expect(nobody).toHaveLength(REAL.length + SYNTHETIC - 1);
      expect(nobody).not.toContain('CVE-2021-44228');
      const noStatus = ids(await browser.get(`${base}?status=no_status&size=100`));
      expect(noStatus).not.toContain('CVE-2021-44228');
      expect(noStatus).not.toContain('CVE-2024-4577');
      expect(noStatus).toHaveLength(REAL.length + SYNTHETIC - 2);
      const both = ids(await browser.get(`${base}?status=to_evaluate&assignee=none`));
      expect(both).toEqual(['CVE-2024-4577']);
    });
  });

  describe('bulk edit', () => {
    it('moves the selected CVEs and tags them in one action: one audit entry lists each with old and new', async () => {
      const before = (await audit()).length;
      await browser.get(`${base}?vendor=bulkco&ordering=cve_id`);
      const chosen = [synthetic(1), synthetic(2), synthetic(3)];
      const res = await browser.post(`${base}/bulk`, {
        scope: 'selected',
        cve: chosen,
        filter: 'vendor=bulkco&ordering=cve_id',
        set_status: 'pending_review',
        set_assignee: memberEmail,
        add_tags: 'vpn, q3-audit',
        remove_tags: '',
      });
      expect(res.status).toBe(303);
      expect(res.location).toBe(`${base}?vendor=bulkco&ordering=cve_id&done=bulk`);
      const page = await browser.follow(res);
      expect(page.text).toContain('The CVEs are updated.');
      for (const id of chosen) {
        expect(selected(page, id, 'status')).toBe('pending_review');
        expect(
          rowOf(page, id)!
            .querySelectorAll('.tags .badge')
            .map((b) => b.text),
        ).toEqual(['q3-audit', 'vpn']);
      }
      const entries = (await audit()).slice(before);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        action: 'tracker_entry.bulk_update',
        resource_id: null,
        resource_name: 'web',
        actor_name: owner.user.username,
      });
      const moved = { old: null, new: memberEmail };
      expect(entries[0]!.changes).toEqual({
        count: 3,
        cves: Object.fromEntries(
          chosen.map((id) => [
            id,
            {
              status: { old: null, new: 'pending_review' },
              assignee: moved,
              tags: { added: ['q3-audit', 'vpn'], removed: [] },
            },
          ]),
        ),
      });
      // The tag filter is the user's own.
      expect(ids(await browser.get(`${base}?tag=vpn`)).sort()).toEqual(chosen);
      const other = await member.get(`${base}?tag=vpn`);
      expect(other.status).toBe(400);
    });

    it('applies to every CVE matching the filter, chosen by the server (not the ids of the page)', async () => {
      const before = (await audit()).length;
      await member.get(`${base}?vendor=bulkco&cvss=critical`);
      const res = await member.post(`${base}/bulk`, {
        scope: 'all',
        cve: [synthetic(2)], // ignored: the filter decides
        filter: 'vendor=bulkco&cvss=critical',
        set_status: 'resolved',
        set_assignee: '',
        add_tags: '',
        remove_tags: '',
      });
      expect(res.status).toBe(303);
      const critical = ids(await browser.get(`${base}?vendor=bulkco&cvss=critical&size=100`));
      expect(critical).toHaveLength(SYNTHETIC / 2);
      const resolved = ids(await browser.get(`${base}?status=resolved&size=100`));
      expect(resolved.sort()).toEqual([...critical].sort());
      expect(resolved).not.toContain(synthetic(2));
      const entries = (await audit()).slice(before);
      expect(entries).toHaveLength(1);
      const changes = entries[0]!.changes as { count: number; cves: Record<string, unknown> };
      expect(changes.count).toBe(SYNTHETIC / 2);
      expect(changes.cves[synthetic(1)]).toEqual({ status: { old: 'pending_review', new: 'resolved' } });
      expect(changes.cves[synthetic(5)]).toEqual({ status: { old: null, new: 'resolved' } });
      expect(entries[0]!.actor_name).toBe('triager');
    });

    it('removes tags and clears the status and the assignee', async () => {
      await browser.get(base);
      const res = await browser.post(`${base}/bulk`, {
        scope: 'selected',
        cve: [synthetic(1), synthetic(2)],
        filter: '',
        set_status: 'none',
        set_assignee: 'none',
        add_tags: '',
        remove_tags: 'vpn',
      });
      expect(res.status).toBe(303);
      const page = await browser.get(`${base}?vendor=bulkco&ordering=cve_id`);
      expect(selected(page, synthetic(1), 'status')).toBe('');
      expect(selected(page, synthetic(2), 'assignee')).toBe('');
      expect(
        rowOf(page, synthetic(1))!
          .querySelectorAll('.tags .badge')
          .map((b) => b.text),
      ).toEqual(['q3-audit']);
    });

    it('says when nothing changed', async () => {
      await browser.get(base);
      const res = await browser.post(`${base}/bulk`, {
        scope: 'selected',
        cve: [synthetic(1)],
        filter: '',
        set_status: 'none',
      });
      expect(res.location).toContain('done=unchanged');
      expect((await browser.follow(res)).text).toContain('Nothing changed');
    });

    it('shows each refusal beside its field with 400, what was typed and selected kept, nothing changed', async () => {
      const before = await audit();
      await browser.get(base);
      const post = (form: Record<string, string | string[]>) =>
        browser.post(`${base}/bulk`, { scope: 'selected', filter: 'vendor=bulkco&ordering=cve_id', ...form });
      const none = await post({ set_status: 'resolved' });
      expect(none.status).toBe(400);
      expect(none.html.querySelector('#f-selection-error')?.text).toBe('Select at least one CVE.');

      const stranger = await post({
        cve: [synthetic(4)],
        set_assignee: 'stranger@elsewhere.example',
        add_tags: 'keep-me',
      });
      expect(stranger.status).toBe(400);
      expect(errorOf(stranger, 'set_assignee')?.querySelector('.error')?.text).toBe(
        'stranger@elsewhere.example is not a member of this organization',
      );
      expect(stranger.html.querySelector('#f-add_tags')?.getAttribute('value')).toBe('keep-me');
      expect(
        rowOf(stranger, synthetic(4))?.querySelector('input[data-select]')?.hasAttribute('checked'),
      ).toBe(true);
      expect(stranger.html.querySelector('#f-vendor')?.getAttribute('value')).toBe('bulkco');

      const outside = await post({ cve: [synthetic(4), 'CVE-2011-0611'], set_status: 'resolved' });
      expect(outside.status).toBe(400);
      expect(outside.html.querySelector('#f-selection-error')?.text).toBe(
        'CVE-2011-0611 is not a CVE of this project.',
      );

      const nothing = await post({ cve: [synthetic(4)] });
      expect(nothing.status).toBe(400);
      expect(nothing.text).toContain('Choose a status, an assignee or tags to change.');

      const badTag = await post({ cve: [synthetic(4)], add_tags: 'no spaces/allowed!' });
      expect(badTag.status).toBe(400);
      expect(errorOf(badTag, 'add_tags')?.querySelector('.error')?.text).toContain(
        'Not a tag: "spaces/allowed!"',
      );

      const badStatus = await post({ cve: [synthetic(4)], set_status: 'fixed' });
      expect(errorOf(badStatus, 'set_status')?.querySelector('.error')?.text).toBe(
        'Choose one of the statuses offered.',
      );
      expect(await audit()).toEqual(before);
      expect(await api.services.tags.ofCves(owner.user.id, [synthetic(4)])).toEqual(new Map());
    });

    it('refuses without the CSRF token and answers 404 to another organization', async () => {
      await browser.get(base);
      const form = { scope: 'selected', cve: [synthetic(4)], filter: '', set_status: 'resolved' };
      expect((await browser.post(`${base}/bulk`, { ...form, _csrf: 'forged' })).status).toBe(403);
      expect((await outsider.post(`${base}/bulk`, form)).status).toBe(404);
    });
  });

  describe('a bulk edit of 1,000 CVEs', () => {
    it('moves and tags all 1,000 CVEs matching the filter in one audited action, in well under 2 s', async () => {
      const db = api.services.database.db;
      await sql`
        INSERT INTO cve (cve_id, state, title, description, created_at, updated_at, metrics, kev, vendors)
        SELECT format('CVE-2097-%s', 10000 + g), 'PUBLISHED', 'big ' || g, 'a big project record',
               timestamptz '1998-01-01', timestamptz '1998-01-01' + g * interval '1 second', '{}', false,
               ARRAY['thousandco']
        FROM generate_series(1, 1000) g`.execute(db);
      await sql`INSERT INTO vendor (name) VALUES ('thousandco') ON CONFLICT DO NOTHING`.execute(db);
      await api.services.projects.create(owner.org.id, { name: 'big' }, owner.actor, {
        vendors: ['thousandco'],
      });
      const bigBase = '/org/trackers/projects/big/cves';
      await browser.get(bigBase);
      const before = (await audit()).length;
      const started = performance.now();
      const res = await browser.post(`${bigBase}/bulk`, {
        scope: 'all',
        filter: '',
        set_status: 'to_evaluate',
        set_assignee: memberEmail,
        add_tags: 'big',
      });
      const ms = performance.now() - started;
      console.info(`bulk edit of 1,000 CVEs (${backend}): ${ms.toFixed(0)} ms`);
      expect(res.status).toBe(303);
      expect(ms).toBeLessThan(2_000);
      const entries = (await audit()).slice(before);
      expect(entries).toHaveLength(1);
      expect((entries[0]!.changes as { count: number }).count).toBe(1000);
      const page = await browser.get(
        `${bigBase}?status=to_evaluate&assignee=${encodeURIComponent(memberEmail)}&tag=big`,
      );
      expect(page.html.querySelector('#list-count')?.text).toBe('1–25 of 1,000');
    });
  });

  describe('CSV export', () => {
    it('exports the current filter with the triage columns', async () => {
      const res = await browser.get(`${base}/export.csv?vendor=bulkco&status=resolved&ordering=cve_id`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toContain('text/csv');
      expect(res.headers['content-disposition']).toContain('cves-trackers-web.csv');
      const rows = parseCsv(res.body, { columns: true }) as Record<string, string>[];
      // The critical ones (odd), resolved in bulk, but the first, whose status was cleared since.
      expect(rows.map((r) => r.CVE)).toEqual(
        Array.from({ length: SYNTHETIC / 2 - 1 }, (_, i) => synthetic(2 * i + 3)),
      );
      // People's words: "Resolved", not the key `resolved` (API v2's CSV keeps it).
      expect(rows[0]!.Status).toBe('Resolved');
      expect(Object.keys(rows[0]!)).toEqual(
        expect.arrayContaining(['CVE', 'Title', 'CVSS 3.1', 'Status', 'Assignee', 'Vendors and products']),
      );
      expect(res.body).not.toContain('$PRODUCT$');
      const link = (await browser.get(`${base}?vendor=bulkco&status=resolved`)).html
        .querySelector('a[download]')
        ?.getAttribute('href');
      expect(link?.replace(/&amp;/g, '&')).toBe(`${base}/export.csv?vendor=bulkco&status=resolved`);
    });

    it('shows a bad filter on the tracker with 400 instead of a file', async () => {
      const res = await browser.get(`${base}/export.csv?status=fixed`);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toContain('text/html');
      expect(errorOf(res, 'status')?.querySelector('.error')?.text).toBe(
        'Choose one of the statuses offered.',
      );
    });
  });
});
