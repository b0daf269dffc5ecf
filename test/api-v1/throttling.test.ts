/**
 * API v1's limits: an address that failed to sign in too often is refused (429, Retry-After) before
 * any password hash, other addresses go on; each user or token has the per-minute request budget of
 * API v2. Behind a trusted proxy, the address is the one X-Forwarded-For names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BasicAuthService } from '../../src/services/basic-auth.service.ts';
import { verifyPassword } from '../../src/domain/passwords.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { basic } from '../helpers/api-v1.ts';

const PASSWORD = 'correct horse battery staple';

describeEachDatabase('API v1 throttling', (use) => {
  describe('failed sign-ins per address (API_V1_AUTH_FAILURES_PER_MINUTE=3)', () => {
    let api: TestApi;
    let username: string;
    let hashes = 0;
    const call = (authorization: string, remoteAddress = '203.0.113.7', headers = {}) =>
      api.app.inject({
        method: 'GET',
        url: '/api/organizations',
        remoteAddress,
        headers: { authorization, ...headers },
      });

    beforeAll(async () => {
      api = await buildTestApi(use(), { API_V1_AUTH_FAILURES_PER_MINUTE: '3', TRUST_PROXY: '127.0.0.1' });
      ({ username } = (await createOrganization(api.services, 'throttle')).user);
      api.services.basicAuth = new BasicAuthService(
        use().db,
        api.services.secret,
        0,
        (password, hash) => {
          hashes++;
          return verifyPassword(password, hash);
        },
        3,
      );
    });
    afterAll(() => api.close());

    it('answers 401 three times, then 429 with Retry-After without hashing, even the right password', async () => {
      for (let i = 0; i < 3; i++) {
        const res = await call(basic(username, `wrong ${i}`));
        expect(res.statusCode).toBe(401);
      }
      // A malformed header counts as a failure too (it never reaches a hash).
      const before = hashes;
      const refused = await call(basic(username, PASSWORD));
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(refused.json()).toEqual({
        detail: expect.stringMatching(
          /^Too many failed sign-ins from this address\. Expected available in \d+ seconds?\.$/,
        ),
      });
      expect(refused.headers['deprecation']).toBe('true');
      expect(hashes).toBe(before);
    });

    it('lets another address sign in meanwhile', async () => {
      const res = await call(basic(username, PASSWORD), '198.51.100.9');
      expect(res.statusCode).toBe(200);
    });

    it('counts a malformed header as a failure, and not a request without credentials', async () => {
      const address = '198.51.100.20';
      for (let i = 0; i < 5; i++) {
        const res = await api.app.inject({
          method: 'GET',
          url: '/api/organizations',
          remoteAddress: address,
        });
        expect(res.statusCode).toBe(401);
      }
      for (let i = 0; i < 3; i++) expect((await call('Basic !!!', address)).statusCode).toBe(401);
      expect((await call(basic(username, PASSWORD), address)).statusCode).toBe(429);
    });

    it('behind the trusted proxy, tells clients apart by X-Forwarded-For', async () => {
      const viaProxy = (authorization: string, client: string) =>
        call(authorization, '127.0.0.1', { 'x-forwarded-for': client });
      for (let i = 0; i < 3; i++)
        expect((await viaProxy(basic(username, 'nope'), '192.0.2.1')).statusCode).toBe(401);
      expect((await viaProxy(basic(username, PASSWORD), '192.0.2.1')).statusCode).toBe(429);
      expect((await viaProxy(basic(username, PASSWORD), '192.0.2.2')).statusCode).toBe(200);
    });

    it('does not trust X-Forwarded-For from an address that is not the proxy', async () => {
      const from = '198.51.100.30';
      for (let i = 0; i < 3; i++) {
        const res = await call(basic(username, 'nope'), from, { 'x-forwarded-for': `192.0.2.${100 + i}` });
        expect(res.statusCode).toBe(401);
      }
      const res = await call(basic(username, PASSWORD), from, { 'x-forwarded-for': '192.0.2.200' });
      expect(res.statusCode).toBe(429);
    });
  });

  describe('requests per user or token (RATE_LIMIT_PER_MINUTE=3)', () => {
    let api: TestApi;
    let alice: string;
    let bob: string;
    let token: string;
    const get = (authorization: string) =>
      api.app.inject({ method: 'GET', url: '/api/cve', headers: { authorization } });

    beforeAll(async () => {
      api = await buildTestApi(use(), { RATE_LIMIT_PER_MINUTE: '3' });
      const a = await createOrganization(api.services, 'limits-a');
      const b = await createOrganization(api.services, 'limits-b');
      alice = basic(a.user.username, PASSWORD);
      bob = basic(b.user.username, PASSWORD);
      token = (await createToken(api.services, a.org.id, a.actor, { mode: 'read', scopes: ['catalog:read'] }))
        .header;
    });
    afterAll(() => api.close());

    it('answers 429 in the v1 shape with Retry-After once a user spent the budget; others go on', async () => {
      for (let i = 0; i < 3; i++) expect((await get(alice)).statusCode).toBe(200);
      const res = await get(alice);
      expect(res.statusCode).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.json()).toEqual({
        detail: expect.stringMatching(/^Request was throttled: at most 3 requests per minute\./),
      });
      expect((await get(bob)).statusCode).toBe(200);
    });

    it('gives a token its own budget', async () => {
      for (let i = 0; i < 3; i++) expect((await get(token)).statusCode).toBe(200);
      expect((await get(token)).statusCode).toBe(429);
    });
  });
});
