/**
 * The signed-in user's own account: display settings (time zone, date format, theme), password
 * change, two-factor sign-in (TOTP) with its recovery codes; and, for anyone, password reset by an
 * emailed one-time link.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, RetryLaterError } from '../../domain/errors.ts';
import { DATE_FORMATS, THEMES, type WebUser } from '../../domain/user.ts';
import type { SecurityOverview } from '../../services/security.service.ts';
import {
  Field,
  FormProblems,
  Notice,
  SelectField,
  Time,
  NewPasswordField,
  CopyField,
} from '../kit/fields.tsx';
import { formErrorsOf, type FormErrors, field, doneText } from '../kit/input.ts';
import { AuthPage, Csrf, Layout, sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';

/** Fixed notices by `?done=` code (never text from the request). */
const NOTICES: Record<string, string> = {
  settings: 'Your settings are saved.',
  password: 'Your password is changed. Every other session of your account has ended.',
  'two-factor-off': 'Two-factor sign-in is off.',
  'setup-cancelled': 'The two-factor setup is cancelled.',
  sent:
    'If an account has that username or email, a link to reset its password is on its way. ' +
    'It works once, within an hour. Check your spam folder if nothing arrives.',
};
const noticeOf = (request: FastifyRequest) => doneText(NOTICES, request.query);

/** Time zones for the settings field's suggestions (UTC first: not every runtime lists it). */
const TIME_ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];

const DATE_FORMAT_LABELS: Record<(typeof DATE_FORMATS)[number], string> = {
  iso: 'ISO: 2024-03-29 14:05',
  us: 'US: 03/29/2024 2:05 PM',
  eu: 'European: 29/03/2024 14:05',
};
const THEME_LABELS: Record<(typeof THEMES)[number], string> = {
  auto: 'Like my system',
  light: 'Light',
  dark: 'Dark',
};

/** An instant shown as a preview of the date settings (Log4Shell's disclosure). */
const SAMPLE_DATE = new Date('2021-12-10T10:00:00Z');

function AccountTabs({ current }: { current: 'settings' | 'security' }) {
  return (
    <nav class="tabs" aria-label="Account">
      <a href="/account" aria-current={current === 'settings' ? 'page' : undefined}>
        Settings
      </a>
      <a href="/account/security" aria-current={current === 'security' ? 'page' : undefined}>
        Password and two-factor
      </a>
    </nav>
  );
}

interface SettingsValues {
  time_zone: string;
  date_format: string;
  theme: string;
}

const settingsOf = (user: WebUser): SettingsValues => ({
  time_zone: user.timeZone,
  date_format: user.dateFormat,
  theme: user.theme,
});

function SettingsPage({
  ctx,
  values,
  errors,
  notice,
}: {
  ctx: PageContext;
  values: SettingsValues;
  errors?: FormErrors;
  notice?: string | undefined;
}) {
  const tzErrors = errors?.time_zone ?? [];
  return (
    <Layout ctx={ctx} title="Account settings" section="account">
      <div class="page-head">
        <h1>Your account</h1>
      </div>
      <AccountTabs current="settings" />
      {notice && <Notice>{notice}</Notice>}
      <div class="two-col">
        <section class="card">
          <h2>Display</h2>
          <FormProblems errors={errors} fields={['time_zone', 'date_format', 'theme']} />
          <form method="post" action="/account" class="stacked">
            <Csrf ctx={ctx} />
            <div class={tzErrors.length ? 'field has-error' : 'field'}>
              <label for="f-time_zone">Time zone</label>
              <input
                id="f-time_zone"
                name="time_zone"
                type="text"
                list="time-zones"
                value={values.time_zone}
                required
                maxLength={64}
                autocomplete="off"
                aria-invalid={tzErrors.length ? 'true' : undefined}
                aria-describedby={tzErrors.length ? 'f-time_zone-hint f-time_zone-error' : 'f-time_zone-hint'}
              />
              <datalist id="time-zones">
                {TIME_ZONES.map((zone) => (
                  <option value={zone} />
                ))}
              </datalist>
              <div class="hint" id="f-time_zone-hint">
                An IANA name such as Europe/Paris, America/New_York or UTC.
              </div>
              {tzErrors.length > 0 && (
                <div class="error" id="f-time_zone-error">
                  {tzErrors.join(' ')}
                </div>
              )}
            </div>
            <SelectField
              name="date_format"
              label="Date format"
              value={values.date_format}
              options={DATE_FORMATS.map((value) => ({ value, label: DATE_FORMAT_LABELS[value] }))}
              errors={errors}
            />
            <SelectField
              name="theme"
              label="Theme"
              value={values.theme}
              options={THEMES.map((value) => ({ value, label: THEME_LABELS[value] }))}
              errors={errors}
            />
            <button type="submit" class="btn-primary">
              Save
            </button>
          </form>
        </section>
        <section class="card">
          <h2>Your details</h2>
          <table class="kv">
            <tbody>
              <tr>
                <th>Username</th>
                <td>{ctx.user!.username}</td>
              </tr>
              <tr>
                <th>Email</th>
                <td>{ctx.user!.email}</td>
              </tr>
              <tr>
                <th>Dates look like</th>
                <td id="date-sample">
                  <Time date={SAMPLE_DATE} style={ctx.dateStyle} />{' '}
                  <span class="muted small">(10:00 UTC on 10 December 2021)</span>
                </td>
              </tr>
            </tbody>
          </table>
        </section>
      </div>
    </Layout>
  );
}

