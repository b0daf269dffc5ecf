import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApi, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { WebClient } from '../helpers/web.ts';

describeEachDatabase('web: the first-administrator link under concurrency', (use) => {
  let api: TestApi;

  beforeAll(async () => {
    api = await buildTestApi(use());
  });
  afterAll(() => api.close());

  describe('six people posting the setup form at once', () => {
    it('creates one administrator and one organization; the others find the link spent', async () => {
      const token = await api.services.webSessions.firstAdminLink();
      // Each with its own session and CSRF token, as six browsers would be.
      const browsers = Array.from({ length: 6 }, () => new WebClient(api.app));
      for (const browser of browsers) expect((await browser.get(`/setup/${token}`)).status).toBe(200);
      const answers = await Promise.all(
        browsers.map((browser, i) =>
          browser.post(`/setup/${token}`, {
            username: `admin${i}`,
            email: `admin${i}@example.com`,
            password: 'correct horse battery',
            organization: `acme${i}`,
          }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([303, 404, 404, 404, 404, 404]);
      const users = await api.services.accounts.listUsers();
      expect(users).toHaveLength(1);
      expect(users[0]!.isAdmin).toBe(true);
      const winner = Number(users[0]!.username.slice('admin'.length));
      expect(answers[winner]!.status).toBe(303);
      // The winner's organization, and none of the others'.
      const admin = await api.services.webSessions.signIn(
        users[0]!.username,
        'correct horse battery',
        'test',
      );
      expect((await api.services.webSessions.organizationsOf(admin.id)).map((o) => o.name)).toEqual([
        `acme${winner}`,
      ]);
      for (let i = 0; i < 6; i++)
        if (i !== winner)
          await expect(
            api.services.accounts.createOrganization(`acme${i}`, users[0]!.username),
          ).resolves.toBeTruthy();
    });
  });
});
