import { describe, expect, it } from 'vitest';
import { redactUrl } from './redact-url.ts';

describe('redactUrl', () => {
  it.each([
    ['/feeds/Zx8q_secret-1.atom', '/feeds/[redacted].atom'],
    ['/setup/AbCdEf123', '/setup/[redacted]'],
    ['/password-reset/AbCdEf123', '/password-reset/[redacted]'],
    ['/invitations/AbCdEf123/signup', '/invitations/[redacted]/signup'],
    ['/api/v2/invitations/AbCdEf123', '/api/v2/invitations/[redacted]'],
    [
      '/notifications/unsubscribe?token=u_8f3a9c2e&n=team',
      '/notifications/unsubscribe?token=[redacted]&n=team',
    ],
    ['/x?a=1&API_KEY=abc', '/x?a=1&API_KEY=[redacted]'],
    ['/setup/AbC?next=/cves', '/setup/[redacted]?next=/cves'],
    [
      '/auth/oidc/callback?code=Sp1x-9&state=st4te&iss=http%3A%2F%2F127.0.0.1',
      '/auth/oidc/callback?code=[redacted]&state=[redacted]&iss=http%3A%2F%2F127.0.0.1',
    ],
  ])('redacts the secret of %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('keeps a URL without a secret as it is', () => {
    for (const url of [
      '/cves?search=log4j&page=2',
      '/org/acme/projects/web/cves',
      '/feeds',
      '/api/v2/cves/CVE-2021-44228',
    ])
      expect(redactUrl(url)).toBe(url);
  });
});
