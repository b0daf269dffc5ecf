/** The catalog: search, the CVE list, a CVE's page, vendors and products, statistics. Registers each page of the feature; the only module that imports them. */
import type { FastifyPluginAsync } from 'fastify';
import type { WebOptions } from '../kit/context.ts';
import { searchRoutes } from './search.routes.tsx';
import { cveListRoutes } from './cves.routes.tsx';
import { cveDetailRoutes } from './cve/cve.routes.tsx';
import { vendorRoutes } from './vendors/vendors.routes.tsx';
import { statisticsRoutes } from './statistics.routes.tsx';

export const catalogPages: FastifyPluginAsync<WebOptions> = async (app, options) => {
  await app.register(searchRoutes, options);
  await app.register(cveListRoutes, options);
  await app.register(cveDetailRoutes, options);
  await app.register(vendorRoutes, options);
  await app.register(statisticsRoutes, options);
};
