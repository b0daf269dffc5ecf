/**
 * Signing in and out, and the first administrator: when no user exists, `vulntrack serve` prints a
 * one-time link to `/setup/<secret>`, whose form creates the administrator and their organization.
 *
 * Single sign-on (OIDC_ISSUER, docs/web-ui.md): `/auth/oidc` starts it (the sign-in page's button),
 * keeping the PKCE verifier, state and nonce in the server-side session; the provider sends the
 * browser back to `/auth/oidc/callback`. A problem is one sentence on the sign-in page. Signing out
 * of a session begun so also ends the provider's, when it advertises an end_session_endpoint.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { localPath, startSession } from './session.ts';
import { AppError } from '../../domain/errors.ts';
import { Field, FormProblems, Notice, NewAccountFields } from '../kit/fields.tsx';
import { formErrorsOf, formStatusOf, type FormErrors, field, doneText } from '../kit/input.ts';
import { AuthPage, Csrf, sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';
import { OidcSignInError, type OidcChecks, type PendingLink } from '../../services/oidc.service.ts';

declare module 'fastify' {
  interface Session {
    /** A user whose password was right and whose second factor is awaited (not signed in). */
    pendingUserId?: string;
    /** When the second step stops waiting (ms since the epoch). */
    pendingUntil?: number;
    /** Where to go once signed in. */
    pendingNext?: string;
    /** A single sign-on under way: what its callback must match, where to go after, until when. */
    oidc?: OidcChecks & { next: string; until: number };
    /** An identity to link to the account whose password is checked next (same email), until when. */
    ssoLink?: PendingLink & { until: number };
    /** The session began with single sign-on (signing out also ends the provider's session). */
    sso?: boolean;
  }
}

/** How long a single sign-on may take at the provider, and how long an identity waits to be linked. */
const SSO_WAIT_MS = 15 * 60_000;

/** How long the second step of a sign-in waits for its code. */
const SECOND_STEP_MS = 10 * 60_000;

/** Fixed notices of the sign-in page (`?done=`), never text from the request. */
const SIGN_IN_NOTICES: Record<string, string> = {
  'password-reset':
    'Your password is changed and every session of your account has ended. Sign in with the new password.',
  'sso-link':
    'An account with your email address already exists here. Sign in with its password once to link it to your single sign-on; after that the button is enough.',
  'sso-link-admin':
    'An account with your email address already exists here. Ask a server administrator to link it to your single sign-on (vulntrack user link-sso <username>), then sign in with the button again.',
};

/** The single sign-on button, when OIDC_ISSUER is set. */
interface SsoButton {
  label: string;
  /** OIDC_ONLY: the password form is only the administrators' way in, folded away. */
  only: boolean;
}

function SignInPage({
  ctx,
  login,
  next,
  errors,
  done,
  sso,
  problem,
}: {
  ctx: PageContext;
  login: string;
  next: string;
  errors?: FormErrors;
  done?: string | undefined;
  sso?: SsoButton | undefined;
  /** What went wrong with a single sign-on: one sentence. */
  problem?: string | undefined;
}) {
  const passwordForm = (
    <>
      <form method="post" action="/login" class="stacked">
        <Csrf ctx={ctx} />
        <input type="hidden" name="next" value={next} />
        <Field
          name="login"
          label="Username or email"
          value={login}
          autocomplete="username"
          required
          autofocus
        />
        <Field
          name="password"
          label="Password"
          type="password"
          autocomplete="current-password"
          required
          errors={errors}
        />
        <button type="submit" class={sso ? undefined : 'btn-primary'}>
          Sign in
        </button>
      </form>
      <p class="small">
        <a href="/password-reset">Forgot your password?</a>
      </p>
    </>
  );
  const ssoHref = next === '/' ? '/auth/oidc' : `/auth/oidc?next=${encodeURIComponent(next)}`;
  return (
    <AuthPage ctx={ctx} title="Sign in" heading="Sign in to vulntrack">
      {done && <Notice>{done}</Notice>}
      {problem && <Notice kind="error">{problem}</Notice>}
      <FormProblems errors={errors} fields={['password']} />
      {sso && (
        <p class="sso">
          <a class="btn btn-primary sso-button" href={ssoHref}>
            {sso.label}
          </a>
        </p>
      )}
      {sso?.only ? (
        <details class="sso-local" open={errors !== undefined}>
          <summary>Administrator sign-in with a password</summary>
          {passwordForm}
        </details>
      ) : (
        <>
          {sso && <p class="sso-or">or with your password</p>}
          {passwordForm}
        </>
      )}
    </AuthPage>
  );
}

