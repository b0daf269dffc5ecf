/** `/api/cve` with its filters, and one CVE (paged shape). */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services/services.ts';
import { CveQuery, v1CveQuery } from '../cve-list-params.ts';
import { envelope, pageOf } from '../paging.ts';
import { callerOf } from '../v1.setup.ts';
import { cveDetail, cveItem } from './paged.presenter.ts';

const config = { v1: { scope: 'catalog:read' } } as const;

export const cveRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'config' | 'apiV1' | 'catalog'>;
}> = async (app, { services }) => {
  const { apiV1, catalog } = services;
  const baseUrl = services.config.baseUrl;

  app.get('/cve', { config, schema: { hide: true, querystring: CveQuery } }, async (request) => {
    const page = pageOf(request.query.page, 'paged');
    const query = v1CveQuery(request.query, 'paged');
    const { count, items } = await apiV1.listCves(callerOf(request), query, page);
    return envelope(request, baseUrl, page, count, items.map(cveItem));
  });

  app.get(
    '/cve/:id',
    {
      config,
      schema: {
        hide: true,
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 30 }) }),
        querystring: Type.Object({ include: Type.Optional(Type.String({ maxLength: 200 })) }),
      },
    },
    async (request) => {
      const includes = (request.query.include ?? '').split(',').map((s) => s.trim());
      return cveDetail(await catalog.getCve(request.params.id), includes.includes('nvd_cpe_configurations'));
    },
  );
};
