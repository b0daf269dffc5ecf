/**
 * `/api/account/subscriptions/*` (legacy shape): the user's subscriptions, which are the union of the
 * subscriptions of every project of the organizations they have joined. Not paged.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services/services.ts';
import { userOf } from '../v1.setup.ts';
import { product, productSubscription } from './legacy.presenter.ts';

const config = { v1: { scope: 'projects:read' } } as const;

export const routes: FastifyPluginAsyncTypebox<{ services: Pick<Services, 'apiV1'> }> = async (
  app,
  { services },
) => {
  const { apiV1 } = services;

  app.get('/account/subscriptions/vendors', { config, schema: { hide: true } }, async (request) => {
    const { vendors } = await apiV1.accountSubscriptions(userOf(request).userId);
    return vendors.map((name) => product({ name }));
  });

  app.get('/account/subscriptions/products', { config, schema: { hide: true } }, async (request) => {
    const { products } = await apiV1.accountSubscriptions(userOf(request).userId);
    return Object.entries(products).flatMap(([vendor, names]) =>
      names.map((name) => productSubscription(vendor, name)),
    );
  });
};
