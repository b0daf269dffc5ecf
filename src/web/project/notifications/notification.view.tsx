/** One notification: its settings, recent deliveries, the edit form and the owner's actions. */
import { NO_EMAIL_SERVER, type DeliveryRow } from '../../../domain/notification.ts';
import { CopyField, Field, FormProblems, Notice, Time } from '../../kit/fields.tsx';
import type { FormErrors } from '../../kit/input.ts';
import { Csrf } from '../../kit/layout.tsx';
import type { PageContext } from '../../kit/context.ts';
import type { ProjectAccess } from '../../kit/access.ts';
import { ProjectPage } from '../project-page.tsx';
import { CONFIG_FIELDS, currentFormOf, type ChannelForm } from './channel.form.ts';
import { StatusBadge, type ShownNotification } from './parts.view.tsx';
import { ChannelFields } from './channel.view.tsx';
import { DeliveriesTable } from './delivery.view.tsx';
import { notificationPath, notificationsPath, typeLabel } from './labels.ts';

function SigningSecret({ secret, rotated }: { secret: string; rotated: boolean }) {
  return (
    <section class="card notice ok" role="status">
      <h2>{rotated ? 'The new signing secret' : 'The signing secret of this webhook'}</h2>
      <p>
        Copy it now: it is shown only this once. Your receiver verifies each request's
        <code>webhook-signature</code> with it (Standard Webhooks).
        {rotated && ' The previous secret no longer signs anything.'}
      </p>
      <CopyField id="signing-secret" label="Signing secret" value={secret} />
    </section>
  );
}

/** The notification page (with a form typed again and its errors, a signing secret shown once, or a notice). */
export function NotificationPage({
  ctx,
  access,
  n,
  deliveries,
  nextAttempts,
  deliveryCount,
  form,
  errors,
  secret,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  n: ShownNotification;
  deliveries: DeliveryRow[];
  nextAttempts: Map<string, Date>;
  deliveryCount: number;
  form?: ChannelForm | undefined;
  errors?: FormErrors | undefined;
  secret?: { value: string; rotated: boolean } | undefined;
  done?: string | undefined;
}) {
  const editForm = form ?? currentFormOf(n);
  const headers = n.headerNames;
  const action = (rest: string) => notificationPath(access, n.name, rest);
  return (
    <ProjectPage
      ctx={ctx}
      access={access}
      tab="notifications"
      title={n.name}
      done={done}
      actions={
        access.isOwner && (
          <form method="post" action={action('/try')} class="inline-form">
            <Csrf ctx={ctx} />
            <button type="submit" class="btn-primary">
              Try: send a sample now
            </button>
          </form>
        )
      }
    >
      <div class="crumbs">
        <a href={notificationsPath(access)}>Notifications</a>
      </div>
      <h2>
        {n.name} <StatusBadge n={n} />
      </h2>
      {secret && <SigningSecret secret={secret.value} rotated={secret.rotated} />}
      {n.state === 'no_email_server' && <Notice kind="error">{NO_EMAIL_SERVER}</Notice>}
      {n.state === 'awaiting_confirmation' && (
        <Notice kind="warn">
          {String(n.configuration.email)} has not confirmed yet: nothing is sent to it until it follows the
          link of the confirmation email.
          {access.isOwner && (
            <form method="post" action={action('/resend-confirmation')} class="inline-form">
              <Csrf ctx={ctx} />{' '}
              <button type="submit" class="btn-small">
                Resend the confirmation email
              </button>
            </form>
          )}
        </Notice>
      )}
      <div class="two-col">
        <div class="stack">
          <section class="card">
            <h3>Settings</h3>
            <table class="kv">
              <tbody>
                <tr>
                  <th scope="row">Type</th>
                  <td>{typeLabel(n.type)}</td>
                </tr>
                <tr>
                  <th scope="row">Sends to</th>
                  <td class="mono">{n.target}</td>
                </tr>
                {n.type === 'webhook' && (
                  <tr>
                    <th scope="row">Extra headers</th>
                    <td>{headers.length ? headers.map((h) => <span class="chip">{h}</span>) : 'none'}</td>
                  </tr>
                )}
                <tr>
                  <th scope="row">Created</th>
                  <td>
                    <Time date={n.created_at} style={ctx.dateStyle} />
                  </td>
                </tr>
              </tbody>
            </table>
          </section>
          <section class="card">
            <h3 id="deliveries">Recent deliveries</h3>
            <DeliveriesTable
              ctx={ctx}
              access={access}
              n={n}
              deliveries={deliveries}
              nextAttempts={nextAttempts}
            />
            {deliveryCount > deliveries.length && (
              <p>
                <a href={action('/deliveries')}>All {deliveryCount} deliveries</a>
              </p>
            )}
          </section>
        </div>
        {access.isOwner && (
          <div class="stack">
            <section class="card">
              <h3>Change</h3>
              <FormProblems errors={errors} fields={['name', ...CONFIG_FIELDS]} />
              <form method="post" action={action('')} class="stacked">
                <Csrf ctx={ctx} />
                <Field
                  name="name"
                  label="Name"
                  value={editForm.name}
                  required
                  maxlength={100}
                  errors={errors}
                />
                <ChannelFields form={editForm} errors={errors} editing />
                <button type="submit">Save</button>
              </form>
            </section>
            <section class="card">
              <h3>Actions</h3>
              <div class="notification-actions">
                {!(n.type === 'email' && n.email_status !== 'confirmed') && (
                  <form method="post" action={action('/state')} class="inline-form">
                    <Csrf ctx={ctx} />
                    <input type="hidden" name="enabled" value={n.is_enabled ? 'false' : 'true'} />
                    <button type="submit">{n.is_enabled ? 'Disable' : 'Enable'}</button>
                  </form>
                )}
                {n.type === 'webhook' && (
                  <form
                    method="post"
                    action={action('/rotate-secret')}
                    class="inline-form"
                    data-confirm="Make a new signing secret? Your receiver must verify with the new one from now on."
                  >
                    <Csrf ctx={ctx} />
                    <button type="submit">Rotate the signing secret</button>
                  </form>
                )}
                <form
                  method="post"
                  action={action('/delete')}
                  class="inline-form"
                  data-confirm={`Delete the notification ${n.name} and its delivery log?`}
                >
                  <Csrf ctx={ctx} />
                  <button type="submit" class="btn-danger">
                    Delete
                  </button>
                </form>
              </div>
            </section>
          </div>
        )}
      </div>
    </ProjectPage>
  );
}
