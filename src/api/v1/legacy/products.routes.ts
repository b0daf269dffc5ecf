/** `/api/vendors/<vendor>/products`, one product and its CVEs (legacy shape). */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services/services.ts';
import { CveQuery, v1CveQuery } from '../cve-list-params.ts';
import { PageParam, pageOf } from '../paging.ts';
import { callerOf } from '../v1.setup.ts';
import { cveSummary, product } from './legacy.presenter.ts';

const config = { v1: { scope: 'catalog:read' } } as const;
const Name = Type.String({ minLength: 1, maxLength: 200 });

export const routes: FastifyPluginAsyncTypebox<{ services: Pick<Services, 'apiV1' | 'catalog'> }> = async (
  app,
  { services },
) => {
  const { apiV1, catalog } = services;

  app.get(
    '/vendors/:vendor/products',
    {
      config,
      schema: {
        hide: true,
        params: Type.Object({ vendor: Name }),
        querystring: Type.Object({ page: PageParam, search: Type.Optional(Type.String({ maxLength: 200 })) }),
      },
    },
    async (request) => {
      const page = pageOf(request.query.page, 'legacy');
      const search = request.query.search?.trim() || undefined;
      const { items } = await catalog.listProducts(request.params.vendor, search, page);
      return items.map(product);
    },
  );

  app.get(
    '/vendors/:vendor/products/:product',
    { config, schema: { hide: true, params: Type.Object({ vendor: Name, product: Name }) } },
    async (request) => product(await catalog.getProduct(request.params.vendor, request.params.product)),
  );

  app.get(
    '/vendors/:vendor/products/:product/cve',
    {
      config,
      schema: { hide: true, params: Type.Object({ vendor: Name, product: Name }), querystring: CveQuery },
    },
    async (request) => {
      const page = pageOf(request.query.page, 'legacy');
      const { vendor, product: name } = request.params;
      const query = { ...v1CveQuery(request.query, 'legacy'), vendor, product: name };
      const { items } = await apiV1.listCves(callerOf(request), query, page);
      return items.map(cveSummary);
    },
  );
};
