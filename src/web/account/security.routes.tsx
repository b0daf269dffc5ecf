/**
 * `/account/security`: the signed-in user's password change and two-factor sign-in (TOTP): its
 * setup and confirmation, turning it off (or cancelling a setup), and new recovery codes.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { doneText, field, formErrorsOf, formStatusOf } from '../kit/input.ts';
import { sendPage } from '../kit/layout.tsx';
import type { WebOptions } from '../kit/context.ts';
import { SecurityPage } from './security.view.tsx';
import { RecoveryCodesPage, SetupPage } from './two-factor.view.tsx';

/** Fixed notices by `?done=` code (never text from the request). */
const DONE: Record<string, string> = {
  password: 'Your password is changed. Every other session of your account has ended.',
  'two-factor-off': 'Two-factor sign-in is off.',
  'setup-cancelled': 'The two-factor setup is cancelled.',
};

const userIdOf = (request: FastifyRequest): string => request.page.user!.id;

export const securityRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  /** The security page, or with a refused form's errors beside that form. */
  const securityPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    failed?: { err: unknown; form: 'password' | 'disable' | 'regenerate' },
  ) => {
    const errors = failed ? formErrorsOf(failed.err) : undefined;
    const overview = await services.security.overview(userIdOf(request));
    return sendPage(
      reply,
      <SecurityPage
        ctx={request.page}
        overview={overview}
        notice={doneText(DONE, request.query)}
        errors={errors}
        form={failed?.form}
      />,
      failed ? formStatusOf(failed.err, reply) : 200,
    );
  };

  app.get('/account/security', async (request, reply) => securityPage(request, reply));

  app.post('/account/security/password', async (request, reply) => {
    try {
      await services.security.changePassword(
        userIdOf(request),
        {
          current: field(request.body, 'current'),
          password: field(request.body, 'password'),
          confirm: field(request.body, 'confirm'),
        },
        request.session.sessionId,
        request.ip,
      );
      return reply.redirect('/account/security?done=password', 303);
    } catch (err) {
      return securityPage(request, reply, { err, form: 'password' });
    }
  });

  app.post('/account/security/two-factor/start', async (request, reply) => {
    await services.security.startTwoFactorSetup(userIdOf(request));
    return reply.redirect('/account/security/two-factor', 303);
  });

  app.get('/account/security/two-factor', async (request, reply) => {
    const pending = await services.security.pendingSetup(userIdOf(request));
    if (!pending) return reply.redirect('/account/security');
    return sendPage(reply, <SetupPage ctx={request.page} secret={pending.secret} uri={pending.uri} />);
  });

  app.post('/account/security/two-factor', async (request, reply) => {
    const userId = userIdOf(request);
    try {
      const codes = await services.security.confirmTwoFactor(
        userId,
        field(request.body, 'code'),
        request.session.sessionId,
      );
      return sendPage(reply, <RecoveryCodesPage ctx={request.page} codes={codes} fresh />);
    } catch (err) {
      const errors = formErrorsOf(err);
      const pending = await services.security.pendingSetup(userId);
      if (!pending) return reply.redirect('/account/security', 303);
      return sendPage(
        reply,
        <SetupPage ctx={request.page} secret={pending.secret} uri={pending.uri} errors={errors} />,
        formStatusOf(err, reply),
      );
    }
  });

  app.post('/account/security/two-factor/disable', async (request, reply) => {
    const userId = userIdOf(request);
    const wasPending = (await services.security.overview(userId)).twoFactor === 'pending';
    try {
      await services.security.disableTwoFactor(
        userId,
        {
          password: field(request.body, 'password'),
          code: field(request.body, 'code'),
        },
        request.ip,
      );
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
        userIdOf(request),
        field(request.body, 'password'),
        request.ip,
      );
      return sendPage(reply, <RecoveryCodesPage ctx={request.page} codes={codes} fresh={false} />);
    } catch (err) {
      return securityPage(request, reply, { err, form: 'regenerate' });
    }
  });
};
