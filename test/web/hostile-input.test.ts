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
});
