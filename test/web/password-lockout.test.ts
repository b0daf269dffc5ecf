/**
 * One lockout for every door that checks a password (issue 32, item 3): web sign-in, API v1 Basic
 * authentication and the password-confirm forms count wrong passwords together, per account (its
 * username and email are one account) and per address; an account locked through one door is
 * locked at every other, cached API v1 credential or not. And API v1 Basic refuses the password of a
 * user with two-factor sign-in on, unless API_V1_BASIC_TWO_FACTOR_USERS=allow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { basic } from '../helpers/api-v1.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, WebClient } from '../helpers/web.ts';
import { TWO_FACTOR_REFUSED } from '../../src/services/basic-auth.service.ts';

const PASSWORD = 'correct horse battery staple';
const ACCOUNT_LOCKED =
  /^Too many failed sign-ins to this account \(on the web or API v1\)\. Expected available in \d+ seconds?\.$/;

let addresses = 0;
/** A client address no other test used. */
const freshAddress = () => `192.0.2.${++addresses}`;

describeEachDatabase('one lockout for every door that checks a password', (use) => {
  let api: TestApi;

  /** An API v1 call with Basic credentials from `address`. */
  const v1 = (login: string, password: string, address = freshAddress()) =>
    api.app.inject({
      method: 'GET',
      url: '/api/organizations',
      remoteAddress: address,
      headers: { authorization: basic(login, password) },
    });

  /** A web sign-in attempt from a browser of its own (its own address). */
  const webSignIn = async (login: string, password: string) => {
    const browser = new WebClient(api.app);
    await browser.get('/login');
    return browser.post('/login', { login, password });
  };

  beforeAll(async () => {
    api = await buildTestApi(use());
  });
  afterAll(() => api.close());

  it('locks the account after 10 wrong passwords spread over addresses and doors, for the web and API v1 alike', async () => {
    const { user } = await createOrganization(api.services, 'lockspread');
    // Four addresses, each well under its own budget: 3 + 3 on API v1, 2 + 2 on the web.
    for (const address of [freshAddress(), freshAddress()])
      for (let i = 0; i < 3; i++)
        expect((await v1(user.username, `wrong ${i}`, address)).statusCode).toBe(401);
    for (let i = 0; i < 4; i++) expect((await webSignIn(user.username, `wrong ${i}`)).status).toBe(400);

    // The right password, from addresses that never failed, through either door: refused.
    const api1 = await v1(user.username, PASSWORD);
    expect(api1.statusCode).toBe(429);
    expect(Number(api1.headers['retry-after'])).toBeGreaterThan(60);
    expect(Number(api1.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    expect(api1.json()).toEqual({ detail: expect.stringMatching(ACCOUNT_LOCKED) });
    const web = await webSignIn(user.username, PASSWORD);
    expect(web.status).toBe(429);
    expect(web.text).toMatch(/Too many failed sign-ins\. Try again in 1[45] minutes\./);
    // By email too: it is the same account.
    expect((await v1(user.email, PASSWORD)).statusCode).toBe(429);
    expect((await webSignIn(user.email, PASSWORD)).status).toBe(429);

    // Another account is not affected.
    const other = (await createOrganization(api.services, 'lockspreadother')).user;
    expect((await v1(other.username, PASSWORD)).statusCode).toBe(200);
  });

  it('counts a login by username and by email as one account', async () => {
    const { user } = await createOrganization(api.services, 'lockboth');
    for (let i = 0; i < 5; i++) expect((await webSignIn(user.username, `wrong ${i}`)).status).toBe(400);
    for (let i = 0; i < 5; i++) expect((await webSignIn(user.email, `wrong ${i}`)).status).toBe(400);
    expect((await webSignIn(user.username, PASSWORD)).status).toBe(429);
    expect((await webSignIn(user.email.toUpperCase(), PASSWORD)).status).toBe(429);
  });

  it('answers 429 on API v1 for an account locked on the web, even for a credential it had cached', async () => {
    const { user } = await createOrganization(api.services, 'lockweb');
    const address = freshAddress();
    expect((await v1(user.username, PASSWORD, address)).statusCode).toBe(200); // now cached
    for (let i = 0; i < 10; i++) expect((await webSignIn(user.username, `wrong ${i}`)).status).toBe(400);
    const refused = await v1(user.username, PASSWORD, address);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['deprecation']).toBe('true');
    expect(refused.json()).toEqual({ detail: expect.stringMatching(ACCOUNT_LOCKED) });
  });

  it('counts wrong passwords on the password-confirm forms, and refuses them while the account is locked', async () => {
    const { user } = await createOrganization(api.services, 'lockconfirm');
    const browser = await signedIn(api, user.username, PASSWORD);
    await browser.get('/account/security');
    for (let i = 0; i < 5; i++) {
      const r = await browser.post('/account/security/password', {
        current: `wrong ${i}`,
        password: 'another long password',
        confirm: 'another long password',
      });
      expect(r.status).toBe(400);
    }
    for (let i = 0; i < 5; i++) expect((await v1(user.email, `wrong ${i}`)).statusCode).toBe(401);
    expect((await v1(user.username, PASSWORD)).statusCode).toBe(429);
    // The signed-in session cannot go on guessing either, not even with the right password.
    const confirm = await browser.post('/account/security/password', {
      current: PASSWORD,
      password: 'another long password',
      confirm: 'another long password',
    });
    expect(confirm.status).toBe(429);
    expect(confirm.text).toMatch(/Too many wrong passwords or codes/);
  });

  it('treats a login that names nobody like an account: the lockout does not tell who exists', async () => {
    const { user } = await createOrganization(api.services, 'lockunknown');
    const nobody = `nobody-${user.username}`;
    for (let i = 0; i < 10; i++) {
      expect((await v1(user.username, `wrong ${i}`)).statusCode).toBe(401);
      expect((await v1(nobody, `wrong ${i}`)).statusCode).toBe(401);
    }
    const known = await v1(user.username, PASSWORD);
    const unknown = await v1(nobody, PASSWORD);
    expect([known.statusCode, unknown.statusCode]).toEqual([429, 429]);
    expect(unknown.json()).toEqual({ detail: expect.stringMatching(ACCOUNT_LOCKED) });
  });

  it('locks an address that keeps failing, whatever the accounts it tries', async () => {
    const address = freshAddress();
    for (let i = 0; i < 10; i++) {
      const { user } = await createOrganization(api.services, `lockaddress${i}`);
      expect((await v1(user.username, 'wrong', address)).statusCode).toBe(401);
    }
    const { user } = await createOrganization(api.services, 'lockaddressright');
    const refused = await v1(user.username, PASSWORD, address);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      detail: expect.stringMatching(/^Too many failed sign-ins from this address\./),
    });
    expect((await v1(user.username, PASSWORD)).statusCode).toBe(200);
  });

  describe('API v1 Basic and two-factor sign-in', () => {
    /** A new user with two-factor sign-in on. */
    const withTwoFactor = async (services: TestApi['services'], name: string) => {
      const { user } = await createOrganization(services, name);
      await services.security.startTwoFactorSetup(user.id);
      const { secret } = (await services.security.pendingSetup(user.id))!;
      const totp = new TOTP({ secret: Secret.fromBase32(secret.replace(/\s+/g, '')) });
      await services.security.confirmTwoFactor(user.id, totp.generate(), '');
      return user;
    };

    it('refuses the password of a user with two-factor on: 401 and a message that says why', async () => {
      const { user } = await createOrganization(api.services, 'basic2fa');
      const address = freshAddress();
      expect((await v1(user.username, PASSWORD, address)).statusCode).toBe(200); // now cached
      await api.services.security.startTwoFactorSetup(user.id);
      const { secret } = (await api.services.security.pendingSetup(user.id))!;
      await api.services.security.confirmTwoFactor(
        user.id,
        new TOTP({ secret: Secret.fromBase32(secret.replace(/\s+/g, '')) }).generate(),
        '',
      );

      // The cached credential is refused as soon as two-factor is on, and so is a fresh one.
      for (const login of [user.username, user.email]) {
        const refused = await v1(login, PASSWORD, address);
        expect(refused.statusCode).toBe(401);
        expect(refused.headers['www-authenticate']).toBe('Basic realm="vulntrack"');
        expect(refused.json()).toEqual({ detail: TWO_FACTOR_REFUSED });
      }
      expect(TWO_FACTOR_REFUSED).toMatch(/Two-factor sign-in is on.*API_V1_BASIC_TWO_FACTOR_USERS=allow/);
      // A wrong password learns nothing about two-factor.
      expect((await v1(user.username, 'wrong', address)).json()).toEqual({
        detail: 'Invalid username/password.',
      });
      // The web still signs them in (with their code at the next step).
      const web = await webSignIn(user.username, PASSWORD);
      expect(web.status).toBe(303);
      expect(web.location).toMatch(/^\/login\/two-factor/);
    });

    it('accepts it when the server allows it (API_V1_BASIC_TWO_FACTOR_USERS=allow)', async () => {
      const allowing = await buildTestApi(use(), { API_V1_BASIC_TWO_FACTOR_USERS: 'allow' });
      try {
        const user = await withTwoFactor(allowing.services, 'basic2faallowed');
        const res = await allowing.app.inject({
          method: 'GET',
          url: '/api/organizations',
          headers: { authorization: basic(user.username, PASSWORD) },
        });
        expect(res.statusCode).toBe(200);
      } finally {
        await allowing.close();
      }
    });
  });
});
