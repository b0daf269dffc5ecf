/**
 * The CVE list (`/cves`): the query box `q` with examples and its errors shown where they are, the
 * query builder island, every filter of API v2's list as a GET form (the whole state in the URL),
 * the orders an index serves, keyset paging with a capped count, the CSV export of the current
 * filters and the saved views menu. Served by CatalogService.browseCves: one keyset page through the
 * same source and ordering index as API v2's lists, and a count that stops at 10,001.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import type { CveBrowseRow } from '../../domain/cve-list.ts';
import type { CveBrowsePage } from '../../services/catalog.service.ts';
import type { SavedView } from '../../services/saved-view.service.ts';
import { csvStream, sendCsv } from '../../http/csv.ts';
import { CVE_CSV_COLUMNS } from '../../http/cve-csv.ts';
import { Field, FormProblems, SelectField, Time } from '../kit/fields.tsx';
import { formErrorsOf, type FormErrors, field, doneText } from '../kit/input.ts';
import { Csrf, Layout, sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';
import {
  listCountKey,
  listQueryString,
  readCveListState,
  type CveListState,
} from '../shared/cve-list/query.ts';
import {
  CatalogFilterFields,
  headline,
  OrderAndSizeFields,
  Pager,
  QueryField,
  BestSeverity,
  Vendors,
} from '../shared/cve-list/view.tsx';

/** A nil organization id: a user without an organization has no projects for `q` to name. */
const NO_ORGANIZATION = '00000000-0000-0000-0000-000000000000';