function SecondStepPage({ ctx, errors }: { ctx: PageContext; errors?: FormErrors }) {
  return (
    <AuthPage ctx={ctx} title="Two-factor sign-in">
      <p>Enter the 6-digit code your authenticator app shows for vulntrack, or one of your recovery codes.</p>
      <FormProblems errors={errors} fields={['code']} />
      <form method="post" action="/login/two-factor" class="stacked">
        <Csrf ctx={ctx} />
        <Field
          name="code"
          label="Code"
          autocomplete="one-time-code"
          required
          autofocus
          maxlength={64}
          errors={errors}
          hint="A recovery code looks like abcd-efgh-ijkl-mnop and works once."
        />
        <button type="submit" class="btn-primary">
          Sign in
        </button>
      </form>
      <form method="post" action="/logout" class="inline-form">
        <Csrf ctx={ctx} />
        <button type="submit" class="link-button">
          Cancel and sign in as someone else
        </button>
      </form>
    </AuthPage>
  );
}

interface SetupValues {
  username: string;
  email: string;
  organization: string;
}

function SetupPage({
  ctx,
  token,
  values,
  errors,
}: {
  ctx: PageContext;
  token: string;
  values: SetupValues;
  errors?: FormErrors;
}) {
  return (
    <AuthPage ctx={ctx} title="Create the administrator" heading="Welcome to vulntrack">
      <p>Create the first administrator and their organization. This link works once.</p>
      <FormProblems errors={errors} fields={['username', 'email', 'password', 'organization', 'name']} />
      <form method="post" action={`/setup/${token}`} class="stacked">
        <Csrf ctx={ctx} />
        <NewAccountFields values={values} errors={errors} />
        <Field
          name="organization"
          label="Organization"
          value={values.organization}
          required
          errors={errors}
          hint="Letters, digits and - (your team or company, e.g. acme)."
        />
        <button type="submit" class="btn-primary">
          Create and sign in
        </button>
      </form>
    </AuthPage>
  );
}

