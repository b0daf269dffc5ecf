import { describe, expect, it } from 'vitest';
import { maskedExchange, maskUrl } from './exchange.ts';

describe('maskUrl', () => {
  it('keeps scheme, host, port and query names; hides the path and query values, as the settings do', () => {
    expect(maskUrl('https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX')).toBe(
      'https://hooks.slack.com/***',
    );
    expect(
      maskUrl(
        'https://prod-12.westus.logic.azure.com:443/workflows/0a1b2c/triggers/manual/paths/invoke?api-version=2016-06-01&sig=s3cr3t',
      ),
    ).toBe('https://prod-12.westus.logic.azure.com/***?api-version=***&sig=***');
    // A path of words may name a private channel: hidden too, as the notification's page says.
    expect(maskUrl('http://127.0.0.1:8080/hooks/security-team')).toBe('http://127.0.0.1:8080/***');
    expect(maskUrl('https://example.org/')).toBe('https://example.org/');
    expect(maskUrl('not a url')).toBe('***');
  });
});

describe('maskedExchange', () => {
  it('masks the user headers, the signature after 6 characters and cookies; keeps the rest', () => {
    const masked = maskedExchange({
      request: {
        method: 'POST',
        url: 'https://example.org/in/abc123?token=t0k3n',
        headers: {
          'user-agent': 'vulntrack-notifications/1',
          authorization: 'Bearer secret-value',
          'content-type': 'application/json; charset=utf-8',
          'webhook-id': 'id-1',
          'webhook-timestamp': '1700000000',
          'webhook-signature': 'v1,abcdefghijklmnop=',
          'content-length': '2',
        },
        body: Buffer.from('{}'),
      },
      response: {
        status: 201,
        headers: { 'set-cookie': ['a=1', 'b=2'], 'x-request-id': 'r-9' },
        body: Buffer.from('created'),
        truncated: false,
      },
    });
    expect(masked.request.url).toBe('https://example.org/***?token=***');
    expect(Object.fromEntries(masked.request.headers)).toEqual({
      'user-agent': 'vulntrack-notifications/1',
      authorization: '***',
      'content-type': 'application/json; charset=utf-8',
      'webhook-id': 'id-1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': 'v1,abcdef…',
      'content-length': '2',
    });
    expect(masked.response).toEqual({
      status: 201,
      headers: [
        ['set-cookie', '***'],
        ['x-request-id', 'r-9'],
      ],
      body: 'created',
      truncated: false,
    });
    expect(JSON.stringify(masked)).not.toMatch(/secret-value|t0k3n|abc123|ghijklmnop/);
  });

  it('has no response when none came', () => {
    const masked = maskedExchange({
      request: { method: 'POST', url: 'https://example.org/', headers: {}, body: Buffer.from('') },
    });
    expect(masked.response).toBeUndefined();
  });
});
