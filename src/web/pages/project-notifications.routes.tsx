/** `/org/<org>/projects/<project>/notifications`: the project's notifications (to be built). */
import type { FastifyPluginAsync } from 'fastify';
import type { WebOptions } from '../web.plugin.ts';

export const projectNotificationsRoutes: FastifyPluginAsync<WebOptions> = async () => {};
