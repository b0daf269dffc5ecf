import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, WebClient } from '../helpers/web.ts';

describeEachDatabase('web: first administrator, sign-in, sign-out', (use) => {
  let api: TestApi;

  beforeAll(async () => {
    api = await buildTestApi(use());
  });
  afterAll(() => api.close());

  describe('first run', () => {
    it('creates the first administrator and their organization through the one-time link, once', async () => {
      const token = await api.services.webSessions.firstAdminLink();
      expect(token).toBeTruthy();
      const browser = new WebClient(api.app);

      const form = await browser.get(`/setup/${token}`);
      expect(form.status).toBe(200);
      expect(form.html.querySelector('form[action^="/setup/"] input[name=username]')).toBeTruthy();

      // Bad input: every problem beside its field, and what was typed is kept.
      const bad = await browser.post(`/setup/${token}`, {
        username: 'ad min',
        email: 'not-an-email',
        password: 'short',
        organization: 'Acme Corp!',
      });
      expect(bad.status).toBe(400);
      expect(bad.html.querySelector('#f-username-error')?.text).toMatch(/letters, digits/);
      expect(bad.html.querySelector('#f-email-error')?.text).toMatch(/not an email/);
      expect(bad.html.querySelector('#f-password-error')?.text).toMatch(/at least 8/);
      expect(bad.html.querySelector('#f-organization-error')?.text).toMatch(/Letters, digits and -/);
      expect(bad.html.querySelector('#f-email')?.getAttribute('value')).toBe('not-an-email');

      const created = await browser.post(`/setup/${token}`, {
        username: 'admin',
        email: 'admin@example.com',
        password: 'correct horse battery',
        organization: 'acme',
      });
      expect(created.status).toBe(303);
      const home = await browser.follow(created);
      expect(home.html.querySelector('#account-menu .menu-name')?.text).toBe('admin');

      // The link is spent, and no new one is made once a user exists.
      const spent = await new WebClient(api.app).get(`/setup/${token}`);
      expect(spent.status).toBe(404);
      expect(spent.text).toContain('This link is not valid any more');
      expect(await api.services.webSessions.firstAdminLink()).toBeUndefined();
      const orgs = await api.services.webSessions.organizationsOf(
        (await api.services.webSessions.signIn('admin', 'correct horse battery', 'test')).id,
      );
      expect(orgs.map((o) => [o.name, o.role])).toEqual([['acme', 'owner']]);
    });

    it('answers 404 for a made-up setup link', async () => {
      expect((await new WebClient(api.app).get('/setup/not-a-real-token')).status).toBe(404);
    });
  });

  describe('sign-in', () => {
    let owner: Awaited<ReturnType<typeof createOrganization>>;
    beforeAll(async () => {
      owner = await createOrganization(api.services, 'websignin');
    });

    it('sends a visitor to the sign-in page, then back where they were going', async () => {
      const browser = new WebClient(api.app);
      const page = await browser.get('/search?q=log4j');
      expect(page.status).toBe(302);
      expect(page.location).toBe('/login?next=%2Fsearch%3Fq%3Dlog4j');
      const form = await browser.get(page.location!);
      expect(form.html.querySelector('input[name=next]')?.getAttribute('value')).toBe('/search?q=log4j');
      const done = await browser.post('/login', {
        login: owner.user.email,
        password: 'correct horse battery staple',
        next: '/search?q=log4j',
      });
      expect(done.status).toBe(303);
      expect(done.location).toBe('/search?q=log4j');
    });

    it('sets an HttpOnly SameSite session cookie, Secure behind TLS', async () => {
      const browser = new WebClient(api.app);
      await browser.get('/login');
      const plain = await api.app.inject({
        method: 'POST',
        url: '/login',
        payload: new URLSearchParams({
          login: owner.user.username,
          password: 'correct horse battery staple',
          _csrf: browser.csrf,
        }).toString(),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: `vt_csrf=${browser.cookie('vt_csrf')}`,
        },
      });
      const session = plain.cookies.find((c) => c.name === 'vt_session');
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
      expect(session?.secure).toBeFalsy();
    });

    it('refuses a wrong password with one message and keeps the login typed', async () => {
      const browser = new WebClient(api.app);
      await browser.get('/login');
      const wrong = await browser.post('/login', { login: owner.user.username, password: 'nope nope nope' });
      expect(wrong.status).toBe(400);
      expect(wrong.text).toContain('Wrong username, email or password.');
      expect(wrong.html.querySelector('#f-login')?.getAttribute('value')).toBe(owner.user.username);
      const unknown = await browser.post('/login', { login: 'nobody-here', password: 'nope nope nope' });
      expect(unknown.text).toContain('Wrong username, email or password.');
    });

    it('refuses a form without this browser’s CSRF token', async () => {
      const browser = new WebClient(api.app);
      await browser.get('/login');
      const forged = await browser.post('/login', {
        login: owner.user.username,
        password: 'correct horse battery staple',
        _csrf: 'forged',
      });
      expect(forged.status).toBe(403);
      expect(forged.text).toMatch(/form has expired or was not sent from this site/);
      const stranger = new WebClient(api.app);
      const noCookie = await stranger.post('/login', {
        login: owner.user.username,
        password: 'x',
        _csrf: browser.csrf,
      });
      expect(noCookie.status).toBe(403);
    });

    it('throttles guessing: after 10 failures from one address, even the right password waits', async () => {
      const target = await createOrganization(api.services, 'webthrottle');
      const browser = new WebClient(api.app);
      await browser.get('/login');
      for (let i = 0; i < 10; i++) {
        const r = await browser.post('/login', { login: target.user.username, password: `guess-${i}-xxxx` });
        expect(r.status).toBe(400);
      }
      const blocked = await browser.post('/login', {
        login: target.user.username,
        password: 'correct horse battery staple',
      });
      expect(blocked.status).toBe(429);
      expect(blocked.text).toMatch(/Too many failed sign-ins/);
    });

    it('signs out: the session ends on the server, not only in the browser', async () => {
      const browser = await signedIn(api, owner.user.username, 'correct horse battery staple');
      const before = browser.cookie('vt_session')!;
      expect((await browser.get('/search?q=x')).location).toBe('/cves?search=x');
      const out = await browser.post('/logout');
      expect(out.status).toBe(303);
      expect(out.location).toBe('/login');
      // The old cookie, replayed, no longer signs anyone in.
      const replay = await api.app.inject({
        method: 'GET',
        url: '/search?q=x',
        headers: { cookie: `vt_session=${before}` },
      });
      expect(replay.headers.location).toMatch(/^\/login/);
    });

    it('never redirects off the site after sign-in', async () => {
      const browser = new WebClient(api.app);
      await browser.get('/login');
      const r = await browser.post('/login', {
        login: owner.user.username,
        password: 'correct horse battery staple',
        next: '//evil.example/steal',
      });
      expect(r.location).toBe('/');
    });
  });

  describe('pages', () => {
    it('serve a strict Content-Security-Policy and the helmet headers', async () => {
      const page = await new WebClient(api.app).get('/login');
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      expect(page.html.querySelectorAll('script:not([src])')).toHaveLength(0);
      expect(page.body).not.toMatch(/ style="/);
    });

    it('answer an unknown path with an HTML 404 page, and the API with JSON', async () => {
      const page = await new WebClient(api.app).get('/no/such/page');
      expect(page.status).toBe(404);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      const apiAnswer = await api.app.inject({ method: 'GET', url: '/api/v2/no-such' });
      expect(apiAnswer.json()).toMatchObject({ error: { code: 'not_found' } });
    });

    it('serve fingerprinted, compressed, long-cached assets', async () => {
      const page = await new WebClient(api.app).get('/login');
      const css = page.html.querySelector('link[rel=stylesheet]')!.getAttribute('href')!;
      expect(css).toMatch(/^\/assets\/app-[0-9a-f]{10}\.css$/);
      const r = await api.app.inject({ method: 'GET', url: css, headers: { 'accept-encoding': 'br, gzip' } });
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-encoding']).toBe('br');
      expect(r.headers['cache-control']).toContain('immutable');
      expect((await api.app.inject({ method: 'GET', url: '/assets/app-0000000000.css' })).statusCode).toBe(
        404,
      );
    });
  });
});
