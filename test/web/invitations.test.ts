/**
 * Invitations end to end through a real SMTP server on loopback: the invited address gets an email
 * with a one-time link; an existing user accepts it in the UI, a new person signs up through it, a
 * user signed in with another email is sent to sign in with the invited one; API v2 accepts it with
 * credentials; a withdrawn or used link answers 404. Open sign-up is off unless WEB_OPEN_SIGNUP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, WebClient } from '../helpers/web.ts';
import { startSink, type Sink } from '../notifications/smtp-sink.ts';

const PASSWORD = 'correct horse battery staple';

/** The path of the invitation link in the last email to `to`. */
function linkIn(sink: Sink, to: string): string {
  const mail = sink.messages.filter((m) => m.to.includes(to)).at(-1);
  if (!mail) throw new Error(`no email to ${to}`);
  const match = /https:\/\/vt\.example\.org(\/invitations\/[A-Za-z0-9_-]+)/.exec(mail.mail.text ?? '');
  if (!match) throw new Error(`no link in the email to ${to}`);
  return match[1]!;
}

describeEachDatabase('web: invitations', (use) => {
  let api: TestApi;
  let sink: Sink;
  let owner: Awaited<ReturnType<typeof createOrganization>>;
  let ownerBrowser: WebClient;

  beforeAll(async () => {
    sink = await startSink();
    api = await buildTestApi(use(), {
      VULNTRACK_BASE_URL: 'https://vt.example.org',
      SMTP_URL: sink.url,
      SMTP_FROM: 'vulntrack <noreply@vt.example.org>',
    });
    owner = await createOrganization(api.services, 'globex');
    ownerBrowser = await signedIn(api, owner.user.username, PASSWORD);
  });
  afterAll(async () => {
    await api.close();
    await sink.close();
  });

  it('emails the invitation from the members page, and a new person signs up through the link', async () => {
    await ownerBrowser.get('/org/globex/members');
    const invited = await ownerBrowser.post('/org/globex/members', {
      email: 'new.person@example.org',
      role: 'member',
    });
    expect(invited.status).toBe(303);
    expect((await ownerBrowser.follow(invited)).text).toContain('The invitation was emailed');

    const mail = sink.messages.at(-1)!;
    expect(mail.to).toEqual(['new.person@example.org']);
    expect(mail.mail.subject).toBe('You are invited to globex on vulntrack');
    expect(mail.mail.text).toContain(owner.user.username);
    expect(mail.mail.html).toContain('Accept the invitation');
    const path = linkIn(sink, 'new.person@example.org');

    // Only a hash of the secret is stored.
    const secret = path.split('/').at(-1)!;
    const rows = await api.services.database.db.selectFrom('one_time_link').select('token_hash').execute();
    expect(rows.some((r) => r.token_hash === secret)).toBe(false);

    const visitor = new WebClient(api.app);
    const page = await visitor.get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Join globex');
    expect(page.html.querySelector('#f-email')?.getAttribute('value')).toBe('new.person@example.org');
    expect(page.html.querySelector('#f-email')?.hasAttribute('readonly')).toBe(true);

    const bad = await visitor.post(`${path}/signup`, { username: 'new person', password: 'short' });
    expect(bad.status).toBe(400);
    expect(bad.html.querySelector('#f-username-error')?.text).toMatch(/letters, digits/);
    expect(bad.html.querySelector('#f-password-error')?.text).toMatch(/at least 8/);
    expect(bad.html.querySelector('#f-username')?.getAttribute('value')).toBe('new person');
    // A stray email field is ignored: the account gets the invited address.
    const joined = await visitor.post(`${path}/signup`, {
      username: 'newperson',
      password: PASSWORD,
      email: 'other@evil.example',
    });
    expect(joined.status).toBe(303);
    expect(joined.location).toBe('/org/globex/overview?done=joined');
    const welcome = await visitor.follow(joined);
    expect(welcome.text).toContain('you joined the organization');
    expect(welcome.html.querySelector('#account-menu .menu-name')?.text).toBe('newperson');
    expect((await api.services.accounts.findUser('newperson'))?.email).toBe('new.person@example.org');

    // The link worked once.
    expect((await new WebClient(api.app).get(path)).status).toBe(404);
    const members = await ownerBrowser.get('/org/globex/members');
    const row = members.html
      .querySelectorAll('table.data tbody tr')
      .find((r) => r.text.includes('new.person@example.org'))!;
    expect(row.text).toContain('Joined');
    expect(row.text).toContain('newperson');
  });

  it('lets an existing user accept with one button (GET shows, POST acts), after signing in', async () => {
    await api.services.accounts.createUser({ username: 'kim', email: 'kim@example.org', password: PASSWORD });
    await api.services.members.invite(owner.org.id, { email: 'kim@example.org', role: 'owner' }, owner.actor);
    const path = linkIn(sink, 'kim@example.org');

    const visitor = new WebClient(api.app);
    const anonymous = await visitor.get(path);
    expect(anonymous.status).toBe(200);
    const signIn = anonymous.html.querySelector('a[href^="/login?next="]');
    expect(signIn?.getAttribute('href')).toBe(`/login?next=${encodeURIComponent(path)}`);

    const kim = await signedIn(api, 'kim', PASSWORD);
    const page = await kim.get(path);
    expect(page.html.querySelector(`form[action="${path}"] button`)?.text).toBe('Join globex');
    // The GET changed nothing.
    expect(
      (await api.services.webSessions.organizationsOf((await api.services.accounts.findUser('kim'))!.id))
        .length,
    ).toBe(0);
    const joined = await kim.post(path);
    expect(joined.status).toBe(303);
    const orgs = await api.services.webSessions.organizationsOf(
      (await api.services.accounts.findUser('kim'))!.id,
    );
    expect(orgs.map((o) => [o.name, o.role])).toEqual([['globex', 'owner']]);
    expect((await kim.get(path)).status).toBe(404);
    // The audit log records the join.
    const audit = await ownerBrowser.get('/org/globex/audit?action=member.join');
    expect(audit.text).toContain('kim@example.org');
  });

  it('tells a user signed in with another email to sign in with the invited one, and refuses their POST', async () => {
    await api.services.members.invite(owner.org.id, { email: 'lee@example.org' }, owner.actor);
    const path = linkIn(sink, 'lee@example.org');
    const page = await ownerBrowser.get(path);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/not with lee@example\.org\. Sign out/);
    expect(page.html.querySelector(`form[action="${path}"]`)).toBeNull();
    const refused = await ownerBrowser.post(path);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('This invitation is for lee@example.org');
    // Still usable by the right person.
    expect((await new WebClient(api.app).get(path)).status).toBe(200);
  });

  it('makes a withdrawn invitation link answer 404, and a resent one replace the first', async () => {
    const invited = await api.services.members.invite(
      owner.org.id,
      { email: 'max@example.org' },
      owner.actor,
    );
    expect(invited.invitation.email).toBe('sent');
    const first = linkIn(sink, 'max@example.org');
    await api.services.members.resendInvitation(owner.org.id, invited.id, owner.actor);
    const second = linkIn(sink, 'max@example.org');
    expect(second).not.toBe(first);
    const visitor = new WebClient(api.app);
    expect((await visitor.get(first)).status).toBe(404);
    expect((await visitor.get(second)).status).toBe(200);
    await api.services.members.remove(owner.org.id, invited.id, owner.actor);
    expect((await visitor.get(second)).status).toBe(404);
    expect((await visitor.post(`${second}/signup`, { username: 'max', password: PASSWORD })).status).toBe(
      404,
    );
    expect(await api.services.accounts.findUser('max')).toBeUndefined();
  });

  it('answers 404 for made-up links and refuses a sign-up POST without the CSRF token', async () => {
    const visitor = new WebClient(api.app);
    expect((await visitor.get('/invitations/not-a-real-invitation-token-at-all')).status).toBe(404);
    await api.services.members.invite(owner.org.id, { email: 'csrf@example.org' }, owner.actor);
    const path = linkIn(sink, 'csrf@example.org');
    await visitor.get(path);
    const forged = await visitor.post(`${path}/signup`, {
      _csrf: 'forged',
      username: 'csrf',
      password: PASSWORD,
    });
    expect(forged.status).toBe(403);
    expect(await api.services.accounts.findUser('csrf')).toBeUndefined();
  });

  describe('API v2: POST /api/v2/invitations/accept', () => {
    const accept = (payload: Record<string, unknown>, remoteAddress = '10.9.0.1') =>
      api.app.inject({ method: 'POST', url: '/api/v2/invitations/accept', payload, remoteAddress });

    it('creates the account of a new person, with the link secret and no token', async () => {
      await api.services.members.invite(owner.org.id, { email: 'api.new@example.org' }, owner.actor);
      const token = linkIn(sink, 'api.new@example.org').split('/').at(-1)!;
      const noUsername = await accept({ token, password: PASSWORD });
      expect(noUsername.statusCode).toBe(400);
      expect(noUsername.json().error.details.username[0]).toMatch(/required/);
      const weak = await accept({ token, username: 'apinew', password: 'short' });
      expect(weak.statusCode).toBe(400);
      expect(weak.json().error.details.password[0]).toMatch(/at least 8/);
      const done = await accept({ token, username: 'apinew', password: PASSWORD });
      expect(done.statusCode).toBe(200);
      expect(done.json()).toEqual({
        organization: 'globex',
        role: 'member',
        username: 'apinew',
        email: 'api.new@example.org',
        account_created: true,
      });
      expect((await accept({ token, username: 'apinew2', password: PASSWORD })).statusCode).toBe(404);
      // The new account signs in to the web UI.
      await signedIn(api, 'apinew', PASSWORD);
    });

    it("accepts for an existing account only with that account's password", async () => {
      await api.services.accounts.createUser({
        username: 'ann',
        email: 'ann@example.org',
        password: PASSWORD,
      });
      await api.services.members.invite(
        owner.org.id,
        { email: 'ann@example.org', role: 'owner' },
        owner.actor,
      );
      const token = linkIn(sink, 'ann@example.org').split('/').at(-1)!;
      const wrong = await accept({ token, password: 'wrong password' }, '10.9.0.2');
      expect(wrong.statusCode).toBe(400);
      // Another account's credentials do not accept someone else's invitation.
      const other = await accept({ token, username: owner.user.username, password: PASSWORD }, '10.9.0.2');
      expect(other.statusCode).toBe(403);
      const done = await accept({ token, password: PASSWORD }, '10.9.0.2');
      expect(done.statusCode).toBe(200);
      expect(done.json()).toMatchObject({
        organization: 'globex',
        role: 'owner',
        username: 'ann',
        account_created: false,
      });
    });

    it('refuses malformed bodies and unknown links, and throttles an address guessing links', async () => {
      expect((await accept({ token: 'x' })).statusCode).toBe(400);
      expect((await accept({ token: 'x', password: 'y', extra: 1 })).statusCode).toBe(400);
      const statuses: number[] = [];
      for (let i = 0; i < 22; i++)
        statuses.push(
          (await accept({ token: `guess-${i}-aaaaaaaaaaaaaaaaaaaaaaaa`, password: PASSWORD }, '10.9.0.3'))
            .statusCode,
        );
      expect(statuses.slice(0, 20).every((s) => s === 404)).toBe(true);
      expect(statuses.at(-1)).toBe(429);
    });
  });
});

