/** Deliveries: a notification's log (a table, also on its page) and one delivery with its attempts and, for a test, the HTTP exchange. */
import type { DeliveryRow } from '../../../domain/notification.ts';
import { Time } from '../../kit/fields.tsx';
import { Csrf } from '../../kit/layout.tsx';
import type { PageContext } from '../../kit/context.ts';
import type { ProjectAccess } from '../../kit/access.ts';
import { Pager } from '../../kit/paging.tsx';
import { ProjectPage } from '../project-page.tsx';
import { AttemptOutcome, attemptsOf, DeliveryStatus, type ShownNotification } from './parts.view.tsx';
import { notificationPath, notificationsPath } from './labels.ts';

/** The deliveries, newest first, with their attempts, next attempt and a Retry for the dead or failed. */
export function DeliveriesTable({
  ctx,
  access,
  n,
  deliveries,
  nextAttempts,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  n: ShownNotification;
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

/** A notification's whole delivery log, a page at a time. */
export function DeliveriesPage({
  ctx,
  access,
  n,
  deliveries,
  nextAttempts,
  page,
  pageSize,
  count,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  n: ShownNotification;
  deliveries: DeliveryRow[];
  nextAttempts: Map<string, Date>;
  page: number;
  pageSize: number;
  count: number;
  done: string | undefined;
}) {
  return (
    <ProjectPage ctx={ctx} access={access} tab="notifications" title={`Deliveries · ${n.name}`} done={done}>
      <div class="crumbs">
        <a href={notificationsPath(access)}>Notifications</a> ›{' '}
        <a href={notificationPath(access, n.name)}>{n.name}</a>
      </div>
      <h2>Deliveries of {n.name}</h2>
      <p class="muted">
        Newest first. A failed attempt that may succeed later is tried again with a growing delay; a delivery
        out of attempts is dead. Deliveries are kept for a while, then deleted.
      </p>
      <DeliveriesTable ctx={ctx} access={access} n={n} deliveries={deliveries} nextAttempts={nextAttempts} />
      <Pager
        path={notificationPath(access, n.name, '/deliveries')}
        query={{}}
        page={page}
        pageSize={pageSize}
        count={count}
      />
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

/** One delivery: the exchange of its last attempt (a test's), and every attempt. */
export function DeliveryPage({
  ctx,
  access,
  n,
  delivery,
  nextAttempt,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  n: ShownNotification;
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
          {n.type === 'email' ? 'Email' : 'Sent'} to <span class="mono">{n.target}</span>
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
