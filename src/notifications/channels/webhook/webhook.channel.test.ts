import { describe, expect, it } from 'vitest';
import { createChannelSender } from '../../channel-sender.ts';
import { configureChannel } from '../../channel-registry.ts';
import type { NotificationPayload } from '../../payload.ts';
import { MAX_HEADER_VALUE, MAX_HEADERS } from './webhook-headers.ts';
import { newSigningSecret } from './webhook-signature.ts';

const URL_ = 'https://hooks.acme.example/in';

function problems(headers: Record<string, unknown>): string[] {
  const result = configureChannel('webhook', { url: URL_, headers });
  return 'problems' in result ? result.problems : [];
}

/** One attempt with these headers to a closed loopback port: only refused headers return before connecting. */
async function attempt(headers: Record<string, string>) {
  const sender = createChannelSender({ smtpFrom: 'x@y', allowPrivate: true, timeoutMs: 2000 });
  const payload: NotificationPayload = {
    id: 'dlv_1',
    type: 'test',
    organization: 'acme',
    project: 'p',
    notification: 'n',
    title: 't',
    period: { start: '2026-01-01T00:00:00Z', end: '2026-01-01T00:00:00Z' },
    changes: [],
  };
  try {
    return await sender.send(
      { type: 'webhook', url: 'http://127.0.0.1:9/', headers, signingSecret: newSigningSecret() },
      payload,
    );
  } finally {
    await sender.close();
  }
}

describe('webhook channel', () => {
  describe('configure', () => {
    it('keeps the signing secret of the configuration it replaces, and makes one for a new webhook', () => {
      const first = configureChannel('webhook', { url: URL_ });
      if ('problems' in first) throw new Error(first.problems.join());
      expect(first.secrets.signing_secret).toMatch(/^whsec_/);
      const again = configureChannel('webhook', { url: `${URL_}/2` }, () => first.secrets);
      if ('problems' in again) throw new Error(again.problems.join());
      expect(again.secrets.signing_secret).toBe(first.secrets.signing_secret);
    });

    it('refuses header names that are not tokens of 1 to 100 characters, and reserved names', () => {
      expect(problems({ ['X'.repeat(100)]: 'v' })).toEqual([]);
      expect(problems({ ['X'.repeat(101)]: 'v' })).toEqual([
        `headers: "${'X'.repeat(101)}" is not a valid header name`,
      ]);
      expect(problems({ 'Bad Name': 'v' })).toEqual(['headers: "Bad Name" is not a valid header name']);
      expect(problems({ 'Content-Type': 'text/plain' })).toEqual([
        'headers: Content-Type is set by vulntrack',
      ]);
    });

    it('refuses values that are not one line of at most 4,096 characters, and more than 20 headers', () => {
      expect(problems({ 'X-A': 'a\r\nB: c' })).toEqual([
        'headers: the value of X-A must be one line of text',
      ]);
      expect(problems({ 'X-A': 'v'.repeat(MAX_HEADER_VALUE + 1) })).toHaveLength(1);
      const many = Object.fromEntries(Array.from({ length: MAX_HEADERS + 1 }, (_, i) => [`X-${i}`, 'v']));
      expect(problems(many)).toEqual([`headers: at most ${MAX_HEADERS}`]);
    });
  });

  describe('send', () => {
    it('refuses a stored header name the configuration would refuse, without connecting', async () => {
      const result = await attempt({ ['X'.repeat(101)]: 'v' });
      expect(result).toMatchObject({ ok: false, status_code: null, retryable: false });
      expect(result.error).toMatch(/is not a valid HTTP header name/);
    });

    it('refuses a value with a line break, without connecting', async () => {
      const result = await attempt({ 'X-A': 'a\nB: c' });
      expect(result).toMatchObject({ ok: false, retryable: false });
      expect(result.error).toMatch(/line break/);
    });
  });
});
