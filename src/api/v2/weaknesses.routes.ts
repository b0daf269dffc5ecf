/** `/weaknesses` (CWE) and the CVEs of each. Scope `catalog:read`. */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.ts';
import { pageEnvelope } from '../pagination.ts';
import { CveListItem, weaknessItem, WeaknessItem } from './catalog.presenter.ts';
import { CveListQuery } from './cve-list-params.ts';
import { cveList } from './cve-list.ts';
import { CVE_CSV_DESCRIPTION } from '../../http/cve-csv.ts';
import { jsonOrCsv } from '../csv-query.ts';
import { commonErrors, PageQuery, pageOf, Paginated } from './schemas.ts';
import { ruled } from '../validation-messages.ts';

const read = { auth: { scope: 'catalog:read', write: false } } as const;
const tags = ['weaknesses'];
const CweParam = Type.Object({
  cwe_id: Type.String({ pattern: ruled('^CWE-\\d{1,6}$', 'a CWE id such as CWE-79') }),
});

export const weaknessRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'config' | 'catalog'>;
}> = async (app, { services }) => {
  const { catalog } = services;
  const baseUrl = services.config.baseUrl;

  app.get(
    '/weaknesses',
    {
      config: read,
      schema: {
        tags,
        summary: 'List CWE weaknesses (by name, descending)',
        querystring: Type.Object({ ...PageQuery, search: Type.Optional(Type.String({ maxLength: 200 })) }),
        response: { 200: Paginated(WeaknessItem), ...commonErrors },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { count, items } = await catalog.listWeaknesses(request.query.search || undefined, page);
      return pageEnvelope(request, baseUrl, page, count, items.map(weaknessItem));
    },
  );

  app.get(
    '/weaknesses/:cwe_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'One weakness',
        params: CweParam,
        response: { 200: WeaknessItem, ...commonErrors },
      },
    },
    async (request) => weaknessItem(await catalog.getWeakness(request.params.cwe_id)),
  );

  app.get(
    '/weaknesses/:cwe_id/cves',
    {
      config: read,
      schema: {
        tags,
        summary: 'CVEs with a weakness',
        params: CweParam,
        querystring: CveListQuery,
        response: { 200: jsonOrCsv(Paginated(CveListItem), CVE_CSV_DESCRIPTION), ...commonErrors },
      },
    },
    (request, reply) => {
      const weakness = request.params.cwe_id;
      return cveList(services, request, reply, request.query, {
        scope: `weakness:${weakness}`,
        owner: { weakness },
        filename: `cves-${weakness}`,
      });
    },
  );
};
