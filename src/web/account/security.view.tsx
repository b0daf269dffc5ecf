/** The account's security: the password change and the two-factor sign-in card. */
import type { SecurityOverview } from '../../services/security.service.ts';
import { Field, FormProblems, Time, NewPasswordField } from '../kit/fields.tsx';
import type { FormErrors } from '../kit/input.ts';
import { Csrf } from '../kit/layout.tsx';
import type { PageContext } from '../kit/context.ts';
import { AccountPage } from './account-page.tsx';

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

/** The security page; `form` names the form that `errors` belong to. */
export function SecurityPage(props: {
  ctx: PageContext;
  overview: SecurityOverview;
  notice?: string | undefined;
  errors?: FormErrors | undefined;
  form?: 'password' | 'disable' | 'regenerate' | undefined;
}) {
  const { ctx, overview, notice, errors, form } = props;
  return (
    <AccountPage ctx={ctx} title="Password and two-factor" tab="security" notice={notice}>
      <div class="two-col">
        <PasswordForm ctx={ctx} errors={form === 'password' ? errors : undefined} />
        <TwoFactorCard
          ctx={ctx}
          overview={overview}
          errors={errors}
          form={form === 'disable' || form === 'regenerate' ? form : undefined}
        />
      </div>
    </AccountPage>
  );
}
