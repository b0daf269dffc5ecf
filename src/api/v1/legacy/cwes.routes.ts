/** `/api/cwe`, one CWE and its CVEs (legacy shape). */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services/services.ts';
import { CveQuery, v1CveQuery } from '../cve-list-params.ts';
import { PageParam, pageOf } from '../paging.ts';
import { callerOf } from '../v1.setup.ts';
import { cveSummary, cwe } from './legacy.presenter.ts';

const config = { v1: { scope: 'catalog:read' } } as const;
const Id = Type.Object({ id: Type.String({ minLength: 1, maxLength: 30 }) });

export const routes: FastifyPluginAsyncTypebox<{ services: Pick<Services, 'apiV1' | 'catalog'> }> = async (
  app,
  { services },
) => {
  const { apiV1, catalog } = services;

  app.get(
    '/cwe',
    {
      config,
      schema: {
        hide: true,
        querystring: Type.Object({ page: PageParam, search: Type.Optional(Type.String({ maxLength: 200 })) }),
      },
    },
    async (request) => {
      const page = pageOf(request.query.page, 'legacy');
      const { items } = await catalog.listWeaknesses(request.query.search?.trim() || undefined, page);
      return items.map(cwe);
    },
  );

  app.get('/cwe/:id', { config, schema: { hide: true, params: Id } }, async (request) =>
    cwe(await catalog.getWeakness(request.params.id)),
  );

  app.get(
    '/cwe/:id/cve',
    { config, schema: { hide: true, params: Id, querystring: CveQuery } },
    async (request) => {
      const page = pageOf(request.query.page, 'legacy');
      const query = { ...v1CveQuery(request.query, 'legacy'), weakness: undefined };
      const { items } = await apiV1.listCves(callerOf(request), query, page, { weakness: request.params.id });
      return items.map(cveSummary);
    },
  );
};
