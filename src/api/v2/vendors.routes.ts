/** `/vendors`, their products, and the CVEs of each. Scope `catalog:read`. */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.ts';
import { pageEnvelope } from '../pagination.ts';
import { CveListItem, namedItem, NamedItem } from './catalog.presenter.ts';
import { CveListQuery } from './cve-list-params.ts';
import { cveList } from './cve-list.ts';
import { CVE_CSV_DESCRIPTION } from '../../http/cve-csv.ts';
import { jsonOrCsv } from '../csv-query.ts';
import { commonErrors, PageQuery, pageOf, Paginated } from './schemas.ts';

const read = { auth: { scope: 'catalog:read', write: false } } as const;
const tags = ['vendors'];
const Name = Type.String({ minLength: 1, maxLength: 200 });
const SearchQuery = Type.Object({
  ...PageQuery,
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Part of the name.' })),
});

export const vendorRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'config' | 'catalog'>;
}> = async (app, { services }) => {
  const { catalog } = services;
  const baseUrl = services.config.baseUrl;

  app.get(
    '/vendors',
    {
      config: read,
      schema: {
        tags,
        summary: 'List vendors by name',
        querystring: SearchQuery,
        response: { 200: Paginated(NamedItem), ...commonErrors },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { count, items } = await catalog.listVendors(request.query.search || undefined, page);
      return pageEnvelope(request, baseUrl, page, count, items.map(namedItem));
    },
  );

  app.get(
    '/vendors/:vendor',
    {
      config: read,
      schema: {
        tags,
        summary: 'One vendor',
        params: Type.Object({ vendor: Name }),
        response: { 200: NamedItem, ...commonErrors },
      },
    },
    async (request) => namedItem(await catalog.getVendor(request.params.vendor)),
  );

  app.get(
    '/vendors/:vendor/cves',
    {
      config: read,
      schema: {
        tags,
        summary: 'CVEs of a vendor',
        params: Type.Object({ vendor: Name }),
        querystring: CveListQuery,
        response: { 200: jsonOrCsv(Paginated(CveListItem), CVE_CSV_DESCRIPTION), ...commonErrors },
      },
    },
    (request, reply) => {
      const { vendor } = request.params;
      return cveList(services, request, reply, request.query, {
        scope: `vendor:${vendor}`,
        owner: { vendor },
        filename: `cves-${vendor}`,
      });
    },
  );

  app.get(
    '/vendors/:vendor/products',
    {
      config: read,
      schema: {
        tags,
        summary: 'Products of a vendor, by name',
        params: Type.Object({ vendor: Name }),
        querystring: SearchQuery,
        response: { 200: Paginated(NamedItem), ...commonErrors },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { count, items } = await catalog.listProducts(
        request.params.vendor,
        request.query.search || undefined,
        page,
      );
      return pageEnvelope(request, baseUrl, page, count, items.map(namedItem));
    },
  );

  app.get(
    '/vendors/:vendor/products/:product',
    {
      config: read,
      schema: {
        tags,
        summary: 'One product of a vendor',
        params: Type.Object({ vendor: Name, product: Name }),
        response: { 200: NamedItem, ...commonErrors },
      },
    },
    async (request) => namedItem(await catalog.getProduct(request.params.vendor, request.params.product)),
  );

  app.get(
    '/vendors/:vendor/products/:product/cves',
    {
      config: read,
      schema: {
        tags,
        summary: 'CVEs of a product',
        params: Type.Object({ vendor: Name, product: Name }),
        querystring: CveListQuery,
        response: { 200: jsonOrCsv(Paginated(CveListItem), CVE_CSV_DESCRIPTION), ...commonErrors },
      },
    },
    (request, reply) => {
      const { vendor, product } = request.params;
      return cveList(services, request, reply, request.query, {
        scope: `product:${vendor}:${product}`,
        owner: { vendor, product },
        filename: `cves-${vendor}-${product}`,
      });
    },
  );
};
