/**
 * `/api/vendors`, one vendor with its products, a vendor's CVEs, and `/api/products` (the products of
 * every vendor), in OpenCVE 1.5's legacy shapes (docs/api-v1.md).
 */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services/services.ts';
import { CveQuery, v1CveQuery } from '../cve-list-params.ts';
import { PageParam, pageOf } from '../paging.ts';
import { callerOf } from '../v1.setup.ts';
import { cveSummary, vendorItem, vendorProduct } from './legacy.presenter.ts';

const config = { v1: { scope: 'catalog:read' } } as const;
const Vendor = Type.Object({ vendor: Type.String({ minLength: 1, maxLength: 200 }) });
const ListQuery = Type.Object({ page: PageParam, search: Type.Optional(Type.String({ maxLength: 200 })) });

/**
 * A name search as OpenCVE 1.5 read it: lower case, without `%` and `_`, a space standing for `_`
 * (`internet explorer` finds `internet_explorer`).
 */
export function legacyNameSearch(raw: string | undefined): string | undefined {
  const search = raw?.trim().toLowerCase().replace(/[%_]/g, '').replace(/ /g, '_');
  return search || undefined;
}

export const routes: FastifyPluginAsyncTypebox<{ services: Pick<Services, 'apiV1' | 'catalog'> }> = async (
  app,
  { services },
) => {
  const { apiV1, catalog } = services;

  app.get('/vendors', { config, schema: { hide: true, querystring: ListQuery } }, async (request) => {
    const page = pageOf(request.query.page, 'legacy');
    const { items } = await catalog.listVendors(legacyNameSearch(request.query.search), page);
    return items.map((v) => vendorItem(v));
  });

  app.get('/vendors/:vendor', { config, schema: { hide: true, params: Vendor } }, async (request) => {
    const { vendor, products } = await apiV1.vendorWithProducts(request.params.vendor);
    return { ...vendorItem(vendor), products };
  });

  app.get(
    '/vendors/:vendor/cve',
    { config, schema: { hide: true, params: Vendor, querystring: CveQuery } },
    async (request) => {
      const page = pageOf(request.query.page, 'legacy');
      const query = { ...v1CveQuery(request.query, 'legacy'), vendor: request.params.vendor };
      const { items } = await apiV1.listCves(callerOf(request), query, page);
      return items.map(cveSummary);
    },
  );

  app.get('/products', { config, schema: { hide: true, querystring: ListQuery } }, async (request) => {
    const page = pageOf(request.query.page, 'legacy');
    const items = await apiV1.listAllProducts(legacyNameSearch(request.query.search), page);
    return items.map(vendorProduct);
  });
};
