/**
 * GET /healthz (the process answers), GET /readyz (database reachable and migrated, catalog and sync
 * status), GET /metrics (Prometheus text format; with METRICS_TOKEN set, only for that bearer token).
 */
import type { FastifyPluginAsync } from 'fastify';
import { bearerCredential, sameSecret } from '../domain/tokens.ts';
import type { Services } from '../services/services.ts';

export const healthRoutes: FastifyPluginAsync<{
  services: Pick<Services, 'config' | 'health' | 'metrics'>;
}> = async (app, { services }) => {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const readiness = await services.health.readiness();
    return reply.status(readiness.ready ? 200 : 503).send(readiness);
  });
  const token = services.config.metricsToken;
  app.get('/metrics', async (request, reply) => {
    const presented = bearerCredential(request.headers.authorization);
    if (token !== undefined && !(presented !== undefined && sameSecret(presented, token))) {
      return reply
        .status(401)
        .header('WWW-Authenticate', 'Bearer realm="metrics"')
        .send({
          error: { code: 'invalid_token', message: 'GET /metrics needs the METRICS_TOKEN bearer token.' },
        });
    }
    const { contentType, body } = await services.metrics.scrape();
    return reply.type(contentType).send(body);
  });
};
