/** `/cves`: the catalog, one CVE (with `include`), its change history. Scope `catalog:read`. */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { validationError } from '../../domain/errors.ts';
import type { Services } from '../../services/services.ts';
import { pageEnvelope } from '../pagination.ts';
import {
  changeDetail,
  changeItem,
  cveDetail,
  CveChangeDetail,
  CveChangeItem,
  CveDetail,
  CveListItem,
  CVE_INCLUDES,
  type CveInclude,
} from './catalog.presenter.ts';
import { CveListQuery } from './cve-list-params.ts';
import { cveList } from './cve-list.ts';
import { CVE_CSV_DESCRIPTION } from '../../http/cve-csv.ts';
import { jsonOrCsv } from '../csv-query.ts';
import { commonErrors, PageQuery, pageOf, Paginated, Uuid } from './schemas.ts';
import { CVE_ID_ANY_CASE_RULE } from '../validation-messages.ts';

const CveIdParam = Type.Object({ cve_id: Type.String({ pattern: CVE_ID_ANY_CASE_RULE, maxLength: 30 }) });
const read = { auth: { scope: 'catalog:read', write: false } } as const;
const tags = ['cves'];

export const cveRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'config' | 'catalog'>;
}> = async (app, { services }) => {
  const { catalog } = services;
  const baseUrl = services.config.baseUrl;

  app.get(
    '/cves',
    {
      config: read,
      schema: {
        tags,
        summary: 'List and search the CVE catalog',
        querystring: CveListQuery,
        response: { 200: jsonOrCsv(Paginated(CveListItem), CVE_CSV_DESCRIPTION), ...commonErrors },
      },
    },
    (request, reply) =>
      cveList(services, request, reply, request.query, { scope: 'catalog', filename: 'cves' }),
  );

  app.get(
    '/cves/:cve_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'One CVE with its merged metrics, weaknesses and vendors',
        params: CveIdParam,
        querystring: Type.Object({
          include: Type.Optional(
            Type.String({ maxLength: 200, description: `Comma list of: ${CVE_INCLUDES.join(', ')}.` }),
          ),
        }),
        response: { 200: CveDetail, ...commonErrors },
      },
    },
    async (request, reply) => {
      const requested = (request.query.include ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = requested.filter((s) => !(CVE_INCLUDES as readonly string[]).includes(s));
      // OpenCVE 3.1's sentence: the unknown values and the allowed ones, each sorted.
      if (unknown.length)
        throw validationError({
          include: [
            `Unknown include value(s): ${[...new Set(unknown)].sort().join(', ')}. ` +
              `Allowed values: ${[...CVE_INCLUDES].sort().join(', ')}.`,
          ],
        });
      const hit = app.responseCache.answered(request, reply, request.catalogVersion);
      if (hit) return hit;
      const cve = await catalog.getCve(request.params.cve_id.toUpperCase());
      app.responseCache.remember(request, cve.catalog_version);
      return cveDetail(cve, new Set(requested as CveInclude[]));
    },
  );

  app.get(
    '/cves/:cve_id/changes',
    {
      config: read,
      schema: {
        tags,
        summary: 'The change history of a CVE, newest first',
        params: CveIdParam,
        querystring: Type.Object(PageQuery),
        response: { 200: Paginated(CveChangeItem), ...commonErrors },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { count, items } = await catalog.listChanges(request.params.cve_id.toUpperCase(), page);
      return pageEnvelope(request, baseUrl, page, count, items.map(changeItem));
    },
  );

  app.get(
    '/cves/:cve_id/changes/:id',
    {
      config: read,
      schema: {
        tags,
        summary: 'One change of a CVE, with its data',
        params: Type.Object({ ...CveIdParam.properties, id: Uuid }),
        response: { 200: CveChangeDetail, ...commonErrors },
      },
    },
    async (request) => {
      const change = await catalog.getChange(request.params.cve_id.toUpperCase(), request.params.id);
      return changeDetail(change);
    },
  );
};
