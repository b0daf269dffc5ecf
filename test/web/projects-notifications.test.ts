/**
 * The project's notification pages: each channel's create with its validation messages beside the
 * fields, the webhook signing secret shown once (and rotated), Try against a real HTTP receiver on
 * loopback with the exchange shown and the secrets masked, the delivery log with the next attempt and
 * the retry of a dead delivery, the email double opt-in, edits, members read-only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, type WebClient } from '../helpers/web.ts';
import { startReceiver, type Answer, type Receiver } from '../notifications/receivers.ts';

const PASSWORD = 'correct horse battery staple';
const base = '/org/acme/projects/web/notifications';

describeEachDatabase('web: project notifications', (use) => {
  let api: TestApi;
  let strict: TestApi;
  let owner: Awaited<ReturnType<typeof createOrganization>>;
  let browser: WebClient;
  let member: WebClient;
  let receiver: Receiver;
  let answer: Answer = { status: 200, body: 'ok' };

  beforeAll(async () => {
    // The receivers listen on loopback: this app allows it, `strict` (same database) does not.
    api = await buildTestApi(use(), { OUTBOUND_ALLOW_PRIVATE: 'true', DELIVERY_ATTEMPTS: '5' });
    strict = await buildTestApi(use());
    receiver = await startReceiver(() => answer);
    owner = await createOrganization(api.services, 'acme');
    await api.services.projects.create(owner.org.id, { name: 'web' }, owner.actor);
    browser = await signedIn(api, owner.user.username, PASSWORD);
    const plain = await api.services.accounts.createUser({
      username: 'plain',
      email: 'plain@acme.example',
      password: PASSWORD,
    });
    await api.services.members.invite(owner.org.id, { email: 'plain@acme.example' }, owner.actor);
    await api.services.accounts.acceptInvitation(plain.id, 'acme');
    member = await signedIn(api, 'plain', PASSWORD);
  });
  afterAll(async () => {
    await receiver?.close();
    await strict?.close();
    await api?.close();
  });

  describe('create', () => {
    it('offers each channel, owners only', async () => {
      for (const type of ['email', 'webhook', 'slack', 'teams']) {
        const page = await browser.get(`${base}/new?type=${type}`);
        expect(page.status).toBe(200);
        expect(page.html.querySelector('nav.channel-types a[aria-current=page]')?.text.toLowerCase()).toBe(
          type,
        );
        expect(page.html.querySelector('input[name=type]')?.getAttribute('value')).toBe(type);
      }
      expect((await member.get(`${base}/new`)).status).toBe(403);
    });

    it('shows each validation message beside its field, keeping what was typed', async () => {
      await browser.get(`${base}/new?type=email`);
      const email = await browser.post(base, { type: 'email', name: 'mail', email: 'nope' });
      expect(email.status).toBe(400);
      expect(email.html.querySelector('#f-email-error')?.text).toBe('Email must be an email address.');
      expect(email.html.querySelector('#f-email')?.getAttribute('value')).toBe('nope');

      const name = await browser.post(base, { type: 'email', name: '!bad', email: 'a@acme.example' });
      expect(name.status).toBe(400);
      expect(name.html.querySelector('#f-name-error')?.text).toMatch(/starts with a letter or digit/);
      expect(name.html.querySelector('#f-name')?.getAttribute('value')).toBe('!bad');

      const scheme = await browser.post(base, { type: 'webhook', name: 'hook', url: 'ftp://example.org/x' });
      expect(scheme.status).toBe(400);
      expect(scheme.html.querySelector('#f-url-error')?.text).toBe(
        'The URL must use http or https (got ftp).',
      );
      expect(scheme.html.querySelector('#f-url')?.getAttribute('value')).toBe('ftp://example.org/x');

      const headers = await browser.post(base, {
        type: 'webhook',
        name: 'hook',
        url: 'https://example.org/x',
        headers: 'X-Good: 1\nnot a header line',
      });
      expect(headers.status).toBe(400);
      expect(headers.html.querySelector('#f-headers-error')?.text).toBe('Line 2 is not "Name: value".');
      expect(headers.html.querySelector('#f-headers')?.text).toBe('X-Good: 1\nnot a header line');

      const reserved = await browser.post(base, {
        type: 'webhook',
        name: 'hook',
        url: 'https://example.org/x',
        headers: 'webhook-id: mine',
      });
      expect(reserved.html.querySelector('#f-headers-error')?.text).toBe('Webhook-id is set by vulntrack.');

      for (const type of ['slack', 'teams']) {
        const bad = await browser.post(base, { type, name: type, webhook_url: 'not a url' });
        expect(bad.status).toBe(400);
        expect(bad.html.querySelector('#f-webhook_url-error')?.text).toBe(
          'The URL is not a valid absolute URL.',
        );
      }
      // Nothing was made.
      expect((await browser.get(base)).text).toContain('No notification yet.');
    });

    it('shows the SSRF guard’s refusal beside the URL, readably', async () => {
      const client = await signedIn(strict, owner.user.username, PASSWORD);
      await client.get(`${base}/new?type=webhook`);
      const refused = await client.post(base, {
        type: 'webhook',
        name: 'local',
        url: 'http://127.0.0.1:8080/x',
      });
      expect(refused.status).toBe(400);
      expect(refused.html.querySelector('#f-url-error')?.text).toBe(
        'This URL is not allowed: 127.0.0.1 is a loopback address; notifications may only be sent to public addresses (an operator can allow internal receivers with OUTBOUND_ALLOW_HOSTS (host names and CIDR networks) or all private addresses with OUTBOUND_ALLOW_PRIVATE).',
      );
      const slack = await client.post(base, {
        type: 'slack',
        name: 'local',
        webhook_url: 'http://10.1.2.3/x',
      });
      expect(slack.html.querySelector('#f-webhook_url-error')?.text).toMatch(
        /10\.1\.2\.3 is a private address/,
      );
    });

    it('refuses a form without the CSRF token, and a member', async () => {
      const forged = await browser.post(base, {
        type: 'slack',
        name: 's',
        webhook_url: 'https://hooks.slack.com/services/a/b/c',
        _csrf: 'forged',
      });
      expect(forged.status).toBe(403);
      await member.get(`${base}`);
      const refused = await member.post(base, {
        type: 'slack',
        name: 's',
        webhook_url: 'https://hooks.slack.com/services/a/b/c',
      });
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('Only owners of acme can change');
    });
  });

  describe('webhook', () => {
    let secret = '';

    it('shows the signing secret once, with a copy button, and never again', async () => {
      await browser.get(`${base}/new?type=webhook`);
      const created = await browser.post(base, {
        type: 'webhook',
        name: 'hook',
        url: `${receiver.base}/hook/abc123secretpath?token=querysecret`,
        headers: 'Authorization: Bearer s3cr3t-token\nX-Team: blue',
      });
      expect(created.status).toBe(201);
      secret = created.html.querySelector('#signing-secret')?.getAttribute('value') ?? '';
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(created.html.querySelector('button[data-copy=signing-secret]')).toBeTruthy();
      expect(created.text).toContain('shown only this once');

      const list = await browser.get(base);
      const cells = list.html
        .querySelectorAll('table.data tbody tr td')
        .map((td) => td.text.replace(/\s+/g, ' ').trim());
      expect(cells).toEqual([
        'hook',
        'Webhook',
        `127.0.0.1:${receiver.port} (URL path hidden)`,
        'active',
        'never',
      ]);
      const detail = await browser.get(`${base}/hook`);
      for (const page of [list, detail]) {
        expect(page.body).not.toContain(secret);
        expect(page.body).not.toContain('s3cr3t-token');
        expect(page.body).not.toContain('abc123secretpath');
        expect(page.body).not.toContain('querysecret');
      }
      expect(detail.html.querySelectorAll('.chip').map((c) => c.text)).toEqual(['Authorization', 'X-Team']);
      expect(detail.html.querySelector('#signing-secret')).toBeNull();
    });

    it('Try sends a sample to the receiver and shows the whole exchange, secrets masked', async () => {
      answer = {
        status: 202,
        body: '{"received":"thanks"}',
        headers: { 'x-receiver': 'loopback', 'set-cookie': 'sid=cookie-secret' },
      };
      const before = receiver.requests.length;
      await browser.get(`${base}/hook`);
      const tried = await browser.post(`${base}/hook/try`);
      expect(tried.status).toBe(303);
      expect(tried.location).toMatch(new RegExp(`^${base}/hook/deliveries/[0-9a-f-]{36}\\?done=tried$`));
      expect(receiver.requests.length).toBe(before + 1);
      const sent = receiver.requests.at(-1)!;
      expect(sent.path).toBe('/hook/abc123secretpath?token=querysecret');
      expect(sent.headers.authorization).toBe('Bearer s3cr3t-token');
      // The receiver can verify the signature with the secret shown at creation.
      expect(() =>
        new Webhook(secret).verify(sent.body, sent.headers as Record<string, string>),
      ).not.toThrow();

      const page = await browser.follow(tried);
      expect(page.status).toBe(200);
      expect(page.text).toContain('The test was sent.');
      const lines = page.html
        .querySelectorAll('.exchange-line')
        .map((p) => p.text.replace(/\s+/g, ' ').trim());
      expect(lines[0]).toBe(`POST http://127.0.0.1:${receiver.port}/***?token=***`);
      expect(lines[1]).toMatch(/^HTTP 202 · \d+ ms$/);
      const headers = Object.fromEntries(
        page.html
          .querySelectorAll('.exchange-headers tr')
          .map((tr) => [tr.querySelector('th')!.text.trim(), tr.querySelector('td')!.text.trim()]),
      );
      expect(headers.authorization).toBe('***');
      expect(headers['x-team']).toBe('***');
      expect(headers['content-type']).toBe('application/json; charset=utf-8');
      expect(headers['webhook-id']).toBe(sent.headers['webhook-id']);
      expect(headers['webhook-signature']).toMatch(/^v1,.{6}…$/);
      expect(sent.headers['webhook-signature']).toContain(headers['webhook-signature']!.slice(0, 9));
      expect(headers['x-receiver']).toBe('loopback');
      expect(headers['set-cookie']).toBe('***');
      expect(page.text).toContain('"received":"thanks"');
      // The request body is the payload the receiver got, pretty-printed.
      expect(JSON.parse(page.html.querySelector('.exchange details pre')!.text)).toEqual(
        JSON.parse(sent.body),
      );
      for (const secretText of [
        secret,
        's3cr3t-token',
        'abc123secretpath',
        'querysecret',
        'cookie-secret',
        sent.headers['webhook-signature'] as string,
      ])
        expect(page.body).not.toContain(secretText);
      // The member reads it too, without the owner's buttons.
      const seen = await member.get(tried.location!.replace('?done=tried', ''));
      expect(seen.status).toBe(200);
      expect(seen.text).toContain('HTTP 202');
      expect(
        (await member.get(`${base}/hook`)).html.querySelector(`form[action="${base}/hook/try"]`),
      ).toBeNull();
      expect((await member.post(`${base}/hook/try`)).status).toBe(403);
      answer = { status: 200, body: 'ok' };
    });

    it('shows a refused or failed Try readably', async () => {
      const client = await signedIn(strict, owner.user.username, PASSWORD);
      await client.get(`${base}/hook`);
      const tried = await client.post(`${base}/hook/try`);
      const page = await client.follow(tried);
      expect(page.html.querySelector('.badge.kev')?.text).toBe('failed');
      expect(page.text).toContain(
        'No response: Refused: 127.0.0.1 is a loopback address; notifications may only be sent to public addresses',
      );
    });

    it('rotates the signing secret: the new one shown once, the receiver verifies with it', async () => {
      await browser.get(`${base}/hook`);
      const rotated = await browser.post(`${base}/hook/rotate-secret`);
      expect(rotated.status).toBe(200);
      const fresh = rotated.html.querySelector('#signing-secret')?.getAttribute('value') ?? '';
      expect(fresh).toMatch(/^whsec_/);
      expect(fresh).not.toBe(secret);
      expect(rotated.text).toContain('The previous secret no longer signs anything.');
      const again = await browser.get(`${base}/hook`);
      expect(again.body).not.toContain(fresh);
      await browser.post(`${base}/hook/try`);
      const sent = receiver.requests.at(-1)!;
      expect(() =>
        new Webhook(fresh).verify(sent.body, sent.headers as Record<string, string>),
      ).not.toThrow();
      expect(() => new Webhook(secret).verify(sent.body, sent.headers as Record<string, string>)).toThrow();
      const audit = await api.services.database.db
        .selectFrom('audit_log')
        .select(['action', sql<string>`changes::text`.as('changes')])
        .where('action', '=', 'notification.rotate_secret')
        .execute();
      expect(audit).toHaveLength(1);
      expect(audit[0]!.changes).not.toContain('whsec_');
      expect((await member.post(`${base}/hook/rotate-secret`)).status).toBe(403);
    });

    it('edits: keeps the secret URL when left blank, renames, disables and enables', async () => {
      await browser.get(`${base}/hook`);
      const half = await browser.post(`${base}/hook`, { name: 'hook', url: '', headers: 'X-Only: 1' });
      expect(half.status).toBe(400);
      expect(half.html.querySelector('#f-url-error')?.text).toMatch(/Enter the URL again/);
      const renamed = await browser.post(`${base}/hook`, { name: 'team-hook', url: '', headers: '' });
      expect(renamed.status).toBe(303);
      expect(renamed.location).toBe(`${base}/team-hook?done=saved`);
      const off = await browser.post(`${base}/team-hook/state`, { enabled: 'false' });
      expect(off.location).toBe(`${base}/team-hook?done=disabled`);
      expect((await browser.follow(off)).html.querySelector('h2 .badge')?.text).toBe('disabled');
      await browser.post(`${base}/team-hook/state`, { enabled: 'true' });
      // The URL was kept: Try still reaches the receiver.
      const before = receiver.requests.length;
      await browser.post(`${base}/team-hook/try`);
      expect(receiver.requests.length).toBe(before + 1);
    });
  });

  describe('Slack and Teams', () => {
    it('masks the token of the URL in the list and in Try', async () => {
      for (const type of ['slack', 'teams'] as const) {
        await browser.get(`${base}/new?type=${type}`);
        const created = await browser.post(base, {
          type,
          name: `${type}-alerts`,
          webhook_url: `${receiver.base}/services/T0SECRET/B0SECRET/XXSECRETXX`,
        });
        expect(created.status).toBe(303);
        const list = await browser.get(base);
        expect(list.text).toContain(`http://127.0.0.1:${receiver.port}/`);
        expect(list.body).not.toContain('XXSECRETXX');
        const tried = await browser.follow(await browser.post(`${base}/${type}-alerts/try`));
        expect(tried.html.querySelector('.exchange-line')?.text.trim()).toBe(
          `POST http://127.0.0.1:${receiver.port}/***`,
        );
        expect(tried.body).not.toContain('SECRET');
      }
      // Slack got Block Kit.
      expect(JSON.parse(receiver.requests.at(-2)!.body)).toHaveProperty('blocks');
    });
  });

  describe('delivery log', () => {
    it('lists each delivery with its attempts and next attempt, and retries a dead one (audited)', async () => {
      const n = await api.services.notifications.get(owner.org.id, 'web', 'team-hook');
      const [id] = await api.services.deliveries.queue(api.services.database.db, [
        {
          notification: n,
          kind: 'alert',
          organization: 'acme',
          project: 'web',
          title: 'An alert',
          period: { start: new Date(), end: new Date() },
          changes: [],
        },
      ]);
      answer = { status: 503, body: 'down for maintenance' };
      await api.services.deliveries.attempt(id!);
      const pending = await browser.get(`${base}/team-hook/deliveries`);
      expect(pending.status).toBe(200);
      const row = pending.html.querySelector(`a[href="${base}/team-hook/deliveries/${id}"]`)!.closest('tr')!;
      expect(row.querySelector('.badge')?.text).toBe('pending');
      expect(row.text).toContain('The receiver answered HTTP 503 Service Unavailable: down for maintenance.');
      // The next attempt: the queued job's time.
      expect(row.querySelectorAll('td')[5]!.querySelector('time')).toBeTruthy();
      expect(row.querySelector('button')).toBeNull();

      for (let i = 0; i < 4; i++) await api.services.deliveries.attempt(id!);
      const dead = await browser.get(`${base}/team-hook/deliveries/${id}`);
      expect(dead.html.querySelector('h2 .badge')?.text).toBe('dead');
      expect(dead.html.querySelectorAll('table.data tbody tr')).toHaveLength(5);
      expect(dead.text).toContain('503');
      expect((await member.post(`${base}/team-hook/deliveries/${id}/retry`)).status).toBe(403);

      answer = { status: 200, body: 'ok' };
      const retried = await browser.post(`${base}/team-hook/deliveries/${id}/retry`);
      expect(retried.status).toBe(303);
      expect(retried.location).toBe(`${base}/team-hook/deliveries?done=retried`);
      expect((await browser.follow(retried)).text).toContain('queued for one more attempt');
      // Retrying it again before it ran is refused, readably.
      const twice = await browser.post(`${base}/team-hook/deliveries/${id}/retry`);
      expect(twice.status).toBe(400);
      expect(twice.text).toContain('Only a dead or failed delivery can be retried; this one is pending.');
      const done = await api.services.deliveries.attempt(id!);
      expect(done?.status).toBe('succeeded');
      expect(done?.attempts).toHaveLength(6);
      const audit = await browser.get('/org/acme/audit?action=delivery.retry');
      expect(audit.text).toContain('web/team-hook');
      // An unknown delivery, or another notification's, is a 404.
      expect((await browser.get(`${base}/slack-alerts/deliveries/${id}`)).status).toBe(404);
      expect((await browser.post(`${base}/team-hook/deliveries/not-a-uuid/retry`)).status).toBe(404);
    });
  });

  describe('email', () => {
    it('confirms a member at once; an outside address awaits confirmation, with a resend', async () => {
      await browser.get(`${base}/new?type=email`);
      const mine = await browser.post(base, { type: 'email', name: 'me', email: owner.user.email });
      expect(mine.location).toBe(`${base}/me?done=created`);
      expect((await browser.follow(mine)).html.querySelector('h2 .badge')?.text).toBe('active');

      const outside = await browser.post(base, {
        type: 'email',
        name: 'partner',
        email: 'Sec@Partner.example',
      });
      expect(outside.location).toBe(`${base}/partner?done=created-pending`);
      const page = await browser.follow(outside);
      expect(page.text).toContain('A confirmation email is on its way');
      expect(page.html.querySelector('h2 .badge')?.text).toBe('awaiting confirmation');
      expect(page.text).toContain('sec@partner.example has not confirmed yet');
      const jobs = async () =>
        (
          await api.services.database.db
            .selectFrom('job')
            .select(sql<number>`count(*)::int`.as('n'))
            .where('name', '=', 'notifications.confirm-email')
            .executeTakeFirstOrThrow()
        ).n;
      const queued = await jobs();
      const resent = await browser.post(`${base}/partner/resend-confirmation`);
      expect(resent.location).toBe(`${base}/partner?done=resent`);
      expect(await jobs()).toBe(queued + 1);
      // Not awaiting: nothing is sent, and the page says so.
      const none = await browser.post(`${base}/me/resend-confirmation`);
      expect(none.location).toBe(`${base}/me?done=not-pending`);
      expect(await jobs()).toBe(queued + 1);
      // Try by email without an SMTP server: the sentence saying so, and the address it was for.
      const tried = await browser.follow(await browser.post(`${base}/me/try`));
      expect(tried.text).toContain(`Email to ${owner.user.email}.`);
      expect(tried.text).toContain('Email cannot be sent: no SMTP server is configured (set SMTP_URL).');
      // The list shows each status.
      const list = await browser.get(base);
      const statuses = Object.fromEntries(
        list.html
          .querySelectorAll('table.data tbody tr')
          .map((tr) => [tr.querySelector('a')!.text, tr.querySelector('.badge')!.text]),
      );
      expect(statuses).toMatchObject({
        me: 'active',
        partner: 'awaiting confirmation',
        'team-hook': 'active',
      });
    });
  });

  describe('delete', () => {
    it('asks first, then deletes the notification and its log', async () => {
      const page = await browser.get(`${base}/partner`);
      expect(
        page.html.querySelector(`form[action="${base}/partner/delete"]`)?.getAttribute('data-confirm'),
      ).toBe('Delete the notification partner and its delivery log?');
      expect((await member.post(`${base}/partner/delete`)).status).toBe(403);
      const deleted = await browser.post(`${base}/partner/delete`);
      expect(deleted.location).toBe(`${base}?done=deleted`);
      expect((await browser.get(`${base}/partner`)).status).toBe(404);
    });
  });
});
