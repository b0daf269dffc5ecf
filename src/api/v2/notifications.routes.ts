/**
 * `…/projects/<project>/notifications`: a project's notification channels, a test send, the delivery
 * log. Scopes `notifications:read` / `notifications:write`. Secrets never come back (docs/notifications.md).
 */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.ts';
import { configurationSummary, requestConfigurationFields } from '../../notifications/channel-registry.ts';
import { pageEnvelope } from '../pagination.ts';
import {
  ChannelTypeSchema,
  CreatedNotification,
  createdNotificationItem,
  Delivery,
  deliveryItem,
  NotificationItem,
  notificationItem,
} from './notification.presenter.ts';
import { ProjectParams } from './params.ts';
import { commonErrors, PageQuery, pageOf, Paginated } from './schemas.ts';
import { authOf } from './auth.ts';

const read = { auth: { scope: 'notifications:read', write: false } } as const;
const write = { auth: { scope: 'notifications:write', write: true } } as const;
const tags = ['notifications'];

const Params = Type.Object({
  ...ProjectParams.properties,
  name: Type.String({ minLength: 1, maxLength: 200 }),
});
const Name = Type.String({ minLength: 1, maxLength: 100, description: 'Unique in the project.' });
const Configuration = Type.Object(requestConfigurationFields(), {
  additionalProperties: false,
  description: `${configurationSummary()}.`,
});

export const notificationRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'config' | 'notifications'>;
}> = async (app, { services }) => {
  const { notifications } = services;
  const baseUrl = services.config.baseUrl;
  const base = '/organizations/:org/projects/:project/notifications';

  app.get(
    base,
    {
      config: read,
      schema: {
        tags,
        summary: "The project's notifications, by name",
        params: ProjectParams,
        querystring: Type.Object(PageQuery),
        response: { 200: Paginated(NotificationItem), ...commonErrors },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { count, items } = await notifications.list(
        authOf(request).organizationId,
        request.params.project,
        page,
      );
      return pageEnvelope(request, baseUrl, page, count, items.map(notificationItem));
    },
  );

  app.post(
    base,
    {
      config: write,
      schema: {
        tags,
        summary: 'Create a notification (a webhook returns its signing secret, once)',
        params: ProjectParams,
        body: Type.Object(
          {
            name: Name,
            type: ChannelTypeSchema,
            is_enabled: Type.Optional(Type.Boolean()),
            configuration: Configuration,
          },
          { additionalProperties: false },
        ),
        response: { 201: CreatedNotification, ...commonErrors },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const created = await notifications.create(
        auth.organizationId,
        request.params.project,
        request.body,
        auth.actor,
      );
      return reply.status(201).send(createdNotificationItem(created));
    },
  );

  app.get(
    `${base}/:name`,
    {
      config: read,
      schema: {
        tags,
        summary: 'One notification',
        params: Params,
        response: { 200: NotificationItem, ...commonErrors },
      },
    },
    async (request) =>
      notificationItem(
        await notifications.get(authOf(request).organizationId, request.params.project, request.params.name),
      ),
  );

  app.patch(
    `${base}/:name`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Rename, enable or disable a notification, or replace its configuration',
        params: Params,
        body: Type.Object(
          {
            name: Type.Optional(Name),
            is_enabled: Type.Optional(Type.Boolean()),
            configuration: Type.Optional(Configuration),
          },
          { additionalProperties: false },
        ),
        response: { 200: NotificationItem, ...commonErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      return notificationItem(
        await notifications.update(
          auth.organizationId,
          request.params.project,
          request.params.name,
          request.body,
          auth.actor,
        ),
      );
    },
  );

  app.delete(
    `${base}/:name`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete a notification and its delivery log',
        params: Params,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...commonErrors },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      await notifications.delete(
        auth.organizationId,
        request.params.project,
        request.params.name,
        auth.actor,
      );
      return reply.status(204).send(null);
    },
  );

  app.post(
    `${base}/:name/test`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Send a sample payload now; returns the delivery with its one attempt',
        params: Params,
        response: { 200: Delivery, ...commonErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      return deliveryItem(
        await notifications.sendTest(
          auth.organizationId,
          auth.organizationName,
          request.params.project,
          request.params.name,
        ),
      );
    },
  );

  app.get(
    `${base}/:name/deliveries`,
    {
      config: read,
      schema: {
        tags,
        summary: 'The deliveries of a notification, newest first, with every attempt',
        params: Params,
        querystring: Type.Object(PageQuery),
        response: { 200: Paginated(Delivery), ...commonErrors },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { count, items } = await notifications.listDeliveries(
        authOf(request).organizationId,
        request.params.project,
        request.params.name,
        page,
      );
      return pageEnvelope(request, baseUrl, page, count, items.map(deliveryItem));
    },
  );
};
