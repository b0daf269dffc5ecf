/**
 * `/org/<org>/projects/<project>/notifications`: the project's notification channels (email with its
 * double opt-in, webhook with its signing secret shown once, Slack, Teams), a Try button that sends a
 * sample now and shows the whole HTTP exchange with the secrets masked, and each notification's
 * delivery log with its attempts, the next retry and a Retry button for dead or failed deliveries.
 * Every member reads; owners create, change, try, retry, rotate and delete (docs/web-ui.md).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import { notificationState } from '../../../domain/notification.ts';
import { shownTarget, webhookHeaderNames } from '../../../services/notification.service.ts';
import { doneText, field, formStatusOf, pageNumber } from '../../kit/input.ts';
import { sendPage } from '../../kit/layout.tsx';
import type { WebOptions } from '../../kit/context.ts';
import { assertCanConfigure, projectAccess, type ProjectAccess } from '../../kit/access.ts';
import {
  channelErrors,
  createInputOf,
  enabledOf,
  formOf,
  isType,
  newFormOf,
  patchOf,
  type NotificationRow,
} from './channel.form.ts';
import type { ShownNotification } from './parts.view.tsx';
import { DONE, notificationPath, notificationsPath } from './labels.ts';
import { NotificationsList } from './list.view.tsx';
import { NewNotificationPage } from './channel.view.tsx';
import { NotificationPage } from './notification.view.tsx';
import { DeliveriesPage, DeliveryPage } from './delivery.view.tsx';

const doneOf = (request: FastifyRequest) => doneText(DONE, request.query);

const base = '/org/:org/projects/:project/notifications';

/** A validation error of an action without a form: its sentences become the error page's. */
async function said<T>(action: Promise<T>): Promise<T> {
  try {
    return await action;
  } catch (err) {
    if (err instanceof AppError && err.code === 'validation_error' && err.details)
      throw new AppError('validation_error', Object.values(err.details).flat().join(' '));
    throw err;
  }
}

const DETAIL_DELIVERIES = 10;
const LOG_PAGE_SIZE = 25;