function CveTable({ items, ctx }: { items: CveBrowseRow[]; ctx: PageContext }) {
  return (
    <div class="table-wrap">
      <table class="data cve-list">
        <thead>
          <tr>
            <th scope="col">CVE</th>
            <th scope="col">Title</th>
            <th scope="col">Vendors</th>
            <th scope="col">Severity</th>
            <th scope="col" class="num">
              EPSS
            </th>
            <th scope="col">KEV</th>
            <th scope="col">Published</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {items.map((cve) => (
            <tr>
              <td class="nowrap">
                <a href={`/cves/${cve.cve_id}`}>{cve.cve_id}</a>
                {cve.state === 'REJECTED' && <span class="badge neutral">rejected</span>}
              </td>
              <td>{headline(cve)}</td>
              <td>
                <Vendors cve={cve} />
              </td>
              <td class="nowrap">
                <BestSeverity cve={cve} />
              </td>
              <td class="num">{cve.epss === null ? <span class="muted">–</span> : cve.epss.toFixed(3)}</td>
              <td>{cve.kev && <span class="badge kev">KEV</span>}</td>
              <td class="nowrap">
                <Time date={cve.created_at} style={ctx.dateStyle} withTime={false} />
              </td>
              <td class="nowrap">
                <Time date={cve.updated_at} style={ctx.dateStyle} withTime={false} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function SaveViewForm({
  ctx,
  state,
  errors,
  name,
  organization,
}: {
  ctx: PageContext;
  state: CveListState;
  errors?: FormErrors | undefined;
  name?: string | undefined;
  organization?: string | undefined;
}) {
  return (
    <details class="menu save-view" open={errors ? true : undefined}>
      <summary>Save this view</summary>
      <div class="menu-items">
        <form method="post" action="/cves/views" class="stacked">
          <Csrf ctx={ctx} />
          <input type="hidden" name="query" value={listQueryString(state.form)} />
          <Field name="name" label="Name" value={name ?? ''} required maxlength={100} errors={errors} />
          <SelectField
            name="organization"
            label="Visible to"
            value={organization ?? ''}
            options={[
              { value: '', label: 'Only me' },
              ...ctx.organizations.map((o) => ({ value: o.name, label: `Members of ${o.name}` })),
            ]}
            errors={errors}
          />
          <button type="submit" class="btn-primary">
            Save
          </button>
        </form>
      </div>
    </details>
  );
}

function ViewsMenu({ views }: { views: SavedView[] }) {
  return (
    <details class="menu">
      <summary>Saved views</summary>
      <div class="menu-items">
        {views.length === 0 && <span class="muted small">None yet.</span>}
        {views.map((v) => (
          <a href={`/cves${v.query ? `?${v.query}` : ''}`}>
            {v.name} <span class="muted small">{v.organization ?? 'private'}</span>
          </a>
        ))}
        <hr />
        <a href="/cves/views">Manage saved views</a>
      </div>
    </details>
  );
}

export interface CveListPageProps {
  ctx: PageContext;
  state: CveListState;
  page: CveBrowsePage | undefined;
  views: SavedView[];
  errors: FormErrors;
  save?: { errors: FormErrors; name: string; organization: string } | undefined;
}

export function CveListPage({ ctx, state, page, views, errors, save }: CveListPageProps) {
  const { form } = state;
  const exportQuery = listQueryString(form);
  return (
    <Layout ctx={ctx} title="CVEs" section="cves" scripts={['query-builder.js']}>
      <div class="page-head">
        <h1>CVEs</h1>
        <div class="row">
          <ViewsMenu views={views} />
          <SaveViewForm
            ctx={ctx}
            state={state}
            errors={save?.errors}
            name={save?.name}
            organization={save?.organization}
          />
        </div>
      </div>
      <FormProblems errors={errors} fields={[...Object.keys(form), 'name', 'organization']} />
      <form method="get" action="/cves" class="cve-filters" id="cve-filters">
        <QueryField path="/cves" form={form} errors={errors} />
        <div id="query-builder" class="query-builder" hidden></div>
        <fieldset class="filters">
          <legend>Filters</legend>
          <CatalogFilterFields form={form} errors={errors} />
          <OrderAndSizeFields form={form} errors={errors} />
          <div class="field">
            <button type="submit">Apply</button>
          </div>
          <div class="field">
            <a href="/cves">Clear</a>
          </div>
        </fieldset>
      </form>
      {page && (
        <>
          <div class="row list-actions">
            <a href={`/cves/export.csv${exportQuery ? `?${exportQuery}` : ''}`} download>
              Export CSV
            </a>
            <span class="muted small">(up to 10,000 CVEs)</span>
          </div>
          <Pager path="/cves" query={exportQuery} page={page} />
          {page.items.length > 0 && <CveTable items={page.items} ctx={ctx} />}
          {page.items.length > 0 && <Pager path="/cves" query={exportQuery} page={page} />}
        </>
      )}
    </Layout>
  );
}

/** The catalog service's arguments for the list in `state`. */
export function listRequest(request: FastifyRequest, state: CveListState) {
  const organizationId = request.page.currentOrg?.organizationId ?? NO_ORGANIZATION;
  return {
    countKey: listCountKey(state.form, organizationId),
    options: { q: { text: state.form.q || undefined, organizationId } },
  };
}

const VIEW_NOTICES: Record<string, string> = {
  saved: 'The view is saved.',
  deleted: 'The view is deleted.',
};

function SavedViewsPage({
  ctx,
  views,
  done,
}: {
  ctx: PageContext;
  views: SavedView[];
  done: string | undefined;
}) {
  return (
    <Layout ctx={ctx} title="Saved views" section="cves">
      <p class="crumbs">
        <a href="/cves">CVEs</a> ›
      </p>
      <h1>Saved views</h1>
      {done && (
        <div class="notice ok" role="status">
          {done}
        </div>
      )}
      {views.length === 0 ? (
        <p>
          No saved views yet. Filter the <a href="/cves">CVE list</a>, then "Save this view".
        </p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Filters</th>
                <th scope="col">Visible to</th>
                <th scope="col">Saved</th>
                <th scope="col">
                  <span class="skip-link">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {views.map((v) => (
                <tr>
                  <td>
                    <a href={`/cves${v.query ? `?${v.query}` : ''}`}>{v.name}</a>
                  </td>
                  <td class="mono small">
                    {v.query ? decodeURIComponent(v.query.replace(/\+/g, ' ')) : 'all CVEs'}
                  </td>
                  <td>{v.organization ? `Members of ${v.organization}` : 'Only me'}</td>
                  <td>
                    <Time date={v.createdAt} style={ctx.dateStyle} withTime={false} />
                  </td>
                  <td>
                    {v.deletable && (
                      <form
                        method="post"
                        action={`/cves/views/${v.id}/delete`}
                        class="inline-form"
                        data-confirm={`Delete the view "${v.name}"?`}
                      >
                        <Csrf ctx={ctx} />
                        <button type="submit" class="btn-danger btn-small">
                          Delete
                        </button>
                      </form>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
}

export const cveListRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const actorOf = (request: FastifyRequest) => {
    const user = request.page.user!;
    return { type: 'user' as const, id: user.id, name: user.username };
  };

  /** The page for the request's list; `save`: a refused saved view's form to show again. */
  const renderList = async (
    request: FastifyRequest,
    query: Record<string, unknown>,
    save?: CveListPageProps['save'],
  ) => {
    const state = readCveListState(query);
    const views = await services.savedViews.list(request.page.user!.id);
    let errors: FormErrors = { ...state.errors, ...save?.errors };
    let page: CveBrowsePage | undefined;
    if (Object.keys(state.errors).length === 0) {
      const { countKey, options } = listRequest(request, state);
      try {
        page = await services.catalog.browseCves(
          state.filters,
          state.ordering,
          state.cursor,
          state.size,
          countKey,
          options,
        );
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'validation_error') throw err;
        errors = { ...errors, ...formErrorsOf(err) };
      }
    }
    const bad = Object.keys(errors).length > 0;
    return {
      view: (
        <CveListPage ctx={request.page} state={state} page={page} views={views} errors={errors} save={save} />
      ),
      bad,
    };
  };

  app.get('/cves', async (request, reply) => {
    const { view, bad } = await renderList(request, request.query as Record<string, unknown>);
    return sendPage(reply, view, bad ? 400 : 200);
  });

  // Every CVE of the current filters as CSV (API v2's columns), at most 10,000: more is the list
  // page again with the message.
  app.get('/cves/export.csv', async (request, reply) => {
    const state = readCveListState(request.query as Record<string, unknown>);
    if (Object.keys(state.errors).length === 0) {
      const { countKey, options } = listRequest(request, state);
      try {
        const { rows } = await services.catalog.exportCves(state.filters, state.ordering, countKey, options);
        return sendCsv(reply, 'cves.csv', csvStream(CVE_CSV_COLUMNS, rows));
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'validation_error') throw err;
        const views = await services.savedViews.list(request.page.user!.id);
        const errors = { _form: Object.values(formErrorsOf(err)).flat() };
        const page = await services.catalog
          .browseCves(state.filters, state.ordering, undefined, state.size, countKey, options)
          .catch(() => undefined);
        return sendPage(
          reply,
          <CveListPage ctx={request.page} state={state} page={page} views={views} errors={errors} />,
          400,
        );
      }
    }
    const { view } = await renderList(request, request.query as Record<string, unknown>);
    return sendPage(reply, view, 400);
  });

  app.get('/cves/views', async (request, reply) => {
    const views = await services.savedViews.list(request.page.user!.id);
    return sendPage(
      reply,
      <SavedViewsPage ctx={request.page} views={views} done={doneText(VIEW_NOTICES, request.query)} />,
    );
  });

  app.post('/cves/views', async (request, reply) => {
    const input = {
      name: field(request.body, 'name'),
      query: field(request.body, 'query'),
      organization: field(request.body, 'organization') || undefined,
    };
    try {
      await services.savedViews.create(actorOf(request), input);
      return reply.redirect('/cves/views?done=saved', 303);
    } catch (err) {
      const errors = formErrorsOf(err);
      const query = Object.fromEntries(new URLSearchParams(input.query.slice(0, 2000)));
      const save = { errors, name: input.name, organization: input.organization ?? '' };
      const { view } = await renderList(request, query, save);
      return sendPage(reply, view, 400);
    }
  });

  app.post<{ Params: { id: string } }>('/cves/views/:id/delete', async (request, reply) => {
    await services.savedViews.delete(actorOf(request), request.params.id);
    return reply.redirect('/cves/views?done=deleted', 303);
  });
};
