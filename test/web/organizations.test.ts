/** The organization pages: General, /org/new, Members, API tokens, the audit log (owners; members read-only). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, type WebClient } from '../helpers/web.ts';

const PASSWORD = 'correct horse battery staple';

describeEachDatabase('web: organization pages', (use) => {
  let api: TestApi;
  let owner: Awaited<ReturnType<typeof createOrganization>>;
  let browser: WebClient;

  beforeAll(async () => {
    api = await buildTestApi(use(), { VULNTRACK_BASE_URL: 'https://vt.example.org' });
    owner = await createOrganization(api.services, 'acme');
    browser = await signedIn(api, owner.user.username, PASSWORD);
  });
  afterAll(() => api.close());

  describe('General', () => {
    it('is the start page of /org/<name>, with the tabs and the switcher remembering it', async () => {
      const page = await browser.get('/org/acme');
      expect(page.status).toBe(200);
      expect(page.html.querySelector('h1')?.text).toBe('acme');
      const tabs = page.html
        .querySelectorAll('nav.tabs a')
        .map((a) => [a.text, a.getAttribute('aria-current') ?? '']);
      expect(tabs).toEqual([
        ['General', 'page'],
        ['Members', ''],
        ['Weekly report', ''],
        ['API tokens', ''],
        ['Audit log', ''],
      ]);
      expect(
        page.html.querySelector('form[action="/org/acme/rename"] input[name=name]')?.getAttribute('value'),
      ).toBe('acme');
    });

    it('creates an organization at /org/new, its creator the owner', async () => {
      const form = await browser.get('/org/new');
      expect(form.status).toBe(200);
      const bad = await browser.post('/org/new', { name: 'Not a slug!' });
      expect(bad.status).toBe(400);
      expect(bad.html.querySelector('#f-name-error')?.text).toMatch(/letters, digits/i);
      expect(bad.html.querySelector('#f-name')?.getAttribute('value')).toBe('Not a slug!');
      const taken = await browser.post('/org/new', { name: 'acme' });
      expect(taken.status).toBe(400);
      expect(taken.html.querySelector('#f-name-error')?.text).toMatch(/name is not available/);

      const created = await browser.post('/org/new', { name: 'acme-labs' });
      expect(created.status).toBe(303);
      expect(created.location).toBe('/org/acme-labs?done=created');
      const page = await browser.follow(created);
      expect(page.text).toContain('The organization was created');
      expect(page.html.querySelector('.page-head .badge')?.text).toBe('owner');
      // The switcher lists it, current.
      expect(page.html.querySelector('#org-menu .menu-name')?.text).toBe('acme-labs');
    });

    it('renames with validation, audited', async () => {
      await browser.get('/org/acme-labs');
      const bad = await browser.post('/org/acme-labs/rename', { name: 'bad name' });
      expect(bad.status).toBe(400);
      expect(bad.html.querySelector('#f-name-error')?.text).toMatch(/letters, digits/);
      expect(bad.html.querySelector('#f-name')?.getAttribute('value')).toBe('bad name');
      const taken = await browser.post('/org/acme-labs/rename', { name: 'acme' });
      expect(taken.status).toBe(400);
      expect(taken.html.querySelector('#f-name-error')?.text).toMatch(/name is not available/);

      const done = await browser.post('/org/acme-labs/rename', { name: 'acme-research' });
      expect(done.status).toBe(303);
      expect(done.location).toBe('/org/acme-research?done=renamed');
      expect((await browser.get('/org/acme-labs')).status).toBe(404);
      // A done code shows only its own fixed text; any other code (even one of Object's own names) none.
      for (const code of ['renamed', 'constructor', '__proto__', 'toString', '<b>x</b>']) {
        const shown = await browser.get(`/org/acme-research?done=${encodeURIComponent(code)}`);
        expect(shown.status, code).toBe(200);
        expect(shown.html.querySelector('.notice')?.text.trim(), code).toBe(
          code === 'renamed' ? 'The organization was renamed.' : undefined,
        );
      }
      const audit = await browser.get('/org/acme-research/audit?action=organization.update');
      expect(audit.text).toContain('acme-labs → acme-research');
    });

    it('deletes only when the name is typed, and the organization is gone', async () => {
      const page = await browser.get('/org/acme-research');
      expect(
        page.html.querySelector('form[action="/org/acme-research/delete"]')?.getAttribute('data-confirm'),
      ).toMatch(/Delete acme-research/);
      const wrong = await browser.post('/org/acme-research/delete', { confirm: 'acme' });
      expect(wrong.status).toBe(400);
      expect(wrong.html.querySelector('#f-confirm-error')?.text).toMatch(/type the organization's name/);
      expect(wrong.html.querySelector('#f-confirm')?.getAttribute('value')).toBe('acme');

      const done = await browser.post('/org/acme-research/delete', { confirm: 'acme-research' });
      expect(done.status).toBe(303);
      expect((await browser.get('/org/acme-research')).status).toBe(404);
      expect(
        await api.services.accounts.getOrganization('acme-research').catch((e: Error) => e.message),
      ).toMatch(/Not found/);
      // The other organization is untouched.
      expect((await browser.get('/org/acme')).status).toBe(200);
    });
  });

  describe('Members', () => {
    it('invites (without SMTP: the link to copy, shown once), lists pending invitations, refuses bad input', async () => {
      const page = await browser.get('/org/acme/members');
      expect(page.status).toBe(200);
      expect(page.text).toContain('Email is not configured');

      const bad = await browser.post('/org/acme/members', { email: 'nope', role: 'member' });
      expect(bad.status).toBe(400);
      expect(bad.html.querySelector('#f-email-error')?.text).toMatch(/not an email/);
      expect(bad.html.querySelector('#f-email')?.getAttribute('value')).toBe('nope');
      const badRole = await browser.post('/org/acme/members', { email: 'x@example.org', role: 'admin' });
      expect(badRole.status).toBe(400);
      expect(badRole.html.querySelector('.field.has-error select[name=role] ~ .error')?.text).toMatch(
        /owner or member/,
      );

      const invited = await browser.post('/org/acme/members', { email: 'Dana@Example.org', role: 'member' });
      expect(invited.status).toBe(201);
      const link = invited.html.querySelector('#invitation-link')?.getAttribute('value') ?? '';
      expect(link).toMatch(/^https:\/\/vt\.example\.org\/invitations\/[A-Za-z0-9_-]{30,}$/);
      expect(invited.html.querySelector('button[data-copy=invitation-link]')).toBeTruthy();
      expect(invited.text).toContain('dana@example.org');

      const again = await browser.post('/org/acme/members', { email: 'dana@example.org', role: 'member' });
      expect(again.status).toBe(400);
      expect(again.html.querySelector('#f-email-error')?.text).toMatch(/invitation has already been sent/);

      // The list: the pending invitation with resend and withdraw; the link is not shown again.
      const list = await browser.get('/org/acme/members');
      expect(list.html.querySelector('#invitation-link')).toBeNull();
      const row = list.html
        .querySelectorAll('table.data tbody tr')
        .find((r) => r.text.includes('dana@example.org'))!;
      expect(row.text).toContain('Invited');
      expect(row.querySelector('form[action$="/resend"]')).toBeTruthy();
      expect(row.querySelector('form[action$="/remove"] button')?.text).toBe('Withdraw');

      // Resend: a new link, and the first one stops working.
      const resent = await browser.post(
        row.querySelector('form[action$="/resend"]')!.getAttribute('action')!,
      );
      expect(resent.status).toBe(200);
      const second = resent.html.querySelector('#invitation-link')?.getAttribute('value') ?? '';
      expect(second).not.toBe(link);
      const anonymous = new (browser.constructor as typeof WebClient)(api.app);
      expect((await anonymous.get(new URL(link).pathname)).status).toBe(404);
      expect((await anonymous.get(new URL(second).pathname)).status).toBe(200);

      // Withdraw: the link answers 404.
      await browser.get('/org/acme/members');
      const withdrawn = await browser.post(
        row.querySelector('form[action$="/remove"]')!.getAttribute('action')!,
      );
      expect(withdrawn.status).toBe(303);
      expect(withdrawn.location).toBe('/org/acme/members?done=withdrawn');
      expect((await anonymous.get(new URL(second).pathname)).status).toBe(404);
    });

    it('keeps the links made earlier on the page when a second person is invited, while they work', async () => {
      await browser.get('/org/acme/members');
      const first = await browser.post('/org/acme/members', { email: 'erin@example.org', role: 'member' });
      const erinLink = first.html.querySelector('#invitation-link')!.getAttribute('value')!;
      /** The hidden `shown` fields of a page's invite form, as the browser posts them. */
      const shownOf = (page: typeof first) =>
        page.html
          .querySelectorAll('form[action="/org/acme/members"] input[name=shown]')
          .map((i) => i.getAttribute('value')!);
      expect(shownOf(first)).toEqual([erinLink]);

      // The second invitation's answer: its link first, the first one still there, labelled.
      const second = await browser.post('/org/acme/members', {
        email: 'frank@example.org',
        role: 'member',
        shown: [...shownOf(first), 'https://vt.example.org/invitations/made-up-link-of-thirty-chars', 'x'],
      });
      expect(second.status).toBe(201);
      const frankLink = second.html.querySelector('#invitation-link')!.getAttribute('value')!;
      expect(frankLink).not.toBe(erinLink);
      expect(second.html.querySelector('#invitation-link-1')?.getAttribute('value')).toBe(erinLink);
      expect(second.html.querySelector('label[for=invitation-link-1]')?.text).toContain('erin@example.org');
      // A link that is not one of this organization's working links is not shown.
      expect(second.html.querySelector('#invitation-link-2')).toBeNull();
      expect(shownOf(second)).toEqual([frankLink, erinLink]);

      // Once Erin's invitation is withdrawn, her link is not listed any more.
      const members = await browser.get('/org/acme/members');
      const erin = members.html
        .querySelectorAll('table.data tbody tr')
        .find((r) => r.text.includes('erin@example.org'))!;
      await browser.post(erin.querySelector('form[action$="/remove"]')!.getAttribute('action')!);
      await browser.get('/org/acme/members');
      const third = await browser.post('/org/acme/members', {
        email: 'gil@example.org',
        role: 'member',
        shown: shownOf(second),
      });
      expect(third.html.querySelector('#invitation-link-1')?.getAttribute('value')).toBe(frankLink);
      expect(third.html.querySelector('#invitation-link-2')).toBeNull();
    });

    it('changes roles, and guards the last owner with a message', async () => {
      const me = (await api.services.members.list(owner.org.id, { page: 1, pageSize: 50 })).items.find(
        (m) => m.user_id === owner.user.id,
      )!;
      await browser.get('/org/acme/members');
      const demote = await browser.post(`/org/acme/members/${me.id}/role`, { role: 'member' });
      expect(demote.status).toBe(400);
      expect(demote.html.querySelector('.notice.error')?.text).toMatch(/only owner/);
      const remove = await browser.post(`/org/acme/members/${me.id}/remove`);
      expect(remove.status).toBe(400);
      expect(remove.html.querySelector('.notice.error')?.text).toMatch(/cannot remove the last owner/i);

      const invited = await api.services.members.invite(
        owner.org.id,
        { email: 'eve@example.org' },
        owner.actor,
      );
      const promote = await browser.post(`/org/acme/members/${invited.id}/role`, { role: 'owner' });
      expect(promote.status).toBe(303);
      const list = await browser.follow(promote);
      expect(list.text).toContain('The role was changed');
      expect(list.html.querySelector(`#role-${invited.id} option[selected]`)?.getAttribute('value')).toBe(
        'owner',
      );
      const bad = await browser.post(`/org/acme/members/${invited.id}/role`, { role: 'boss' });
      expect(bad.status).toBe(400);
      expect((await browser.post(`/org/acme/members/not-a-uuid/role`, { role: 'owner' })).status).toBe(404);
      expect(
        (await browser.post(`/org/acme/members/00000000-0000-4000-8000-000000000000/remove`)).status,
      ).toBe(404);
    });
  });

  describe('API tokens', () => {
    it('creates a token shown once with a copy button and a curl line, which works against API v2', async () => {
      const page = await browser.get('/org/acme/tokens');
      expect(page.status).toBe(200);
      expect(page.html.querySelectorAll('input[type=checkbox][name=scopes]').length).toBeGreaterThan(10);

      const bad = await browser.post('/org/acme/tokens', {
        name: '',
        mode: 'read',
        scopes: ['org:read', 'nope:read'],
      });
      expect(bad.status).toBe(400);
      expect(bad.html.querySelector('#f-name-error')?.text).toMatch(/1 to 100/);
      expect(bad.text).toContain('unknown scope "nope:read"');
      expect(bad.html.querySelector('input[name=scopes][value="org:read"]')?.hasAttribute('checked')).toBe(
        true,
      );

      const created = await browser.post('/org/acme/tokens', {
        name: 'ci-scanner',
        description: 'nightly scan',
        mode: 'read',
        scopes: ['org:read', 'catalog:read'],
      });
      expect(created.status).toBe(201);
      const token = created.html.querySelector('#new-token')?.getAttribute('value') ?? '';
      expect(token).toMatch(/^vtr_org\.[A-Za-z0-9]{12}\.[A-Za-z0-9]{32}$/);
      expect(created.html.querySelector('button[data-copy=new-token]')).toBeTruthy();
      expect(created.html.querySelector('#new-token-curl')?.getAttribute('value')).toBe(
        `curl -H "Authorization: Bearer ${token}" https://vt.example.org/api/v2/organizations/acme`,
      );

      const used = await api.app.inject({
        url: '/api/v2/organizations/acme',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(used.statusCode).toBe(200);
      const readOnly = await api.app.inject({
        method: 'PATCH',
        url: '/api/v2/organizations/acme',
        headers: { authorization: `Bearer ${token}` },
        payload: { name: 'x' },
      });
      expect(readOnly.statusCode).toBe(403);

      // Listed without its secret: mode, scopes, created by, last used.
      const list = await browser.get('/org/acme/tokens');
      expect(list.body).not.toContain(token);
      const row = list.html
        .querySelectorAll('table.data tbody tr')
        .find((r) => r.text.includes('ci-scanner'))!;
      expect(row.text).toContain('read');
      expect(row.querySelectorAll('.chip').map((c) => c.text)).toEqual(['catalog:read', 'org:read']);
      expect(row.text).toContain(owner.user.username);
      expect(row.text).toContain('Active');
      expect(row.text).not.toContain('never');

      // Revoke (asks first), then the token stops working.
      const revoke = row.querySelector('form[action$="/revoke"]')!;
      expect(revoke.getAttribute('data-confirm')).toMatch(/Revoke the token ci-scanner/);
      const revoked = await browser.post(revoke.getAttribute('action')!);
      expect(revoked.status).toBe(303);
      expect((await browser.follow(revoked)).text).toContain('Revoked');
      const after = await api.app.inject({
        url: '/api/v2/organizations/acme',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(after.statusCode).toBe(401);
      expect((await browser.post(revoke.getAttribute('action')!)).status).toBe(404);
    });
  });

  describe('Audit log', () => {
    it('lists the steps with old → new, filtered by actor, resource, action and dates in the URL', async () => {
      const all = await browser.get('/org/acme/audit');
      expect(all.status).toBe(200);
      const actions = all.html.querySelectorAll('tbody td.mono').map((td) => td.text);
      expect(actions).toEqual(
        expect.arrayContaining([
          'token.create',
          'token.revoke',
          'member.create',
          'member.update',
          'member.delete',
        ]),
      );
      expect(all.html.querySelectorAll('select[name=actor] option').map((o) => o.text)).toContain(
        owner.user.username,
      );

      const roles = await browser.get('/org/acme/audit?resource=member&action=member.update');
      const rows = roles.html.querySelectorAll('table.data tbody tr');
      expect(rows).toHaveLength(1);
      expect(rows[0]!.text).toContain('eve@example.org');
      expect(rows[0]!.querySelector('del')?.text).toBe('member');
      expect(rows[0]!.querySelector('ins')?.text).toBe('owner');
      expect(roles.html.querySelector('select[name=action] option[selected]')?.getAttribute('value')).toBe(
        'member.update',
      );

      const byNobody = await browser.get('/org/acme/audit?actor=nobody');
      expect(byNobody.text).toContain('0 entries');
      const today = new Date().toISOString().slice(0, 10);
      const dated = await browser.get(`/org/acme/audit?from=${today}&to=${today}&action=token.create`);
      expect(dated.html.querySelectorAll('table.data tbody tr')).toHaveLength(1);
      const past = await browser.get('/org/acme/audit?to=2000-01-01');
      expect(past.text).toContain('0 entries');

      const bad = await browser.get('/org/acme/audit?from=2024-02-30&to=yesterday');
      expect(bad.status).toBe(400);
      expect(bad.html.querySelector('#f-from-error')?.text).toMatch(/A date such as/);
      expect(bad.html.querySelector('#f-to-error')?.text).toMatch(/A date such as/);
      expect(bad.html.querySelector('#f-from')?.getAttribute('value')).toBe('2024-02-30');
      const reversed = await browser.get('/org/acme/audit?from=2024-03-02&to=2024-03-01');
      expect(reversed.status).toBe(400);
      expect((await browser.get('/org/acme/audit?page=99')).status).toBe(404);
    });
  });

  describe('API tokens: "Try it"', () => {
    it("offers a curl line the token's scopes allow: it answers 200, never 403", async () => {
      await api.services.projects.create(owner.org.id, { name: 'web' }, owner.actor);
      const cases: { scopes: string[]; mode?: string; path?: string }[] = [
        { scopes: ['projects:read'], path: '/api/v2/organizations/acme/projects' },
        { scopes: [], path: '/api/v2/organizations/acme' },
        { scopes: ['org:read'] },
        { scopes: ['catalog:read'], path: '/api/v2/cves' },
        { scopes: ['members:read'] },
        { scopes: ['audit_logs:read'] },
        { scopes: ['subscriptions:read'], path: '/api/v2/organizations/acme/projects/web/subscriptions' },
        { scopes: ['tracker:read'], path: '/api/v2/organizations/acme/projects/web/cves' },
        { scopes: ['notifications:read'] },
        { scopes: ['automations:read'] },
        { scopes: ['reports:read'] },
        { scopes: ['tracker:write'], mode: 'write' },
      ];
      for (const [i, c] of cases.entries()) {
        const created = await browser.post('/org/acme/tokens', {
          name: `try-${i}`,
          mode: c.mode ?? 'read',
          scopes: c.scopes,
        });
        expect(created.status).toBe(201);
        const curl = created.html.querySelector('#new-token-curl')?.getAttribute('value') ?? '';
        const m = /^curl -H "Authorization: Bearer (\S+)" https:\/\/vt\.example\.org(\/\S+)$/.exec(curl);
        expect(m, curl).not.toBeNull();
        if (c.path) expect(m![2]).toBe(c.path);
        const tried = await api.app.inject({ url: m![2]!, headers: { authorization: `Bearer ${m![1]}` } });
        expect(tried.statusCode, `${c.scopes.join(',')}: ${m![2]} ${tried.body.slice(0, 200)}`).toBe(200);
      }
    });
  });

  describe('a member (not an owner)', () => {
    let member: WebClient;
    beforeAll(async () => {
      const user = await api.services.accounts.createUser({
        username: 'mia',
        email: 'mia@example.org',
        password: PASSWORD,
      });
      await api.services.members.invite(owner.org.id, { email: 'mia@example.org' }, owner.actor);
      await api.services.accounts.acceptInvitation(user.id, 'acme');
      member = await signedIn(api, 'mia', PASSWORD);
    });

    it('sees General and Members read-only, without the owner tabs', async () => {
      const general = await member.get('/org/acme');
      expect(general.status).toBe(200);
      expect(general.html.querySelectorAll('nav.tabs a').map((a) => a.text)).toEqual([
        'General',
        'Members',
        'Weekly report',
      ]);
      expect(general.html.querySelector('form[action$="/rename"]')).toBeNull();
      const members = await member.get('/org/acme/members');
      expect(members.status).toBe(200);
      expect(members.html.querySelector('form[action="/org/acme/members"]')).toBeNull();
      expect(members.html.querySelector('select[name=role]')).toBeNull();
      expect(members.text).toContain('mia@example.org');
    });
  });
});
