/** `/api/vendors`, their products and the CVEs of each (paged shape). */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services/services.ts';
import { envelope, PageParam, pageOf } from '../paging.ts';
import { callerOf } from '../v1.setup.ts';
import { cveItem, namedItem } from './paged.presenter.ts';

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Page = Type.Object({ page: PageParam });
const config = { v1: { scope: 'catalog:read' } } as const;

export const vendorRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'config' | 'apiV1' | 'catalog'>;
}> = async (app, { services }) => {
  const { apiV1, catalog } = services;
  const baseUrl = services.config.baseUrl;

  app.get('/vendors', { config, schema: { hide: true, querystring: Page } }, async (request) => {
    const page = pageOf(request.query.page, 'paged');
    const { count, items } = await catalog.listVendors(undefined, page);
    return envelope(request, baseUrl, page, count, items.map(namedItem));
  });

  app.get(
    '/vendors/:vendor',
    { config, schema: { hide: true, params: Type.Object({ vendor: Name }) } },
    async (request) => namedItem(await catalog.getVendor(request.params.vendor)),
  );

  app.get(
    '/vendors/:vendor/cve',
    { config, schema: { hide: true, params: Type.Object({ vendor: Name }), querystring: Page } },
    async (request) => {
      const page = pageOf(request.query.page, 'paged');
      const query = { vendor: request.params.vendor };
      const { count, items } = await apiV1.listCves(callerOf(request), query, page);
      return envelope(request, baseUrl, page, count, items.map(cveItem));
    },
  );

  app.get(
    '/vendors/:vendor/products',
    { config, schema: { hide: true, params: Type.Object({ vendor: Name }), querystring: Page } },
    async (request) => {
      const page = pageOf(request.query.page, 'paged');
      const { count, items } = await catalog.listProducts(request.params.vendor, undefined, page);
      return envelope(request, baseUrl, page, count, items.map(namedItem));
    },
  );

  app.get(
    '/vendors/:vendor/products/:product',
    { config, schema: { hide: true, params: Type.Object({ vendor: Name, product: Name }) } },
    async (request) => namedItem(await catalog.getProduct(request.params.vendor, request.params.product)),
  );

  app.get(
    '/vendors/:vendor/products/:product/cve',
    {
      config,
      schema: { hide: true, params: Type.Object({ vendor: Name, product: Name }), querystring: Page },
    },
    async (request) => {
      const page = pageOf(request.query.page, 'paged');
      const query = { vendor: request.params.vendor, product: request.params.product };
      const { count, items } = await apiV1.listCves(callerOf(request), query, page);
      return envelope(request, baseUrl, page, count, items.map(cveItem));
    },
  );
};
