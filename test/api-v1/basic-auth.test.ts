/**
 * API v1's HTTP Basic authentication: 401s, no timing difference between an unknown user and a wrong
 * password, and the credential cache (one hash for many calls, invalidated by a password change,
 * failures never cached).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BasicAuthService, type PasswordVerifier } from '../../src/services/basic-auth.service.ts';
import { SignInGuard } from '../../src/services/sign-in-guard.ts';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '../../src/domain/passwords.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { basic } from '../helpers/api-v1.ts';

const PASSWORD = 'correct horse battery staple';

/** These tests make many wrong calls from one address: the lockout (throttling.test.ts) stays out of the way. */
const noLockout = () => new SignInGuard(1_000_000);

/** A verifier that records what it was asked to verify against. */
function countingVerifier() {
  const calls: string[] = [];
  const verify: PasswordVerifier = (password, hash) => {
    calls.push(hash);
    return verifyPassword(password, hash);
  };
  return { calls, verify };
}

describeEachDatabase('API v1 HTTP Basic authentication', (use) => {
  let api: TestApi;
  let username: string;
  let email: string;
  let verifier: ReturnType<typeof countingVerifier>;
  const call = (authorization?: string) =>
    api.app.inject({
      method: 'GET',
      url: '/api/organizations',
      headers: authorization ? { authorization } : {},
    });
  const useVerifier = (ttlSeconds = 300) => {
    verifier = countingVerifier();
    api.services.basicAuth = new BasicAuthService(
      use().db,
      api.services.secret,
      ttlSeconds * 1000,
      verifier.verify,
      0,
      { guard: noLockout() },
    );
  };

  beforeAll(async () => {
    // The cache tests make thousands of calls as one user: the per-user budget (tested in
    // throttling.test.ts) must not answer them first.
    api = await buildTestApi(use(), { RATE_LIMIT_PER_MINUTE: '1000000' });
    const { user } = await createOrganization(api.services, 'basic-auth');
    username = user.username;
    email = user.email;
    api.services.basicAuth = new BasicAuthService(use().db, api.services.secret, 300_000, undefined, 0, {
      guard: noLockout(),
    });
  });
  afterAll(() => api.close());

  describe('401', () => {
    it('asks for credentials when none are sent', async () => {
      const res = await call();
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="vulntrack"');
      expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    });

    it.each([
      ['a wrong password', () => basic(username, 'wrong password')],
      ['an unknown user', () => basic('nobody-at-all', PASSWORD)],
      ['an unknown email', () => basic('nobody@example.com', PASSWORD)],
      ['no colon', () => `Basic ${Buffer.from('justauser').toString('base64')}`],
      ['an empty user', () => basic('', PASSWORD)],
      ['not base64', () => 'Basic !!!not-base64!!!'],
      ['no credentials after the scheme', () => 'Basic'],
      ['another scheme', () => 'Digest username="x"'],
      ['a NUL byte', () => basic(`${username}\u0000`, PASSWORD)],
      ['a huge header', () => basic('x'.repeat(5000), PASSWORD)],
      ['a malformed token', () => 'Bearer vtr_org.nope'],
    ])('refuses %s: 401, WWW-Authenticate: Basic, the same message', async (_, header) => {
      const res = await call(header());
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="vulntrack"');
      expect(res.json()).toEqual({
        detail: header().startsWith('Bearer') ? 'Invalid token.' : 'Invalid username/password.',
      });
    });

    it('accepts the username or the email', async () => {
      expect((await call(basic(username, PASSWORD))).statusCode).toBe(200);
      expect((await call(basic(email, PASSWORD))).statusCode).toBe(200);
    });
  });

  describe('timing does not reveal whether a user exists', () => {
    it('verifies an unknown user’s password against the dummy hash', async () => {
      useVerifier();
      await call(basic('nobody-at-all', PASSWORD));
      expect(verifier.calls).toEqual([DUMMY_PASSWORD_HASH]);
      await call(basic(username, 'wrong password'));
      expect(verifier.calls).toHaveLength(2);
      expect(verifier.calls[1]).not.toBe(DUMMY_PASSWORD_HASH);
    });

    it('takes as long for an unknown user as for a wrong password (medians of 5)', async () => {
      useVerifier();
      const median = async (header: string) => {
        const times: number[] = [];
        for (let i = 0; i < 5; i++) {
          const start = performance.now();
          expect((await call(header)).statusCode).toBe(401);
          times.push(performance.now() - start);
        }
        return times.sort((a, b) => a - b)[2]!;
      };
      const malformed = await median('Basic !!!');
      const wrong = await median(basic(username, 'wrong password'));
      const unknown = await median(basic('nobody-at-all', 'wrong password'));
      // A password hash costs tens of milliseconds; a refusal without one, about one.
      expect(wrong).toBeGreaterThan(malformed * 3);
      expect(unknown / wrong).toBeGreaterThan(1 / 3);
      expect(unknown / wrong).toBeLessThan(3);
    });
  });

  describe('the credential cache', () => {
    it('verifies the password once for 1,000 sequential calls', async () => {
      useVerifier();
      const header = basic(username, PASSWORD);
      for (let i = 0; i < 1000; i++) {
        const res = await call(header);
        if (res.statusCode !== 200) expect(res.statusCode).toBe(200);
      }
      expect(verifier.calls).toHaveLength(1);
      expect(api.services.basicAuth.verifications).toBe(1);
    });

    it('shares one verification between concurrent calls with one credential', async () => {
      useVerifier();
      const header = basic(username, PASSWORD);
      const answers = await Promise.all(Array.from({ length: 5 }, () => call(header)));
      expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
      expect(verifier.calls).toHaveLength(1);
    });

    it('never caches a failure', async () => {
      useVerifier();
      for (let i = 0; i < 3; i++)
        expect((await call(basic(username, 'wrong password'))).statusCode).toBe(401);
      expect(verifier.calls).toHaveLength(3);
    });

    it('keys entries by the exact credential: another password is verified (and refused)', async () => {
      useVerifier();
      expect((await call(basic(username, PASSWORD))).statusCode).toBe(200);
      expect((await call(basic(username, `${PASSWORD} `))).statusCode).toBe(401);
      expect(verifier.calls).toHaveLength(2);
    });

    it('stops honouring a cached credential once the password changes', async () => {
      useVerifier();
      const old = basic(username, PASSWORD);
      expect((await call(old)).statusCode).toBe(200);
      expect((await call(old)).statusCode).toBe(200);
      expect(verifier.calls).toHaveLength(1);
      await api.services.accounts.changePassword(username, 'a brand new password');
      try {
        expect((await call(old)).statusCode).toBe(401);
        expect(verifier.calls).toHaveLength(2);
        expect((await call(basic(username, 'a brand new password'))).statusCode).toBe(200);
      } finally {
        await api.services.accounts.changePassword(username, PASSWORD);
      }
      expect((await call(old)).statusCode).toBe(200);
    });

    it('verifies every call when the cache is off (API_V1_AUTH_CACHE_SECONDS=0)', async () => {
      useVerifier(0);
      for (let i = 0; i < 3; i++) expect((await call(basic(username, PASSWORD))).statusCode).toBe(200);
      expect(verifier.calls).toHaveLength(3);
    });

    it('expires entries after the TTL', async () => {
      verifier = countingVerifier();
      api.services.basicAuth = new BasicAuthService(use().db, api.services.secret, 50, verifier.verify, 0, {
        guard: noLockout(),
      });
      expect((await call(basic(username, PASSWORD))).statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 80));
      expect((await call(basic(username, PASSWORD))).statusCode).toBe(200);
      expect(verifier.calls).toHaveLength(2);
    });
  });
});
