/**
 * One CVE in a project (`/org/<org>/projects/<project>/cves/<id>`): triage, tags, comments (Markdown
 * rendered sanitized; authors edit and delete theirs, owners delete any), and why the CVE is (not) in
 * the project, there and on the catalog CVE page.
 */
import { storeTestAliases } from '../helpers/aliases.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HTMLElement } from 'node-html-parser';
import { sources } from '../../src/sources/index.ts';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { fixture } from '../helpers/catalog.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, type WebClient } from '../helpers/web.ts';

const PASSWORD = 'correct horse battery staple';
const NVD = ['CVE-2019-25161', 'CVE-2021-36593', 'CVE-2022-20698', 'CVE-2023-4863', 'CVE-2024-3094'].map(
  (id) => fixture('nvd', `${id}.json`),
);

const WEB = '/org/acme/projects/web/cves';
const MOBILE = '/org/acme/projects/mobile/cves';

/** The error shown beside a field (the `.field` around the control). */
const errorBeside = (html: HTMLElement, selector: string) =>
  html.querySelector(selector)?.closest('.field')?.querySelector('.error')?.text.trim();

describeEachDatabase('web: a CVE in a project', (use) => {
  let api: TestApi;
  let acme: Awaited<ReturnType<typeof createOrganization>>;
  let owner: WebClient;
  let member: WebClient;
  let other: WebClient;
  let outsider: WebClient;

  const audit = (action: string) =>
    api.services.database.db
      .selectFrom('audit_log')
      .select(['action', 'actor_name', 'resource_name', 'changes'])
      .where('organization_id', '=', acme.org.id)
      .where('action', '=', action)
      .orderBy('created_at')
      .execute();

  beforeAll(async () => {
    api = await buildTestApi(use());
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(api.services.database.db);
    await api.services.imports.importInputs(sources.cve5, [fixture('cve5', 'cves')]);
    await api.services.imports.importInputs(sources.nvd, NVD);
    acme = await createOrganization(api.services, 'acme');
    const globex = await createOrganization(api.services, 'globex');
    for (const name of ['mia', 'max']) {
      const user = await api.services.accounts.createUser({
        username: name,
        email: `${name}@acme.example`,
        password: PASSWORD,
      });
      await api.services.members.invite(acme.org.id, { email: `${name}@acme.example` }, acme.actor);
      await api.services.accounts.acceptInvitation(user.id, 'acme');
    }
    const projects = api.services.projects;
    await projects.create(acme.org.id, { name: 'web' }, acme.actor, {
      vendors: ['apache'],
      products: { tukaani: ['xz'] },
    });
    await projects.create(acme.org.id, { name: 'mobile' }, acme.actor, { products: { google: ['chrome'] } });
    owner = await signedIn(api, acme.user.username, PASSWORD);
    member = await signedIn(api, 'mia', PASSWORD);
    other = await signedIn(api, 'max', PASSWORD);
    outsider = await signedIn(api, globex.user.username, PASSWORD);
  });
  afterAll(() => api.close());

  describe('the page', () => {
    it('shows the CVE, its triage, comments, a link to the catalog page and why it is in the project (a vendor key)', async () => {
      const page = await member.get(`${WEB}/CVE-2021-44228`);
      expect(page.status).toBe(200);
      expect(page.html.querySelector('h1')?.text).toBe('web');
      expect(page.html.querySelector('.project-cve-id')?.text).toContain('CVE-2021-44228');
      expect(page.text).toContain('Apache Log4j2');
      expect(page.html.querySelector('a[href="/cves/CVE-2021-44228"]')?.text).toBe('Full catalog page');
      expect(page.html.querySelector(`form[action="${WEB}/CVE-2021-44228/triage"]`)).not.toBeNull();
      expect(page.html.querySelector(`form[action="${WEB}/CVE-2021-44228/comments"]`)).not.toBeNull();
      expect(page.html.querySelector('#summary')).not.toBeNull();
      const why = page.html.querySelector('#why')!;
      expect(why.querySelector('h2')?.text).toBe('Why this CVE is in this project');
      // The vendor key apache, from the CNA's own vendor text (no CPE in its record).
      const matched = why.querySelector('table.match-keys')!;
      const rows = matched.querySelectorAll('tbody tr').map((r) => r.text.replace(/\s+/g, ' '));
      expect(rows).toEqual([
        expect.stringMatching(
          /^ ?apache \(vendor\).*CVE Program record: the affected product as written, “Apache Software Foundation”/,
        ),
      ]);
      // It entered when the project subscribed (the CVE had the key already).
      expect(why.text.replace(/\s+/g, ' ')).toMatch(
        /Entered the project .*when the project subscribed to apache \(vendor\)/,
      );
    });

    it('names a product key and its NVD CPE', async () => {
      const page = await member.get(`${WEB}/CVE-2024-3094`);
      expect(page.status).toBe(200);
      const why = page.html.querySelector('#why')!;
      const matched = why.querySelector('table.match-keys')!.text.replace(/\s+/g, ' ');
      expect(matched).toContain('tukaani xz (product)');
      expect(matched).toMatch(/NVD: NVD's CPE cpe:2\.3:a:tukaani:xz:/);
      // The CVE's other keys are one click away.
      expect(why.querySelector('details summary')?.text).toMatch(/All \d+ keys of this CVE/);
    });

    it('answers 200 with why not for a catalog CVE outside the project: its keys and the nearest subscription, no triage', async () => {
      const page = await member.get(`${MOBILE}/CVE-2024-31331`);
      expect(page.status).toBe(200);
      expect(page.html.querySelector('.project-cve-id')?.text).toContain('not in this project');
      const why = page.html.querySelector('#why')!;
      const text = why.text.replace(/\s+/g, ' ');
      expect(why.querySelector('h2')?.text).toBe('Why this CVE is not in this project');
      expect(text).toContain("None of its 2 vendor and product keys are among the project's 1 subscription.");
      expect(text).toContain('The project subscribes to google chrome (product), another product of google');
      expect(
        why.querySelectorAll('table.match-keys tbody tr').map((r) => r.querySelector('td')!.text.trim()),
      ).toEqual(['google (vendor)', 'google android (product)']);
      expect(page.html.querySelector('form[action$="/triage"]')).toBeNull();
      expect(page.html.querySelector('#comments')).toBeNull();
      // Its forms answer 404: the CVE is not the project's.
      expect((await member.post(`${MOBILE}/CVE-2024-31331/comments`, { body: 'x' })).status).toBe(404);
      expect((await member.post(`${MOBILE}/CVE-2024-31331/triage`, { status: 'resolved' })).status).toBe(404);
    });

    it('says why a REJECTED CVE without keys is not in the project', async () => {
      const page = await member.get(`${WEB}/CVE-2019-25161`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('REJECTED');
      expect(page.html.querySelector('#why')?.text).toContain(
        'No vendor or product is known for this CVE yet',
      );
    });

    it('answers 404 for a CVE the catalog does not list, saying so, and for something that is no CVE id', async () => {
      const unknown = await member.get(`${WEB}/CVE-2099-0001`);
      expect(unknown.status).toBe(404);
      expect(unknown.text).toContain('CVE-2099-0001 is not in the catalog');
      expect((await member.get(`${WEB}/not-a-cve`)).status).toBe(404);
      expect((await member.get('/org/acme/projects/nope/cves/CVE-2021-44228')).status).toBe(404);
    });

    it('reads the id in any case', async () => {
      expect((await member.get(`${WEB}/cve-2021-44228`)).status).toBe(200);
    });

    it('answers 404 to another organization, on the page and every form, and changes nothing', async () => {
      expect((await outsider.get(`${WEB}/CVE-2021-44228`)).status).toBe(404);
      for (const [path, form] of [
        ['triage', { status: 'resolved' }],
        ['tags', { tags: 'x' }],
        ['comments', { body: 'x' }],
      ] as const)
        expect((await outsider.post(`${WEB}/CVE-2021-44228/${path}`, form)).status).toBe(404);
      expect(await audit('tracker_comment.create')).toEqual([]);
    });
  });

  describe('triage', () => {
    it('sets status and assignee (a member may), audited, and shows them', async () => {
      const done = await member.post(`${WEB}/CVE-2021-44228/triage`, {
        status: 'analysis_in_progress',
        assignee: 'max@acme.example',
      });
      expect(done.status).toBe(303);
      expect(done.location).toBe(`${WEB}/CVE-2021-44228?done=triaged#triage`);
      const page = await member.follow(done);
      expect(page.text).toContain('The triage was saved.');
      expect(page.html.querySelector('#f-status option[selected]')?.getAttribute('value')).toBe(
        'analysis_in_progress',
      );
      expect(page.html.querySelector('#f-assignee option[selected]')?.getAttribute('value')).toBe(
        'max@acme.example',
      );
      const [entry] = await audit('tracker_entry.create');
      expect(entry).toMatchObject({
        actor_name: 'mia',
        resource_name: 'web/CVE-2021-44228',
        changes: {
          status: { old: null, new: 'analysis_in_progress' },
          assignee: { old: null, new: 'max@acme.example' },
        },
      });
      // Cleared again with the empty choices.
      await member.post(`${WEB}/CVE-2021-44228/triage`, { status: '', assignee: '' });
      const cleared = await member.get(`${WEB}/CVE-2021-44228`);
      expect(cleared.html.querySelector('#f-status option[selected]')?.getAttribute('value')).toBe('');
    });

    it('shows a bad status or assignee beside its field (400), the form as sent', async () => {
      const badStatus = await member.post(`${WEB}/CVE-2021-44228/triage`, { status: 'done', assignee: '' });
      expect(badStatus.status).toBe(400);
      expect(errorBeside(badStatus.html, '#f-status')).toBe('Choose a status from the list.');
      const stranger = await member.post(`${WEB}/CVE-2021-44228/triage`, {
        status: 'resolved',
        assignee: 'nobody@elsewhere.example',
      });
      expect(stranger.status).toBe(400);
      expect(errorBeside(stranger.html, '#f-assignee')).toBe(
        'nobody@elsewhere.example is not a member of this organization',
      );
      expect(stranger.html.querySelector('#f-status option[selected]')?.getAttribute('value')).toBe(
        'resolved',
      );
    });

    it('refuses a form without the CSRF token (403)', async () => {
      const forged = await member.post(`${WEB}/CVE-2021-44228/triage`, {
        status: 'resolved',
        _csrf: 'forged',
      });
      expect(forged.status).toBe(403);
    });
  });

  describe('tags', () => {
    it("sets the user's own tags, seen by them only", async () => {
      const done = await member.post(`${WEB}/CVE-2021-44228/tags`, { tags: 'urgent, needs.patch' });
      expect(done.status).toBe(303);
      const page = await member.follow(done);
      expect(page.html.querySelectorAll('#tags .chip').map((c) => c.text)).toEqual(['needs.patch', 'urgent']);
      const others = await other.get(`${WEB}/CVE-2021-44228`);
      expect(others.html.querySelectorAll('#tags .chip')).toHaveLength(0);
    });

    it('shows a bad tag beside the field (400), what was typed kept', async () => {
      const bad = await member.post(`${WEB}/CVE-2021-44228/tags`, { tags: 'ok bad!tag' });
      expect(bad.status).toBe(400);
      expect(bad.html.querySelector('#f-tags-error')?.text).toContain(
        '"bad!tag": letters, digits, _ . - only',
      );
      expect(bad.html.querySelector('#f-tags')?.getAttribute('value')).toBe('ok bad!tag');
    });
  });

  describe('comments', () => {
    const HOSTILE = [
      '**Patched** in `2.17.1`, see [the advisory](https://logging.apache.org/log4j/2.x/security.html).',
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(2)>',
      '[click](javascript:alert(3)) [data](data:text/html;base64,PHNjcmlwdD4=) [vb](vbscript:msgbox)',
      '<a href="javascript:alert(4)" onclick="alert(5)">raw link</a>',
    ].join('\n\n');

    const commentsOf = (html: HTMLElement) => html.querySelectorAll('#comments li.comment');

    it('renders Markdown, with no script, no event attribute and no unsafe link coming out', async () => {
      const done = await member.post(`${WEB}/CVE-2021-44228/comments`, { body: HOSTILE });
      expect(done.status).toBe(303);
      expect(done.location).toMatch(
        new RegExp(`^${WEB}/CVE-2021-44228\\?done=commented#comment-[0-9a-f-]{36}$`),
      );
      const page = await member.follow(done);
      expect(page.text).toContain('Your comment was added.');
      const body = commentsOf(page.html)[0]!.querySelector('.comment-body')!;
      expect(body.querySelector('strong')?.text).toBe('Patched');
      expect(body.querySelector('code')?.text).toBe('2.17.1');
      const links = body.querySelectorAll('a');
      expect(links.map((a) => a.getAttribute('href'))).toEqual([
        'https://logging.apache.org/log4j/2.x/security.html',
      ]);
      expect(links[0]!.getAttribute('rel')).toBe('nofollow noopener noreferrer');
      // Raw HTML is text: no element but Markdown's, no attribute but href/rel, no script anywhere.
      expect(body.querySelectorAll('script, img, iframe')).toHaveLength(0);
      for (const el of body.querySelectorAll('*'))
        for (const name of Object.keys(el.attributes)) expect(['href', 'rel']).toContain(name);
      expect(body.innerHTML).not.toMatch(/<(script|img|iframe)|href="(javascript|data|vbscript):/i);
      expect(body.text).toContain('<script>alert(1)</script>');
      expect(page.body.match(/<script/g)?.length).toBe(page.html.querySelectorAll('script[src]').length);
    });

    it('shows a blank comment beside the field (400), what was typed kept', async () => {
      const blank = await member.post(`${WEB}/CVE-2021-44228/comments`, { body: '   \n ' });
      expect(blank.status).toBe(400);
      expect(blank.html.querySelector('#f-body-error')?.text).toBe('must not be blank');
      expect(blank.html.querySelector('#f-body')?.text).toBe('   \n ');
      const long = await member.post(`${WEB}/CVE-2021-44228/comments`, { body: 'x'.repeat(10_001) });
      expect(long.status).toBe(400);
      expect(long.html.querySelector('#f-body-error')?.text).toBe('must be at most 10000 characters');
    });

    it('lets the author edit their comment (marked edited, audited), nobody else', async () => {
      const added = await member.post(`${WEB}/CVE-2024-3094/comments`, { body: 'First _draft_' });
      const id = /#comment-(.+)$/.exec(added.location!)![1]!;
      let page = await member.follow(added);
      const mine = page.html.querySelector(`#comment-${id}`)!;
      expect(mine.querySelector(`form[action="${WEB}/CVE-2024-3094/comments/${id}"]`)).not.toBeNull();
      expect(mine.querySelector('form[action$="/delete"]')).not.toBeNull();

      // Another member sees neither control, and is refused.
      const seen = await other.get(`${WEB}/CVE-2024-3094`);
      expect(seen.html.querySelector(`#comment-${id} form`)).toBeNull();
      expect((await other.post(`${WEB}/CVE-2024-3094/comments/${id}`, { body: 'hijacked' })).status).toBe(
        403,
      );
      // The owner may delete it but not rewrite it.
      const ownerView = await owner.get(`${WEB}/CVE-2024-3094`);
      expect(ownerView.html.querySelector(`#comment-${id} form[action$="/delete"]`)).not.toBeNull();
      expect(ownerView.html.querySelector(`#comment-${id} details.comment-edit`)).toBeNull();
      expect((await owner.post(`${WEB}/CVE-2024-3094/comments/${id}`, { body: 'rewritten' })).status).toBe(
        403,
      );

      const blank = await member.post(`${WEB}/CVE-2024-3094/comments/${id}`, { body: ' ' });
      expect(blank.status).toBe(400);
      expect(blank.html.querySelector(`#comment-${id} details.comment-edit`)?.getAttribute('open')).toBe('');
      expect(blank.html.querySelector(`#f-body-${id}-error`)?.text).toBe('must not be blank');

      const edited = await member.post(`${WEB}/CVE-2024-3094/comments/${id}`, { body: 'Final **text**' });
      expect(edited.status).toBe(303);
      expect(edited.location).toBe(`${WEB}/CVE-2024-3094?done=edited#comment-${id}`);
      page = await member.follow(edited);
      const comment = page.html.querySelector(`#comment-${id}`)!;
      expect(comment.querySelector('.comment-body strong')?.text).toBe('text');
      expect(comment.querySelector('.comment-head')?.text).toContain('edited');
      const [entry] = await audit('tracker_comment.update');
      expect(entry).toMatchObject({
        actor_name: 'mia',
        resource_name: 'web/CVE-2024-3094',
        changes: { body: { old: 'First _draft_', new: 'Final **text**' } },
      });
    });

    it('lets the author and owners delete a comment, not another member (403), audited', async () => {
      const byMia = /#comment-(.+)$/.exec(
        (await member.post(`${WEB}/CVE-2024-3094/comments`, { body: 'mine' })).location!,
      )![1]!;
      const byMax = /#comment-(.+)$/.exec(
        (await other.post(`${WEB}/CVE-2024-3094/comments`, { body: 'his' })).location!,
      )![1]!;
      expect((await other.post(`${WEB}/CVE-2024-3094/comments/${byMia}/delete`)).status).toBe(403);
      const own = await member.post(`${WEB}/CVE-2024-3094/comments/${byMia}/delete`);
      expect(own.status).toBe(303);
      expect(own.location).toBe(`${WEB}/CVE-2024-3094?done=deleted#comments`);
      const moderated = await owner.post(`${WEB}/CVE-2024-3094/comments/${byMax}/delete`);
      expect(moderated.status).toBe(303);
      const page = await owner.get(`${WEB}/CVE-2024-3094`);
      expect(page.html.querySelector(`#comment-${byMia}`)).toBeNull();
      expect(page.html.querySelector(`#comment-${byMax}`)).toBeNull();
      expect((await owner.post(`${WEB}/CVE-2024-3094/comments/${byMax}/delete`)).status).toBe(404);
      expect((await owner.post(`${WEB}/CVE-2024-3094/comments/not-a-uuid/delete`)).status).toBe(404);
      const deletes = await audit('tracker_comment.delete');
      expect(deletes.map((d) => [d.actor_name, (d.changes as { body: { old: string } }).body.old])).toEqual([
        ['mia', 'mine'],
        [acme.user.username, 'his'],
      ]);
    });

    it('shows the most recent page of a long conversation', async () => {
      const before = (await member.get(`${WEB}/CVE-2021-44228`)).html.querySelectorAll(
        '#comments li.comment',
      ).length;
      for (let i = 1; i <= 100; i++)
        await api.services.trackerComments.addComment(
          acme.org.id,
          'web',
          'CVE-2021-44228',
          `bulk ${i}`,
          acme.actor,
        );
      const page = await member.get(`${WEB}/CVE-2021-44228`);
      const shown = page.html
        .querySelectorAll('#comments li.comment .comment-body')
        .map((c) => c.text.trim());
      expect(shown).toHaveLength(before);
      expect(shown.at(-1)).toBe('bulk 100');
      expect(page.text).toContain(`The ${before} most recent of ${before + 100} comments, oldest first`);
    });

    it('answers 404 for a comment of another CVE of the project', async () => {
      const id = /#comment-(.+)$/.exec(
        (await member.post(`${WEB}/CVE-2024-3094/comments`, { body: 'here' })).location!,
      )![1]!;
      expect((await member.post(`${WEB}/CVE-2021-44228/comments/${id}`, { body: 'there' })).status).toBe(404);
      expect((await member.post(`${WEB}/CVE-2021-44228/comments/${id}/delete`)).status).toBe(404);
    });
  });

  describe('the catalog CVE page', () => {
    it('says for each project of the current organization whether the CVE is in it, and why', async () => {
      const page = await member.get('/cves/CVE-2021-44228');
      expect(page.status).toBe(200);
      const panel = page.html.querySelector('#projects')!;
      expect(panel.querySelector('h2')?.text).toBe('In the projects of acme');
      const items = panel.querySelectorAll('li.card');
      // Those listing it first.
      expect(items.map((li) => li.querySelector('h3 a')?.text)).toEqual(['web', 'mobile']);
      const [web, mobile] = items.map((li) => li.text.replace(/\s+/g, ' '));
      expect(web).toContain('in the project');
      expect(web).toMatch(/Matched apache \(vendor\), from CVE Program record\./);
      expect(mobile).toContain('not in the project');
      expect(mobile).toContain(
        "None of its 2 vendor and product keys are among the project's 1 subscription.",
      );
      expect(items[0]!.querySelector('h3 a')?.getAttribute('href')).toBe(`${WEB}/CVE-2021-44228`);
      expect(page.html.querySelector('.section-nav a[href="#projects"]')).not.toBeNull();
    });

    it('has no projects section for a user without an organization', async () => {
      await api.services.accounts.createUser({
        username: 'loner',
        email: 'loner@x.example',
        password: PASSWORD,
      });
      const loner = await signedIn(api, 'loner', PASSWORD);
      const page = await loner.get('/cves/CVE-2021-44228');
      expect(page.status).toBe(200);
      expect(page.html.querySelector('#projects')).toBeNull();
    });
  });
});