function PasswordForm({ ctx, errors }: { ctx: PageContext; errors?: FormErrors | undefined }) {
  return (
    <section class="card" aria-labelledby="password-title">
      <h2 id="password-title">Change your password</h2>
      <FormProblems errors={errors} fields={['current', 'password', 'confirm']} />
      <form method="post" action="/account/security/password" class="stacked">
        <Csrf ctx={ctx} />
        {/* For password managers: the account the password belongs to. */}
        <input type="hidden" name="username" value={ctx.user!.username} autocomplete="username" />
        <Field
          name="current"
          label="Current password"
          type="password"
          autocomplete="current-password"
          required
          errors={errors}
        />
        <NewPasswordField label="New password" errors={errors} note="Your other sessions end." />
        <Field
          name="confirm"
          label="New password again"
          type="password"
          autocomplete="new-password"
          required
          errors={errors}
        />
        <button type="submit" class="btn-primary">
          Change password
        </button>
      </form>
    </section>
  );
}

function TwoFactorCard({
  ctx,
  overview,
  errors,
  form,
}: {
  ctx: PageContext;
  overview: SecurityOverview;
  errors?: FormErrors | undefined;
  form?: 'disable' | 'regenerate' | undefined;
}) {
  if (overview.twoFactor === 'off') {
    return (
      <section class="card" aria-labelledby="two-factor-title">
        <h2 id="two-factor-title">Two-factor sign-in</h2>
        <p>
          <span class="badge neutral">Off</span> With two-factor sign-in, signing in also asks for a code from
          an authenticator app on your phone (any TOTP app), so a stolen password alone is not enough.
        </p>
        <form method="post" action="/account/security/two-factor/start">
          <Csrf ctx={ctx} />
          <button type="submit" class="btn-primary">
            Set up two-factor sign-in
          </button>
        </form>
      </section>
    );
  }
  if (overview.twoFactor === 'pending') {
    return (
      <section class="card" aria-labelledby="two-factor-title">
        <h2 id="two-factor-title">Two-factor sign-in</h2>
        <p>
          <span class="badge neutral">Being set up</span> It is not on until you confirm a code from your app.
        </p>
        <div class="row">
          <a href="/account/security/two-factor">Continue the setup</a>
          <form method="post" action="/account/security/two-factor/disable" class="inline-form">
            <Csrf ctx={ctx} />
            <button type="submit">Cancel the setup</button>
          </form>
        </div>
      </section>
    );
  }
  const disableErrors = form === 'disable' ? errors : undefined;
  const regenerateErrors = form === 'regenerate' ? errors : undefined;
  return (
    <section class="card" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Two-factor sign-in</h2>
      <p>
        <span class="badge ok">On</span> since <Time date={overview.enabledAt} style={ctx.dateStyle} />.{' '}
        <span id="recovery-left">{overview.recoveryCodesLeft} of 10 recovery codes unused.</span>
      </p>
      <h3>New recovery codes</h3>
      <p class="small">The codes you have stop working; you get 10 new ones, shown once.</p>
      <FormProblems errors={regenerateErrors} fields={['password']} />
      <form method="post" action="/account/security/recovery-codes" class="stacked" id="regenerate-form">
        <Csrf ctx={ctx} />
        <Field
          name="password"
          label="Your password"
          type="password"
          autocomplete="current-password"
          required
          errors={regenerateErrors}
        />
        <button type="submit">Make new recovery codes</button>
      </form>
      <h3>Turn two-factor sign-in off</h3>
      <FormProblems errors={disableErrors} fields={['password', 'code']} />
      <form
        method="post"
        action="/account/security/two-factor/disable"
        class="stacked"
        id="disable-form"
        data-confirm="Turn two-factor sign-in off? Your password alone will then sign in."
      >
        <Csrf ctx={ctx} />
        <Field
          name="password"
          label="Your password"
          type="password"
          autocomplete="current-password"
          errors={disableErrors}
        />
        <Field
          name="code"
          label="Or a code from your app, or a recovery code"
          autocomplete="one-time-code"
          maxlength={64}
          errors={disableErrors}
        />
        <button type="submit" class="btn-danger">
          Turn off
        </button>
      </form>
    </section>
  );
}

