/** The pages that notification emails link to (confirm an address, unsubscribe); the only module that imports them. */
import type { FastifyPluginAsync } from 'fastify';
import type { WebOptions } from '../kit/context.ts';
import { emailLinkRoutes } from './email-links.routes.tsx';

export const emailLinkPages: FastifyPluginAsync<WebOptions> = async (app, options) => {
  await app.register(emailLinkRoutes, options);
};
