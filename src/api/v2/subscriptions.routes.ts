/**
 * `/organizations/<org>/projects/<project>/subscriptions` (docs/api-v2.md): read with `subscriptions:read`
 * or `projects:read` (the seed's sync token holds `projects:read` + `subscriptions:write`), replace the
 * whole set or add/remove one item with `subscriptions:write`. Every write answers with the new set.
 */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.ts';
import { MAX_SUBSCRIPTIONS } from '../../services/project.service.ts';
import { Subscriptions } from './project.presenter.ts';
import { ProjectParams } from './params.ts';
import { commonErrors } from './schemas.ts';
import { authOf } from './auth.ts';

const read = {
  auth: { scope: 'subscriptions:read' as const, anyOf: ['projects:read' as const], write: false },
};
const write = { auth: { scope: 'subscriptions:write', write: true } } as const;
const tags = ['subscriptions'];

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Item = Type.Object(
  {
    vendor: Type.String({ minLength: 1, maxLength: 200, description: 'A vendor name of the catalog.' }),
    product: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'One of its products; absent: the whole vendor.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const subscriptionRoutes: FastifyPluginAsyncTypebox<{ services: Pick<Services, 'projects'> }> = async (
  app,
  { services },
) => {
  const { projects } = services;
  const path = '/organizations/:org/projects/:project/subscriptions';

  app.get(
    path,
    {
      config: read,
      schema: {
        tags,
        summary: "The project's subscriptions",
        params: ProjectParams,
        response: { 200: Subscriptions, ...commonErrors },
      },
    },
    async (request) => projects.getSubscriptions(authOf(request).organizationId, request.params.project),
  );

  app.put(
    path,
    {
      config: write,
      schema: {
        tags,
        summary: 'Replace the whole subscription set',
        description:
          'After success the subscriptions are exactly the body: a missing `vendors` or `products` is empty. ' +
          'Every name must be in the catalog: unknown ones give 400 with one message each under ' +
          '`details.vendors` / `details.products`, and nothing changes. Answers with the new set.',
        params: ProjectParams,
        body: Type.Object(
          {
            vendors: Type.Optional(Type.Array(Name, { maxItems: MAX_SUBSCRIPTIONS })),
            products: Type.Optional(
              Type.Record(Name, Type.Array(Name, { maxItems: MAX_SUBSCRIPTIONS }), {
                description: 'Vendor name → product names.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Subscriptions, ...commonErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      return projects.replaceSubscriptions(
        auth.organizationId,
        request.params.project,
        request.body,
        auth.actor,
      );
    },
  );

  app.post(
    `${path}/items`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Subscribe to one vendor or product (already subscribed: no change)',
        params: ProjectParams,
        body: Item,
        response: { 200: Subscriptions, ...commonErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      return projects.addSubscription(auth.organizationId, request.params.project, request.body, auth.actor);
    },
  );

  app.delete(
    `${path}/items`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Unsubscribe from one vendor or product (404 when not subscribed)',
        params: ProjectParams,
        body: Item,
        response: { 200: Subscriptions, ...commonErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      return projects.removeSubscription(
        auth.organizationId,
        request.params.project,
        request.body,
        auth.actor,
      );
    },
  );
};
