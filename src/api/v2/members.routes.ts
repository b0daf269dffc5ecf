/**
 * `/organizations/<org>/members`: members and invitations. Scopes `members:read` / `members:write`.
 * The last joined owner can be neither removed nor demoted.
 */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.ts';
import { pageEnvelope } from '../pagination.ts';
import { memberItem, MemberItem } from './organization.presenter.ts';
import { OrgParam } from './params.ts';
import { commonErrors, PageQuery, pageOf, Paginated, Uuid } from './schemas.ts';
import { authOf } from './auth.ts';
import { CHOICE } from '../validation-messages.ts';

const read = { auth: { scope: 'members:read', write: false } } as const;
const write = { auth: { scope: 'members:write', write: true } } as const;
const tags = ['members'];
const Role = Type.Enum(['owner', 'member'], CHOICE);
const MemberParams = Type.Object({ ...OrgParam.properties, id: Uuid });

export const memberRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'config' | 'members'>;
}> = async (app, { services }) => {
  const { members } = services;
  const baseUrl = services.config.baseUrl;

  app.get(
    '/organizations/:org/members',
    {
      config: read,
      schema: {
        tags,
        summary: 'Members and pending invitations, in the order they were invited',
        params: OrgParam,
        querystring: Type.Object(PageQuery),
        response: { 200: Paginated(MemberItem), ...commonErrors },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { count, items } = await members.list(authOf(request).organizationId, page);
      return pageEnvelope(request, baseUrl, page, count, items.map(memberItem));
    },
  );

  app.post(
    '/organizations/:org/members',
    {
      config: write,
      schema: {
        tags,
        summary: 'Invite someone by email (pending until they accept)',
        params: OrgParam,
        body: Type.Object(
          {
            email: Type.String({ minLength: 3, maxLength: 320 }),
            role: Type.Optional(Role),
          },
          { additionalProperties: false },
        ),
        response: { 201: MemberItem, ...commonErrors },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const member = await members.invite(auth.organizationId, request.body, auth.actor);
      return reply.status(201).send(memberItem(member));
    },
  );

  app.patch(
    '/organizations/:org/members/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Change the role of a member or an invitation',
        params: MemberParams,
        body: Type.Object({ role: Role }, { additionalProperties: false }),
        response: { 200: MemberItem, ...commonErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      const { id } = request.params;
      return memberItem(await members.changeRole(auth.organizationId, id, request.body.role, auth.actor));
    },
  );

  app.delete(
    '/organizations/:org/members/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Remove a member or withdraw an invitation',
        params: MemberParams,
        response: { 204: Type.Null({ description: 'Removed.' }), ...commonErrors },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      await members.remove(auth.organizationId, request.params.id, auth.actor);
      return reply.status(204).send(null);
    },
  );
};
