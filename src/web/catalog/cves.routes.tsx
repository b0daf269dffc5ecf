/**
 * The CVE list (`/cves`): the query box `q` with examples and its errors shown where they are, the
 * query builder island, every filter of API v2's list as a GET form (the whole state in the URL),
 * the orders an index serves, keyset paging with a capped count, the CSV export of the current
 * filters and the saved views menu. Served by CatalogService.browseCves: one keyset page through the
 * same source and ordering index as API v2's lists, and a count that stops at 10,001.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import type { CveBrowsePage } from '../../services/catalog.service.ts';
import { csvStream, sendCsv } from '../../http/csv.ts';
import { WEB_CVE_CSV_COLUMNS } from '../../http/cve-csv.ts';
import { isCveId } from '../../domain/cve-id.ts';
import { formErrorsOf, formStatusOf, type FormErrors, field, doneText, queryText } from '../kit/input.ts';
import { sendPage } from '../kit/layout.tsx';
import type { WebOptions } from '../kit/context.ts';
import {
  FILTER_FIELDS,
  listCountKey,
  readCveListState,
  type CveListState,
} from '../shared/cve-list/query.ts';
import { CveListPage, type CveListPageProps } from './cves.view.tsx';
import { SavedViewsPage } from './saved-views.view.tsx';

/** A nil organization id: a user without an organization has no projects for `q` to name. */
const NO_ORGANIZATION = '00000000-0000-0000-0000-000000000000';

/** The catalog service's arguments for the list in `state`. */
function listRequest(request: FastifyRequest, state: CveListState) {
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
    const query = request.query as Record<string, unknown>;
    // The query box is the page's one search box: a CVE id alone opens the CVE, as the header's box does.
    const q = queryText(query, 'q', 200).trim();
    const cveId = q.toUpperCase();
    if (isCveId(cveId) && FILTER_FIELDS.every((name) => name === 'q' || !queryText(query, name)))
      return reply.redirect(`/cves/${cveId}`);
    const { view, bad } = await renderList(request, query);
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
        return sendCsv(reply, 'cves.csv', csvStream(WEB_CVE_CSV_COLUMNS, rows));
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
          formStatusOf(err, reply),
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
      return sendPage(reply, view, formStatusOf(err, reply));
    }
  });

  app.post<{ Params: { id: string } }>('/cves/views/:id/delete', async (request, reply) => {
    await services.savedViews.delete(actorOf(request), request.params.id);
    return reply.redirect('/cves/views?done=deleted', 303);
  });
};
