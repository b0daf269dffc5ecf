/**
 * `/admin/users`: the server's users, for server administrators (404 to anyone else), each with a
 * Disable or Enable button (CSRF-protected forms, as every form). An administrator cannot disable
 * their own account here.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { serverAdminAccess } from '../kit/access.ts';
import { doneText, formErrorsOf, formStatusOf } from '../kit/input.ts';
import { sendPage } from '../kit/layout.tsx';
import type { WebOptions } from '../kit/context.ts';
import { UsersPage } from './users.view.tsx';

/** Fixed notices by `?done=` code (never text from the request). */
const DONE: Record<string, string> = {
  disabled:
    'The account is disabled: its sessions have ended and the API tokens its user created are revoked.',
  enabled: 'The account is enabled: its user can sign in again.',
};

type UserAction = { Params: { username: string } };

export const userAdminRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  /** The users page, or with a refused change's message above the list. */
  const usersPage = async (request: FastifyRequest, reply: FastifyReply, failed?: unknown) => {
    const errors = failed === undefined ? undefined : formErrorsOf(failed);
    const users = await services.accounts.listUsers();
    return sendPage(
      reply,
      <UsersPage ctx={request.page} users={users} notice={doneText(DONE, request.query)} errors={errors} />,
      failed === undefined ? 200 : formStatusOf(failed, reply),
    );
  };

  app.get('/admin/users', async (request, reply) => {
    serverAdminAccess(request);
    return usersPage(request, reply);
  });

  app.post<UserAction>('/admin/users/:username/disable', async (request, reply) => {
    const actor = serverAdminAccess(request);
    try {
      await services.accounts.disableUser(request.params.username, actor);
      return reply.redirect('/admin/users?done=disabled', 303);
    } catch (err) {
      return usersPage(request, reply, err);
    }
  });

  app.post<UserAction>('/admin/users/:username/enable', async (request, reply) => {
    serverAdminAccess(request);
    await services.accounts.enableUser(request.params.username);
    return reply.redirect('/admin/users?done=enabled', 303);
  });
};
