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
const VENDOR_DESCRIPTION = 'A vendor name of the catalog (any case).';
const PRODUCT_DESCRIPTION = 'One of its products; absent or empty: the whole vendor.';
const Item = Type.Object(
  {
    vendor: Type.String({ minLength: 1, maxLength: 200, description: VENDOR_DESCRIPTION }),
    product: Type.Optional(Type.String({ maxLength: 200, description: PRODUCT_DESCRIPTION })),
  },
  { additionalProperties: false },
);
const ItemQuery = Type.Object({
  vendor: Type.String({ minLength: 1, maxLength: 200, description: VENDOR_DESCRIPTION }),
  product: Type.Optional(Type.String({ maxLength: 200, description: PRODUCT_DESCRIPTION })),
});

/** One item as the service takes it: an empty product is the whole vendor (as on OpenCVE). */
const itemOf = (item: { vendor: string; product?: string | undefined }) =>
  item.product ? { vendor: item.vendor, product: item.product } : { vendor: item.vendor };

const ADD =
  'Adds one subscription (already subscribed: 200, no change). An unknown vendor is a 400 under ' +
  '`details.vendors`, an unknown product under `details.products`. Answers with the new set.';
const REMOVE =
  'Removes one subscription. Idempotent: one the project does not have changes nothing and is a ' +
  '200 with the set as it is. Answers with the new set.';

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

  // OpenCVE 3.1's routes (`POST` with a body, `DELETE ?vendor=…&product=…`), then ours of before
  // (`…/subscriptions/items`, the item in the body of both), kept as aliases with the same rules.
  for (const [url, summary] of [
    [path, 'Subscribe to one vendor or product'],
    [`${path}/items`, 'Subscribe to one vendor or product (alias of POST …/subscriptions)'],
  ] as const) {
    app.post(
      url,
      {
        config: write,
        schema: {
          tags,
          summary,
          description: ADD,
          params: ProjectParams,
          body: Item,
          response: { 200: Subscriptions, ...commonErrors },
        },
      },
      async (request) => {
        const auth = authOf(request);
        const item = itemOf(request.body);
        return projects.addSubscription(auth.organizationId, request.params.project, item, auth.actor);
      },
    );
  }

  app.delete(
    path,
    {
      config: write,
      schema: {
        tags,
        summary: 'Unsubscribe from one vendor or product',
        description: REMOVE,
        params: ProjectParams,
        querystring: ItemQuery,
        response: { 200: Subscriptions, ...commonErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      const item = itemOf(request.query);
      return projects.removeSubscription(auth.organizationId, request.params.project, item, auth.actor);
    },
  );

  app.delete(
    `${path}/items`,
    {
      config: write,
      schema: {
        tags,
        summary:
          'Unsubscribe from one vendor or product, named in the body (alias of DELETE …/subscriptions)',
        description: REMOVE,
        params: ProjectParams,
        body: Item,
        response: { 200: Subscriptions, ...commonErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      const item = itemOf(request.body);
      return projects.removeSubscription(auth.organizationId, request.params.project, item, auth.actor);
    },
  );
};
