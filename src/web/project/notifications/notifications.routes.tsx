/**
 * `/org/<org>/projects/<project>/notifications`: the project's notification channels (email with its
 * double opt-in, webhook with its signing secret shown once, Slack, Teams), a Try button that sends a
 * sample now and shows the whole HTTP exchange with the secrets masked, and each notification's
 * delivery log with its attempts, the next retry and a Retry button for dead or failed deliveries.
 * Every member reads; owners create, change, try, retry, rotate and delete (docs/web-ui.md).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { DeliveryAttemptRecord, DeliveryRow } from '../../../domain/notification.ts';
import { AppError } from '../../../domain/errors.ts';
import {
  shownTarget,
  webhookHeaderNames,
  type NotificationInput,
} from '../../../services/notification.service.ts';
import { CopyField, Field, FormProblems, Notice, Time } from '../../kit/fields.tsx';
import { formErrorsOf, type FormErrors, doneText, field, pageNumber } from '../../kit/input.ts';
import { Csrf, sendPage } from '../../kit/layout.tsx';
import type { PageContext, WebOptions } from '../../kit/context.ts';
import { Pager } from '../../kit/paging.tsx';
import { ProjectPage } from '../project-page.tsx';
import { projectPath } from '../../kit/paths.ts';
import { assertCanConfigure, projectAccess, type ProjectAccess } from '../../kit/access.ts';

type NotificationRow = Awaited<ReturnType<WebOptions['services']['notifications']['get']>>;
type ChannelType = NotificationRow['type'];

const TYPES: { type: ChannelType; label: string; hint: string }[] = [
  {
    type: 'email',
    label: 'Email',
    hint: 'An address outside the organization confirms first (double opt-in).',
  },
  { type: 'webhook', label: 'Webhook', hint: 'A signed JSON POST (Standard Webhooks) to your URL.' },
  { type: 'slack', label: 'Slack', hint: 'A Slack incoming-webhook URL.' },
  { type: 'teams', label: 'Teams', hint: 'A Microsoft Teams Workflows webhook URL.' },
];
const typeLabel = (type: string) => TYPES.find((t) => t.type === type)?.label ?? type;
const isType = (value: string): value is ChannelType => TYPES.some((t) => t.type === value);

/** Fixed texts of `?done=<code>`. */
const DONE: Record<string, string> = {
  created: 'The notification was created.',
  'created-pending':
    'The notification was created. A confirmation email is on its way: it stays disabled until the address confirms.',
  saved: 'The notification was saved.',
  enabled: 'The notification was enabled.',
  disabled: 'The notification was disabled: nothing is sent until it is enabled again.',
  deleted: 'The notification and its delivery log were deleted.',
  resent: 'The confirmation email was sent again.',
  'not-pending': 'This address is not awaiting its confirmation: nothing was sent.',
  retried: 'The delivery was queued for one more attempt, now.',
  tried: 'The test was sent. Here is what went out and what came back.',
};
const doneOf = (request: FastifyRequest) => doneText(DONE, request.query);

const base = '/org/:org/projects/:project/notifications';
const notificationsPath = (access: ProjectAccess, rest = '') =>
  projectPath(access.membership.name, access.project.name, `notifications${rest}`);
const notificationPath = (access: ProjectAccess, name: string, rest = '') =>
  notificationsPath(access, `/${encodeURIComponent(name)}${rest}`);

/** The form as typed: one field per channel field (`headers` as `Name: value` lines). */
interface ChannelForm {
  type: ChannelType;
  name: string;
  email: string;
  url: string;
  headers: string;
  webhook_url: string;
}

const CONFIG_FIELDS = ['email', 'url', 'headers', 'webhook_url'] as const;

function formOf(body: unknown, type: ChannelType): ChannelForm {
  return {
    type,
    name: field(body, 'name').trim(),
    email: field(body, 'email').trim(),
    url: field(body, 'url').trim(),
    headers: field(body, 'headers'),
    webhook_url: field(body, 'webhook_url').trim(),
  };
}

/** `Name: value` lines into headers; a 400 beside the field for a line that is not one. */
function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  lines.forEach((line, i) => {
    const colon = line.indexOf(':');
    if (colon <= 0)
      throw new AppError('validation_error', undefined, {
        headers: [`Line ${i + 1} is not "Name: value".`],
      });
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  });
  return headers;
}

