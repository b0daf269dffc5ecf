/**
 * Joining through an invitation link, `/invitations/<secret>` (from the invitation email, or handed
 * over by an owner): the GET shows what the link offers and changes nothing (mail scanners follow
 * links); the POST acts.
 * - signed in with the invited email: one button joins the organization;
 * - signed in with another email: told to sign out and come back signed in with the invited one;
 * - not signed in, an account with the invited email exists: sign in first (back here after);
 * - not signed in, no such account: sign up (username and password; the email is the invited one).
 * A link that is unknown, used, expired or withdrawn answers 404.
 *
 * `/signup` (open sign-up, without an invitation) exists only with WEB_OPEN_SIGNUP (else 404).
 */
import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import type { Invitation } from '../../services/invitation.service.ts';
import { Field, FormProblems, NewPasswordField, NewAccountFields } from '../kit/fields.tsx';
import { formErrorsOf, formStatusOf, type FormErrors, field } from '../kit/input.ts';
import { AuthPage, Csrf, sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';
import { startSession } from './session.ts';
import { orgPath } from '../kit/paths.ts';

const roleText = (role: string) => (role === 'owner' ? 'an owner' : 'a member');

function InvitationPage({
  ctx,
  token,
  invitation,
  username = '',
  errors,
  ssoOnly,
}: {
  ctx: PageContext;
  token: string;
  invitation: Invitation;
  username?: string;
  errors?: FormErrors | undefined;
  /** OIDC_ONLY: the single sign-on button's label; no account is made here with a password. */
  ssoOnly?: string | undefined;
}) {
  const user = ctx.user;
  const here = `/invitations/${token}`;
  const matches = user !== undefined && user.email.toLowerCase() === invitation.email;
  return (
    <AuthPage ctx={ctx} title={`Join ${invitation.organization}`} bare={!user}>
      <p>
        You are invited to join <strong>{invitation.organization}</strong> on vulntrack as{' '}
        {roleText(invitation.role)}. The invitation is for <strong>{invitation.email}</strong>.
      </p>
      <FormProblems errors={errors} fields={['username', 'password']} />
      {user && matches && (
        <form method="post" action={here} class="stacked">
          <Csrf ctx={ctx} />
          <button type="submit" class="btn-primary">
            Join {invitation.organization}
          </button>
        </form>
      )}
      {user && !matches && (
        <>
          <p class="notice warn" role="status">
            You are signed in as {user.username} ({user.email}), not with {invitation.email}. Sign out, then
            open this link again and sign in (or sign up) with {invitation.email}.
          </p>
          <form method="post" action="/logout" class="stacked">
            <Csrf ctx={ctx} />
            <button type="submit">Sign out</button>
          </form>
        </>
      )}
      {!user && invitation.accountExists && (
        <p>
          <a class="btn btn-primary" href={`/login?next=${encodeURIComponent(here)}`}>
            Sign in as {invitation.email} to accept
          </a>
        </p>
      )}
      {!user && !invitation.accountExists && ssoOnly && (
        <p>
          <a class="btn btn-primary" href={`/auth/oidc?next=${encodeURIComponent(here)}`}>
            {ssoOnly}
          </a>{' '}
          then accept here.
        </p>
      )}
      {!user && !invitation.accountExists && !ssoOnly && (
        <form method="post" action={`${here}/signup`} class="stacked">
          <Csrf ctx={ctx} />
          <div class="field">
            <label for="f-email">Email</label>
            <input
              id="f-email"
              type="email"
              value={invitation.email}
              readonly
              aria-describedby="f-email-hint"
            />
            <div class="hint" id="f-email-hint">
              The invited address.
            </div>
          </div>
          <Field
            name="username"
            label="Username"
            value={username}
            autocomplete="username"
            required
            autofocus
            errors={errors}
          />
          <NewPasswordField errors={errors} />
          <button type="submit" class="btn-primary">
            Create my account and join
          </button>
        </form>
      )}
    </AuthPage>
  );
}

function SignUpPage({
  ctx,
  values,
  errors,
}: {
  ctx: PageContext;
  values: { username: string; email: string };
  errors?: FormErrors;
}) {
  return (
    <AuthPage ctx={ctx} title="Create an account">
      <FormProblems errors={errors} fields={['username', 'email', 'password']} />
      <form method="post" action="/signup" class="stacked">
        <Csrf ctx={ctx} />
        <NewAccountFields values={values} errors={errors} />
        <button type="submit" class="btn-primary">
          Create account
        </button>
      </form>
      <p class="small">
        Have an account? <a href="/login">Sign in</a>
      </p>
    </AuthPage>
  );
}

export const invitationRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const open = { config: { public: true } };
  const { invitations } = services;
  const ssoOnly = invitations.ssoOnly ? services.oidc?.buttonLabel : undefined;

  app.get<{ Params: { token: string } }>('/invitations/:token', open, async (request, reply) => {
    const { token } = request.params;
    const invitation = await invitations.find(token, request.ip);
    return sendPage(
      reply,
      <InvitationPage ctx={request.page} token={token} invitation={invitation} ssoOnly={ssoOnly} />,
    );
  });

  // Signed in (the page hook refuses anyone else): accept.
  app.post<{ Params: { token: string } }>('/invitations/:token', async (request, reply) => {
    const accepted = await invitations.accept(request.params.token, request.page.user!.id, request.ip);
    request.session.orgName = accepted.organization;
    return reply.redirect(`${orgPath(accepted.organization, 'overview')}?done=joined`, 303);
  });

  app.post<{ Params: { token: string } }>('/invitations/:token/signup', open, async (request, reply) => {
    const { token } = request.params;
    const username = field(request.body, 'username').trim();
    try {
      const accepted = await invitations.signUp(
        token,
        { username, password: field(request.body, 'password') },
        request.ip,
      );
      await startSession(request, accepted.user.id);
      request.session.orgName = accepted.organization;
      return reply.redirect(`${orgPath(accepted.organization, 'overview')}?done=joined`, 303);
    } catch (err) {
      // Another sign-up used the link a moment ago: its own page (409), as the form is gone.
      if (err instanceof AppError && err.code === 'conflict') throw err;
      const errors = formErrorsOf(err);
      if (!errors.username && !errors.password && !errors._form) throw err;
      // A link that stopped working meanwhile answers 404 here, as on its page.
      const invitation = await invitations.find(token, request.ip);
      return sendPage(
        reply,
        <InvitationPage
          ctx={request.page}
          token={token}
          invitation={invitation}
          username={username}
          errors={errors}
        />,
        formStatusOf(err, reply),
      );
    }
  });

  app.get('/signup', open, async (request, reply) => {
    if (!invitations.openSignup) throw new AppError('not_found');
    if (request.page.user) return reply.redirect('/');
    return sendPage(reply, <SignUpPage ctx={request.page} values={{ username: '', email: '' }} />);
  });

  app.post('/signup', open, async (request, reply) => {
    if (!invitations.openSignup) throw new AppError('not_found');
    const values = {
      username: field(request.body, 'username').trim(),
      email: field(request.body, 'email').trim(),
    };
    try {
      const user = await invitations.signUpOpen({ ...values, password: field(request.body, 'password') });
      await startSession(request, user.id);
      return reply.redirect('/org/new', 303);
    } catch (err) {
      return sendPage(
        reply,
        <SignUpPage ctx={request.page} values={values} errors={formErrorsOf(err)} />,
        formStatusOf(err, reply),
      );
    }
  });
};
