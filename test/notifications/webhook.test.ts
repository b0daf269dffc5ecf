/**
 * The webhook channel against a real receiver on loopback, whose signature check is the independent
 * `standardwebhooks` package (not our signing code).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createChannelSender,
  newSigningSecret,
  type ChannelTarget,
  type DeliveryAttempt,
} from '../../src/notifications/channel-sender.ts';
import { MAX_RESPONSE_BYTES } from '../../src/notifications/outbound.ts';
import { log4shellAlert } from './payloads.ts';
import { startReceiver, type Answer, type Receiver, type ReceivedRequest } from './receivers.ts';

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(answer?: (request: ReceivedRequest) => Answer): Promise<Receiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

function sender(timeoutMs = 3000) {
  return createChannelSender({ smtpFrom: 'vulntrack@example.com', allowPrivate: true, timeoutMs });
}

function webhook(url: string, secret: string, headers: Record<string, string> = {}): ChannelTarget {
  return { type: 'webhook', url, headers, signingSecret: secret };
}

function signatureHeaders(request: ReceivedRequest): Record<string, string> {
  return {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
}

describe('webhook channel', () => {
  it('POSTs the payload signed per Standard Webhooks, with the custom headers', async () => {
    const secret = newSigningSecret();
    // The receiver verifies as a real one would, and answers 401 when the signature is wrong.
    const verifier = new Webhook(secret);
    const hook = await receiver((request) => {
      try {
        verifier.verify(request.body, signatureHeaders(request));
        return { status: 204 };
      } catch {
        return { status: 401, body: 'bad signature' };
      }
    });
    const payload = log4shellAlert();
    const before = Math.floor(Date.now() / 1000);
    const attempt = await sender().send(
      webhook(`${hook.base}/hooks/vulntrack?src=test`, secret, {
        Authorization: 'Bearer receiver-token-123',
        'X-Team': 'payments-sec',
        'Content-Type': 'text/plain',
        'webhook-id': 'forged',
      }),
      payload,
    );

    expect(attempt).toMatchObject({ ok: true, status_code: 204, error: null, retryable: false });
    expect(new Date(attempt.at).toISOString()).toBe(attempt.at);
    expect(attempt.duration_ms).toBeGreaterThanOrEqual(0);
    expect(hook.requests).toHaveLength(1);
    const [request] = hook.requests as [ReceivedRequest];
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hooks/vulntrack?src=test');
    expect(request.body).toBe(JSON.stringify(payload));
    expect(JSON.parse(request.body)).toEqual(payload);
    expect(verifier.verify(request.body, signatureHeaders(request))).toEqual(payload);
    expect(request.headers).toMatchObject({
      authorization: 'Bearer receiver-token-123',
      'x-team': 'payments-sec',
      'content-type': 'application/json; charset=utf-8',
      'webhook-id': payload.id,
    });
    const timestamp = Number(request.headers['webhook-timestamp']);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('fails verification with another secret, or when the body or id is altered', async () => {
    const secret = newSigningSecret();
    const hook = await receiver();
    await sender().send(webhook(hook.base, secret), log4shellAlert());
    const [request] = hook.requests as [ReceivedRequest];
    const headers = signatureHeaders(request);

    expect(() => new Webhook(newSigningSecret()).verify(request.body, headers)).toThrow(
      WebhookVerificationError,
    );
    const tampered = request.body.replace('"cvss31":10', '"cvss31":1');
    expect(tampered).not.toBe(request.body);
    expect(() => new Webhook(secret).verify(tampered, headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(request.body, { ...headers, 'webhook-id': 'dlv_other' })).toThrow(
      WebhookVerificationError,
    );
    expect(new Webhook(secret).verify(request.body, headers)).toEqual(log4shellAlert());
  });

  it('signs each attempt of the same delivery with the same webhook-id', async () => {
    const secret = newSigningSecret();
    const hook = await receiver();
    const channel = sender();
    await channel.send(webhook(hook.base, secret), log4shellAlert('dlv_same'));
    await channel.send(webhook(hook.base, secret), log4shellAlert('dlv_same'));
    expect(hook.requests.map((r) => r.headers['webhook-id'])).toEqual(['dlv_same', 'dlv_same']);
  });

  it.each([
    [500, true],
    [502, true],
    [503, true],
    [408, true],
    [429, true],
    [400, false],
    [401, false],
    [404, false],
    [410, false],
    [413, false],
  ])('reports HTTP %i as a failure, retryable %s', async (status, retryable) => {
    const hook = await receiver(() => ({ status, body: `status ${status} from receiver` }));
    const attempt = await sender().send(webhook(hook.base, newSigningSecret()), log4shellAlert());
    expect(attempt).toMatchObject({ ok: false, status_code: status, retryable });
    expect(attempt.error).toBe(
      `The receiver answered HTTP ${status} ${http.STATUS_CODES[status]}: status ${status} from receiver.`,
    );
  });

  it('does not follow a redirect (a failure, not retryable)', async () => {
    const target = await receiver();
    const hook = await receiver(() => ({ status: 307, headers: { location: `${target.base}/elsewhere` } }));
    const attempt = await sender().send(webhook(hook.base, newSigningSecret()), log4shellAlert());
    expect(attempt).toMatchObject({ ok: false, status_code: 307, retryable: false });
    expect(attempt.error).toMatch(/redirects are not followed/);
    expect(target.connections).toBe(0);
  });

  it('reads at most a few KiB of a large response body', async () => {
    const hook = await receiver(() => ({ status: 500, body: 'x'.repeat(5_000_000) }));
    const attempt = await sender().send(webhook(hook.base, newSigningSecret()), log4shellAlert());
    expect(attempt).toMatchObject({ ok: false, status_code: 500, retryable: true });
    expect(attempt.error!.length).toBeLessThan(300);
    expect(MAX_RESPONSE_BYTES).toBeLessThanOrEqual(8192);
  });

  it('gives up on a receiver that never answers within the time limit', async () => {
    const hook = await receiver(() => 'hang');
    const attempt: DeliveryAttempt = await sender(400).send(
      webhook(hook.base, newSigningSecret()),
      log4shellAlert(),
    );
    expect(attempt).toMatchObject({ ok: false, status_code: null, retryable: true });
    expect(attempt.error).toBe(`No response from 127.0.0.1:${hook.port} within 400 ms.`);
    expect(attempt.duration_ms).toBeGreaterThanOrEqual(390);
    expect(attempt.duration_ms).toBeLessThan(1500);
    expect(hook.requests).toHaveLength(1);
  });

  it('gives up on a receiver that sends headers but never finishes the body, keeping the status', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const attempt = await sender(400).send(
        webhook(`http://127.0.0.1:${port}/`, newSigningSecret()),
        log4shellAlert(),
      );
      expect(attempt).toMatchObject({ ok: true, status_code: 200 });
      expect(attempt.duration_ms).toBeLessThan(1500);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('reports a refused connection as retryable', async () => {
    const hook = await receiver();
    const url = hook.base;
    await hook.close();
    receivers.pop();
    const attempt = await sender().send(webhook(url, newSigningSecret()), log4shellAlert());
    expect(attempt).toMatchObject({ ok: false, status_code: null, retryable: true });
    expect(attempt.error).toBe(`The connection to ${url.replace('http://', '')} was refused.`);
  });

  it('refuses a bad signing secret or header without sending, not retryable', async () => {
    const hook = await receiver();
    const channel = sender();
    const badSecret = await channel.send(webhook(hook.base, 'not-a-secret'), log4shellAlert());
    expect(badSecret).toMatchObject({ ok: false, status_code: null, retryable: false });
    expect(badSecret.error).toMatch(/signing secret/);
    const badHeader = await channel.send(
      webhook(hook.base, newSigningSecret(), { 'X-Evil': 'a\r\nInjected: yes' }),
      log4shellAlert(),
    );
    expect(badHeader).toMatchObject({ ok: false, retryable: false });
    expect(badHeader.error).toMatch(/line break/);
    expect(hook.connections).toBe(0);
  });
});

describe('newSigningSecret', () => {
  it('is whsec_ and base64 of 32 random bytes, different every time', () => {
    const a = newSigningSecret();
    const b = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});
