/** Password reset by email: the request for a link, and the new password behind the link. */
import { Field, FormProblems, Notice, NewPasswordField } from '../kit/fields.tsx';
import type { FormErrors } from '../kit/input.ts';
import { AuthPage, Csrf } from '../kit/layout.tsx';
import type { PageContext } from '../kit/context.ts';

/** The request for a reset link (or, without email, whom to ask). */
export function ResetRequestPage({
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

/** The new password, behind a usable reset link. */
export function NewPasswordPage({
  ctx,
  token,
  errors,
}: {
  ctx: PageContext;
  token: string;
  errors?: FormErrors;
}) {
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
