/**
 * GET /healthz (the process answers), GET /readyz (database reachable and migrated, catalog and sync
 * status), GET /metrics (Prometheus text format).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../main.ts';

export const healthRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const readiness = await services.health.readiness();
    return reply.status(readiness.ready ? 200 : 503).send(readiness);
  });
  app.get('/metrics', async (_request, reply) => {
    const { contentType, body } = await services.metrics.scrape();
    return reply.type(contentType).send(body);
  });
};
