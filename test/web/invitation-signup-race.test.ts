/**
 * Sign-ups racing on one invitation link: one account is made and joins; every other form gets a
 * clear 409 page (the invitation was just used), never a 500, on the web and on API v2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { WebClient } from '../helpers/web.ts';

const PASSWORD = 'correct horse battery staple';

describeEachDatabase('an invitation link used by several sign-ups at once', (use) => {
  let api: TestApi;
  let acme: Awaited<ReturnType<typeof createOrganization>>;

  beforeAll(async () => {
    api = await buildTestApi(use());
    acme = await createOrganization(api.services, 'racers');
  });
  afterAll(() => api.close());

  /** A new invitation's link path (no SMTP here: the service hands the link over). */
  const invite = async (email: string) => {
    const { invitation } = await api.services.members.invite(acme.org.id, { email }, acme.actor);
    if (!('link' in invitation)) throw new Error('expected the link');
    return new URL(invitation.link).pathname;
  };

  const accountsOf = async (email: string) =>
    (await api.services.accounts.listUsers()).filter((u) => u.email === email);

  describe('on the web', () => {
    it('makes one account; the other forms get a 4xx page that says why, never a 500', async () => {
      const path = await invite('six@example.org');
      const browsers = Array.from({ length: 6 }, () => new WebClient(api.app));
      for (const browser of browsers) expect((await browser.get(path)).status).toBe(200);
      const answers = await Promise.all(
        browsers.map((browser, i) =>
          browser.post(`${path}/signup`, { username: `racer${i}`, password: PASSWORD }),
        ),
      );
      // A loser that got past the link's check reads it as just used (409); one that came later, as
      // spent (404, as on its page). Both are a page with a sentence.
      expect(answers.filter((a) => a.status === 303)).toHaveLength(1);
      for (const lost of answers.filter((a) => a.status !== 303)) {
        expect([404, 409]).toContain(lost.status);
        expect(lost.text).toMatch(
          lost.status === 409 ? /This invitation was just used/ : /This invitation link is not valid/,
        );
      }
      expect(await accountsOf('six@example.org')).toHaveLength(1);
      // The link is spent: its page is a 404 now.
      expect((await new WebClient(api.app).get(path)).status).toBe(404);
    });

    it('keeps the link working when the one sign-up is refused (a taken username)', async () => {
      const path = await invite('retry@example.org');
      const browser = new WebClient(api.app);
      await browser.get(path);
      const taken = await browser.post(`${path}/signup`, {
        username: acme.user.username,
        password: PASSWORD,
      });
      expect(taken.status).toBe(400);
      const joined = await browser.post(`${path}/signup`, { username: 'retrier', password: PASSWORD });
      expect(joined.status).toBe(303);
    });
  });

  describe('on API v2', () => {
    it('makes one account and answers the others with a 4xx in the envelope, never a 500', async () => {
      const token = (await invite('api@example.org')).split('/').at(-1)!;
      const answers = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          api.app.inject({
            method: 'POST',
            url: '/api/v2/invitations/accept',
            payload: { token, username: `apiracer${i}`, password: PASSWORD },
          }),
        ),
      );
      // The losers read the link as just used (409), or, later, as spent (404) or the account as
      // someone else's (401): each a sentence, none a failure of ours.
      expect(answers.filter((a) => a.statusCode < 300)).toHaveLength(1);
      for (const lost of answers.filter((a) => a.statusCode >= 300)) {
        expect(lost.statusCode).toBeLessThan(500);
        expect(lost.json().error.message).toEqual(expect.any(String));
      }
      expect(await accountsOf('api@example.org')).toHaveLength(1);
    });
  });
});
