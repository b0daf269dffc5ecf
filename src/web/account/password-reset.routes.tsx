/** `/password-reset`: for anyone, a new password by an emailed one-time link. */
import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { doneText, field, formErrorsOf, formStatusOf } from '../kit/input.ts';
import { sendPage } from '../kit/layout.tsx';
import type { WebOptions } from '../kit/context.ts';
import { NewPasswordPage, ResetRequestPage } from './password-reset.view.tsx';

/** Fixed notices by `?done=` code (never text from the request). */
const DONE: Record<string, string> = {
  sent:
    'If an account has that username or email, a link to reset its password is on its way. ' +
    'It works once, within an hour. Check your spam folder if nothing arrives.',
};

export const passwordResetRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const open = { config: { public: true } };

  app.get('/password-reset', open, async (request, reply) =>
    sendPage(
      reply,
      <ResetRequestPage
        ctx={request.page}
        login=""
        notice={doneText(DONE, request.query)}
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
        formStatusOf(err, reply),
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
        formStatusOf(err, reply),
      );
    }
    // This browser's session, if it had one, ended with the others.
    if (request.session.userId) await request.session.destroy();
    return reply.redirect('/login?done=password-reset', 303);
  });
};
