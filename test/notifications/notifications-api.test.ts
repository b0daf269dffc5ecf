/**
 * Notification channels through API v2 (SPEC §7): create each type, secrets shown once and never
 * read back, bad configurations refused with `details.configuration`, changes (a new URL keeps the
 * signing secret, proven with an independent Standard Webhooks verifier on a real receiver), deletes,
 * the delivery log's pages and the audit log. Outbound requests to loopback, private and link-local
 * addresses are refused before any connection unless OUTBOUND_ALLOW_PRIVATE allows them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NotificationPayload } from '../../src/notifications/payload.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { startReceiver, type Receiver } from './receivers.ts';

interface Attempt {
  at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}
interface DeliveryBody {
  id: string;
  kind: string;
  status: string;
  attempts: Attempt[];
  payload_id: string;
}

/** An HTTP server on ::1 that counts connections; undefined when this machine has no IPv6 loopback. */
async function startV6Receiver(): Promise<
  { port: number; connections: () => number; close(): Promise<void> } | undefined
> {
  let connections = 0;
  const server = http.createServer((_req, res) => res.end('ok'));
  server.on('connection', () => (connections += 1));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '::1', resolve);
    });
  } catch {
    return undefined;
  }
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describeEachDatabase('notifications API', (use) => {
  /** Default settings: private addresses refused. */
  let api: TestApi;
  /** The same database with OUTBOUND_ALLOW_PRIVATE=true. */
  let allowing: TestApi;
  let receiver: Receiver;
  let v6: Awaited<ReturnType<typeof startV6Receiver>>;
  let auth: { authorization: string };
  let ownerEmail: string;
  const org = `notif-${Math.random().toString(36).slice(2, 8)}`;

  const callOn = (
    target: TestApi,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ) =>
    target.app.inject({
      method,
      url: `/api/v2/organizations/${org}${url}`,
      headers: auth,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    callOn(api, method, url, payload);
  const create = (project: string, body: unknown) => call('POST', `/projects/${project}/notifications`, body);
  /** Creates through the app with OUTBOUND_ALLOW_PRIVATE=true: the receivers listen on loopback. */
  const createAllowing = (project: string, body: unknown) =>
    callOn(allowing, 'POST', `/projects/${project}/notifications`, body);

  beforeAll(async () => {
    receiver = await startReceiver();
    v6 = await startV6Receiver();
    api = await buildTestApi(use(), { SYNC_SOURCES: 'none' });
    allowing = await buildTestApi(use(), { SYNC_SOURCES: 'none', OUTBOUND_ALLOW_PRIVATE: 'true' });
    const owner = await createOrganization(api.services, org);
    ownerEmail = owner.user.email;
    auth = { authorization: (await createToken(api.services, owner.org.id, owner.actor)).header };
    for (const name of ['crud', 'ssrf', 'log'])
      await api.services.projects.create(owner.org.id, { name }, owner.actor);
  });

  afterAll(async () => {
    await api?.close();
    await allowing?.close();
    await receiver?.close();
    await v6?.close();
  });

  describe('create and read', () => {
    let signingSecret: string;

    it('creates a webhook and returns its signing secret once (whsec_<base64>)', async () => {
      const res = await createAllowing('crud', {
        name: 'hook',
        type: 'webhook',
        configuration: {
          url: `${receiver.base}/hooks/secret-path?token=query-secret`,
          headers: { 'X-Api-Key': 'header-secret-value' },
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json<{ signing_secret: string; configuration: unknown; is_enabled: boolean }>();
      expect(body.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(Buffer.from(body.signing_secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
      expect(body.is_enabled).toBe(true);
      // OpenCVE 3.1's masked shape.
      expect(body.configuration).toEqual({
        url_configured: true,
        headers_configured: true,
        host: receiver.base.slice('http://'.length),
        header_names: ['X-Api-Key'],
      });
      expect(body).not.toHaveProperty('is_pending_email_confirmation');
      expect(res.body).not.toContain('secret-path');
      expect(res.body).not.toContain('header-secret-value');
      signingSecret = body.signing_secret;
    });

    it('creates Slack, Teams and email notifications, none with a signing secret', async () => {
      const slack = await create('crud', {
        name: 'chat',
        type: 'slack',
        configuration: { webhook_url: 'https://hooks.slack.com/services/T000/B000/slackpathsecret' },
      });
      expect(slack.statusCode).toBe(201);
      expect(slack.json()).toMatchObject({
        type: 'slack',
        configuration: { webhook_url: 'https://hooks.slack.com/services/***/***' },
      });
      expect(slack.body).not.toContain('slackpathsecret');
      expect(slack.json()).not.toHaveProperty('signing_secret');
      const teams = await create('crud', {
        name: 'teams',
        type: 'teams',
        is_enabled: false,
        configuration: { webhook_url: 'https://example.webhook.office.com/workflows/teamspathsecret' },
      });
      expect(teams.statusCode).toBe(201);
      expect(teams.json()).toMatchObject({
        type: 'teams',
        is_enabled: false,
        configuration: { webhook_url: 'https://example.webhook.office.com/***' },
      });
      expect(teams.body).not.toContain('teamspathsecret');
      const email = await create('crud', {
        name: 'owner',
        type: 'email',
        configuration: { email: ownerEmail },
      });
      expect(email.statusCode).toBe(201);
      // A joined member's address needs no confirmation.
      expect(email.json()).toMatchObject({
        type: 'email',
        is_enabled: true,
        configuration: { email: ownerEmail, status: 'confirmed' },
        is_pending_email_confirmation: false,
      });
    });

    it('never reads back the signing secret, a URL path or query, or a header value', async () => {
      const one = await call('GET', '/projects/crud/notifications/hook');
      const list = await call('GET', '/projects/crud/notifications');
      expect(one.statusCode).toBe(200);
      expect(list.statusCode).toBe(200);
      expect(list.json<{ count: number; results: { name: string }[] }>().results.map((n) => n.name)).toEqual([
        'chat',
        'hook',
        'owner',
        'teams',
      ]);
      for (const body of [one.body, list.body]) {
        expect(body).not.toContain(signingSecret);
        expect(body).not.toContain('whsec_');
        expect(body).not.toContain('secret-path');
        expect(body).not.toContain('query-secret');
        expect(body).not.toContain('header-secret-value');
        expect(body).not.toContain('slackpathsecret');
        expect(body).not.toContain('teamspathsecret');
      }
      expect(one.json()).toMatchObject({ configuration: { header_names: ['X-Api-Key'] } });
    });
  });

  describe('bad configurations', () => {
    const cases: [string, unknown, RegExp][] = [
      ['a webhook without url', { name: 'x', type: 'webhook', configuration: {} }, /url is required/],
      [
        'an email address on Slack',
        {
          name: 'x',
          type: 'slack',
          configuration: { webhook_url: 'https://hooks.slack.com/services/a', email: 'a@b.example' },
        },
        /email does not apply to slack/,
      ],
      [
        'an ftp:// URL',
        { name: 'x', type: 'webhook', configuration: { url: 'ftp://example.org/in' } },
        /http or https/,
      ],
      [
        'a URL with credentials',
        { name: 'x', type: 'webhook', configuration: { url: 'https://user:pass@example.org/in' } },
        /credentials/,
      ],
      [
        'the reserved header webhook-id',
        {
          name: 'x',
          type: 'webhook',
          configuration: { url: 'https://example.org/in', headers: { 'Webhook-Id': 'mine' } },
        },
        /Webhook-Id is set by vulntrack/,
      ],
      [
        'a bad email address',
        { name: 'x', type: 'email', configuration: { email: 'not-an-email' } },
        /email address/,
      ],
    ];
    for (const [what, body, message] of cases) {
      it(`refuses ${what} with details.configuration`, async () => {
        const res = await create('crud', body);
        expect(res.statusCode, res.body).toBe(400);
        const error = res.json<{ error: { code: string; details: Record<string, string[]> } }>().error;
        expect(error.code).toBe('validation_error');
        expect(error.details.configuration?.join(' ')).toMatch(message);
      });
    }

    it('refuses an unknown configuration field, naming it', async () => {
      const res = await create('crud', {
        name: 'x',
        type: 'webhook',
        configuration: { url: 'https://example.org/in', secret: 'mine' },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json<{ error: { details: Record<string, string[]> } }>().error.details).toEqual({
        'configuration.secret': [
          'configuration.secret is not a known field; the known fields are email, url, headers, webhook_url',
        ],
      });
    });

    it('refuses a duplicate name and an unknown type', async () => {
      const dup = await create('crud', {
        name: 'hook',
        type: 'webhook',
        configuration: { url: 'https://example.org/' },
      });
      expect(dup.statusCode).toBe(400);
      expect(dup.json()).toMatchObject({
        error: { details: { name: ['This name already exists.'] } },
      });
      const type = await create('crud', { name: 'y', type: 'pager', configuration: {} });
      expect(type.statusCode).toBe(400);
      expect((await call('GET', '/projects/crud/notifications/x')).statusCode).toBe(404);
    });
  });

  describe('change and delete', () => {
    let signingSecret: string;

    beforeAll(async () => {
      const res = await createAllowing('crud', {
        name: 'moving',
        type: 'webhook',
        configuration: { url: `${receiver.base}/old-path` },
      });
      expect(res.statusCode).toBe(201);
      signingSecret = res.json<{ signing_secret: string }>().signing_secret;
    });

    it('renames and disables; automations sending to it follow the rename', async () => {
      const automation = await call('POST', '/projects/crud/automations', {
        name: 'follows',
        trigger_type: 'alert',
        configuration: {
          triggers: ['kev_added'],
          actions: [
            { type: 'change_status', value: 'to_evaluate' },
            { type: 'send_notification', value: 'moving' },
          ],
        },
      });
      expect(automation.statusCode, automation.body).toBe(201);
      const res = await call('PATCH', '/projects/crud/notifications/moving', {
        name: 'moved',
        is_enabled: false,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ name: 'moved', is_enabled: false });
      expect((await call('GET', '/projects/crud/notifications/moving')).statusCode).toBe(404);
      expect((await call('GET', '/projects/crud/notifications/moved')).json()).toMatchObject({
        is_enabled: false,
      });
      expect((await call('GET', '/projects/crud/automations/follows')).json()).toMatchObject({
        configuration: {
          actions: [
            { type: 'change_status', value: 'to_evaluate' },
            { type: 'send_notification', value: 'moved' },
          ],
        },
      });
      expect((await call('DELETE', '/projects/crud/automations/follows')).statusCode).toBe(204);
    });

    it('keeps the signing secret when the URL changes: a receiver verifies with the secret from creation', async () => {
      const res = await callOn(allowing, 'PATCH', '/projects/crud/notifications/moved', {
        is_enabled: true,
        configuration: { url: `${receiver.base}/new-path` },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).not.toHaveProperty('signing_secret');
      const before = receiver.requests.length;
      const test = await callOn(allowing, 'POST', '/projects/crud/notifications/moved/test');
      expect(test.statusCode).toBe(200);
      expect(test.json()).toMatchObject({
        kind: 'test',
        status: 'succeeded',
        attempts: [{ status_code: 200 }],
      });
      expect(receiver.requests).toHaveLength(before + 1);
      const request = receiver.requests.at(-1)!;
      expect(request.path).toBe('/new-path');
      const payload = new Webhook(signingSecret).verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      }) as NotificationPayload;
      expect(payload).toMatchObject({
        type: 'test',
        organization: org,
        project: 'crud',
        notification: 'moved',
      });
      expect(payload.id).toBe(test.json<DeliveryBody>().payload_id);
    });

    it('refuses a bad change and keeps the notification as it was', async () => {
      const res = await call('PATCH', '/projects/crud/notifications/moved', {
        configuration: { url: 'ftp://x/' },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        error: { code: 'validation_error', details: { configuration: [expect.any(String)] } },
      });
      expect((await call('GET', '/projects/crud/notifications/moved')).json()).toMatchObject({
        configuration: { host: receiver.base.slice('http://'.length) },
      });
    });

    it('deletes; a second delete and the deleted one are 404', async () => {
      expect((await call('DELETE', '/projects/crud/notifications/moved')).statusCode).toBe(204);
      expect((await call('GET', '/projects/crud/notifications/moved')).statusCode).toBe(404);
      expect((await call('DELETE', '/projects/crud/notifications/moved')).statusCode).toBe(404);
      expect((await call('GET', '/projects/crud/notifications/moved/deliveries')).statusCode).toBe(404);
    });

    it('audits create, update and delete', async () => {
      const res = await call('GET', '/audit-logs?resource=notification&page_size=100');
      const entries = res.json<{
        results: { action: string; actor: { type: string }; resource: { name: string }; changes: unknown }[];
      }>().results;
      const moving = entries.filter((e) => /^crud\/mov(ing|ed)$/.test(e.resource.name));
      expect(moving.map((e) => e.action).sort()).toEqual([
        'notification.create',
        'notification.delete',
        'notification.update',
        'notification.update',
      ]);
      for (const e of moving) expect(e.actor.type).toBe('token');
      // The audit log shows what changed, never a secret.
      expect(res.body).not.toContain('new-path');
      expect(res.body).not.toContain('whsec_');
      expect(res.body).not.toContain('header-secret-value');
    });
  });

  describe('the delivery log', () => {
    it('pages the deliveries, newest first, with next and previous links', async () => {
      const created = await createAllowing('log', {
        name: 'paged',
        type: 'webhook',
        configuration: { url: `${receiver.base}/log` },
      });
      expect(created.statusCode).toBe(201);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const test = await callOn(allowing, 'POST', '/projects/log/notifications/paged/test');
        expect(test.json<DeliveryBody>().status).toBe('succeeded');
        ids.push(test.json<DeliveryBody>().id);
      }
      const first = await call('GET', '/projects/log/notifications/paged/deliveries?page_size=2');
      expect(first.statusCode).toBe(200);
      const page1 = first.json<{
        count: number;
        next: string | null;
        previous: string | null;
        results: DeliveryBody[];
      }>();
      expect(page1.count).toBe(3);
      expect(page1.results).toHaveLength(2);
      expect(page1.previous).toBeNull();
      expect(page1.next).toMatch(/page=2/);
      const second = await call('GET', '/projects/log/notifications/paged/deliveries?page_size=2&page=2');
      const page2 = second.json<{ next: string | null; previous: string | null; results: DeliveryBody[] }>();
      expect(page2.results).toHaveLength(1);
      expect(page2.next).toBeNull();
      expect(page2.previous).not.toBeNull();
      expect([...page1.results, ...page2.results].map((d) => d.id)).toEqual([...ids].reverse());
      for (const d of [...page1.results, ...page2.results])
        expect(d).toMatchObject({
          kind: 'test',
          status: 'succeeded',
          attempts: [{ status_code: 200, error: null }],
        });
      const beyond = await call('GET', '/projects/log/notifications/paged/deliveries?page_size=2&page=3');
      expect(beyond.statusCode).toBe(404);
    });
  });

  describe('outbound addresses (SSRF)', () => {
    const targets = () => [
      ['loopback', `http://127.0.0.1:${receiver.port}/`],
      ['private', 'http://10.0.0.1/'],
      ['link-local metadata', 'http://169.254.169.254/latest/meta-data'],
      ['IPv6 loopback', `http://[::1]:${v6?.port ?? receiver.port}/`],
      ['localhost', `http://localhost:${receiver.port}/`],
    ];

    beforeAll(async () => {
      // Made while OUTBOUND_ALLOW_PRIVATE allowed them: a service whose setting was turned off since.
      for (const [i, [, url]] of targets().entries()) {
        const res = await createAllowing('ssrf', { name: `t${i}`, type: 'webhook', configuration: { url } });
        expect(res.statusCode, res.body).toBe(201);
      }
    });

    it('refuses each literal address at creation (400), with the default settings', async () => {
      for (const [what, url] of targets()) {
        for (const body of [
          { name: 'refused', type: 'webhook', configuration: { url } },
          { name: 'refused', type: 'slack', configuration: { webhook_url: url } },
        ]) {
          const res = await create('ssrf', body);
          expect(res.statusCode, what).toBe(400);
          expect(res.json().error.details.configuration[0], what).toMatch(
            /^(url|webhook_url): This URL is not allowed: .* is (a|an) .*; notifications may only be sent to public addresses \(an operator can allow internal receivers with OUTBOUND_ALLOW_HOSTS .*\)\.$/,
          );
        }
      }
      const change = await call('PATCH', '/projects/ssrf/notifications/t0', {
        configuration: { url: 'http://192.168.1.1/' },
      });
      expect(change.statusCode).toBe(400);
      expect(change.json().error.details.configuration).toEqual([
        'url: This URL is not allowed: 192.168.1.1 is a private address (RFC 1918); notifications may only be sent to public addresses (an operator can allow internal receivers with OUTBOUND_ALLOW_HOSTS (host names and CIDR networks) or all private addresses with OUTBOUND_ALLOW_PRIVATE).',
      ]);
      expect((await call('GET', '/projects/ssrf/notifications/refused')).statusCode).toBe(404);
    });

    it('still refuses each one at send time, before connecting, with the default settings', async () => {
      const connections = receiver.connections;
      const v6Connections = v6?.connections() ?? 0;
      for (const [i, [what]] of targets().entries()) {
        const res = await call('POST', `/projects/ssrf/notifications/t${i}/test`);
        expect(res.statusCode, what).toBe(200);
        const delivery = res.json<DeliveryBody>();
        expect(delivery.status, what).toBe('failed');
        expect(delivery.attempts, what).toHaveLength(1);
        expect(delivery.attempts[0]!.status_code).toBeNull();
        expect(delivery.attempts[0]!.error, what).toMatch(/^Refused/);
      }
      expect(receiver.connections).toBe(connections);
      expect(v6?.connections() ?? 0).toBe(v6Connections);
    });

    it('delivers to the same loopback receiver when OUTBOUND_ALLOW_PRIVATE=true', async () => {
      const before = receiver.requests.length;
      const res = await callOn(allowing, 'POST', '/projects/ssrf/notifications/t0/test');
      expect(res.json()).toMatchObject({
        status: 'succeeded',
        attempts: [{ status_code: 200, error: null }],
      });
      expect(receiver.requests).toHaveLength(before + 1);
      expect(JSON.parse(receiver.requests.at(-1)!.body)).toMatchObject({ type: 'test', notification: 't0' });
      if (v6) {
        const six = await callOn(allowing, 'POST', '/projects/ssrf/notifications/t3/test');
        expect(six.json()).toMatchObject({ status: 'succeeded' });
        expect(v6.connections()).toBeGreaterThan(0);
      }
    });
  });
});
