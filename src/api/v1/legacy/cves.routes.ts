/** `/api/cve` with its filters and one CVE with `raw_nvd_data` (legacy shape). */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services/services.ts';
import { CveQuery, v1CveQuery } from '../cve-list-params.ts';
import { pageOf } from '../paging.ts';
import { callerOf } from '../v1.setup.ts';
import { cveDetail, cveSummary } from './legacy.presenter.ts';

const config = { v1: { scope: 'catalog:read' } } as const;

export const routes: FastifyPluginAsyncTypebox<{ services: Pick<Services, 'apiV1'> }> = async (
  app,
  { services },
) => {
  const { apiV1 } = services;

  app.get('/cve', { config, schema: { hide: true, querystring: CveQuery } }, async (request) => {
    const page = pageOf(request.query.page, 'legacy');
    const { items } = await apiV1.listCves(callerOf(request), v1CveQuery(request.query, 'legacy'), page);
    return items.map(cveSummary);
  });

  app.get(
    '/cve/:id',
    {
      config,
      schema: { hide: true, params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 30 }) }) },
    },
    async (request) => {
      const { cve, rawNvdData } = await apiV1.getCveWithNvdData(request.params.id);
      return cveDetail(cve, rawNvdData);
    },
  );
};
