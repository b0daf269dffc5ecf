/** `/org/<org>/projects/<project>/subscriptions`: the project's subscriptions (to be built). */
import type { FastifyPluginAsync } from 'fastify';
import type { WebOptions } from '../web.plugin.ts';

export const projectSubscriptionsRoutes: FastifyPluginAsync<WebOptions> = async () => {};
