/** Accounts: sign-in, first administrator, password reset, settings and security, invitations. Registers each page of the feature; the only module that imports them. */
import type { FastifyPluginAsync } from 'fastify';
import type { WebOptions } from '../kit/context.ts';
import { signInRoutes } from './sign-in.routes.tsx';
import { settingsRoutes } from './settings.routes.tsx';
import { securityRoutes } from './security.routes.tsx';
import { passwordResetRoutes } from './password-reset.routes.tsx';
import { invitationRoutes } from './invitations.routes.tsx';

export const accountPages: FastifyPluginAsync<WebOptions> = async (app, options) => {
  await app.register(signInRoutes, options);
  await app.register(settingsRoutes, options);
  await app.register(securityRoutes, options);
  await app.register(passwordResetRoutes, options);
  await app.register(invitationRoutes, options);
};
