/** `/organizations`: the token's organization, read and renamed. Scopes `org:read` / `org:write`. */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.ts';
import { pageEnvelope } from '../pagination.ts';
import { organizationItem, OrganizationItem } from './organization.presenter.ts';
import { commonErrors, PageQuery, pageOf, Paginated } from './schemas.ts';
import { authOf } from './auth.ts';
import { OrgParam } from './params.ts';
import { ruled } from '../validation-messages.ts';

const read = { auth: { scope: 'org:read', write: false } } as const;
const write = { auth: { scope: 'org:write', write: true } } as const;
const tags = ['organizations'];

export const organizationRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'config' | 'organizations'>;
}> = async (app, { services }) => {
  const { organizations } = services;
  const baseUrl = services.config.baseUrl;

  app.get(
    '/organizations',
    {
      config: read,
      schema: {
        tags,
        summary: "The token's organization (a list of one)",
        querystring: Type.Object(PageQuery),
        response: { 200: Paginated(OrganizationItem), ...commonErrors },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { count, items } = await organizations.list(authOf(request).organizationId, page);
      return pageEnvelope(request, baseUrl, page, count, items.map(organizationItem));
    },
  );

  app.get(
    '/organizations/:org',
    {
      config: read,
      schema: {
        tags,
        summary: 'One organization with its member and project counts',
        params: OrgParam,
        response: { 200: OrganizationItem, ...commonErrors },
      },
    },
    async (request) => organizationItem(await organizations.get(authOf(request).organizationId)),
  );

  app.patch(
    '/organizations/:org',
    {
      config: write,
      schema: {
        tags,
        summary: 'Rename the organization (its API paths change with it)',
        params: OrgParam,
        body: Type.Object(
          {
            name: Type.String({
              pattern: ruled('^[a-zA-Z0-9-]+$', 'letters, digits and - only (such as acme-security)'),
              minLength: 1,
              maxLength: 100,
              description: 'A slug: letters, digits and -; unique.',
            }),
          },
          { additionalProperties: false },
        ),
        response: { 200: OrganizationItem, ...commonErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      return organizationItem(await organizations.rename(auth.organizationId, request.body.name, auth.actor));
    },
  );
};
