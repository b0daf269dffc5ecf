/**
 * `/api/reports…` (legacy shape, docs/api-v1.md): the reports of the authenticated user's projects and
 * their alerts (one alert per CVE of a report). HTTP Basic users only.
 */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services/services.ts';
import { PageParam, pageOf } from '../paging.ts';
import { userOf } from '../v1.setup.ts';
import { alertItem, reportItem } from './legacy.presenter.ts';

const config = { v1: { scope: 'reports:read' } } as const;
const Link = Type.Object({ link: Type.String({ minLength: 1, maxLength: 100 }) });
const AlertParams = Type.Object({ ...Link.properties, id: Type.String({ minLength: 1, maxLength: 100 }) });
const Page = Type.Object({ page: PageParam });

export const routes: FastifyPluginAsyncTypebox<{ services: Pick<Services, 'apiV1Reports'> }> = async (
  app,
  { services },
) => {
  const { apiV1Reports } = services;

  app.get('/reports', { config, schema: { hide: true, querystring: Page } }, async (request) => {
    const rows = await apiV1Reports.list(userOf(request).userId, pageOf(request.query.page, 'legacy'));
    return rows.map(({ report, keys }) => reportItem(report, keys));
  });

  app.get('/reports/:link', { config, schema: { hide: true, params: Link } }, async (request) => {
    const { report, keys, alerts } = await apiV1Reports.get(userOf(request).userId, request.params.link);
    return { ...reportItem(report, keys), alerts: alerts.map(alertItem) };
  });

  app.get(
    '/reports/:link/alerts',
    { config, schema: { hide: true, params: Link, querystring: Page } },
    async (request) => {
      const page = pageOf(request.query.page, 'legacy');
      return (await apiV1Reports.listAlerts(userOf(request).userId, request.params.link, page)).map(
        alertItem,
      );
    },
  );

  app.get(
    '/reports/:link/alerts/:id',
    { config, schema: { hide: true, params: AlertParams } },
    async (request) => apiV1Reports.alert(userOf(request).userId, request.params.link, request.params.id),
  );
};
