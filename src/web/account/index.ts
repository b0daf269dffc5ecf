/** Accounts: sign-in, first administrator, password reset, settings and security, invitations. Registers each page of the feature; the only module that imports them. */
import type { FastifyPluginAsync } from 'fastify';
import type { WebOptions } from '../kit/context.ts';
import { signInRoutes } from './sign-in.routes.tsx';
import { accountRoutes } from './account.routes.tsx';
import { invitationRoutes } from './invitations.routes.tsx';

export const accountPages: FastifyPluginAsync<WebOptions> = async (app, options) => {
  await app.register(signInRoutes, options);
  await app.register(accountRoutes, options);
  await app.register(invitationRoutes, options);
};
