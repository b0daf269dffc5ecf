/**
 * Single sign-on against a real OpenID Connect provider (oidc-provider on loopback, test/helpers/
 * oidc-provider.ts), the app in-process over each database: the provider's pages are walked by a
 * node user agent, vulntrack's by the test web client. Just-in-time accounts, group → role sync (and
 * the tokens of a member removed by it), linking an existing account, OIDC_ONLY, and every refusal:
 * a tampered state, an ID token of another issuer, an unverified email, denied consent, an
 * unreachable provider. The whole run logs at trace level, and no secret of the flow appears in it.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.ts';
import { createLogger, servicesFor } from '../../src/main.ts';
import { buildApp } from '../../src/server.ts';
import type { Services } from '../../src/services/services.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { createToken } from '../helpers/api.ts';
import { WebClient } from '../helpers/web.ts';
import { startSink, type Sink } from '../notifications/smtp-sink.ts';
import {
  freePort,
  ProviderAgent,
  startImpostorIssuer,
  startOidcProvider,
  type TestProvider,
} from '../helpers/oidc-provider.ts';

const BASE = 'http://vulntrack.test';
const SECRET = 'test-secret-'.padEnd(40, 'x');
const PASSWORD = 'correct horse battery staple';

type App = Awaited<ReturnType<typeof buildApp>>;

describeEachDatabase('single sign-on (OIDC)', (use) => {
  const lines: string[] = [];
  /** Every code, state and nonce the flow carried: none may reach the logs. */
  const flowSecrets: string[] = [];
  let provider: TestProvider;
  let impostor: { issuer: string; stop(): Promise<void> };
  let services: Services;
  let app: App;
  const apps: App[] = [];
  let acmeId = '';
  let betaId = '';
  let gammaId = '';

  const env = (extra: Record<string, string> = {}) => ({
    LOG_LEVEL: 'trace',
    VULNTRACK_BASE_URL: BASE,
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: provider.clientId,
    OIDC_CLIENT_SECRET: provider.clientSecret,
    OIDC_GROUP_ROLES: 'secops=acme:owner,dev=acme:member,dev=beta:member',
    ...extra,
  });

  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });

  async function appWith(extra: Record<string, string> = {}): Promise<{ app: App; services: Services }> {
    const config = parseConfig(env(extra));
    const built = servicesFor(config, use(), SECRET);
    const instance = await buildApp({ services: built, logger: createLogger(config, sink) });
    apps.push(instance);
    return { app: instance, services: built };
  }

  /** The callback URL the provider sends the browser to, after signing in there as `sub`. */
  async function toProvider(client: WebClient, agent: ProviderAgent, sub: string, choice?: 'cancel') {
    const start = await client.get('/auth/oidc');
    expect(start.status).toBe(303);
    const authorization = new URL(start.location!);
    flowSecrets.push(authorization.searchParams.get('state')!, authorization.searchParams.get('nonce')!);
    const callback = await agent.signIn(authorization.href, sub, choice);
    expect(callback.origin + callback.pathname).toBe(`${BASE}/auth/oidc/callback`);
    for (const name of ['code', 'state']) {
      const value = callback.searchParams.get(name);
      if (value) flowSecrets.push(value);
    }
    return callback;
  }

  async function ssoSignIn(client: WebClient, agent: ProviderAgent, sub: string) {
    const callback = await toProvider(client, agent, sub);
    return client.get(callback.pathname + callback.search);
  }

  const userOf = (username: string) => services.accounts.findUser(username);

  const membership = async (orgId: string, username: string) => {
    const user = await userOf(username);
    const m = await use()
      .db.selectFrom('membership')
      .select(['role', 'date_joined'])
      .where('organization_id', '=', orgId)
      .where('user_id', '=', user!.id)
      .executeTakeFirst();
    return m?.date_joined ? m.role : undefined;
  };

  const audit = (orgId: string, action: string) =>
    use()
      .db.selectFrom('audit_log')
      .select(['actor_type', 'actor_name', 'resource_name', 'changes'])
      .where('organization_id', '=', orgId)
      .where('action', '=', action)
      .orderBy('seq')
      .execute();

  beforeAll(async () => {
    provider = await startOidcProvider(BASE, {
      'alice-sub': {
        email: 'alice@corp.example',
        email_verified: true,
        preferred_username: 'alice',
        groups: ['secops'],
      },
      'bob-sub': {
        email: 'bob@corp.example',
        email_verified: true,
        preferred_username: 'bob',
        groups: ['dev', 'sales'],
      },
      'carol-sub': {
        email: 'carol@corp.example',
        email_verified: false,
        preferred_username: 'carol',
        groups: ['dev'],
      },
      'dave-sub': {
        email: 'dave@corp.example',
        email_verified: true,
        preferred_username: 'dave.sso',
        groups: [],
      },
      'erin-sub': {
        email: 'erin@corp.example',
        email_verified: true,
        preferred_username: 'erin',
        groups: [],
      },
      'root-sub': {
        email: 'root@corp.example',
        email_verified: true,
        preferred_username: 'root',
        groups: [],
      },
    });
    impostor = await startImpostorIssuer(provider.issuer);
    ({ app, services } = await appWith());
    await services.accounts.createUser({
      username: 'root',
      email: 'root@corp.example',
      password: PASSWORD,
      isAdmin: true,
    });
    acmeId = (await services.accounts.createOrganization('acme', 'root')).id;
    betaId = (await services.accounts.createOrganization('beta', 'root')).id;
    gammaId = (await services.accounts.createOrganization('gamma', 'root')).id;
    await services.accounts.createUser({ username: 'dave', email: 'dave@corp.example', password: PASSWORD });
    await services.accounts.createUser({ username: 'erin', email: 'erin@corp.example', password: PASSWORD });
  }, 60_000);

  afterAll(async () => {
    for (const a of apps) await a.close();
    await impostor?.stop();
    await provider?.stop();
  });

  it('shows the button on the sign-in page, with its label', async () => {
    const page = await new WebClient(app).get('/login');
    const button = page.html.querySelector('a.sso-button');
    expect(button?.getAttribute('href')).toBe('/auth/oidc');
    expect(button?.text.trim()).toBe('Sign in with SSO');
    // Still the password form beside it: OIDC_ONLY is off.
    expect(page.html.querySelector('details.sso-local')).toBeNull();
    expect(page.html.querySelector('form[action="/login"]')).not.toBeNull();
  });

  it('creates the user at the first sign-in, linked by sub, with the roles of their groups (audited as sso)', async () => {
    const client = new WebClient(app);
    const signedIn = await ssoSignIn(client, new ProviderAgent(), 'alice-sub');
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe('/');
    const alice = await userOf('alice');
    expect(alice).toMatchObject({ email: 'alice@corp.example', is_admin: false });
    const link = await use()
      .db.selectFrom('sso_identity')
      .selectAll()
      .where('user_id', '=', alice!.id)
      .execute();
    expect(link).toMatchObject([{ issuer: provider.issuer, subject: 'alice-sub' }]);
    expect(await membership(acmeId, 'alice')).toBe('owner');
    expect(await membership(betaId, 'alice')).toBeUndefined();
    expect(await audit(acmeId, 'member.create')).toContainEqual(
      expect.objectContaining({
        actor_type: 'system',
        actor_name: 'sso',
        resource_name: 'alice@corp.example',
      }),
    );
    // Signed in: a page that needs it answers, with no second factor asked.
    const home = await client.get('/account');
    expect(home.status).toBe(200);
    expect(home.body).toContain('alice');
  });

  it('sets the roles again at the next sign-in after the groups changed: changed, joined, left alone', async () => {
    // gamma is not in the mapping: a membership there is nobody's business of the sync.
    const alice = (await userOf('alice'))!;
    await services.members.invite(
      gammaId,
      { email: 'alice@corp.example', role: 'member' },
      { type: 'system', id: null, name: 'test' },
    );
    await services.accounts.acceptInvitation(alice.id, 'gamma');
    provider.accounts.get('alice-sub')!.groups = ['dev'];
    const signedIn = await ssoSignIn(new WebClient(app), new ProviderAgent(), 'alice-sub');
    expect(signedIn.location).toBe('/');
    expect(await membership(acmeId, 'alice')).toBe('member');
    expect(await membership(betaId, 'alice')).toBe('member');
    expect(await membership(gammaId, 'alice')).toBe('member');
    expect(await audit(acmeId, 'member.update')).toContainEqual(
      expect.objectContaining({ actor_name: 'sso', changes: { role: { old: 'owner', new: 'member' } } }),
    );
    expect(await audit(betaId, 'member.create')).toContainEqual(
      expect.objectContaining({ actor_name: 'sso' }),
    );
    // Still one user, one link.
    expect(
      await use().db.selectFrom('app_user').select('id').where('email', '=', 'alice@corp.example').execute(),
    ).toHaveLength(1);
  });

  it('removes a member whose group is gone, revoking the tokens they created (audited), and leaves other organizations', async () => {
    const alice = (await userOf('alice'))!;
    const actor = { type: 'user' as const, id: alice.id, name: 'alice' };
    const { record } = await createToken(services, betaId, actor, { name: 'alice-ci' });
    provider.accounts.get('alice-sub')!.groups = [];
    const signedIn = await ssoSignIn(new WebClient(app), new ProviderAgent(), 'alice-sub');
    expect(signedIn.location).toBe('/');
    expect(await membership(acmeId, 'alice')).toBeUndefined();
    expect(await membership(betaId, 'alice')).toBeUndefined();
    expect(await membership(gammaId, 'alice')).toBe('member');
    expect(await audit(betaId, 'member.delete')).toContainEqual(
      expect.objectContaining({ actor_name: 'sso', resource_name: 'alice@corp.example' }),
    );
    const token = await use()
      .db.selectFrom('api_token')
      .select(['revoked_at'])
      .where('token_id', '=', record.tokenId)
      .executeTakeFirstOrThrow();
    expect(token.revoked_at).not.toBeNull();
    expect(await audit(betaId, 'token.revoke')).toContainEqual(
      expect.objectContaining({
        actor_name: 'sso',
        resource_name: 'alice-ci',
        changes: { revoked: { old: null, new: 'its creator alice@corp.example was removed' } },
      }),
    );
  });

  it('refuses an unverified email with a sentence, and makes no account', async () => {
    const page = await ssoSignIn(new WebClient(app), new ProviderAgent(), 'carol-sub');
    expect(page.status).toBe(403);
    expect(page.text).toContain('Your email address is not verified at your identity provider.');
    expect(await userOf('carol')).toBeUndefined();
  });

  it('refuses a tampered state', async () => {
    const client = new WebClient(app);
    const callback = await toProvider(client, new ProviderAgent(), 'bob-sub');
    callback.searchParams.set('state', 'forged-state-value');
    const page = await client.get(callback.pathname + callback.search);
    expect(page.status).toBe(400);
    expect(page.text).toContain('The sign-in could not be verified. Start again from the sign-in page.');
    expect(await userOf('bob')).toBeUndefined();
    expect(lines.join('')).toContain('unexpected \\"state\\" response parameter value');
    // Nor can the same callback be used twice.
    expect((await client.get(callback.pathname + callback.search)).text).toContain('This sign-in expired');
  });

  it('refuses an ID token from another issuer than the configured one', async () => {
    const { app: fooled } = await appWith({ OIDC_ISSUER: impostor.issuer });
    const client = new WebClient(fooled);
    const callback = await toProvider(client, new ProviderAgent(), 'bob-sub');
    // As an attacker relaying another provider's answer would: without that provider's `iss`.
    callback.searchParams.delete('iss');
    const page = await client.get(callback.pathname + callback.search);
    expect(page.status).toBe(400);
    expect(page.text).toContain('The sign-in could not be verified.');
    expect(await userOf('bob')).toBeUndefined();
    // It was openid-client's check of the ID token's `iss` claim that refused it.
    expect(lines.join('')).toMatch(/unexpected JWT \\"iss\\" \(issuer\) claim value/);
  });

  it('says so in one sentence when consent is denied at the provider', async () => {
    const client = new WebClient(app);
    const callback = await toProvider(client, new ProviderAgent(), 'bob-sub', 'cancel');
    expect(callback.searchParams.get('error')).toBe('access_denied');
    const page = await client.get(callback.pathname + callback.search);
    expect(page.status).toBe(403);
    expect(page.html.querySelector('.notice.error')?.text.trim()).toBe(
      'The sign-in was cancelled at your identity provider.',
    );
  });

  it('says the provider is unreachable when discovery fails', async () => {
    const port = await freePort();
    const { app: cut } = await appWith({ OIDC_ISSUER: `http://127.0.0.1:${port}` });
    const page = await new WebClient(cut).get('/auth/oidc');
    expect(page.status).toBe(503);
    expect(page.text).toContain('The sign-in provider cannot be reached at the moment.');
    expect(page.html.querySelector('a.sso-button')).not.toBeNull();
  });

  it('links an existing account of the same email only after its password sign-in', async () => {
    const client = new WebClient(app);
    const first = await ssoSignIn(client, new ProviderAgent(), 'dave-sub');
    expect(first.location).toBe('/login?done=sso-link');
    const notice = await client.get(first.location!);
    expect(notice.text).toContain('Sign in with its password once to link it');
    expect(
      await use().db.selectFrom('sso_identity').select('subject').where('subject', '=', 'dave-sub').execute(),
    ).toEqual([]);
    const signedIn = await client.post('/login', { login: 'dave', password: PASSWORD, next: '/' });
    expect(signedIn.status).toBe(303);
    const dave = (await userOf('dave'))!;
    expect(
      await use().db.selectFrom('sso_identity').select('user_id').where('subject', '=', 'dave-sub').execute(),
    ).toEqual([{ user_id: dave.id }]);
    // From now on the button is enough, and no second account was made.
    const again = await ssoSignIn(new WebClient(app), new ProviderAgent(), 'dave-sub');
    expect(again.location).toBe('/');
    expect(await userOf('dave.sso')).toBeUndefined();
  });

  it('links at once an account an administrator allowed (vulntrack user link-sso)', async () => {
    await services.accounts.allowSsoLink('erin');
    const signedIn = await ssoSignIn(new WebClient(app), new ProviderAgent(), 'erin-sub');
    expect(signedIn.location).toBe('/');
    const erin = (await userOf('erin'))!;
    expect(erin.sso_link_allowed).toBe(false);
    expect(
      await use().db.selectFrom('sso_identity').select('user_id').where('subject', '=', 'erin-sub').execute(),
    ).toEqual([{ user_id: erin.id }]);
  });

  it('refuses a disabled account', async () => {
    await services.accounts.disableUser('erin', { type: 'system', id: null, name: 'test' });
    const page = await ssoSignIn(new WebClient(app), new ProviderAgent(), 'erin-sub');
    expect(page.status).toBe(403);
    expect(page.text).toContain('This account is disabled.');
  });

  it('signs out to the provider’s end_session_endpoint when the session began there', async () => {
    const client = new WebClient(app);
    await ssoSignIn(client, new ProviderAgent(), 'bob-sub');
    await client.get('/account');
    const out = await client.post('/logout');
    expect(out.status).toBe(303);
    const end = new URL(out.location!);
    expect(end.origin).toBe(provider.issuer);
    expect(end.searchParams.get('post_logout_redirect_uri')).toBe(`${BASE}/login`);
    expect((await client.get('/account')).status).toBe(302);
    // A password session signs out to the sign-in page, as ever.
    const local = new WebClient(app);
    await local.get('/login');
    await local.post('/login', { login: 'root', password: PASSWORD, next: '/' });
    await local.get('/account');
    expect((await local.post('/logout')).location).toBe('/login');
    // The form that signs out may go to the provider: the issuer's origin is in form-action.
    expect(out.headers['content-security-policy']).toContain(`form-action 'self' ${provider.issuer}`);
  });

  describe('OIDC_ONLY', () => {
    let only: App;
    let sink: Sink;
    beforeAll(async () => {
      sink = await startSink();
      ({ app: only } = await appWith({
        OIDC_ONLY: 'true',
        WEB_OPEN_SIGNUP: 'true',
        SMTP_URL: sink.url,
        SMTP_FROM: 'vulntrack <vulntrack@example.test>',
      }));
    });
    afterAll(() => sink?.close());

    it('refuses password sign-in to anyone but an administrator, folds the form away', async () => {
      const client = new WebClient(only);
      const page = await client.get('/login');
      expect(page.html.querySelector('details.sso-local summary')?.text).toBe(
        'Administrator sign-in with a password',
      );
      const refused = await client.post('/login', { login: 'dave', password: PASSWORD, next: '/' });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain(
        'Password sign-in is off on this server: use the single sign-on button.',
      );
      // A wrong password is still only a wrong password (nothing said about the account).
      const wrong = await client.post('/login', { login: 'dave', password: 'not the password', next: '/' });
      expect(wrong.text).toContain('Wrong username, email or password.');
      // The break-glass path: a server administrator signs in with their password.
      const admin = await client.post('/login', { login: 'root', password: PASSWORD, next: '/' });
      expect(admin.status).toBe(303);
    });

    it('makes no account by sign-up, and API v1 takes no non-administrator password', async () => {
      expect((await new WebClient(only).get('/signup')).status).toBe(404);
      const basic = (login: string) =>
        only.inject({
          url: '/api/cve',
          headers: { authorization: `Basic ${Buffer.from(`${login}:${PASSWORD}`).toString('base64')}` },
        });
      const refused = await basic('dave');
      expect(refused.statusCode).toBe(401);
      expect(refused.body).toContain('single sign-on only');
      expect((await basic('root')).statusCode).toBe(200);
    });

    it('emails a password reset link to an administrator only', async () => {
      const client = new WebClient(only);
      await client.get('/password-reset');
      for (const login of ['dave', 'root'])
        expect((await client.post('/password-reset', { login })).location).toBe('/password-reset?done=sent');
      await expect.poll(() => sink.messages.length, { timeout: 10_000 }).toBe(1);
      await new Promise((r) => setTimeout(r, 300));
      expect(sink.messages.map((m) => m.to)).toEqual([['root@corp.example']]);
    });
  });

  it('never logs a code, state, nonce, token or the client secret, at trace level', () => {
    const log = lines.join('');
    expect(log).toContain('/auth/oidc/callback?code=[redacted]&state=[redacted]');
    expect(flowSecrets.length).toBeGreaterThan(10);
    for (const secret of [...flowSecrets, provider.clientSecret]) expect(log).not.toContain(secret);
    // No JWT (an ID or access token of oidc-provider's) either.
    expect(log).not.toMatch(/eyJ[\w-]{10,}\./);
  });
});
