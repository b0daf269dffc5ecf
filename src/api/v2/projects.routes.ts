/** `/organizations/<org>/projects`: an organization's projects. Scopes `projects:read` / `projects:write`. */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.ts';
import { PROJECT_DESCRIPTION_MAX } from '../../services/project.service.ts';
import { pageEnvelope } from '../pagination.ts';
import { projectDetail, ProjectDetail, projectItem, ProjectItem } from './project.presenter.ts';
import { commonErrors, PageQuery, pageOf, Paginated } from './schemas.ts';
import { authOf } from './auth.ts';
import { OrgParam, ProjectParams } from './params.ts';

const read = { auth: { scope: 'projects:read', write: false } } as const;
const write = { auth: { scope: 'projects:write', write: true } } as const;
const tags = ['projects'];

const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  description:
    'Unique in the organization; starts with a letter or digit; letters, digits, spaces and _ . - only.',
});
const Description = Type.String({ maxLength: PROJECT_DESCRIPTION_MAX });
const Active = Type.Boolean({ description: 'Inactive projects keep their data.' });

export const projectRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'config' | 'projects'>;
}> = async (app, { services }) => {
  const { projects } = services;
  const baseUrl = services.config.baseUrl;

  app.get(
    '/organizations/:org/projects',
    {
      config: read,
      schema: {
        tags,
        summary: 'The projects of the organization, by name',
        params: OrgParam,
        querystring: Type.Object(PageQuery),
        response: { 200: Paginated(ProjectItem), ...commonErrors },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { count, items } = await projects.list(authOf(request).organizationId, page);
      return pageEnvelope(request, baseUrl, page, count, items.map(projectItem));
    },
  );

  app.post(
    '/organizations/:org/projects',
    {
      config: write,
      schema: {
        tags,
        summary: 'Create a project (without subscriptions: PUT them next)',
        params: OrgParam,
        body: Type.Object(
          { name: Name, description: Type.Optional(Description), active: Type.Optional(Active) },
          { additionalProperties: false },
        ),
        response: { 201: ProjectDetail, ...commonErrors },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const detail = await projects.create(auth.organizationId, request.body, auth.actor);
      return reply.status(201).send(projectDetail(detail));
    },
  );

  app.get(
    '/organizations/:org/projects/:project',
    {
      config: read,
      schema: {
        tags,
        summary: 'One project with its subscriptions',
        params: ProjectParams,
        response: { 200: ProjectDetail, ...commonErrors },
      },
    },
    async (request) =>
      projectDetail(await projects.get(authOf(request).organizationId, request.params.project)),
  );

  app.patch(
    '/organizations/:org/projects/:project',
    {
      config: write,
      schema: {
        tags,
        summary: 'Change the name, description or active flag of a project',
        params: ProjectParams,
        body: Type.Object(
          {
            name: Type.Optional(Name),
            description: Type.Optional(Description),
            active: Type.Optional(Active),
          },
          { additionalProperties: false },
        ),
        response: { 200: ProjectDetail, ...commonErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      return projectDetail(
        await projects.update(auth.organizationId, request.params.project, request.body, auth.actor),
      );
    },
  );

  app.delete(
    '/organizations/:org/projects/:project',
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete a project with its subscriptions, tracker and comments',
        params: ProjectParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...commonErrors },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      await projects.delete(auth.organizationId, request.params.project, auth.actor);
      return reply.status(204).send(null);
    },
  );
};
