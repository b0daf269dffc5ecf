/** Turning two-factor sign-in on: the setup (key and confirmation code), and recovery codes shown once. */
import { Field, FormProblems, Notice, CopyField } from '../kit/fields.tsx';
import type { FormErrors } from '../kit/input.ts';
import { Csrf } from '../kit/layout.tsx';
import type { PageContext } from '../kit/context.ts';
import { QrCode } from '../kit/qr-code.tsx';
import { AccountPage } from './account-page.tsx';

/** The two-factor setup: the key to add to an app, and the code that confirms it. */
export function SetupPage({
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
    <AccountPage
      ctx={ctx}
      title="Set up two-factor sign-in"
      heading="Set up two-factor sign-in"
      tab="security"
    >
      <div class="two-col">
        <section class="card">
          <h2>1. Add vulntrack to your authenticator app</h2>
          <p>In your app, add an account and scan this code:</p>
          <p class="qr">
            <QrCode text={uri} label="QR code of your two-factor key, for an authenticator app" />
          </p>
          <p>Or type this key (time-based, 6 digits, every 30 seconds):</p>
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
    </AccountPage>
  );
}

/** New recovery codes, shown only this once (`fresh`: just after the setup). */
export function RecoveryCodesPage({
  ctx,
  codes,
  fresh,
}: {
  ctx: PageContext;
  codes: string[];
  fresh: boolean;
}) {
  return (
    <AccountPage
      ctx={ctx}
      title="Recovery codes"
      heading={fresh ? 'Two-factor sign-in is on' : 'Your new recovery codes'}
      tab="security"
    >
      <section class="card">
        <h2>Your recovery codes</h2>
        <Notice kind="warn">
          Save these codes somewhere safe now: they are shown only this once. If you lose your phone, each
          code signs you in once instead of a code from the app.
          {!fresh && ' The codes you had before no longer work.'}
        </Notice>
        {fresh && (
          <p>Every other session of your account has ended: elsewhere, you sign in again with a code.</p>
        )}
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
    </AccountPage>
  );
}
