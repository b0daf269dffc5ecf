/** `/org/<org>/projects/<project>/cves`: the project's tracker (to be built). */
import type { FastifyPluginAsync } from 'fastify';
import type { WebOptions } from '../web.plugin.ts';

export const projectTrackerRoutes: FastifyPluginAsync<WebOptions> = async () => {};