export const projectNotificationsRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const { notifications } = services;
  /** A notification with what its pages show of its configuration, and where it stands. */
  const shown = (n: NotificationRow): ShownNotification => ({
    ...n,
    target: shownTarget(n),
    headerNames: webhookHeaderNames(n),
    state: notificationState(n, notifications.emailConfigured),
  });
  type Params = { org: string; project: string; notification: string };
  type DeliveryParams = Params & { delivery: string };
  const orgId = (access: ProjectAccess) => access.membership.organizationId;

  /** The notification page with its recent deliveries (and a bad form, a secret or a notice). */
  async function detail(
    request: FastifyRequest,
    access: ProjectAccess,
    name: string,
    extra: Partial<Parameters<typeof NotificationPage>[0]> = {},
  ) {
    const { notification, count, items, nextAttempts } = await notifications.listDeliveries(
      orgId(access),
      access.project.name,
      name,
      { page: 1, pageSize: DETAIL_DELIVERIES },
    );
    return (
      <NotificationPage
        ctx={request.page}
        access={access}
        n={shown(notification)}
        deliveries={items}
        nextAttempts={nextAttempts}
        deliveryCount={count}
        {...extra}
      />
    );
  }

  app.get(base, async (request, reply) => {
    const access = await projectAccess(services, request);
    const { items, lastDeliveries } = await notifications.list(orgId(access), access.project.name, {
      page: 1,
      pageSize: 100,
    });
    return sendPage(
      reply,
      <NotificationsList
        ctx={request.page}
        access={access}
        items={items.map(shown)}
        lastDeliveries={lastDeliveries}
        done={doneOf(request)}
      />,
    );
  });

  app.get(`${base}/new`, async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const asked = field(request.query, 'type');
    const type = isType(asked) ? asked : 'email';
    return sendPage(
      reply,
      <NewNotificationPage ctx={request.page} access={access} form={formOf({}, type)} />,
    );
  });

  // A webhook's page is drawn at once after its create (a second call): its signing secret is shown
  // on this answer only (never stored in clear, not even in the session).
  app.post(base, async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const form = newFormOf(request.body);
    try {
      const input = createInputOf(request.body, form);
      const created = await notifications.create(orgId(access), access.project.name, input, access.actor);
      if (created.signingSecret) {
        const page = await detail(request, access, created.notification.name, {
          secret: { value: created.signingSecret, rotated: false },
          done: DONE.created,
        });
        return sendPage(reply, page, 201);
      }
      const state = notificationState(created.notification, notifications.emailConfigured);
      const done =
        state === 'no_email_server'
          ? 'created-no-email'
          : state === 'awaiting_confirmation'
            ? 'created-pending'
            : 'created';
      return reply.redirect(`${notificationPath(access, created.notification.name)}?done=${done}`, 303);
    } catch (err) {
      const errors = channelErrors(err);
      return sendPage(
        reply,
        <NewNotificationPage ctx={request.page} access={access} form={form} errors={errors} />,
        formStatusOf(err, reply),
      );
    }
  });

  app.get<{ Params: Params }>(`${base}/:notification`, async (request, reply) => {
    const access = await projectAccess(services, request);
    return sendPage(
      reply,
      await detail(request, access, request.params.notification, { done: doneOf(request) }),
    );
  });

  // The current notification is read first: its channel decides which fields the form has.
  app.post<{ Params: Params }>(`${base}/:notification`, async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const current = await notifications.get(orgId(access), access.project.name, request.params.notification);
    const form = formOf(request.body, current.type);
    try {
      const updated = await notifications.update(
        orgId(access),
        access.project.name,
        current.name,
        patchOf(form),
        access.actor,
      );
      return reply.redirect(`${notificationPath(access, updated.name)}?done=saved`, 303);
    } catch (err) {
      const errors = channelErrors(err);
      return sendPage(
        reply,
        await detail(request, access, current.name, { form, errors }),
        formStatusOf(err, reply),
      );
    }
  });

  app.post<{ Params: Params }>(`${base}/:notification/state`, async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const enabled = enabledOf(request.body);
    const updated = await notifications.update(
      orgId(access),
      access.project.name,
      request.params.notification,
      { is_enabled: enabled },
      access.actor,
    );
    return reply.redirect(
      `${notificationPath(access, updated.name)}?done=${enabled ? 'enabled' : 'disabled'}`,
      303,
    );
  });

  app.post<{ Params: Params }>(`${base}/:notification/delete`, async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    await notifications.delete(orgId(access), access.project.name, request.params.notification, access.actor);
    return reply.redirect(`${notificationsPath(access)}?done=deleted`, 303);
  });

  app.post<{ Params: Params }>(`${base}/:notification/try`, async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const delivery = await notifications.sendTest(
      orgId(access),
      access.membership.name,
      access.project.name,
      request.params.notification,
    );
    const done = delivery.status === 'succeeded' ? 'tried' : 'try-failed';
    return reply.redirect(
      `${notificationPath(access, request.params.notification, `/deliveries/${delivery.id}`)}?done=${done}`,
      303,
    );
  });

  app.post<{ Params: Params }>(`${base}/:notification/rotate-secret`, async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const secret = await said(
      notifications.rotateSigningSecret(
        orgId(access),
        access.project.name,
        request.params.notification,
        access.actor,
      ),
    );
    return sendPage(
      reply,
      await detail(request, access, request.params.notification, {
        secret: { value: secret, rotated: true },
      }),
    );
  });

  app.post<{ Params: Params }>(`${base}/:notification/resend-confirmation`, async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const done = !notifications.emailConfigured
      ? 'no-email-server'
      : await notifications
          .resendConfirmation(orgId(access), access.project.name, request.params.notification, access.actor)
          .then(
            () => 'resent',
            (err: unknown) => {
              // Confirmed (or changed) since the page was shown: nothing to send.
              if (err instanceof AppError && err.code === 'validation_error') return 'not-pending';
              throw err;
            },
          );
    return reply.redirect(`${notificationPath(access, request.params.notification)}?done=${done}`, 303);
  });

  app.get<{ Params: Params }>(`${base}/:notification/deliveries`, async (request, reply) => {
    const access = await projectAccess(services, request);
    const page = pageNumber(request.query);
    const listed = (page: number) =>
      notifications.listDeliveries(orgId(access), access.project.name, request.params.notification, {
        page,
        pageSize: LOG_PAGE_SIZE,
      });
    const { notification, count, items, nextAttempts } = await listed(page).catch((err: unknown) => {
      // A page past the end shows the first.
      if (err instanceof AppError && err.code === 'not_found' && page > 1) return listed(1);
      throw err;
    });
    return sendPage(
      reply,
      <DeliveriesPage
        ctx={request.page}
        access={access}
        n={shown(notification)}
        deliveries={items}
        nextAttempts={nextAttempts}
        page={page}
        pageSize={LOG_PAGE_SIZE}
        count={count}
        done={doneOf(request)}
      />,
    );
  });

  app.get<{ Params: DeliveryParams }>(
    `${base}/:notification/deliveries/:delivery`,
    async (request, reply) => {
      const access = await projectAccess(services, request);
      const { notification, delivery, nextAttempt } = await notifications.getDelivery(
        orgId(access),
        access.project.name,
        request.params.notification,
        request.params.delivery,
      );
      return sendPage(
        reply,
        <DeliveryPage
          ctx={request.page}
          access={access}
          n={shown(notification)}
          delivery={delivery}
          nextAttempt={nextAttempt}
          done={doneOf(request)}
        />,
      );
    },
  );

  app.post<{ Params: DeliveryParams }>(
    `${base}/:notification/deliveries/:delivery/retry`,
    async (request, reply) => {
      const access = await projectAccess(services, request);
      assertCanConfigure(access);
      await said(
        notifications.retryDelivery(
          orgId(access),
          access.project.name,
          request.params.notification,
          request.params.delivery,
          access.actor,
        ),
      );
      return reply.redirect(
        `${notificationPath(access, request.params.notification, '/deliveries')}?done=retried`,
        303,
      );
    },
  );
};
