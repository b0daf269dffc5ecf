/** `/api/weaknesses` and the CVEs of each (paged shape). */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services/services.ts';
import { envelope, PageParam, pageOf } from '../paging.ts';
import { callerOf } from '../v1.setup.ts';
import { cveItem, weaknessItem } from './paged.presenter.ts';

const Id = Type.Object({ id: Type.String({ minLength: 1, maxLength: 30 }) });
const Page = Type.Object({ page: PageParam });
const config = { v1: { scope: 'catalog:read' } } as const;

export const weaknessRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'config' | 'apiV1' | 'catalog'>;
}> = async (app, { services }) => {
  const { apiV1, catalog } = services;
  const baseUrl = services.config.baseUrl;

  app.get('/weaknesses', { config, schema: { hide: true, querystring: Page } }, async (request) => {
    const page = pageOf(request.query.page, 'paged');
    const { count, items } = await catalog.listWeaknesses(undefined, page);
    return envelope(request, baseUrl, page, count, items.map(weaknessItem));
  });

  app.get('/weaknesses/:id', { config, schema: { hide: true, params: Id } }, async (request) =>
    weaknessItem(await catalog.getWeakness(request.params.id)),
  );

  app.get(
    '/weaknesses/:id/cve',
    { config, schema: { hide: true, params: Id, querystring: Page } },
    async (request) => {
      const page = pageOf(request.query.page, 'paged');
      const { count, items } = await apiV1.listCves(callerOf(request), {}, page, {
        weakness: request.params.id,
      });
      return envelope(request, baseUrl, page, count, items.map(cveItem));
    },
  );
};