describeEachDatabase('web: open sign-up', (use) => {
  let closed: TestApi;
  let open: TestApi;
  beforeAll(async () => {
    closed = await buildTestApi(use());
    open = await buildTestApi(use(), { WEB_OPEN_SIGNUP: 'true' });
  });
  afterAll(async () => {
    await closed.close();
    await open.close();
  });

  it('is off by default (404), and WEB_OPEN_SIGNUP turns it on', async () => {
    const visitor = new WebClient(closed.app);
    expect((await visitor.get('/signup')).status).toBe(404);
    await visitor.get('/login');
    expect(
      (await visitor.post('/signup', { username: 'zed', email: 'zed@example.org', password: PASSWORD }))
        .status,
    ).toBe(404);
    expect(await closed.services.accounts.findUser('zed')).toBeUndefined();

    const browser = new WebClient(open.app);
    expect((await browser.get('/signup')).status).toBe(200);
    const bad = await browser.post('/signup', { username: 'zed', email: 'nope', password: PASSWORD });
    expect(bad.status).toBe(400);
    expect(bad.html.querySelector('#f-email-error')?.text).toMatch(/not an email/);
    expect(bad.html.querySelector('#f-username')?.getAttribute('value')).toBe('zed');
    const done = await browser.post('/signup', {
      username: 'zed',
      email: 'zed@example.org',
      password: PASSWORD,
    });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/org/new');
    expect((await browser.get('/org/new')).status).toBe(200);
  });
});
