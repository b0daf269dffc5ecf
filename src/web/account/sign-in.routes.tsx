/**
 * Signing in and out, and the first administrator: when no user exists, `vulntrack serve` prints a
 * one-time link to `/setup/<secret>`, whose form creates the administrator and their organization.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { localPath, startSession } from './session.ts';
import { AppError } from '../../domain/errors.ts';
import { Field, FormProblems, Notice, NewAccountFields } from '../kit/fields.tsx';
import { formErrorsOf, formStatusOf, type FormErrors, field, doneText } from '../kit/input.ts';
import { AuthPage, Csrf, sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';

declare module 'fastify' {
  interface Session {
    /** A user whose password was right and whose second factor is awaited (not signed in). */
    pendingUserId?: string;
    /** When the second step stops waiting (ms since the epoch). */
    pendingUntil?: number;
    /** Where to go once signed in. */
    pendingNext?: string;
  }
}

/** How long the second step of a sign-in waits for its code. */
const SECOND_STEP_MS = 10 * 60_000;

/** Fixed notices of the sign-in page (`?done=`), never text from the request. */
const SIGN_IN_NOTICES: Record<string, string> = {
  'password-reset':
    'Your password is changed and every session of your account has ended. Sign in with the new password.',
};

function SignInPage({
  ctx,
  login,
  next,
  errors,
  done,
}: {
  ctx: PageContext;
  login: string;
  next: string;
  errors?: FormErrors;
  done?: string | undefined;
}) {
  return (
    <AuthPage ctx={ctx} title="Sign in" heading="Sign in to vulntrack">
      {done && <Notice>{done}</Notice>}
      <FormProblems errors={errors} fields={['password']} />
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
        <button type="submit" class="btn-primary">
          Sign in
        </button>
      </form>
      <p class="small">
        <a href="/password-reset">Forgot your password?</a>
      </p>
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

  app.get('/login', open, async (request, reply) => {
    const next = localPath((request.query as { next?: unknown }).next);
    if (request.page.user) return reply.redirect(next);
    const done = doneText(SIGN_IN_NOTICES, request.query);
    return sendPage(reply, <SignInPage ctx={request.page} login="" next={next} done={done} />);
  });

  app.post('/login', open, async (request, reply) => {
    const login = field(request.body, 'login');
    const next = localPath(field(request.body, 'next'));
    try {
      const user = await services.webSessions.signIn(login, field(request.body, 'password'), request.ip);
      if (user.secondFactor) {
        // Not signed in yet: the session only remembers who is half-way, for a few minutes.
        await request.session.regenerate();
        request.session.pendingUserId = user.id;
        request.session.pendingUntil = Date.now() + SECOND_STEP_MS;
        request.session.pendingNext = next;
        return reply.redirect('/login/two-factor', 303);
      }
      await startSession(request, user.id);
      return reply.redirect(next, 303);
    } catch (err) {
      const errors = formErrorsOf(err);
      const status = formStatusOf(err, reply);
      return sendPage(
        reply,
        <SignInPage ctx={request.page} login={login} next={next} errors={errors} />,
        status,
      );
    }
  });

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
    try {
      const user = await services.security.verifySecondFactor(
        userId,
        field(request.body, 'code'),
        request.ip,
      );
      await startSession(request, user.id);
      return reply.redirect(next, 303);
    } catch (err) {
      const errors = formErrorsOf(err);
      return sendPage(reply, <SecondStepPage ctx={request.page} errors={errors} />, formStatusOf(err, reply));
    }
  });

  app.post('/logout', open, async (request, reply) => {
    if (request.session.userId || request.session.pendingUserId) await request.session.destroy();
    return reply.redirect('/login', 303);
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
