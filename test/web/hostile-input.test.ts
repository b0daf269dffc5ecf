import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, WebClient } from '../helpers/web.ts';

describeEachDatabase('web: hostile input is a clear 4xx, never a 500', (use) => {
  let api: TestApi;
  let owner: WebClient;

  beforeAll(async () => {
    api = await buildTestApi(use());
    const acme = await createOrganization(api.services, 'acme');
    await api.services.projects.create(acme.org.id, { name: 'web' }, acme.actor);
    owner = await signedIn(api, acme.user.username, 'correct horse battery staple');
  });
  afterAll(() => api.close());

  describe('a NUL character in a form field', () => {
    it('is refused with 400 and a sentence, before signing in and after', async () => {
      const visitor = new WebClient(api.app);
      await visitor.get('/login');
      for (const [client, url, body] of [
        [visitor, '/login', { login: 'ad\u0000min', password: 'x', next: '/' }],
        [visitor, '/password-reset', { login: 'a\u0000@example.com' }],
        [owner, '/org/acme/projects/web/settings', { name: 'we\u0000b', description: '' }],
        [owner, '/account', { email: 'x\u0000@example.com' }],
      ] as const) {
        if (client === visitor) await client.get(url);
        const page = await client.post(url, body);
        expect([url, page.status]).toEqual([url, 400]);
        expect(page.text).toContain('contains a NUL character');
      }
    });
  });

  describe('a template name that is one of Object’s own', () => {
    it('opens the builder without a template', async () => {
      for (const template of ['__proto__', 'constructor', 'toString']) {
        const page = await owner.get(`/org/acme/projects/web/automations/new?template=${template}`);
        expect(page.status).toBe(200);
      }
    });
  });

  describe('a `next` that would leave the site', () => {
    const outside = [
      '/\t/evil.example/phish',
      '/\t\\evil.example',
      '/\n/evil.example',
      '//evil.example',
      'https://evil.example/',
    ];

    it('sends a signed-in user home instead', async () => {
      for (const next of outside) {
        const page = await owner.get(`/login?next=${encodeURIComponent(next)}`);
        expect([next, page.status, page.location]).toEqual([next, 302, '/']);
      }
    });

    it('signs in and lands at home, never outside', async () => {
      const acme = (await api.services.accounts.listUsers())[0]!;
      for (const next of outside) {
        const visitor = new WebClient(api.app);
        await visitor.get(`/login?next=${encodeURIComponent(next)}`);
        const signedIn = await visitor.post('/login', {
          login: acme.username,
          password: 'correct horse battery staple',
          next,
        });
        expect([next, signedIn.status, signedIn.location]).toEqual([next, 303, '/']);
      }
    });
  });
});
