/**
 * Signing in and out, and the first administrator: when no user exists, `vulntrack serve` prints a
 * one-time link to `/setup/<secret>`, whose form creates the administrator and their organization.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { Field, formErrorsOf, FormProblems, type FormErrors } from '../components.tsx';
import { Csrf, Layout, sendPage, type PageContext } from '../page.tsx';
import type { WebOptions } from '../web.plugin.ts';

/** A `next` that stays on this site (a path, never `//host` or a URL). */
export function localPath(next: unknown, fallback = '/'): string {
  return typeof next === 'string' && /^\/(?![/\\])/.test(next) ? next : fallback;
}

const field = (body: unknown, name: string): string => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

function SignInPage({
  ctx,
  login,
  next,
  errors,
}: {
  ctx: PageContext;
  login: string;
  next: string;
  errors?: FormErrors;
}) {
  return (
    <Layout ctx={ctx} title="Sign in" bare>
      <div class="card auth-card">
        <img class="auth-logo" src={ctx.assets['icon.svg'].url} alt="" width={40} height={40} />
        <h1>Sign in to vulntrack</h1>
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
      </div>
    </Layout>
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
    <Layout ctx={ctx} title="Create the administrator" bare>
      <div class="card auth-card">
        <img class="auth-logo" src={ctx.assets['icon.svg'].url} alt="" width={40} height={40} />
        <h1>Welcome to vulntrack</h1>
        <p>Create the first administrator and their organization. This link works once.</p>
        <FormProblems errors={errors} fields={['username', 'email', 'password', 'organization', 'name']} />
        <form method="post" action={`/setup/${token}`} class="stacked">
          <Csrf ctx={ctx} />
          <Field
            name="username"
            label="Username"
            value={values.username}
            autocomplete="username"
            required
            autofocus
            errors={errors}
          />
          <Field
            name="email"
            label="Email"
            type="email"
            value={values.email}
            autocomplete="email"
            required
            errors={errors}
          />
          <Field
            name="password"
            label="Password"
            type="password"
            autocomplete="new-password"
            required
            errors={errors}
            hint="At least 8 characters."
          />
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
      </div>
    </Layout>
  );
}

/** Starts a signed-in session for the user (a new session id: no fixation). */
export async function startSession(request: FastifyRequest, userId: string): Promise<void> {
  await request.session.regenerate();
  request.session.userId = userId;
}

export const signInRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const open = { config: { public: true } };

  app.get('/login', open, async (request, reply) => {
    const next = localPath((request.query as { next?: unknown }).next);
    if (request.page.user) return reply.redirect(next);
    return sendPage(reply, <SignInPage ctx={request.page} login="" next={next} />);
  });

  app.post('/login', open, async (request, reply) => {
    const login = field(request.body, 'login');
    const next = localPath(field(request.body, 'next'));
    try {
      const user = await services.webSessions.signIn(login, field(request.body, 'password'), request.ip);
      await startSession(request, user.id);
      return reply.redirect(next, 303);
    } catch (err) {
      const errors = formErrorsOf(err);
      const status = err instanceof AppError ? err.status : 400;
      if (err instanceof AppError && err.code === 'rate_limited') void reply.header('Retry-After', '900');
      return sendPage(
        reply,
        <SignInPage ctx={request.page} login={login} next={next} errors={errors} />,
        status,
      );
    }
  });

  app.post('/logout', open, async (request, reply) => {
    if (request.session.userId) await request.session.destroy();
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
        400,
      );
    }
  });
};
