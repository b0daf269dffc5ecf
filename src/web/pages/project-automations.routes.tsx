/** `/org/<org>/projects/<project>/automations`: the project's automations (to be built). */
import type { FastifyPluginAsync } from 'fastify';
import type { WebOptions } from '../web.plugin.ts';

export const projectAutomationsRoutes: FastifyPluginAsync<WebOptions> = async () => {};
