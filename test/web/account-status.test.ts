/**
 * Issue 32, item 11: turning two-factor on ends the user's other sessions; a server administrator
 * disables an account (no sign-in on the web or API v1, sessions end, tokens revoked with an audit
 * entry each, still a member) and enables it again; `/admin/users` is for server administrators only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, WebClient } from '../helpers/web.ts';
import { routesUnder } from './route-tree.ts';

const PASSWORD = 'correct horse battery staple';
const basic = (login: string, password: string) =>
  `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

const codeOf = (secret: string) =>
  new TOTP({
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: Secret.fromBase32(secret.replace(/\s+/g, '')),
  }).generate();

describeEachDatabase('web: sessions after two-factor, disabled accounts, /admin/users', (use) => {
  let api: TestApi;
  let admin: WebClient;
  let adminName = '';

  beforeAll(async () => {
    api = await buildTestApi(use());
    const created = await api.services.accounts.createUser({
      username: `admin-${Date.now()}`,
      email: `admin-${Date.now()}@status.example`,
      password: PASSWORD,
      isAdmin: true,
    });
    adminName = created.username;
    admin = await signedIn(api, adminName, PASSWORD);
  });
  afterAll(() => api.close());

  const v1 = (login: string, password = PASSWORD) =>
    api.app.inject({
      method: 'GET',
      url: '/api/organizations',
      headers: { authorization: basic(login, password) },
    });

  describe('turning two-factor on', () => {
    it('ends every other session of the user, and the one that turned it on stays signed in', async () => {
      const { user } = await createOrganization(api.services, 'status2fa');
      const here = await signedIn(api, user.username, PASSWORD);
      const elsewhere = await signedIn(api, user.username, PASSWORD);
      expect((await elsewhere.get('/account')).status).toBe(200);

      await here.post('/account/security/two-factor/start');
      const setup = await here.get('/account/security/two-factor');
      const secret = setup.html.querySelector('#totp-secret')!.getAttribute('value')!;
      const on = await here.post('/account/security/two-factor', { code: codeOf(secret) });
      expect(on.status).toBe(200);
      expect(on.text).toContain('Every other session of your account has ended');

      expect((await here.get('/account')).status).toBe(200);
      const out = await elsewhere.get('/account');
      expect(out.status).toBe(302);
      expect(out.location).toBe('/login?next=%2Faccount');
    });
  });

  describe('disabling an account', () => {
    it('refuses sign-in and Basic, ends the sessions, revokes the tokens with an audit entry each; enabling restores sign-in', async () => {
      const { org, user, actor } = await createOrganization(api.services, 'statusoff');
      const tokens = await Promise.all(
        ['first', 'second'].map((name) => createToken(api.services, org.id, actor, { name })),
      );
      const orgUrl = `/api/v2/organizations/${org.name}`;
      const asToken = (header: string) =>
        api.app.inject({ method: 'GET', url: orgUrl, headers: { authorization: header } });
      expect((await asToken(tokens[0]!.header)).statusCode).toBe(200);
      expect((await v1(user.username)).statusCode).toBe(200); // cached by Basic auth from here on
      const browser = await signedIn(api, user.username, PASSWORD);

      const users = await admin.get('/admin/users');
      expect(users.status).toBe(200);
      const form = users.html
        .querySelectorAll('form')
        .find(
          (f) => f.getAttribute('action') === `/admin/users/${encodeURIComponent(user.username)}/disable`,
        );
      expect(form?.querySelector('button')?.text.trim()).toBe('Disable');
      const disabled = await admin.post(form!.getAttribute('action')!);
      expect(disabled.status).toBe(303);
      expect(disabled.location).toBe('/admin/users?done=disabled');
      const after = await admin.follow(disabled);
      expect(after.text).toContain('The account is disabled');
      const row = after.html.querySelectorAll('tbody tr').find((tr) => tr.text.includes(user.username))!;
      expect(row.text).toContain('Disabled');
      expect(row.querySelector('button')?.text.trim()).toBe('Enable');

      // The session in the other browser is over.
      const out = await browser.get('/account');
      expect(out.status).toBe(302);
      expect(out.location).toBe('/login?next=%2Faccount');
      // Signing in is refused, with the right password only saying why.
      const refused = new WebClient(api.app);
      await refused.get('/login');
      const wrong = await refused.post('/login', {
        login: user.username,
        password: 'not the password',
        next: '/',
      });
      expect(wrong.text).toContain('Wrong username, email or password.');
      const right = await refused.post('/login', { login: user.email, password: PASSWORD, next: '/' });
      expect(right.status).toBe(400);
      expect(right.text).toContain('This account is disabled.');
      expect((await refused.get('/account')).status).toBe(302);
      // API v1 Basic, though the credential was cached, and API v2 tokens.
      const basicRefused = await v1(user.username);
      expect(basicRefused.statusCode).toBe(401);
      expect(basicRefused.json()).toEqual({ detail: 'User inactive or deleted.' });
      for (const { header } of tokens) expect((await asToken(header)).statusCode).toBe(401);
      // One audit entry per token; still a member.
      const audit = await api.services.auditLog.list(
        org.id,
        { action: 'token.revoke' },
        { page: 1, pageSize: 50 },
      );
      expect(audit.items.map((e) => [e.resource_name, e.actor_name, e.changes]).sort()).toEqual(
        ['first', 'second'].map((name) => [
          name,
          adminName,
          { revoked: { old: null, new: `its creator ${user.email} was disabled` } },
        ]),
      );
      const members = await api.services.members.list(org.id, { page: 1, pageSize: 50 });
      expect(members.items.map((m) => m.user_id)).toEqual([user.id]);

      // Enabled again: sign-in works (web and Basic); the tokens stay revoked.
      const enabled = await admin.post(`/admin/users/${encodeURIComponent(user.username)}/enable`);
      expect(enabled.location).toBe('/admin/users?done=enabled');
      const back = await signedIn(api, user.username, PASSWORD);
      expect((await back.get('/account')).status).toBe(200);
      expect((await v1(user.username)).statusCode).toBe(200);
      for (const { header } of tokens) expect((await asToken(header)).statusCode).toBe(401);
    });

    it('refuses the second step of a sign-in when the account was disabled after the password', async () => {
      const { user } = await createOrganization(api.services, 'statushalf');
      const here = await signedIn(api, user.username, PASSWORD);
      await here.post('/account/security/two-factor/start');
      const secret = (await here.get('/account/security/two-factor')).html
        .querySelector('#totp-secret')!
        .getAttribute('value')!;
      expect((await here.post('/account/security/two-factor', { code: codeOf(secret) })).status).toBe(200);

      const half = new WebClient(api.app);
      await half.get('/login');
      expect(
        (await half.post('/login', { login: user.username, password: PASSWORD, next: '/' })).location,
      ).toBe('/login/two-factor');
      await api.services.accounts.disableUser(user.username, { type: 'system', id: null, name: 'test' });
      await half.get('/login/two-factor');
      const step = await half.post('/login/two-factor', { code: codeOf(secret) });
      expect(step.status).toBe(400);
      expect(step.text).toContain('This account is disabled.');
      expect((await half.get('/account')).status).toBe(302);
    });
  });

  describe('/admin/users', () => {
    it('answers 404 to a user who is not a server administrator, for the page and its forms', async () => {
      const { user } = await createOrganization(api.services, 'statusnotadmin');
      const { user: target } = await createOrganization(api.services, 'statustarget');
      const browser = await signedIn(api, user.username, PASSWORD);
      await browser.get('/account');
      // Every route the app serves under /admin, so a page added later is walked too.
      const served = routesUnder(api.app.printRoutes({ commonPrefix: false }), '/admin');
      expect(served).toEqual([
        'GET /admin/users',
        'POST /admin/users/:username/disable',
        'POST /admin/users/:username/enable',
      ]);
      for (const route of served) {
        const [method, url] = route.split(' ') as ['GET' | 'POST', string];
        const path = url.replace(':username', encodeURIComponent(target.username));
        const answer = method === 'GET' ? await browser.get(path) : await browser.post(path);
        expect({ route, status: answer.status }).toEqual({ route, status: 404 });
      }
      expect((await signedIn(api, target.username, PASSWORD)).cookie('vt_session')).toBeTruthy();
      // Not signed in: sign in first, as every page.
      const visitor = await new WebClient(api.app).get('/admin/users');
      expect(visitor.status).toBe(302);
      expect(visitor.location).toBe('/login?next=%2Fadmin%2Fusers');
    });

    it('is in the account menu of an administrator only, refuses a form without CSRF, and an administrator cannot disable themselves', async () => {
      expect((await admin.get('/account')).html.querySelector('a[href="/admin/users"]')).toBeTruthy();
      const { user } = await createOrganization(api.services, 'statusmenu');
      const browser = await signedIn(api, user.username, PASSWORD);
      expect((await browser.get('/account')).html.querySelector('a[href="/admin/users"]')).toBeNull();

      const page = await admin.get('/admin/users');
      const own = page.html.querySelectorAll('tbody tr').find((tr) => tr.text.includes(adminName))!;
      expect(own.querySelector('form')).toBeNull();
      const forged = await admin.post(`/admin/users/${user.username}/disable`, { _csrf: 'forged' });
      expect(forged.status).toBe(403);
      const self = await admin.post(`/admin/users/${encodeURIComponent(adminName)}/disable`);
      expect(self.status).toBe(409);
      expect(self.text).toContain('You cannot disable your own account.');
      expect((await admin.get('/admin/users')).status).toBe(200);
      expect((await admin.post('/admin/users/nobody-here/disable')).status).toBe(404);
      expect(
        (await api.services.accounts.listUsers()).filter((u) => u.disabled).map((u) => u.username),
      ).not.toContain(user.username);
    });
  });
});