/** The channel configuration of a form; undefined when an edit leaves the secret fields blank (kept). */
function configurationOf(form: ChannelForm, editing: boolean): Record<string, unknown> | undefined {
  switch (form.type) {
    case 'email':
      return { email: form.email };
    case 'webhook': {
      if (editing && !form.url && !form.headers.trim()) return undefined;
      if (editing && !form.url)
        throw new AppError('validation_error', undefined, {
          url: ['Enter the URL again to change the headers (the current one is secret).'],
        });
      const headers = parseHeaders(form.headers);
      return { url: form.url, ...(Object.keys(headers).length ? { headers } : {}) };
    }
    case 'slack':
    case 'teams':
      if (editing && !form.webhook_url) return undefined;
      return { webhook_url: form.webhook_url };
  }
}

/**
 * The service's errors beside their fields: its configuration problems start with the field's name
 * (`url: This URL is not allowed…`, `email must be an email address`).
 */
function channelErrors(err: unknown): FormErrors {
  const errors = formErrorsOf(err);
  const problems = errors.configuration;
  if (!problems) return errors;
  const out: FormErrors = { ...errors };
  delete out.configuration;
  for (const problem of problems) {
    const key = CONFIG_FIELDS.find((k) => problem.startsWith(`${k}:`) || problem.startsWith(`${k} `));
    const text = key ? problem.replace(new RegExp(`^${key}:\\s*`), '') : problem;
    const sentence = text.charAt(0).toUpperCase() + text.slice(1);
    (out[key ?? '_form'] ??= []).push(/[.!?]$/.test(sentence) ? sentence : `${sentence}.`);
  }
  return out;
}

function StatusBadge({ n }: { n: NotificationRow }) {
  if (n.type === 'email' && n.email_status === 'pending')
    return <span class="badge warn">awaiting confirmation</span>;
  if (n.type === 'email' && n.email_status === 'unsubscribed')
    return <span class="badge neutral">unsubscribed</span>;
  return n.is_enabled ? <span class="badge ok">active</span> : <span class="badge neutral">disabled</span>;
}

const DELIVERY_BADGE: Record<DeliveryRow['status'], string> = {
  succeeded: 'badge ok',
  pending: 'badge neutral',
  failed: 'badge kev',
  dead: 'badge kev',
};

function DeliveryStatus({ d }: { d: DeliveryRow }) {
  return <span class={DELIVERY_BADGE[d.status]}>{d.status}</span>;
}

const attemptsOf = (d: DeliveryRow) => d.attempts as DeliveryAttemptRecord[];

/** What the last attempt came to: the HTTP status (or SMTP reply), else the error. */
function AttemptOutcome({ attempt }: { attempt: DeliveryAttemptRecord | undefined }) {
  if (!attempt) return <span class="muted">not attempted yet</span>;
  return (
    <>
      {attempt.status_code !== null && <span class="mono">{attempt.status_code}</span>}
      {attempt.error && <div class="small">{attempt.error}</div>}
      {attempt.status_code === null && !attempt.error && <span class="muted">–</span>}
    </>
  );
}

function ChannelFields({
  form,
  errors,
  editing,
}: {
  form: ChannelForm;
  errors: FormErrors | undefined;
  editing: boolean;
}) {
  const keep = editing ? ' Leave blank to keep the current one (it is secret and not shown).' : '';
  switch (form.type) {
    case 'email':
      return (
        <Field
          name="email"
          label="Email address"
          type="email"
          value={form.email}
          required
          errors={errors}
          hint="A member's address is confirmed at once; any other gets a confirmation email first."
        />
      );
    case 'webhook':
      return (
        <>
          <Field
            name="url"
            label="URL"
            type="url"
            value={form.url}
            required={!editing}
            maxlength={2048}
            placeholder="https://hooks.example.org/vulntrack"
            errors={errors}
            hint={`http or https, a public address.${keep}`}
          />
          <div class={errors?.headers ? 'field has-error' : 'field'}>
            <label for="f-headers">Extra headers (optional)</label>
            <textarea
              id="f-headers"
              name="headers"
              rows={3}
              placeholder="Authorization: Bearer …"
              aria-invalid={errors?.headers ? 'true' : undefined}
              aria-describedby={errors?.headers ? 'f-headers-hint f-headers-error' : 'f-headers-hint'}
            >
              {form.headers}
            </textarea>
            <div class="hint" id="f-headers-hint">
              One <code>Name: value</code> per line. Values are kept secret: only names are shown.
              {editing && ' Typed with the URL, they replace the current ones.'}
            </div>
            {errors?.headers && (
              <div class="error" id="f-headers-error">
                {errors.headers.join(' ')}
              </div>
            )}
          </div>
        </>
      );
    case 'slack':
    case 'teams':
      return (
        <Field
          name="webhook_url"
          label={`${typeLabel(form.type)} webhook URL`}
          type="url"
          value={form.webhook_url}
          required={!editing}
          maxlength={2048}
          errors={errors}
          hint={`The URL is a credential: it is kept secret and shown masked.${keep}`}
        />
      );
  }
}

