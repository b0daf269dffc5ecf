/** `/org/<org>/projects/<project>/reports`: the project's reports (to be built). */
import type { FastifyPluginAsync } from 'fastify';
import type { WebOptions } from '../web.plugin.ts';

export const projectReportsRoutes: FastifyPluginAsync<WebOptions> = async () => {};
