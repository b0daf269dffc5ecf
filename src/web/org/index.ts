/** Organizations: creating and renaming one, its overview, members, API tokens, audit log and weekly report. Registers each page of the feature; the only module that imports them. */
import type { FastifyPluginAsync } from 'fastify';
import type { WebOptions } from '../kit/context.ts';
import { organizationRoutes } from './general.routes.tsx';
import { orgOverviewRoutes } from './overview.routes.tsx';
import { memberRoutes } from './members.routes.tsx';
import { tokenRoutes } from './tokens.routes.tsx';
import { auditRoutes } from './audit.routes.tsx';
import { orgReportRoutes } from './reports.routes.tsx';

export const organizationPages: FastifyPluginAsync<WebOptions> = async (app, options) => {
  await app.register(organizationRoutes, options);
  await app.register(orgOverviewRoutes, options);
  await app.register(memberRoutes, options);
  await app.register(tokenRoutes, options);
  await app.register(auditRoutes, options);
  await app.register(orgReportRoutes, options);
};
