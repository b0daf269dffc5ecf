/** `/api/organizations`, their projects and each project's CVEs (paged shape). */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services/services.ts';
import { envelope, PageParam, pageOf } from '../paging.ts';
import { callerOf } from '../v1.setup.ts';
import { cveItem, namedItem, projectDetail, projectItem } from './paged.presenter.ts';

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Page = Type.Object({ page: PageParam });

export const organizationRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'config' | 'apiV1'>;
}> = async (app, { services }) => {
  const { apiV1 } = services;
  const baseUrl = services.config.baseUrl;
  const org = { v1: { scope: 'org:read' } } as const;
  const projects = { v1: { scope: 'projects:read' } } as const;

  app.get('/organizations', { config: org, schema: { hide: true, querystring: Page } }, async (request) => {
    const page = pageOf(request.query.page, 'paged');
    const { count, items } = await apiV1.listOrganizations(callerOf(request), page);
    return envelope(request, baseUrl, page, count, items.map(namedItem));
  });

  app.get(
    '/organizations/:org',
    { config: org, schema: { hide: true, params: Type.Object({ org: Name }) } },
    async (request) => namedItem(await apiV1.getOrganization(callerOf(request), request.params.org)),
  );

  app.get(
    '/organizations/:org/projects',
    { config: projects, schema: { hide: true, params: Type.Object({ org: Name }), querystring: Page } },
    async (request) => {
      const page = pageOf(request.query.page, 'paged');
      const { count, items } = await apiV1.listProjects(callerOf(request), request.params.org, page);
      return envelope(request, baseUrl, page, count, items.map(projectItem));
    },
  );

  app.get(
    '/organizations/:org/projects/:project',
    { config: projects, schema: { hide: true, params: Type.Object({ org: Name, project: Name }) } },
    async (request) =>
      projectDetail(await apiV1.getProject(callerOf(request), request.params.org, request.params.project)),
  );

  app.get(
    '/organizations/:org/projects/:project/cve',
    {
      config: { v1: { scope: 'tracker:read' } },
      schema: { hide: true, params: Type.Object({ org: Name, project: Name }), querystring: Page },
    },
    async (request) => {
      const page = pageOf(request.query.page, 'paged');
      const { params } = request;
      const { count, items } = await apiV1.listProjectCves(
        callerOf(request),
        params.org,
        params.project,
        page,
      );
      return envelope(request, baseUrl, page, count, items.map(cveItem));
    },
  );
};
