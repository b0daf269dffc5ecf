/**
 * `/org/<org>/projects/<project>/cves`: the project's tracker. The project's CVEs with every filter
 * of the catalog's list (`/cves`) plus status, assignee and the user's own tags, every ordering of
 * CVE_ORDERINGS, keyset paging with a capped count, the whole state in the URL; inline status and
 * assignee per row (htmx swaps the row; a plain form without JS); a bulk edit of the selected CVEs or
 * of every CVE matching the filter (status, assignee, tags) that is one audited action; keyboard
 * triage (tracker.js); the CSV export of the current filter. Every member triages (owners and
 * members alike); another organization's user gets 404.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { TRIAGE_STATUSES, type TriageStatus } from '../../../domain/triage.ts';
import type { CveBrowsePage } from '../../../services/cve-browse.ts';
import type {
  ProjectCveQuery,
  TrackerRow as TrackerRowData,
} from '../../../services/project-cves.service.ts';
import { csvStream, sendCsv } from '../../../http/csv.ts';
import { WEB_PROJECT_CVE_CSV_COLUMNS } from '../../../http/cve-csv.ts';
import { projectAccess, type ProjectAccess } from '../../kit/access.ts';
import type { WebOptions } from '../../kit/context.ts';
import { doneText, field, formErrorsOf, formStatusOf, type FormErrors } from '../../kit/input.ts';
import { isHtmx, sendFragment, sendPage } from '../../kit/layout.tsx';
import { projectPath } from '../../kit/paths.ts';
import { bulkErrorsOf, bulkSelection, NO_BULK, readBulkForm, type BulkValues } from './bulk.form.ts';
import { TrackerRow, type RowData } from './row.view.tsx';
import { cleanFilter, filterOf, listQuery, readTrackerState } from './state.ts';
import { TrackerPage } from './tracker.view.tsx';

const DONE: Record<string, string> = {
  moved: 'The CVE is updated.',
  bulk: 'The CVEs are updated. The audit log lists them, with their old and new values, in one entry.',
  unchanged: 'Nothing changed: the CVEs already had these values.',
};

export const projectTrackerRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const path = '/org/:org/projects/:project/cves';

  /** What every rendering of the tracker needs beside the list: who may be assigned, the user's tags. */
  const choices = async (access: ProjectAccess, userId: string) => {
    const [assignees, tagNames] = await Promise.all([
      services.projectCves.assignees(access.membership.organizationId),
      services.tags.names(userId),
    ]);
    return { assignees, tagNames };
  };

  /** The rows as drawn: each CVE with its tracker entry and the user's own tags on it. */
  const withTags = async (rows: TrackerRowData[], userId: string): Promise<RowData[]> => {
    const tags = await services.tags.ofCves(
      userId,
      rows.map((r) => r.cve.cve_id),
    );
    return rows.map((r) => ({ ...r, tags: tags.get(r.cve.cve_id) ?? [] }));
  };

  /**
   * The tracker page for `query` (the URL's, or a refused form's filter), with a refused form's
   * values. Its few service calls: the choices (assignees, tags), the keyset page, the rows' tags.
   */
  const render = async (
    request: FastifyRequest,
    reply: FastifyReply,
    access: ProjectAccess,
    query: Record<string, unknown>,
    extra: { bulk?: BulkValues; rowErrors?: { cveId: string; errors: FormErrors }; status?: number } = {},
  ) => {
    const user = request.page.user!;
    const orgId = access.membership.organizationId;
    const { assignees, tagNames } = await choices(access, user.id);
    const state = readTrackerState(query, assignees, tagNames);
    let page: CveBrowsePage | undefined;
    let rows: RowData[] = [];
    let status = Object.keys(state.errors).length > 0 ? 400 : 200;
    if (status === 200) {
      try {
        const result = await services.projectCves.browseCves(
          orgId,
          access.project.name,
          listQuery(state, orgId, user.id),
          state.list.cursor,
          state.list.size,
        );
        page = result.page;
        const found = result.page.items.map((cve) => ({ cve, tracker: result.tracker.get(cve.cve_id) }));
        rows = await withTags(found, user.id);
      } catch (err) {
        state.errors = { ...state.errors, ...formErrorsOf(err) };
        status = formStatusOf(err, reply);
      }
    }
    return sendPage(
      reply,
      <TrackerPage
        ctx={request.page}
        access={access}
        state={state}
        page={page}
        rows={rows}
        assignees={assignees}
        tagNames={tagNames}
        bulk={extra.bulk ?? NO_BULK}
        rowErrors={extra.rowErrors}
        done={extra.status ? undefined : doneText(DONE, request.query)}
      />,
      extra.status ?? status,
    );
  };

  /** The tracker's URL for a filter sent back by a form, with a `done` notice. */
  const listUrl = (access: ProjectAccess, filter: string, done: string) => {
    const params = new URLSearchParams(cleanFilter(filter));
    params.set('done', done);
    return `${projectPath(access.membership.name, access.project.name, 'cves')}?${params}`;
  };

  app.get(path, async (request, reply) => {
    const access = await projectAccess(services, request);
    return render(request, reply, access, request.query as Record<string, unknown>);
  });

  // Every CVE of the current filter as CSV (API v2's columns with the triage), at most 10,000: more,
  // or a bad filter, is the tracker again with the message.
  app.get(`${path}/export.csv`, async (request, reply) => {
    const access = await projectAccess(services, request);
    const user = request.page.user!;
    const orgId = access.membership.organizationId;
    const query = request.query as Record<string, unknown>;
    const { assignees, tagNames } = await choices(access, user.id);
    const state = readTrackerState(query, assignees, tagNames);
    if (Object.keys(state.errors).length) return render(request, reply, access, query, { status: 400 });
    try {
      const { rows } = await services.projectCves.exportCves(
        orgId,
        access.project.name,
        listQuery(state, orgId, user.id),
      );
      const filename = `cves-${access.membership.name}-${access.project.name}.csv`;
      return sendCsv(reply, filename, csvStream(WEB_PROJECT_CVE_CSV_COLUMNS, rows));
    } catch (err) {
      const message = Object.values(formErrorsOf(err)).flat();
      return render(request, reply, access, query, {
        bulk: { ...NO_BULK, errors: { _form: message } },
        status: formStatusOf(err, reply),
      });
    }
  });

  // One CVE's status and assignee (the row's form): htmx gets the row again, a plain form the list.
  app.post<{ Params: { cve: string } }>(`${path}/:cve/move`, async (request, reply) => {
    const access = await projectAccess(services, request);
    const user = request.page.user!;
    const orgId = access.membership.organizationId;
    const cveId = request.params.cve;
    const status = field(request.body, 'status');
    const assignee = field(request.body, 'assignee');
    const back = field(request.body, 'back');
    let errors: FormErrors = {};
    let failed = 0;
    if (status && !(TRIAGE_STATUSES as readonly string[]).includes(status)) {
      errors.status = ['Choose one of the statuses offered.'];
      failed = 400;
    } else {
      try {
        await services.tracker.update(
          orgId,
          access.project.name,
          cveId,
          { status: (status || null) as TriageStatus | null, assignee: assignee || null },
          access.actor,
        );
      } catch (err) {
        errors = formErrorsOf(err);
        failed = formStatusOf(err, reply);
      }
    }
    if (!isHtmx(request)) {
      if (!failed) return reply.redirect(listUrl(access, back, 'moved'), 303);
      return render(request, reply, access, filterOf(back), { rowErrors: { cveId, errors }, status: failed });
    }
    // The row as it is now (with the message beside its controls when the move was refused).
    const [{ assignees }, found] = await Promise.all([
      choices(access, user.id),
      services.projectCves.row(orgId, access.project.name, cveId),
    ]);
    const [row] = await withTags([found], user.id);
    const base = projectPath(access.membership.name, access.project.name, 'cves');
    return sendFragment(
      reply,
      <TrackerRow
        ctx={request.page}
        base={base}
        back={back}
        row={row!}
        assignees={assignees}
        errors={failed ? errors : undefined}
      />,
      failed || 200,
    );
  });

  // The bulk edit: the selected CVEs or all matching the filter, one audited action.
  app.post(`${path}/bulk`, async (request, reply) => {
    const access = await projectAccess(services, request);
    const orgId = access.membership.organizationId;
    const { values, filter, edit } = readBulkForm(request.body);
    const again = (errors: FormErrors, status: number) =>
      render(request, reply, access, filterOf(filter), { bulk: { ...values, errors }, status });
    if (Object.keys(values.errors).length) return again(values.errors, 400);
    let matching: ProjectCveQuery | undefined;
    if (values.scope === 'all') {
      const user = request.page.user!;
      const { assignees, tagNames } = await choices(access, user.id);
      const state = readTrackerState(filterOf(filter), assignees, tagNames);
      if (!Object.keys(state.errors).length) matching = listQuery(state, orgId, user.id);
    }
    const chosen = bulkSelection(values, matching);
    if ('errors' in chosen) return again(chosen.errors, 400);
    try {
      const { changed } = await services.tracker.bulkEdit(
        orgId,
        access.project.name,
        chosen.selection,
        edit,
        access.actor,
      );
      return reply.redirect(listUrl(access, filter, changed ? 'bulk' : 'unchanged'), 303);
    } catch (err) {
      return again(bulkErrorsOf(formErrorsOf(err)), formStatusOf(err, reply));
    }
  });
};
