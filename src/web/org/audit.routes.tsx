/**
 * `/org/<org>/audit` (owners): the organization's audit log, newest first, filtered by actor,
 * resource type, action and dates (a GET form: the whole state is in the URL), in numbered pages;
 * each entry with its changed fields, old → new.
 */
import type { FastifyPluginAsync } from 'fastify';
import { validationError } from '../../domain/errors.ts';
import { vendorKeyLabel } from '../../domain/cpe.ts';
import { statusLabel } from '../../domain/triage.ts';
import type { AuditLogRow } from '../../services/audit.service.ts';
import { Field, FormProblems, SelectField, Time } from '../kit/fields.tsx';
import { formErrorsOf, type FormErrors, pageNumber, queryText } from '../kit/input.ts';
import { sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';
import { OrgPage } from './org-page.tsx';
import { Pager } from '../kit/paging.tsx';
import { orgPath } from '../kit/paths.ts';
import { ownerAccess, type OrgAccess } from '../kit/access.ts';

const PAGE_SIZE = 50;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

interface AuditQuery {
  actor: string;
  resource: string;
  action: string;
  from: string;
  to: string;
}

/** Midnight UTC of a YYYY-MM-DD day; undefined for anything else (an impossible date too). */
function dayStart(value: string): Date | undefined {
  const m = DAY.exec(value);
  if (!m) return undefined;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.toISOString().slice(0, 10) === value && Number(m[1]) > 0 ? date : undefined;
}

/** The filter of a query; a validation error names each bad date. */
function filterOf(q: AuditQuery) {
  const errors: Record<string, string[]> = {};
  const since = q.from ? dayStart(q.from) : undefined;
  const toDay = q.to ? dayStart(q.to) : undefined;
  if (q.from && !since) errors.from = ['A date such as 2024-03-29.'];
  if (q.to && !toDay) errors.to = ['A date such as 2024-03-29.'];
  if (since && toDay && toDay < since) errors.to = ['On or after the "from" date.'];
  if (Object.keys(errors).length) throw validationError(errors);
  return {
    actor: q.actor || undefined,
    resource: q.resource || undefined,
    action: q.action || undefined,
    since,
    // The whole "to" day is included.
    until: toDay ? new Date(toDay.getTime() + 86_400_000) : undefined,
  };
}

const show = (value: unknown): string =>
  value === null || value === undefined ? '–' : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * A recorded value as people read it: a triage status in words ("Evaluated", "No status"), a list of
 * names joined (a subscription's vendor keys in words: `Apache / Log4j`).
 */
function shown(field: string, value: unknown, resource: string): string {
  if (field === 'status' && (typeof value === 'string' || value === null)) return statusLabel(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    const names = resource === 'subscription' ? value.map(vendorKeyLabel) : value;
    return names.length ? names.join(', ') : '–';
  }
  return show(value);
}

function isChange(value: unknown): value is { old: unknown; new: unknown } {
  return typeof value === 'object' && value !== null && 'old' in value && 'new' in value;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * An entry's changes: `field: old → new` for each changed field, a nested record (a bulk move's
 * CVEs, each with its changes) as a nested list, other recorded values as they are.
 */
function Changes({ changes, resource }: { changes: unknown; resource: string }) {
  const entries = isRecord(changes) ? Object.entries(changes) : [];
  if (entries.length === 0) return <span class="muted">–</span>;
  return (
    <dl class="audit-changes">
      {entries.map(([name, value]) => (
        <>
          <dt>{name.replace(/_/g, ' ')}</dt>
          <dd>
            {isChange(value) ? (
              <>
                <del>{shown(name, value.old, resource)}</del> <span aria-label="changed to">→</span>{' '}
                <ins>{shown(name, value.new, resource)}</ins>
              </>
            ) : isRecord(value) && Object.keys(value).length > 0 ? (
              <Changes changes={value} resource={resource} />
            ) : (
              shown(name, value, resource)
            )}
          </dd>
        </>
      ))}
    </dl>
  );
}

function AuditPage({
  ctx,
  access,
  query,
  facets,
  entries,
  page,
  errors,
}: {
  ctx: PageContext;
  access: OrgAccess;
  query: AuditQuery;
  facets: { actors: string[]; actions: string[]; resources: string[] };
  entries: { count: number; items: AuditLogRow[] };
  page: number;
  errors?: FormErrors | undefined;
}) {
  const org = access.membership.name;
  const choices = (all: string[], current: string, anyLabel: string) => [
    { value: '', label: anyLabel },
    ...[...new Set(current ? [...all, current] : all)].map((v) => ({ value: v, label: v })),
  ];
  return (
    <OrgPage ctx={ctx} access={access} tab="audit" title="Audit log">
      <FormProblems errors={errors} fields={['from', 'to']} />
      <form
        method="get"
        action={orgPath(org, 'audit')}
        class="filters"
        role="search"
        aria-label="Filter the audit log"
      >
        <SelectField
          name="actor"
          label="Actor"
          value={query.actor}
          options={choices(facets.actors, query.actor, 'Anyone')}
        />
        <SelectField
          name="resource"
          label="Resource"
          value={query.resource}
          options={choices(facets.resources, query.resource, 'Any resource')}
        />
        <SelectField
          name="action"
          label="Action"
          value={query.action}
          options={choices(facets.actions, query.action, 'Any action')}
        />
        <Field name="from" label="From (UTC)" type="date" value={query.from} errors={errors} />
        <Field name="to" label="To (UTC)" type="date" value={query.to} errors={errors} />
        <button type="submit">Filter</button>
        <a href={orgPath(org, 'audit')}>Clear</a>
      </form>
      <p class="muted small">
        {entries.count} {entries.count === 1 ? 'entry' : 'entries'}
      </p>
      <div class="table-wrap">
        <table class="data">
          <caption class="skip-link">Audit log of {org}</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Actor</th>
              <th scope="col">Action</th>
              <th scope="col">Resource</th>
              <th scope="col">Changes</th>
            </tr>
          </thead>
          <tbody>
            {entries.items.length === 0 && (
              <tr>
                <td colSpan={5} class="muted">
                  No entries.
                </td>
              </tr>
            )}
            {entries.items.map((e) => (
              <tr>
                <td class="nowrap">
                  <Time date={e.created_at} style={ctx.dateStyle} />
                </td>
                <td>
                  {e.actor_name ?? e.actor_type}
                  <div class="muted small">{e.actor_type}</div>
                </td>
                <td class="mono">{e.action}</td>
                <td>
                  {e.resource_name ?? e.resource_id ?? '–'}
                  <div class="muted small">{e.resource_type}</div>
                </td>
                <td>
                  <Changes changes={e.changes} resource={e.resource_type} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager
        path={orgPath(org, 'audit')}
        query={{ ...query }}
        page={page}
        pageSize={PAGE_SIZE}
        count={entries.count}
      />
    </OrgPage>
  );
}

export const auditRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  app.get<{ Params: { org: string } }>('/org/:org/audit', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const orgId = access.membership.organizationId;
    const query: AuditQuery = {
      actor: queryText(request.query, 'actor', 200),
      resource: queryText(request.query, 'resource', 200),
      action: queryText(request.query, 'action', 200),
      from: queryText(request.query, 'from', 200),
      to: queryText(request.query, 'to', 200),
    };
    const page = pageNumber(request.query);
    try {
      const { facets, ...entries } = await services.auditLog.browse(orgId, filterOf(query), {
        page,
        pageSize: PAGE_SIZE,
      });
      return sendPage(
        reply,
        <AuditPage
          ctx={request.page}
          access={access}
          query={query}
          facets={facets}
          entries={entries}
          page={page}
        />,
      );
    } catch (err) {
      const errors = formErrorsOf(err);
      if (!errors.from && !errors.to) throw err;
      const { facets } = await services.auditLog.browse(orgId, {}, { page: 1, pageSize: 1 });
      return sendPage(
        reply,
        <AuditPage
          ctx={request.page}
          access={access}
          query={query}
          facets={facets}
          entries={{ count: 0, items: [] }}
          page={1}
          errors={errors}
        />,
        400,
      );
    }
  });
};