function SecurityPage(props: {
  ctx: PageContext;
  overview: SecurityOverview;
  notice?: string | undefined;
  errors?: FormErrors | undefined;
  form?: 'password' | 'disable' | 'regenerate' | undefined;
}) {
  const { ctx, overview, notice, errors, form } = props;
  return (
    <Layout ctx={ctx} title="Password and two-factor" section="account">
      <div class="page-head">
        <h1>Your account</h1>
      </div>
      <AccountTabs current="security" />
      {notice && <Notice>{notice}</Notice>}
      <div class="two-col">
        <PasswordForm ctx={ctx} errors={form === 'password' ? errors : undefined} />
        <TwoFactorCard
          ctx={ctx}
          overview={overview}
          errors={errors}
          form={form === 'disable' || form === 'regenerate' ? form : undefined}
        />
      </div>
    </Layout>
  );
}

function SetupPage({
  ctx,
  secret,
  uri,
  errors,
}: {
  ctx: PageContext;
  secret: string;
  uri: string;
  errors?: FormErrors;
}) {
  return (
    <Layout ctx={ctx} title="Set up two-factor sign-in" section="account">
      <div class="page-head">
        <h1>Set up two-factor sign-in</h1>
      </div>
      <AccountTabs current="security" />
      <div class="two-col">
        <section class="card">
          <h2>1. Add vulntrack to your authenticator app</h2>
          <p>In your app, add an account by typing this key (time-based, 6 digits, every 30 seconds):</p>
          <CopyField id="totp-secret" label="Key" value={secret} />
          <p class="small">Or, if your app takes a link, this one holds the same key:</p>
          <CopyField id="totp-uri" label="Link" value={uri} />
          <p class="small muted">Keep this key to yourself: anyone with it can make your codes.</p>
        </section>
        <section class="card">
          <h2>2. Confirm with a code</h2>
          <FormProblems errors={errors} fields={['code']} />
          <form method="post" action="/account/security/two-factor" class="stacked">
            <Csrf ctx={ctx} />
            <Field
              name="code"
              label="The 6-digit code your app shows"
              autocomplete="one-time-code"
              inputmode="numeric"
              maxlength={7}
              required
              autofocus
              errors={errors}
            />
            <button type="submit" class="btn-primary">
              Turn on two-factor sign-in
            </button>
          </form>
          <p class="small">
            <a href="/account/security">Back</a>
          </p>
        </section>
      </div>
    </Layout>
  );
}

function RecoveryCodesPage({ ctx, codes, fresh }: { ctx: PageContext; codes: string[]; fresh: boolean }) {
  return (
    <Layout ctx={ctx} title="Recovery codes" section="account">
      <div class="page-head">
        <h1>{fresh ? 'Two-factor sign-in is on' : 'Your new recovery codes'}</h1>
      </div>
      <AccountTabs current="security" />
      <section class="card">
        <h2>Your recovery codes</h2>
        <Notice kind="warn">
          Save these codes somewhere safe now: they are shown only this once. If you lose your phone, each
          code signs you in once instead of a code from the app.
          {!fresh && ' The codes you had before no longer work.'}
        </Notice>
        <ol class="recovery-codes" id="recovery-codes">
          {codes.map((code) => (
            <li>
              <code>{code}</code>
            </li>
          ))}
        </ol>
        <p class="row">
          <button type="button" data-copy="recovery-codes">
            Copy the codes
          </button>
          <a href="/account/security">I have saved them</a>
        </p>
      </section>
    </Layout>
  );
}

