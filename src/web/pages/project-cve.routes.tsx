/** `/org/<org>/projects/<project>/cves/<id>`: one CVE in the project (to be built). */
import type { FastifyPluginAsync } from 'fastify';
import type { WebOptions } from '../web.plugin.ts';

export const projectCveRoutes: FastifyPluginAsync<WebOptions> = async () => {};
