/** Server administration (server administrators only: 404 to anyone else): the users. Registers each page of the feature; the only module that imports them. */
import type { FastifyPluginAsync } from 'fastify';
import type { WebOptions } from '../kit/context.ts';
import { userAdminRoutes } from './users.routes.tsx';

export const adminPages: FastifyPluginAsync<WebOptions> = async (app, options) => {
  await app.register(userAdminRoutes, options);
};