function NotificationsList({
  ctx,
  access,
  items,
  lastDeliveries,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  items: NotificationRow[];
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
                  <td class="mono small">{shownTarget(n)}</td>
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

function NewNotificationPage({
  ctx,
  access,
  form,
  errors,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  form: ChannelForm;
  errors?: FormErrors | undefined;
}) {
  return (
    <ProjectPage ctx={ctx} access={access} tab="notifications" title="New notification">
      <section class="card">
        <h2>New notification</h2>
        <nav class="tabs channel-types" aria-label="Notification type">
          {TYPES.map((t) => (
            <a
              href={`${notificationsPath(access, '/new')}?type=${t.type}`}
              aria-current={t.type === form.type ? 'page' : undefined}
            >
              {t.label}
            </a>
          ))}
        </nav>
        <p class="muted">{TYPES.find((t) => t.type === form.type)?.hint}</p>
        <FormProblems errors={errors} fields={['name', ...CONFIG_FIELDS]} />
        <form method="post" action={notificationsPath(access)} class="stacked">
          <Csrf ctx={ctx} />
          <input type="hidden" name="type" value={form.type} />
          <Field
            name="name"
            label="Name"
            value={form.name}
            required
            maxlength={100}
            errors={errors}
            hint="Automations send through it by this name, e.g. security-team."
          />
          <ChannelFields form={form} errors={errors} editing={false} />
          <button type="submit" class="btn-primary">
            Create {typeLabel(form.type).toLowerCase()} notification
          </button>
        </form>
      </section>
    </ProjectPage>
  );
}

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

function DeliveriesTable({
  ctx,
  access,
  n,
  deliveries,
  nextAttempts,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  n: NotificationRow;
  deliveries: DeliveryRow[];
  nextAttempts: Map<string, Date>;
}) {
  return (
    <div class="table-wrap">
      <table class="data deliveries">
        <caption class="skip-link">Deliveries of {n.name}</caption>
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Kind</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Next attempt</th>
            <th scope="col">
              <span class="skip-link">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {deliveries.length === 0 && (
            <tr>
              <td colSpan={7} class="muted">
                Nothing was sent yet.
              </td>
            </tr>
          )}
          {deliveries.map((d) => {
            const attempts = attemptsOf(d);
            const next = nextAttempts.get(d.id);
            return (
              <tr>
                <td class="nowrap">
                  <a href={notificationPath(access, n.name, `/deliveries/${d.id}`)}>
                    <Time date={d.created_at} style={ctx.dateStyle} />
                  </a>
                </td>
                <td>{d.kind}</td>
                <td>
                  <DeliveryStatus d={d} />
                </td>
                <td>{attempts.length}</td>
                <td>
                  <AttemptOutcome attempt={attempts.at(-1)} />
                </td>
                <td class="nowrap">
                  {next ? <Time date={next} style={ctx.dateStyle} /> : <span class="muted">–</span>}
                </td>
                <td>
                  {access.isOwner && (d.status === 'dead' || d.status === 'failed') && d.kind !== 'test' && (
                    <form
                      method="post"
                      action={notificationPath(access, n.name, `/deliveries/${d.id}/retry`)}
                      class="inline-form"
                    >
                      <Csrf ctx={ctx} />
                      <button type="submit" class="btn-small">
                        Retry
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function NotificationPage({
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
  n: NotificationRow;
  deliveries: DeliveryRow[];
  nextAttempts: Map<string, Date>;
  deliveryCount: number;
  form?: ChannelForm | undefined;
  errors?: FormErrors | undefined;
  secret?: { value: string; rotated: boolean } | undefined;
  done?: string | undefined;
}) {
  const editForm: ChannelForm = form ?? {
    type: n.type,
    name: n.name,
    email: n.type === 'email' ? String(n.configuration.email ?? '') : '',
    url: '',
    headers: '',
    webhook_url: '',
  };
  const headers = webhookHeaderNames(n);
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
      {n.type === 'email' && n.email_status === 'pending' && (
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
                  <td class="mono">{shownTarget(n)}</td>
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

function HeadersTable({ headers, label }: { headers: [string, string][]; label: string }) {
  return (
    <table class="kv exchange-headers">
      <caption class="skip-link">{label}</caption>
      <tbody>
        {headers.map(([name, value]) => (
          <tr>
            <th scope="row" class="mono">
              {name}
            </th>
            <td class="mono">{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A JSON body pretty-printed, any other as it is. */
function bodyText(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function DeliveryPage({
  ctx,
  access,
  n,
  delivery,
  nextAttempt,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  n: NotificationRow;
  delivery: DeliveryRow;
  nextAttempt: Date | undefined;
  done: string | undefined;
}) {
  const attempts = attemptsOf(delivery);
  const exchange = attempts.at(-1)?.exchange;
  return (
    <ProjectPage ctx={ctx} access={access} tab="notifications" title={`Delivery · ${n.name}`} done={done}>
      <div class="crumbs">
        <a href={notificationsPath(access)}>Notifications</a> ›{' '}
        <a href={notificationPath(access, n.name)}>{n.name}</a> ›{' '}
        <a href={notificationPath(access, n.name, '/deliveries')}>Deliveries</a>
      </div>
      <h2>
        {delivery.kind === 'test' ? 'Test' : 'Delivery'} of{' '}
        <Time date={delivery.created_at} style={ctx.dateStyle} /> <DeliveryStatus d={delivery} />
      </h2>
      <p class="muted small">
        Payload id <span class="mono">{String(delivery.payload.id)}</span> (the <code>webhook-id</code>: the
        same on every attempt).
        {nextAttempt && (
          <>
            {' '}
            Next attempt: <Time date={nextAttempt} style={ctx.dateStyle} />.
          </>
        )}
      </p>
      {access.isOwner &&
        (delivery.status === 'dead' || delivery.status === 'failed') &&
        delivery.kind !== 'test' && (
          <form
            method="post"
            action={notificationPath(access, n.name, `/deliveries/${delivery.id}/retry`)}
            class="inline-form"
          >
            <Csrf ctx={ctx} />
            <button type="submit">Retry now</button>
          </form>
        )}
      {!exchange && attempts.length > 0 && (
        <p>
          {n.type === 'email' ? 'Email' : 'Sent'} to <span class="mono">{shownTarget(n)}</span>
          {n.type === 'email' && attempts.at(-1)?.status_code
            ? `: the SMTP server answered ${attempts.at(-1)?.status_code}.`
            : '.'}
        </p>
      )}
      {exchange && (
        <div class="exchange grid">
          <section class="card">
            <h3>Request</h3>
            <p class="mono exchange-line">
              {exchange.request.method} {exchange.request.url}
            </p>
            <HeadersTable headers={exchange.request.headers} label="Request headers" />
            <details>
              <summary>Body ({exchange.request.body.length.toLocaleString('en-US')} characters)</summary>
              <pre class="raw-record">{bodyText(exchange.request.body)}</pre>
            </details>
          </section>
          <section class="card">
            <h3>Response</h3>
            {exchange.response ? (
              <>
                <p class="mono exchange-line">
                  HTTP {exchange.response.status} · {attempts.at(-1)?.duration_ms} ms
                </p>
                <HeadersTable headers={exchange.response.headers} label="Response headers" />
                <h4>Body{exchange.response.truncated ? ' (first 4 KiB)' : ''}</h4>
                <pre class="raw-record">{exchange.response.body || '(empty)'}</pre>
              </>
            ) : (
              <p>No response: {attempts.at(-1)?.error}</p>
            )}
          </section>
        </div>
      )}
      <section class="card">
        <h3>Attempts</h3>
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">At</th>
                <th scope="col">Answer</th>
                <th scope="col">Time</th>
              </tr>
            </thead>
            <tbody>
              {attempts.length === 0 && (
                <tr>
                  <td colSpan={4} class="muted">
                    Not attempted yet.
                  </td>
                </tr>
              )}
              {attempts.map((a, i) => (
                <tr>
                  <td>{i + 1}</td>
                  <td class="nowrap">
                    <Time date={a.at} style={ctx.dateStyle} />
                  </td>
                  <td>
                    <AttemptOutcome attempt={a} />
                  </td>
                  <td class="nowrap">{a.duration_ms} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </ProjectPage>
  );
}

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
    const n = await notifications.get(orgId(access), access.project.name, name);
    const { count, items, nextAttempts } = await notifications.listDeliveries(
      orgId(access),
      access.project.name,
      n.name,
      { page: 1, pageSize: DETAIL_DELIVERIES },
    );
    return (
      <NotificationPage
        ctx={request.page}
        access={access}
        n={n}
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
        items={items}
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

  app.post(base, async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const asked = field(request.body, 'type');
    const form = formOf(request.body, isType(asked) ? asked : 'email');
    try {
      if (!isType(asked))
        throw new AppError('validation_error', undefined, { _form: ['Choose a notification type.'] });
      const input: NotificationInput = {
        name: form.name,
        type: form.type,
        configuration: configurationOf(form, false) ?? {},
      };
      const created = await notifications.create(orgId(access), access.project.name, input, access.actor);
      if (created.signingSecret) {
        // The secret is shown on this answer only (never stored in clear, not even in the session).
        const page = await detail(request, access, created.notification.name, {
          secret: { value: created.signingSecret, rotated: false },
          done: DONE.created,
        });
        return sendPage(reply, page, 201);
      }
      const done = created.notification.email_status === 'pending' ? 'created-pending' : 'created';
      return reply.redirect(`${notificationPath(access, created.notification.name)}?done=${done}`, 303);
    } catch (err) {
      return sendPage(
        reply,
        <NewNotificationPage ctx={request.page} access={access} form={form} errors={channelErrors(err)} />,
        400,
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

  app.post<{ Params: Params }>(`${base}/:notification`, async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const current = await notifications.get(orgId(access), access.project.name, request.params.notification);
    const form = formOf(request.body, current.type);
    try {
      const configuration = configurationOf(form, true);
      const updated = await notifications.update(
        orgId(access),
        access.project.name,
        current.name,
        { name: form.name, ...(configuration ? { configuration } : {}) },
        access.actor,
      );
      return reply.redirect(`${notificationPath(access, updated.name)}?done=saved`, 303);
    } catch (err) {
      const errors = channelErrors(err);
      return sendPage(reply, await detail(request, access, current.name, { form, errors }), 400);
    }
  });

  app.post<{ Params: Params }>(`${base}/:notification/state`, async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const enabled = field(request.body, 'enabled');
    if (enabled !== 'true' && enabled !== 'false')
      throw new AppError('validation_error', 'Choose to enable or to disable the notification.');
    const updated = await notifications.update(
      orgId(access),
      access.project.name,
      request.params.notification,
      { is_enabled: enabled === 'true' },
      access.actor,
    );
    return reply.redirect(
      `${notificationPath(access, updated.name)}?done=${enabled === 'true' ? 'enabled' : 'disabled'}`,
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
    return reply.redirect(
      `${notificationPath(access, request.params.notification, `/deliveries/${delivery.id}`)}?done=tried`,
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
    const done = await notifications
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
    const n = await notifications.get(orgId(access), access.project.name, request.params.notification);
    const page = pageNumber(request.query);
    const { count, items, nextAttempts } = await notifications
      .listDeliveries(orgId(access), access.project.name, n.name, { page, pageSize: LOG_PAGE_SIZE })
      .catch(async (err: unknown) => {
        // A page past the end shows the first.
        if (err instanceof AppError && err.code === 'not_found' && page > 1)
          return notifications.listDeliveries(orgId(access), access.project.name, n.name, {
            page: 1,
            pageSize: LOG_PAGE_SIZE,
          });
        throw err;
      });
    const ctx = request.page;
    return sendPage(
      reply,
      <ProjectPage
        ctx={ctx}
        access={access}
        tab="notifications"
        title={`Deliveries · ${n.name}`}
        done={doneOf(request)}
      >
        <div class="crumbs">
          <a href={notificationsPath(access)}>Notifications</a> ›{' '}
          <a href={notificationPath(access, n.name)}>{n.name}</a>
        </div>
        <h2>Deliveries of {n.name}</h2>
        <p class="muted">
          Newest first. A failed attempt that may succeed later is tried again with a growing delay; a
          delivery out of attempts is dead. Deliveries are kept for a while, then deleted.
        </p>
        <DeliveriesTable ctx={ctx} access={access} n={n} deliveries={items} nextAttempts={nextAttempts} />
        <Pager
          path={notificationPath(access, n.name, '/deliveries')}
          query={{}}
          page={page}
          pageSize={LOG_PAGE_SIZE}
          count={count}
        />
      </ProjectPage>,
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
          n={notification}
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
