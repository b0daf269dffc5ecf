/**
 * API v1, paged shape (docs/api-v1.md; `API_V1_SHAPE=paged`, the default): envelopes of 10 items, errors
 * `{"detail": …}`, HTTP Basic or an organization token. Deprecated: no new features.
 */
import type { FastifyPluginAsync } from 'fastify';
import { setUpV1, type V1Options } from '../v1.setup.ts';
import { organizationRoutes } from './organizations.routes.ts';
import { vendorRoutes } from './vendors.routes.ts';
import { weaknessRoutes } from './weaknesses.routes.ts';
import { cveRoutes } from './cves.routes.ts';

export const pagedV1Routes: FastifyPluginAsync<V1Options> = async (app, options) => {
  await setUpV1(app, options, 'paged');
  for (const routes of [organizationRoutes, vendorRoutes, weaknessRoutes, cveRoutes])
    await app.register(routes, { services: options.services });
};
