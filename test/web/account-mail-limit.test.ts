/**
 * The account-mail limit (ACCOUNT_MAIL_PER_SENDER_PER_HOUR, ACCOUNT_MAIL_PER_RECIPIENT_PER_DAY): one
 * budget for invitations, their resends, email-notification confirmations and password resets, per
 * sender and per recipient, kept in the database (another process on it counts the same emails).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetryLaterError } from '../../src/domain/errors.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, type WebClient } from '../helpers/web.ts';
import { startSink, type Sink } from '../notifications/smtp-sink.ts';

const PASSWORD = 'correct horse battery staple';

describeEachDatabase('the account-mail limit', (use) => {
  let sink: Sink;
  let api: TestApi;
  let acme: Awaited<ReturnType<typeof createOrganization>>;
  let owner: WebClient;
  let env: Record<string, string>;
  const mailsTo = (address: string) => sink.messages.filter((m) => m.to.includes(address)).length;

  beforeAll(async () => {
    sink = await startSink();
    env = {
      VULNTRACK_BASE_URL: 'https://vt.example.org',
      SMTP_URL: sink.url,
      SMTP_FROM: 'vulntrack <noreply@vt.example.org>',
      ACCOUNT_MAIL_PER_SENDER_PER_HOUR: '3',
      ACCOUNT_MAIL_PER_RECIPIENT_PER_DAY: '2',
    };
    api = await buildTestApi(use(), env);
    acme = await createOrganization(api.services, 'mailers');
    await api.services.projects.create(acme.org.id, { name: 'web' }, acme.actor);
    owner = await signedIn(api, acme.user.username, PASSWORD);
  });
  afterAll(async () => {
    await api.close();
    await sink.close();
  });

  describe('invitations on the members page', () => {
    it('refuses a third email to one address in a day, above the form, with when to try again', async () => {
      await owner.get('/org/mailers/members');
      expect(
        (await owner.post('/org/mailers/members', { email: 'twice@example.org', role: 'member' })).status,
      ).toBe(303);
      const member = await api.services.members.findByEmail(acme.org.id, 'twice@example.org');
      await owner.get('/org/mailers/members');
      expect((await owner.post(`/org/mailers/members/${member!.id}/resend`, {})).status).toBe(303);
      await owner.get('/org/mailers/members');
      const third = await owner.post(`/org/mailers/members/${member!.id}/resend`, {});
      expect(third.status).toBe(429);
      expect(third.text).toContain('twice@example.org has been sent 2 account emails in the last 24 hours');
      expect(third.text).toContain('Try again in 24 hours.');
      expect(mailsTo('twice@example.org')).toBe(2);
    });

    it("refuses a sender's emails past its hourly budget, and records nothing of the refused invitation", async () => {
      // Two emails of the owner's so far (the refused resend counted nothing).
      await owner.get('/org/mailers/members');
      expect(
        (await owner.post('/org/mailers/members', { email: 'third@example.org', role: 'member' })).status,
      ).toBe(303);
      await owner.get('/org/mailers/members');
      const refused = await owner.post('/org/mailers/members', {
        email: 'fourth@example.org',
        role: 'member',
      });
      expect(refused.status).toBe(429);
      expect(refused.text).toContain('You have sent 3 invitation or confirmation emails in the last hour');
      expect(refused.text).toMatch(/Try again in (\d+ minutes?|1 hour)\./);
      expect(await api.services.members.findByEmail(acme.org.id, 'fourth@example.org')).toBeUndefined();
      expect(mailsTo('fourth@example.org')).toBe(0);
    });

    it('holds across processes: another server on the same database counts the same emails', async () => {
      const other = await buildTestApi(use(), env);
      try {
        await expect(
          other.services.members.invite(acme.org.id, { email: 'fifth@example.org' }, acme.actor),
        ).rejects.toBeInstanceOf(RetryLaterError);
      } finally {
        await other.close();
      }
    });
  });

  describe('API v2', () => {
    it('answers 429 rate_limited in the envelope with Retry-After, per token', async () => {
      const auth = (await createToken(api.services, acme.org.id, acme.actor, { mode: 'write' })).header;
      const invite = (email: string) =>
        api.app.inject({
          method: 'POST',
          url: '/api/v2/organizations/mailers/members',
          headers: { authorization: auth },
          payload: { email },
        });
      for (const email of ['t1@example.org', 't2@example.org', 't3@example.org'])
        expect((await invite(email)).statusCode).toBe(201);
      const refused = await invite('t4@example.org');
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error.code).toBe('rate_limited');
      expect(refused.json().error.message).toMatch(/Try again in (\d+ minutes?|1 hour)\.$/);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    });
  });

  describe('email-notification confirmations', () => {
    it('count against the same budget: a third confirmation to one address in a day is refused', async () => {
      const actor = { type: 'user' as const, id: '00000000-0000-4000-8000-000000000001', name: 'another' };
      await api.services.notifications.create(
        acme.org.id,
        'web',
        { name: 'mail', type: 'email', configuration: { email: 'list@example.org' } },
        actor,
      );
      await api.services.notifications.resendConfirmation(acme.org.id, 'web', 'mail', actor);
      const third = api.services.notifications.resendConfirmation(acme.org.id, 'web', 'mail', actor);
      await expect(third).rejects.toBeInstanceOf(RetryLaterError);
      await expect(third).rejects.toThrow(/list@example.org has been sent 2 account emails/);
    });
  });

  describe('password resets', () => {
    it('stop emailing an address past its budget, and say nothing of it', async () => {
      const user = acme.user;
      for (let i = 0; i < 3; i++)
        await api.services.security.requestPasswordReset(user.username, `10.9.0.${i}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(mailsTo(user.email)).toBe(2);
    });
  });
});
