import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { sql } from 'kysely';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, WebClient, type PageResponse } from '../helpers/web.ts';
import { decodeQrSvg } from '../helpers/qr.ts';
import { startSink, type Sink } from '../notifications/smtp-sink.ts';

const PASSWORD = 'correct horse battery staple';
const basic = (login: string, password: string) =>
  `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

/** The TOTP code of `secret` (as the setup page shows it, spaced) `steps` periods from now. */
function codeAt(secret: string, steps = 0): string {
  const totp = new TOTP({
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: Secret.fromBase32(secret.replace(/\s+/g, '')),
  });
  return totp.generate({ timestamp: Date.now() + steps * 30_000 });
}

const errorOf = (page: PageResponse, field: string) =>
  page.html.querySelector(`#f-${field}-error`)?.text ?? '';

async function waitFor<T>(check: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describeEachDatabase('web: account settings, password, two-factor, reset', (use) => {
  let api: TestApi;
  let sink: Sink;

  beforeAll(async () => {
    sink = await startSink();
    api = await buildTestApi(use(), { SMTP_URL: sink.url, VULNTRACK_BASE_URL: 'https://vulntrack.test' });
  });
  afterAll(async () => {
    await api.close();
    await sink.close();
  });

  describe('settings', () => {
    it('needs a signed-in user', async () => {
      const page = await new WebClient(api.app).get('/account');
      expect(page.status).toBe(302);
      expect(page.location).toBe('/login?next=%2Faccount');
    });

    it('refuses bad values beside each field, keeping what was typed', async () => {
      const { user } = await createOrganization(api.services, 'websettingsbad');
      const browser = await signedIn(api, user.username, PASSWORD);
      const form = await browser.get('/account');
      expect(form.status).toBe(200);
      expect(form.html.querySelector('.tabs a[aria-current=page]')?.text).toBe('Settings');
      expect(form.html.querySelectorAll('#time-zones option').length).toBeGreaterThan(300);
      const bad = await browser.post('/account', {
        time_zone: 'Mars/Olympus_Mons',
        date_format: 'roman',
        theme: 'neon',
      });
      expect(bad.status).toBe(400);
      expect(errorOf(bad, 'time_zone')).toMatch(/"Mars\/Olympus_Mons" is not a time zone/);
      expect(bad.html.querySelector('.field.has-error #f-date_format')).toBeTruthy();
      expect(bad.text).toContain('Choose one of iso, us, eu.');
      expect(bad.text).toContain('Choose one of auto, light, dark.');
      expect(bad.html.querySelector('#f-time_zone')?.getAttribute('value')).toBe('Mars/Olympus_Mons');
      // Nothing was saved.
      expect((await api.services.webSessions.user(user.id))?.timeZone).toBe('UTC');
    });

    it('saves the time zone, date format and theme, and every page follows them', async () => {
      const { user } = await createOrganization(api.services, 'websettings');
      const browser = await signedIn(api, user.username, PASSWORD);
      const before = await browser.get('/account');
      expect(before.html.querySelector('html')?.getAttribute('data-theme')).toBe('auto');
      expect(before.html.querySelector('#date-sample time')?.text).toBe('2021-12-10 10:00');

      const saved = await browser.post('/account', {
        time_zone: 'America/New_York',
        date_format: 'us',
        theme: 'dark',
      });
      expect(saved.status).toBe(303);
      expect(saved.location).toBe('/account?done=settings');
      const after = await browser.follow(saved);
      expect(after.text).toContain('Your settings are saved.');
      expect(after.html.querySelector('html')?.getAttribute('data-theme')).toBe('dark');
      expect(after.html.querySelector('#date-sample time')?.text).toBe('12/10/2021 5:00 AM');
      expect(after.html.querySelector('#f-time_zone')?.getAttribute('value')).toBe('America/New_York');
      expect(after.html.querySelector('#f-date_format option[selected]')?.getAttribute('value')).toBe('us');

      await browser.post('/account', { time_zone: 'Asia/Kolkata', date_format: 'eu', theme: 'light' });
      const eu = await browser.get('/account/security');
      expect(eu.html.querySelector('html')?.getAttribute('data-theme')).toBe('light');
      expect((await browser.get('/account')).html.querySelector('#date-sample time')?.text).toBe(
        '10/12/2021 15:30',
      );
    });
  });

  describe('password change', () => {
    it('checks the current password and the new one, beside each field', async () => {
      const { user } = await createOrganization(api.services, 'webpwbad');
      const browser = await signedIn(api, user.username, PASSWORD);
      await browser.get('/account/security');
      const wrong = await browser.post('/account/security/password', {
        current: 'not my password',
        password: 'a brand new password',
        confirm: 'a brand new password',
      });
      expect(wrong.status).toBe(400);
      expect(errorOf(wrong, 'current')).toBe('That is not your current password.');
      const short = await browser.post('/account/security/password', {
        current: PASSWORD,
        password: 'short',
        confirm: 'short',
      });
      expect(short.status).toBe(400);
      expect(errorOf(short, 'password')).toBe('At least 8 characters.');
      const differ = await browser.post('/account/security/password', {
        current: PASSWORD,
        password: 'a brand new password',
        confirm: 'a brand new passw0rd',
      });
      expect(differ.status).toBe(400);
      expect(errorOf(differ, 'confirm')).toBe('The two passwords are not the same.');
      const empty = await browser.post('/account/security/password', {});
      expect(errorOf(empty, 'current')).toBe('Enter your current password.');
      // The password is unchanged.
      await signedIn(api, user.username, PASSWORD);
    });

    it('changes it, ends the other sessions (this one stays) and API v1 credentials with the old one', async () => {
      const { user } = await createOrganization(api.services, 'webpw');
      const v1 = (password: string) =>
        api.app.inject({
          method: 'GET',
          url: '/api/organizations',
          headers: { authorization: basic(user.username, password) },
        });
      expect((await v1(PASSWORD)).statusCode).toBe(200);
      const here = await signedIn(api, user.username, PASSWORD);
      const elsewhere = await signedIn(api, user.username, PASSWORD);
      expect((await elsewhere.get('/account')).status).toBe(200);

      await here.get('/account/security');
      const changed = await here.post('/account/security/password', {
        current: PASSWORD,
        password: 'a brand new password',
        confirm: 'a brand new password',
      });
      expect(changed.status).toBe(303);
      const page = await here.follow(changed);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Your password is changed. Every other session of your account has ended.');
      expect((await elsewhere.get('/account')).location).toBe('/login?next=%2Faccount');

      expect((await v1(PASSWORD)).statusCode).toBe(401);
      expect((await v1('a brand new password')).statusCode).toBe(200);
      const old = new WebClient(api.app);
      await old.get('/login');
      expect((await old.post('/login', { login: user.username, password: PASSWORD })).status).toBe(400);
      await signedIn(api, user.username, 'a brand new password');
    });
  });

  describe('two-factor sign-in', () => {
    let owner: Awaited<ReturnType<typeof createOrganization>>;
    let secret = '';
    let recoveryCodes: string[] = [];

    beforeAll(async () => {
      owner = await createOrganization(api.services, 'webtotp');
    });

    it('is set up with a secret shown as text and an otpauth link, stored sealed, on once a code confirms it', async () => {
      const browser = await signedIn(api, owner.user.username, PASSWORD);
      const off = await browser.get('/account/security');
      expect(off.text).toContain('Off');
      const start = await browser.post('/account/security/two-factor/start');
      expect(start.status).toBe(303);
      expect(start.location).toBe('/account/security/two-factor');
      const setup = await browser.follow(start);
      secret = setup.html.querySelector('#totp-secret')!.getAttribute('value')!;
      expect(secret).toMatch(/^[A-Z2-7]{4}( [A-Z2-7]{4}){7}$/);
      const uri = setup.html.querySelector('#totp-uri')!.getAttribute('value')!;
      expect(uri).toMatch(new RegExp(`^otpauth://totp/vulntrack:${owner.user.username}\\?`));
      expect(new URL(uri).searchParams.get('secret')).toBe(secret.replace(/ /g, ''));
      // The QR code a phone scans holds the same link.
      const qr = setup.html.querySelector('.qr svg')!;
      expect(qr.getAttribute('aria-label')).toMatch(/QR code/);
      const path = qr.querySelector('path')!.getAttribute('d')!;
      expect(decodeQrSvg({ viewBox: qr.getAttribute('viewBox')!, path })).toBe(uri);

      // At rest, the secret is sealed: not in the row in clear.
      const row = await api.services.database.db
        .selectFrom('app_user')
        .select(['totp_secret', 'totp_enabled_at'])
        .where('id', '=', owner.user.id)
        .executeTakeFirstOrThrow();
      expect(row.totp_secret).toMatch(/^v1\./);
      expect(row.totp_secret).not.toContain(secret.replace(/ /g, ''));
      expect(row.totp_enabled_at).toBeNull();

      // Until confirmed, the password alone still signs in.
      await signedIn(api, owner.user.username, PASSWORD);
      expect((await browser.get('/account/security')).text).toContain('Being set up');

      const empty = await browser.post('/account/security/two-factor', { code: '' });
      expect(empty.status).toBe(400);
      expect(errorOf(empty, 'code')).toBe('Enter the 6-digit code your app shows.');
      const wrong = await browser.post('/account/security/two-factor', { code: codeAt(secret, 20) });
      expect(wrong.status).toBe(400);
      expect(errorOf(wrong, 'code')).toMatch(/That code is not right/);
      expect(wrong.html.querySelector('#totp-secret')?.getAttribute('value')).toBe(secret);

      const on = await browser.post('/account/security/two-factor', { code: codeAt(secret) });
      expect(on.status).toBe(200);
      recoveryCodes = on.html.querySelectorAll('#recovery-codes code').map((c) => c.text);
      expect(recoveryCodes).toHaveLength(10);
      expect(new Set(recoveryCodes).size).toBe(10);
      for (const code of recoveryCodes) expect(code).toMatch(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
      const stored = await api.services.database.db
        .selectFrom('recovery_code')
        .select('code_hash')
        .where('user_id', '=', owner.user.id)
        .execute();
      expect(stored).toHaveLength(10);
      for (const { code_hash } of stored)
        expect(recoveryCodes.some((c) => code_hash.includes(c.replace(/-/g, '')))).toBe(false);

      const status = await browser.get('/account/security');
      expect(status.text).toContain('On since');
      expect(status.html.querySelector('#recovery-left')?.text).toContain('10 of 10');
    });

    it('asks for a code after the password: not signed in until one is accepted, each code once', async () => {
      const browser = new WebClient(api.app);
      await browser.get('/login');
      const first = await browser.post('/login', {
        login: owner.user.username,
        password: PASSWORD,
        next: '/account',
      });
      expect(first.status).toBe(303);
      expect(first.location).toBe('/login/two-factor');
      // Half-way is not signed in.
      expect((await browser.get('/account')).location).toBe('/login?next=%2Faccount');
      const step = await browser.get('/login/two-factor');
      expect(step.status).toBe(200);
      expect(step.html.querySelector('input[name=code][autocomplete=one-time-code]')).toBeTruthy();

      const empty = await browser.post('/login/two-factor', { code: ' ' });
      expect(empty.status).toBe(400);
      const wrong = await browser.post('/login/two-factor', { code: codeAt(secret, 20) });
      expect(wrong.status).toBe(400);
      expect(errorOf(wrong, 'code')).toBe('That code is not right, or it was already used.');
      // The code of the setup's step is spent; the next step's code works (a clock a little ahead).
      const code = codeAt(secret, 1);
      const done = await browser.post('/login/two-factor', { code });
      expect(done.status).toBe(303);
      expect(done.location).toBe('/account');
      expect((await browser.get('/account')).status).toBe(200);

      // The same code again, from another browser: refused (no replay within its window).
      const replay = new WebClient(api.app);
      await replay.get('/login');
      await replay.post('/login', { login: owner.user.username, password: PASSWORD });
      await replay.get('/login/two-factor');
      const again = await replay.post('/login/two-factor', { code });
      expect(again.status).toBe(400);
      expect((await replay.get('/account')).status).toBe(302);
    });

    it('takes a recovery code instead, once, typed in any case with or without dashes', async () => {
      const [first, second] = recoveryCodes as [string, string];
      const signInWith = async (code: string) => {
        const browser = new WebClient(api.app);
        await browser.get('/login');
        await browser.post('/login', { login: owner.user.email, password: PASSWORD });
        await browser.get('/login/two-factor');
        return browser.post('/login/two-factor', { code });
      };
      expect((await signInWith(first)).status).toBe(303);
      expect((await signInWith(first)).status).toBe(400);
      expect((await signInWith(second.replace(/-/g, '').toUpperCase())).status).toBe(303);
      const browser = await signedInWithCode(owner.user.username, recoveryCodes[2]!);
      expect((await browser.get('/account/security')).html.querySelector('#recovery-left')?.text).toContain(
        '7 of 10',
      );
    });

    it('makes new recovery codes with the password; the old ones stop working', async () => {
      const browser = await signedInWithCode(owner.user.username, recoveryCodes[3]!);
      await browser.get('/account/security');
      const wrong = await browser.post('/account/security/recovery-codes', { password: 'not it at all' });
      expect(wrong.status).toBe(400);
      expect(wrong.html.querySelector('#regenerate-form #f-password-error')?.text).toBe(
        'That is not your password.',
      );
      const fresh = await browser.post('/account/security/recovery-codes', { password: PASSWORD });
      expect(fresh.status).toBe(200);
      const codes = fresh.html.querySelectorAll('#recovery-codes code').map((c) => c.text);
      expect(codes).toHaveLength(10);
      expect(codes).not.toContain(recoveryCodes[4]);
      await expect(signedInWithCode(owner.user.username, recoveryCodes[4]!)).rejects.toThrow(/400/);
      recoveryCodes = codes;
    });

    it('throttles code guessing at the second step', async () => {
      const target = await createOrganization(api.services, 'webtotpthrottle');
      const browser = await signedIn(api, target.user.username, PASSWORD);
      await browser.post('/account/security/two-factor/start');
      const setup = await browser.get('/account/security/two-factor');
      const key = setup.html.querySelector('#totp-secret')!.getAttribute('value')!;
      expect((await browser.post('/account/security/two-factor', { code: codeAt(key) })).status).toBe(200);

      const guesser = new WebClient(api.app);
      await guesser.get('/login');
      await guesser.post('/login', { login: target.user.username, password: PASSWORD });
      await guesser.get('/login/two-factor');
      for (let i = 0; i < 10; i++)
        expect((await guesser.post('/login/two-factor', { code: '00000' + (i % 10) })).status).toBe(400);
      const blocked = await guesser.post('/login/two-factor', { code: codeAt(key, 1) });
      expect(blocked.status).toBe(429);
      expect(blocked.headers['retry-after']).toBeTruthy();
      expect(blocked.text).toMatch(/Too many wrong codes/);
    });

    it('is turned off with the password or a code, not with nothing or a wrong one', async () => {
      const browser = await signedInWithCode(owner.user.username, recoveryCodes[0]!);
      await browser.get('/account/security');
      const nothing = await browser.post('/account/security/two-factor/disable', { password: '', code: '' });
      expect(nothing.status).toBe(400);
      expect(nothing.html.querySelector('#disable-form #f-password-error')?.text).toBe(
        'Enter your password, or a code below.',
      );
      const wrong = await browser.post('/account/security/two-factor/disable', {
        password: 'wrong password!',
      });
      expect(wrong.status).toBe(400);
      const wrongCode = await browser.post('/account/security/two-factor/disable', {
        code: 'aaaa-bbbb-cccc-dddd',
      });
      expect(wrongCode.status).toBe(400);
      expect(wrongCode.html.querySelector('#disable-form #f-code-error')?.text).toMatch(/not right/);
      const off = await browser.post('/account/security/two-factor/disable', { code: recoveryCodes[1]! });
      expect(off.status).toBe(303);
      expect(off.location).toBe('/account/security?done=two-factor-off');
      expect((await browser.follow(off)).text).toContain('Two-factor sign-in is off.');
      // The password alone signs in again; the codes are gone.
      const plain = await signedIn(api, owner.user.username, PASSWORD);
      expect((await plain.get('/account')).status).toBe(200);
      const left = await api.services.database.db
        .selectFrom('recovery_code')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('user_id', '=', owner.user.id)
        .executeTakeFirstOrThrow();
      expect(left.n).toBe(0);
    });

    it('a setup can be cancelled without proof, and the two-factor page of no setup goes back', async () => {
      const { user } = await createOrganization(api.services, 'webtotpcancel');
      const browser = await signedIn(api, user.username, PASSWORD);
      expect((await browser.get('/account/security/two-factor')).location).toBe('/account/security');
      await browser.post('/account/security/two-factor/start');
      const cancelled = await browser.post('/account/security/two-factor/disable');
      expect(cancelled.location).toBe('/account/security?done=setup-cancelled');
      expect((await browser.follow(cancelled)).text).toContain('Off');
    });

    async function signedInWithCode(login: string, code: string): Promise<WebClient> {
      const browser = new WebClient(api.app);
      await browser.get('/login');
      await browser.post('/login', { login, password: PASSWORD });
      await browser.get('/login/two-factor');
      const r = await browser.post('/login/two-factor', { code });
      if (r.status !== 303) throw new Error(`second step refused: ${r.status}`);
      return browser;
    }
  });

  describe('password reset by email', () => {
    it('answers the same for an unknown account and sends one email with a one-time link', async () => {
      const { user } = await createOrganization(api.services, 'webreset');
      const elsewhere = await signedIn(api, user.username, PASSWORD);
      const browser = new WebClient(api.app);
      const form = await browser.get('/password-reset');
      expect(form.status).toBe(200);
      expect(form.html.querySelector('form[action="/password-reset"] input[name=login]')).toBeTruthy();

      const empty = await browser.post('/password-reset', { login: '  ' });
      expect(empty.status).toBe(400);
      expect(errorOf(empty, 'login')).toBe('Enter your username or email.');

      const before = sink.messages.length;
      const unknown = await browser.post('/password-reset', { login: 'nobody@nowhere.example' });
      const known = await browser.post('/password-reset', { login: user.email.toUpperCase() });
      expect(known.status).toBe(303);
      expect([unknown.status, unknown.location]).toEqual([known.status, known.location]);
      const unknownPage = await browser.follow(unknown);
      const knownPage = await browser.follow(known);
      expect(unknownPage.text).toBe(knownPage.text);
      expect(knownPage.text).toContain('If an account has that username or email');

      const message = await waitFor(() => sink.messages.slice(before).find((m) => m.to.includes(user.email)));
      expect(message.mail.subject).toBe('Reset your vulntrack password');
      const link = /https:\/\/vulntrack\.test(\/password-reset\/[A-Za-z0-9_-]+)/.exec(
        message.mail.text ?? '',
      )![1]!;
      expect(message.mail.html).toContain(`https://vulntrack.test${link}`);
      await new Promise((r) => setTimeout(r, 200));
      expect(sink.messages.length - before).toBe(1);

      // Only the hash is stored.
      const token = link.split('/').pop()!;
      const stored = await api.services.database.db
        .selectFrom('one_time_link')
        .select('token_hash')
        .where('user_id', '=', user.id)
        .where('purpose', '=', 'password_reset')
        .execute();
      expect(stored).toHaveLength(1);
      expect(stored[0]!.token_hash).not.toContain(token);

      const reset = new WebClient(api.app);
      const page = await reset.get(link);
      expect(page.status).toBe(200);
      const short = await reset.post(link, { password: 'short', confirm: 'short' });
      expect(short.status).toBe(400);
      expect(errorOf(short, 'password')).toBe('At least 8 characters.');
      const differ = await reset.post(link, {
        password: 'reset password one',
        confirm: 'reset password two',
      });
      expect(errorOf(differ, 'confirm')).toBe('The two passwords are not the same.');
      const done = await reset.post(link, { password: 'reset password one', confirm: 'reset password one' });
      expect(done.status).toBe(303);
      expect(done.location).toBe('/login?done=password-reset');
      expect((await reset.follow(done)).text).toContain('Your password is changed');

      // Every session ended; the new password works, the old does not; the link is spent.
      expect((await elsewhere.get('/account')).status).toBe(302);
      await signedIn(api, user.username, 'reset password one');
      await expect(signedIn(api, user.username, PASSWORD)).rejects.toThrow(/400/);
      expect((await reset.get(link)).status).toBe(404);
      expect(
        (await reset.post(link, { password: 'reset password two', confirm: 'reset password two' })).status,
      ).toBe(404);
    });

    it('answers 404 for an unknown or expired link', async () => {
      const { user } = await createOrganization(api.services, 'webresetexpired');
      const { url } = await api.services.security.passwordResetLink(user.username);
      const path = new URL(url).pathname;
      const browser = new WebClient(api.app);
      expect((await browser.get(path)).status).toBe(200);
      await api.services.database.db
        .updateTable('one_time_link')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('user_id', '=', user.id)
        .execute();
      const expired = await browser.get(path);
      expect(expired.status).toBe(404);
      expect((await browser.post(path, { password: 'whatever long', confirm: 'whatever long' })).status).toBe(
        404,
      );
      expect((await browser.get('/password-reset/made-up-token')).status).toBe(404);
    });

    it('says when this server cannot send email', async () => {
      const noMail = await buildTestApi(use());
      try {
        const browser = new WebClient(noMail.app);
        const page = await browser.get('/password-reset');
        expect(page.text).toContain('This server is not set up to send email');
        expect(page.html.querySelector('input[name=login]')).toBeNull();
        await browser.get('/login'); // the page without a form carries no CSRF token
        const post = await browser.post('/password-reset', { login: 'anyone' });
        expect(post.status).toBe(503);
        expect(post.text).toContain('This server is not set up to send email');
      } finally {
        await noMail.close();
      }
    });
  });

  describe('CSRF', () => {
    it('refuses every account form without this browser’s token', async () => {
      const { user } = await createOrganization(api.services, 'webaccountcsrf');
      const browser = await signedIn(api, user.username, PASSWORD);
      await browser.get('/account');
      const forms: [string, Record<string, string>][] = [
        ['/account', { time_zone: 'Europe/Paris', date_format: 'eu', theme: 'dark' }],
        [
          '/account/security/password',
          { current: PASSWORD, password: 'another password', confirm: 'another password' },
        ],
        ['/account/security/two-factor/start', {}],
        ['/account/security/two-factor/disable', { password: PASSWORD }],
        ['/account/security/recovery-codes', { password: PASSWORD }],
        ['/password-reset', { login: user.username }],
        ['/login/two-factor', { code: '123456' }],
      ];
      for (const [url, form] of forms) {
        const r = await browser.post(url, { ...form, _csrf: 'forged' });
        expect({ url, status: r.status }).toEqual({ url, status: 403 });
      }
      expect((await api.services.webSessions.user(user.id))?.theme).toBe('auto');
      await signedIn(api, user.username, PASSWORD);
    });
  });
});