function ResetRequestPage({
  ctx,
  login,
  errors,
  notice,
  emailConfigured,
}: {
  ctx: PageContext;
  login: string;
  errors?: FormErrors;
  notice?: string | undefined;
  emailConfigured: boolean;
}) {
  return (
    <AuthPage ctx={ctx} title="Reset your password">
      {notice && <Notice>{notice}</Notice>}
      {emailConfigured ? (
        <>
          <p>We will email a link to choose a new password to the address of the account.</p>
          <FormProblems errors={errors} fields={['login']} />
          <form method="post" action="/password-reset" class="stacked">
            <Csrf ctx={ctx} />
            <Field
              name="login"
              label="Username or email"
              value={login}
              autocomplete="username"
              required
              autofocus
              maxlength={320}
              errors={errors}
            />
            <button type="submit" class="btn-primary">
              Email me a link
            </button>
          </form>
        </>
      ) : (
        <Notice kind="warn">
          This server is not set up to send email, so it cannot send you a link. Ask an administrator of this
          server to reset your password (they can print a one-time link with{' '}
          <code>vulntrack user reset-password</code>).
        </Notice>
      )}
      <p class="small">
        <a href="/login">Back to sign-in</a>
      </p>
    </AuthPage>
  );
}

function NewPasswordPage({ ctx, token, errors }: { ctx: PageContext; token: string; errors?: FormErrors }) {
  return (
    <AuthPage ctx={ctx} title="Choose a new password">
      <p>Every session of your account ends; then sign in with the new password.</p>
      <FormProblems errors={errors} fields={['password', 'confirm']} />
      <form method="post" action={`/password-reset/${token}`} class="stacked">
        <Csrf ctx={ctx} />
        <NewPasswordField label="New password" errors={errors} autofocus />
        <Field
          name="confirm"
          label="New password again"
          type="password"
          autocomplete="new-password"
          required
          errors={errors}
        />
        <button type="submit" class="btn-primary">
          Set the password
        </button>
      </form>
    </AuthPage>
  );
}

/** The status of a refused form: the error's own (429, 409, 503), else 400. */
function statusOf(err: unknown, reply: FastifyReply): number {
  if (err instanceof RetryLaterError) void reply.header('Retry-After', String(err.retryAfterSeconds));
  return err instanceof AppError ? err.status : 400;
}