export const signInRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const open = { config: { public: true } };
  const { oidc } = services;
  const sso: SsoButton | undefined = oidc && { label: oidc.buttonLabel, only: oidc.only };

  app.get('/login', open, async (request, reply) => {
    const next = localPath((request.query as { next?: unknown }).next);
    if (request.page.user) return reply.redirect(next);
    const done = doneText(SIGN_IN_NOTICES, request.query);
    return sendPage(reply, <SignInPage ctx={request.page} login="" next={next} done={done} sso={sso} />);
  });

  /** The identity waiting to be linked by this sign-in, while the wait lasts. */
  const pendingLink = (request: FastifyRequest): (PendingLink & { until: number }) | undefined => {
    const link = request.session.ssoLink;
    return link && typeof link.until === 'number' && link.until > Date.now() ? link : undefined;
  };

  /** Signs in the user whose password (and code) was right, linking a waiting identity of theirs. */
  const passwordSignedIn = async (
    request: FastifyRequest,
    userId: string,
    link: PendingLink | undefined,
  ): Promise<void> => {
    await startSession(request, userId);
    if (link && oidc && (await oidc.linkAfterPassword(userId, link)))
      request.log.info({ userId }, 'single sign-on identity linked to the account after its password');
  };

  app.post('/login', open, async (request, reply) => {
    const login = field(request.body, 'login');
    const next = localPath(field(request.body, 'next'));
    const link = pendingLink(request);
    try {
      const user = await services.webSessions.signIn(login, field(request.body, 'password'), request.ip);
      if (user.secondFactor) {
        // Not signed in yet: the session only remembers who is half-way, for a few minutes.
        await request.session.regenerate();
        request.session.pendingUserId = user.id;
        request.session.pendingUntil = Date.now() + SECOND_STEP_MS;
        request.session.pendingNext = next;
        if (link) request.session.ssoLink = link;
        return reply.redirect('/login/two-factor', 303);
      }
      await passwordSignedIn(request, user.id, link);
      return reply.redirect(next, 303);
    } catch (err) {
      const errors = formErrorsOf(err);
      const status = formStatusOf(err, reply);
      return sendPage(
        reply,
        <SignInPage ctx={request.page} login={login} next={next} errors={errors} sso={sso} />,
        status,
      );
    }
  });

  if (oidc) {
    const problemPage = (request: FastifyRequest, reply: FastifyReply, problem: string, status: number) =>
      sendPage(
        reply,
        <SignInPage ctx={request.page} login="" next="/" sso={sso} problem={problem} />,
        status,
      );

    app.get('/auth/oidc', open, async (request, reply) => {
      const next = localPath((request.query as { next?: unknown }).next);
      if (request.page.user) return reply.redirect(next);
      try {
        const { url, checks } = await oidc.begin();
        request.session.oidc = { ...checks, next, until: Date.now() + SSO_WAIT_MS };
        return await reply.redirect(url, 303);
      } catch (err) {
        if (!(err instanceof OidcSignInError)) throw err;
        request.log.warn({ reason: err.reason }, 'single sign-on could not start');
        return problemPage(request, reply, err.sentence, err.status);
      }
    });

    app.get('/auth/oidc/callback', open, async (request, reply) => {
      const started = request.session.oidc;
      // One use: a second visit of the same callback finds nothing to match.
      delete request.session.oidc;
      if (!started || typeof started.until !== 'number' || started.until < Date.now())
        return problemPage(
          request,
          reply,
          'This sign-in expired or was started in another browser. Sign in again.',
          400,
        );
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      try {
        const outcome = await oidc.complete(query, started);
        if (outcome.kind === 'link_required') {
          request.session.ssoLink = { ...outcome.link, until: Date.now() + SSO_WAIT_MS };
          return await reply.redirect(`/login?done=${oidc.only ? 'sso-link-admin' : 'sso-link'}`, 303);
        }
        await startSession(request, outcome.user.id);
        request.session.sso = true;
        return await reply.redirect(localPath(started.next), 303);
      } catch (err) {
        if (!(err instanceof OidcSignInError)) throw err;
        request.log.warn({ reason: err.reason }, 'single sign-on refused');
        return problemPage(request, reply, err.sentence, err.status);
      }
    });
  }

  /** The user waiting for their second step, while the wait lasts. */
  const pendingUser = (request: FastifyRequest): string | undefined => {
    const { pendingUserId, pendingUntil } = request.session;
    return pendingUserId && typeof pendingUntil === 'number' && pendingUntil > Date.now()
      ? pendingUserId
      : undefined;
  };

  app.get('/login/two-factor', open, async (request, reply) => {
    if (request.page.user) return reply.redirect('/');
    if (!pendingUser(request)) return reply.redirect('/login');
    return sendPage(reply, <SecondStepPage ctx={request.page} />);
  });

  app.post('/login/two-factor', open, async (request, reply) => {
    const userId = pendingUser(request);
    if (!userId) return reply.redirect('/login', 303);
    const next = localPath(request.session.pendingNext);
    const link = pendingLink(request);
    try {
      const user = await services.security.verifySecondFactor(
        userId,
        field(request.body, 'code'),
        request.ip,
      );
      await passwordSignedIn(request, user.id, link);
      return reply.redirect(next, 303);
    } catch (err) {
      const errors = formErrorsOf(err);
      return sendPage(reply, <SecondStepPage ctx={request.page} errors={errors} />, formStatusOf(err, reply));
    }
  });

  app.post('/logout', open, async (request, reply) => {
    const viaSso = request.session.sso === true && request.session.userId !== undefined;
    if (request.session.userId || request.session.pendingUserId) await request.session.destroy();
    // A session begun at the provider ends there too, when it says where (end_session_endpoint).
    const provider = viaSso && oidc ? await oidc.endSessionUrl() : undefined;
    return reply.redirect(provider ?? '/login', 303);
  });

  const setupLink = async (token: string): Promise<void> => {
    if (!(await services.webSessions.linkIsUsable('first_admin', token))) {
      throw new AppError(
        'not_found',
        'This link is not valid any more. Restart the server to print a new one.',
      );
    }
  };

  app.get<{ Params: { token: string } }>('/setup/:token', open, async (request, reply) => {
    await setupLink(request.params.token);
    return sendPage(
      reply,
      <SetupPage
        ctx={request.page}
        token={request.params.token}
        values={{ username: '', email: '', organization: '' }}
      />,
    );
  });

  app.post<{ Params: { token: string } }>('/setup/:token', open, async (request, reply) => {
    const { token } = request.params;
    await setupLink(token);
    const values = {
      username: field(request.body, 'username').trim(),
      email: field(request.body, 'email').trim(),
      organization: field(request.body, 'organization').trim(),
    };
    try {
      const user = await services.webSessions.createFirstAdmin(token, {
        ...values,
        password: field(request.body, 'password'),
      });
      await startSession(request, user.id);
      request.session.orgName = values.organization;
      return reply.redirect('/', 303);
    } catch (err) {
      return sendPage(
        reply,
        <SetupPage ctx={request.page} token={token} values={values} errors={formErrorsOf(err)} />,
        formStatusOf(err, reply),
      );
    }
  });
};
