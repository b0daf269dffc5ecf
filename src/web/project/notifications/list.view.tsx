/** The project's notifications: each with its channel, target, state and last delivery. */
import type { DeliveryRow } from '../../../domain/notification.ts';
import { Time } from '../../kit/fields.tsx';
import type { PageContext } from '../../kit/context.ts';
import type { ProjectAccess } from '../../kit/access.ts';
import { ProjectPage } from '../project-page.tsx';
import { DeliveryStatus, StatusBadge, type ShownNotification } from './parts.view.tsx';
import { notificationPath, notificationsPath, typeLabel } from './labels.ts';

/** The list page. */
export function NotificationsList({
  ctx,
  access,
  items,
  lastDeliveries,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  items: ShownNotification[];
  lastDeliveries: Map<string, DeliveryRow>;
  done: string | undefined;
}) {
  return (
    <ProjectPage
      ctx={ctx}
      access={access}
      tab="notifications"
      title="Notifications"
      done={done}
      actions={
        access.isOwner && (
          <a class="btn btn-primary" href={notificationsPath(access, '/new')}>
            New notification
          </a>
        )
      }
    >
      <p class="muted">
        Notifications only deliver: the project's automations decide what is sent, and when.
      </p>
      <div class="table-wrap">
        <table class="data">
          <caption class="skip-link">Notifications of {access.project.name}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Sends to</th>
              <th scope="col">Status</th>
              <th scope="col">Last delivery</th>
            </tr>
          </thead>
          <tbody>
            {items.length === 0 && (
              <tr>
                <td colSpan={5} class="muted">
                  No notification yet.
                  {access.isOwner && (
                    <>
                      {' '}
                      <a href={notificationsPath(access, '/new')}>Create one</a>.
                    </>
                  )}
                </td>
              </tr>
            )}
            {items.map((n) => {
              const last = lastDeliveries.get(n.id);
              return (
                <tr>
                  <td>
                    <a href={notificationPath(access, n.name)}>{n.name}</a>
                  </td>
                  <td>{typeLabel(n.type)}</td>
                  <td class="mono small">{n.target}</td>
                  <td>
                    <StatusBadge n={n} />
                  </td>
                  <td>
                    {last ? (
                      <>
                        <DeliveryStatus d={last} /> <Time date={last.created_at} style={ctx.dateStyle} />
                        {last.kind === 'test' && <span class="muted small"> (test)</span>}
                      </>
                    ) : (
                      <span class="muted">never</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </ProjectPage>
  );
}