export const accountRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const open = { config: { public: true } };
  const userOf = (request: FastifyRequest): WebUser => request.page.user!;

  // Settings.

  app.get('/account', async (request, reply) =>
    sendPage(
      reply,
      <SettingsPage ctx={request.page} values={settingsOf(userOf(request))} notice={noticeOf(request)} />,
    ),
  );

  app.post('/account', async (request, reply) => {
    const values = {
      time_zone: field(request.body, 'time_zone'),
      date_format: field(request.body, 'date_format'),
      theme: field(request.body, 'theme'),
    };
    try {
      await services.accounts.updateSettings(userOf(request).id, {
        timeZone: values.time_zone,
        dateFormat: values.date_format,
        theme: values.theme,
      });
      return reply.redirect('/account?done=settings', 303);
    } catch (err) {
      const errors = formErrorsOf(err);
      return sendPage(
        reply,
        <SettingsPage ctx={request.page} values={values} errors={errors} />,
        statusOf(err, reply),
      );
    }
  });

  // Password and two-factor.

  const securityPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    failed?: { err: unknown; form: 'password' | 'disable' | 'regenerate' },
  ) => {
    const errors = failed ? formErrorsOf(failed.err) : undefined;
    const overview = await services.security.overview(userOf(request).id);
    return sendPage(
      reply,
      <SecurityPage
        ctx={request.page}
        overview={overview}
        notice={noticeOf(request)}
        errors={errors}
        form={failed?.form}
      />,
      failed ? statusOf(failed.err, reply) : 200,
    );
  };

  app.get('/account/security', async (request, reply) => securityPage(request, reply));

  app.post('/account/security/password', async (request, reply) => {
    try {
      await services.security.changePassword(
        userOf(request).id,
        {
          current: field(request.body, 'current'),
          password: field(request.body, 'password'),
          confirm: field(request.body, 'confirm'),
        },
        request.session.sessionId,
      );
      return reply.redirect('/account/security?done=password', 303);
    } catch (err) {
      return securityPage(request, reply, { err, form: 'password' });
    }
  });

  app.post('/account/security/two-factor/start', async (request, reply) => {
    await services.security.startTwoFactorSetup(userOf(request).id);
    return reply.redirect('/account/security/two-factor', 303);
  });

  app.get('/account/security/two-factor', async (request, reply) => {
    const pending = await services.security.pendingSetup(userOf(request).id);
    if (!pending) return reply.redirect('/account/security');
    return sendPage(reply, <SetupPage ctx={request.page} secret={pending.secret} uri={pending.uri} />);
  });

  app.post('/account/security/two-factor', async (request, reply) => {
    const userId = userOf(request).id;
    try {
      const codes = await services.security.confirmTwoFactor(userId, field(request.body, 'code'));
      return sendPage(reply, <RecoveryCodesPage ctx={request.page} codes={codes} fresh />);
    } catch (err) {
      const errors = formErrorsOf(err);
      const pending = await services.security.pendingSetup(userId);
      if (!pending) return reply.redirect('/account/security', 303);
      return sendPage(
        reply,
        <SetupPage ctx={request.page} secret={pending.secret} uri={pending.uri} errors={errors} />,
        statusOf(err, reply),
      );
    }
  });

  app.post('/account/security/two-factor/disable', async (request, reply) => {
    const userId = userOf(request).id;
    const wasPending = (await services.security.overview(userId)).twoFactor === 'pending';
    try {
      await services.security.disableTwoFactor(userId, {
        password: field(request.body, 'password'),
        code: field(request.body, 'code'),
      });
      return reply.redirect(
        `/account/security?done=${wasPending ? 'setup-cancelled' : 'two-factor-off'}`,
        303,
      );
    } catch (err) {
      return securityPage(request, reply, { err, form: 'disable' });
    }
  });

  app.post('/account/security/recovery-codes', async (request, reply) => {
    try {
      const codes = await services.security.regenerateRecoveryCodes(
        userOf(request).id,
        field(request.body, 'password'),
      );
      return sendPage(reply, <RecoveryCodesPage ctx={request.page} codes={codes} fresh={false} />);
    } catch (err) {
      return securityPage(request, reply, { err, form: 'regenerate' });
    }
  });

  // Password reset by email.

  app.get('/password-reset', open, async (request, reply) =>
    sendPage(
      reply,
      <ResetRequestPage
        ctx={request.page}
        login=""
        notice={noticeOf(request)}
        emailConfigured={services.security.emailConfigured}
      />,
    ),
  );

  app.post('/password-reset', open, async (request, reply) => {
    const login = field(request.body, 'login');
    try {
      await services.security.requestPasswordReset(login, request.ip);
      return reply.redirect('/password-reset?done=sent', 303);
    } catch (err) {
      // Without SMTP the page itself says whom to ask (503), beside the form.
      const errors = formErrorsOf(err, ['service_unavailable']);
      return sendPage(
        reply,
        <ResetRequestPage
          ctx={request.page}
          login={login}
          errors={errors}
          emailConfigured={services.security.emailConfigured}
        />,
        statusOf(err, reply),
      );
    }
  });

  app.get<{ Params: { token: string } }>('/password-reset/:token', open, async (request, reply) => {
    if (!(await services.security.resetLinkIsUsable(request.params.token))) throw new AppError('not_found');
    return sendPage(reply, <NewPasswordPage ctx={request.page} token={request.params.token} />);
  });

  app.post<{ Params: { token: string } }>('/password-reset/:token', open, async (request, reply) => {
    const { token } = request.params;
    try {
      await services.security.resetPassword(token, {
        password: field(request.body, 'password'),
        confirm: field(request.body, 'confirm'),
      });
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') throw err;
      return sendPage(
        reply,
        <NewPasswordPage ctx={request.page} token={token} errors={formErrorsOf(err)} />,
        statusOf(err, reply),
      );
    }
    // This browser's session, if it had one, ended with the others.
    if (request.session.userId) await request.session.destroy();
    return reply.redirect('/login?done=password-reset', 303);
  });
};
