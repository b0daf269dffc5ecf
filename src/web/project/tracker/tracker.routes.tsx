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
import { AppError } from '../../../domain/errors.ts';
import type { CveBrowseRow } from '../../../domain/cve-list.ts';
import { NO_STATUS, TRIAGE_STATUSES, type TriageStatus } from '../../../domain/triage.ts';
import type { CveBrowsePage } from '../../../services/cve-browse.ts';
import type { ProjectCveQuery, TrackedCve } from '../../../services/tracker.service.ts';
import { csvStream, sendCsv } from '../../../http/csv.ts';
import { PROJECT_CVE_CSV_COLUMNS } from '../../../http/cve-csv.ts';
import { Field, FormProblems, SelectField, Time } from '../../kit/fields.tsx';
import { formErrorsOf, type FormErrors, doneText, field, fields, queryText } from '../../kit/input.ts';
import { formatCount, statusLabel } from '../../kit/format.ts';
import { Csrf, isHtmx, sendFragment, sendPage, type PageShortcut } from '../../kit/layout.tsx';
import type { PageContext, WebOptions } from '../../kit/context.ts';
import {
  FILTER_FIELDS,
  listCountKey,
  listQueryString,
  readCveListState,
  type CveListState,
} from '../../shared/cve-list/query.ts';
import {
  CatalogFilterFields,
  headline,
  OrderAndSizeFields,
  Pager,
  QueryField,
  BestSeverity,
} from '../../shared/cve-list/view.tsx';
import { ProjectPage } from '../project-page.tsx';
import { projectPath } from '../../kit/paths.ts';
import { projectAccess, type ProjectAccess } from '../../kit/access.ts';

/** The catalog filters folded under "More filters" (the query box stays in view). */
const CATALOG_FIELDS = FILTER_FIELDS.filter((name) => name !== 'q');

/** The value of the assignee filter for CVEs nobody is assigned to. */
const UNASSIGNED = 'none';
/** The bulk edit's value that clears a status or an assignee ('' leaves them as they are). */
const CLEAR = 'none';

const DONE: Record<string, string> = {
  moved: 'The CVE is updated.',
  bulk: 'The CVEs are updated. The audit log lists them, with their old and new values, in one entry.',
  unchanged: 'Nothing changed: the CVEs already had these values.',
};

const SHORTCUTS: PageShortcut[] = [
  { keys: ['j'], label: 'Next CVE' },
  { keys: ['k'], label: 'Previous CVE' },
  { keys: ['x'], label: 'Select or unselect the CVE' },
  { keys: ['s'], label: "Change the CVE's status" },
  { keys: ['a'], label: "Change the CVE's assignee" },
  { keys: ['o'], label: 'Open the CVE (or Enter)' },
];

interface Assignee {
  email: string;
  username: string;
}

/** The tracker's state from the query string: the catalog list's and the triage filters. */
interface TrackerState {
  list: CveListState;
  status: string;
  assignee: string;
  tag: string;
  errors: FormErrors;
}

function readTrackerState(
  query: Record<string, unknown>,
  assignees: Assignee[],
  tagNames: string[],
): TrackerState {
  const list = readCveListState(query);
  const errors: FormErrors = { ...list.errors };
  const status = queryText(query, 'status');
  const assignee = queryText(query, 'assignee').toLowerCase();
  const tag = queryText(query, 'tag');
  if (status && status !== NO_STATUS && !(TRIAGE_STATUSES as readonly string[]).includes(status))
    errors.status = ['Choose one of the statuses offered.'];
  if (assignee && assignee !== UNASSIGNED && !assignees.some((a) => a.email === assignee))
    errors.assignee = ['Nobody of this organization has this email.'];
  if (tag && !tagNames.includes(tag))
    errors.tag = [`You have not put the tag "${tag.slice(0, 64)}" on any CVE.`];
  return { list, status, assignee, tag, errors };
}

/** The tracker's query string (filters, triage filters, order, size; never the cursor). */
function trackerQueryString(state: Pick<TrackerState, 'list' | 'status' | 'assignee' | 'tag'>): string {
  const params = new URLSearchParams(listQueryString(state.list.form));
  for (const name of ['status', 'assignee', 'tag'] as const) if (state[name]) params.set(name, state[name]);
  return params.toString();
}

/** The tracker service's list query for a valid state. */
function listQuery(state: TrackerState, access: ProjectAccess, userId: string): ProjectCveQuery {
  const { list } = state;
  return {
    filters: list.filters,
    q: list.form.q || undefined,
    ordering: list.ordering,
    status: (state.status || undefined) as TriageStatus | typeof NO_STATUS | undefined,
    assignee: state.assignee === UNASSIGNED ? null : state.assignee || undefined,
    tag: state.tag ? { userId, tag: state.tag } : undefined,
    countKey: listCountKey(list.form, access.membership.organizationId),
  };
}

interface RowData {
  cve: CveBrowseRow;
  tracker: TrackedCve['tracker'] | undefined;
  tags: string[];
}

const STATUS_OPTIONS = TRIAGE_STATUSES.map((s) => ({ value: s, label: statusLabel(s) }));

/** One row: selection, the CVE, its triage controls (one small form; htmx posts on change). */
function TrackerRow({
  ctx,
  base,
  back,
  row,
  assignees,
  checked = false,
  errors,
}: {
  ctx: PageContext;
  base: string;
  back: string;
  row: RowData;
  assignees: Assignee[];
  checked?: boolean;
  errors?: FormErrors | undefined;
}) {
  const { cve } = row;
  const id = cve.cve_id;
  const formId = `move-${id}`;
  const status = row.tracker?.status ?? '';
  const assignee = row.tracker?.assignee ?? '';
  const moveUrl = `${base}/${id}/move`;
  const htmx = {
    'hx-post': moveUrl,
    'hx-trigger': 'change',
    'hx-target': 'closest tr',
    'hx-swap': 'outerHTML',
  };
  const problems = errors ? Object.values(errors).flat() : [];
  const known = assignees.some((a) => a.email === assignee);
  return (
    <tr
      id={`row-${id}`}
      data-row
      data-href={`${base}/${id}`}
      class={problems.length ? 'has-error' : undefined}
    >
      <td class="select">
        <input
          type="checkbox"
          name="cve"
          value={id}
          form="bulk"
          checked={checked}
          data-select
          aria-label={`Select ${id}`}
        />
      </td>
      <td class="nowrap">
        <a href={`${base}/${id}`} data-open>
          {id}
        </a>
      </td>
      <td class="headline">{headline(cve)}</td>
      <td class="nowrap">
        <BestSeverity cve={cve} />
      </td>
      <td class="num">{cve.epss === null ? <span class="muted">–</span> : cve.epss.toFixed(3)}</td>
      <td>{cve.kev && <span class="badge kev">KEV</span>}</td>
      <td class="triage">
        <form id={formId} method="post" action={moveUrl} class="inline-form">
          <Csrf ctx={ctx} />
          <input type="hidden" name="back" value={back} />
          <select
            name="status"
            aria-label={`Status of ${id}`}
            data-triage="status"
            aria-invalid={errors?.status ? 'true' : undefined}
            {...htmx}
          >
            <option value="" selected={status === ''}>
              No status
            </option>
            {STATUS_OPTIONS.map((o) => (
              <option value={o.value} selected={o.value === status}>
                {o.label}
              </option>
            ))}
          </select>
          <button type="submit" class="btn-small row-save">
            Save
          </button>
        </form>
      </td>
      <td class="triage">
        <select
          name="assignee"
          form={formId}
          aria-label={`Assignee of ${id}`}
          data-triage="assignee"
          aria-invalid={errors?.assignee ? 'true' : undefined}
          {...htmx}
        >
          <option value="" selected={assignee === ''}>
            Nobody
          </option>
          {!known && assignee && (
            <option value={assignee} selected>
              {assignee}
            </option>
          )}
          {assignees.map((a) => (
            <option value={a.email} selected={a.email === assignee}>
              {a.username}
            </option>
          ))}
        </select>
        {problems.length > 0 && (
          <div class="error" role="alert">
            {problems.join(' ')}
          </div>
        )}
      </td>
      <td class="tags">
        {row.tags.length ? (
          row.tags.map((t) => <span class="badge tag">{t}</span>)
        ) : (
          <span class="muted">–</span>
        )}
      </td>
      <td class="nowrap">
        <Time date={cve.updated_at} style={ctx.dateStyle} withTime={false} />
      </td>
    </tr>
  );
}

interface BulkValues {
  scope: string;
  set_status: string;
  set_assignee: string;
  add_tags: string;
  remove_tags: string;
  checked: string[];
  errors: FormErrors;
}

const NO_BULK: BulkValues = {
  scope: 'selected',
  set_status: '',
  set_assignee: '',
  add_tags: '',
  remove_tags: '',
  checked: [],
  errors: {},
};

function BulkForm({
  ctx,
  base,
  query,
  page,
  assignees,
  values,
}: {
  ctx: PageContext;
  base: string;
  query: string;
  page: CveBrowsePage;
  assignees: Assignee[];
  values: BulkValues;
}) {
  const errors = values.errors;
  const selectionErrors = errors.selection ?? [];
  const all = page.capped ? `${formatCount(page.count)}+` : formatCount(page.count);
  return (
    <form id="bulk" method="post" action={`${base}/bulk`} class="card bulk-edit">
      <Csrf ctx={ctx} />
      <input type="hidden" name="filter" value={query} />
      <fieldset class={selectionErrors.length ? 'bulk-scope has-error' : 'bulk-scope'}>
        <legend>Bulk edit</legend>
        <label>
          <input type="radio" name="scope" value="selected" checked={values.scope !== 'all'} /> The CVEs
          selected below (<span data-selected-count>{values.checked.length}</span>)
        </label>
        <label>
          <input type="radio" name="scope" value="all" checked={values.scope === 'all'} /> All {all} CVEs
          matching this filter
        </label>
        {selectionErrors.length > 0 && (
          <div class="error" id="f-selection-error" role="alert">
            {selectionErrors.join(' ')}
          </div>
        )}
      </fieldset>
      <div class="bulk-fields">
        <SelectField
          name="set_status"
          label="Status"
          value={values.set_status}
          options={[
            { value: '', label: 'Leave as is' },
            { value: CLEAR, label: 'No status' },
            ...STATUS_OPTIONS,
          ]}
          errors={errors}
        />
        <SelectField
          name="set_assignee"
          label="Assignee"
          value={values.set_assignee}
          options={[
            { value: '', label: 'Leave as is' },
            { value: CLEAR, label: 'Nobody' },
            ...assignees.map((a) => ({ value: a.email, label: a.username })),
          ]}
          errors={errors}
        />
        <Field
          name="add_tags"
          label="Add tags"
          value={values.add_tags}
          errors={errors}
          maxlength={1000}
          placeholder="e.g. vpn, q3-audit"
        />
        <Field
          name="remove_tags"
          label="Remove tags"
          value={values.remove_tags}
          errors={errors}
          maxlength={1000}
        />
        <div class="field">
          <button type="submit" class="btn-primary">
            Apply to the CVEs
          </button>
        </div>
      </div>
      <p class="hint">
        Tags are your own: other members do not see them. The change is one entry of the audit log.
      </p>
    </form>
  );
}

function TrackerPage({
  ctx,
  access,
  state,
  page,
  rows,
  assignees,
  tagNames,
  bulk,
  rowErrors,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  state: TrackerState;
  page: CveBrowsePage | undefined;
  rows: RowData[];
  assignees: Assignee[];
  tagNames: string[];
  bulk: BulkValues;
  rowErrors?: { cveId: string; errors: FormErrors } | undefined;
  done: string | undefined;
}) {
  const base = projectPath(access.membership.name, access.project.name, 'cves');
  const { form } = state.list;
  const query = trackerQueryString(state);
  const errors = state.errors;
  const checked = new Set(bulk.checked);
  // The catalog's filters fold away unless one is set (or refused).
  const catalogFiltered = CATALOG_FIELDS.some((name) => form[name] || errors[name]);
  return (
    <ProjectPage
      ctx={ctx}
      access={access}
      tab="tracker"
      title="Tracker"
      done={done}
      scripts={['tracker.js']}
      shortcuts={SHORTCUTS}
      actions={
        <a class="btn" href={`${base}/export.csv${query ? `?${query}` : ''}`} download>
          Export CSV
        </a>
      }
    >
      <FormProblems
        errors={{ ...errors, ...(bulk.errors._form ? { _form: bulk.errors._form } : {}) }}
        fields={[...Object.keys(form), 'status', 'assignee', 'tag']}
      />
      <form method="get" action={base} class="cve-filters" id="cve-filters">
        <QueryField path={base} form={form} errors={errors} />
        <fieldset class="filters">
          <legend>Filters</legend>
          <SelectField
            name="status"
            label="Status"
            value={state.status}
            options={[
              { value: '', label: 'Any' },
              { value: NO_STATUS, label: 'No status' },
              ...STATUS_OPTIONS,
            ]}
            errors={errors}
          />
          <SelectField
            name="assignee"
            label="Assignee"
            value={state.assignee}
            options={[
              { value: '', label: 'Anyone' },
              { value: UNASSIGNED, label: 'Nobody' },
              ...assignees.map((a) => ({ value: a.email, label: a.username })),
            ]}
            errors={errors}
          />
          <SelectField
            name="tag"
            label="My tag"
            value={state.tag}
            options={[{ value: '', label: 'Any' }, ...tagNames.map((t) => ({ value: t, label: t }))]}
            errors={errors}
          />
          <OrderAndSizeFields form={form} errors={errors} />
          <div class="field">
            <button type="submit">Apply</button>
          </div>
          <div class="field">
            <a href={base}>Clear</a>
          </div>
        </fieldset>
        <details class="more-filters" open={catalogFiltered ? true : undefined}>
          <summary>More filters: text, vendor, product, weakness, CVSS, KEV, EPSS, dates</summary>
          <div class="filters">
            <CatalogFilterFields form={form} errors={errors} />
          </div>
        </details>
      </form>
      {page && (
        <>
          <BulkForm ctx={ctx} base={base} query={query} page={page} assignees={assignees} values={bulk} />
          <Pager path={base} query={query} page={page} />
          {rows.length > 0 && (
            <div class="table-wrap">
              <table class="data cve-list tracker" id="tracker">
                <thead>
                  <tr>
                    <th scope="col" class="select">
                      <input
                        type="checkbox"
                        data-select-all
                        aria-label="Select every CVE of this page"
                        hidden
                      />
                    </th>
                    <th scope="col">CVE</th>
                    <th scope="col">Title</th>
                    <th scope="col">Severity</th>
                    <th scope="col" class="num">
                      EPSS
                    </th>
                    <th scope="col">KEV</th>
                    <th scope="col">Status</th>
                    <th scope="col">Assignee</th>
                    <th scope="col">My tags</th>
                    <th scope="col">Updated</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((row) => (
                    <TrackerRow
                      ctx={ctx}
                      base={base}
                      back={query}
                      row={row}
                      assignees={assignees}
                      checked={checked.has(row.cve.cve_id)}
                      errors={rowErrors?.cveId === row.cve.cve_id ? rowErrors.errors : undefined}
                    />
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {rows.length > 0 && <Pager path={base} query={query} page={page} countId={null} />}
        </>
      )}
    </ProjectPage>
  );
}

/** Tags typed as a list: separated by commas or spaces. */
const tagList = (value: string): string[] => value.split(/[\s,]+/).filter(Boolean);

export const projectTrackerRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const path = '/org/:org/projects/:project/cves';

  /** What every rendering of the tracker needs beside the list: who may be assigned, the user's tags. */
  const choices = async (access: ProjectAccess, userId: string) => {
    const [assignees, tagNames] = await Promise.all([
      services.tracker.assignees(access.membership.organizationId),
      services.tags.names(userId),
    ]);
    return { assignees, tagNames };
  };

  /** The rows of a page: the CVE, its tracker entry, the user's tags on it. */
  const rowsOf = async (
    page: CveBrowsePage,
    tracker: Map<string, TrackedCve['tracker']>,
    userId: string,
  ): Promise<RowData[]> => {
    const tags = await services.tags.ofCves(
      userId,
      page.items.map((c) => c.cve_id),
    );
    return page.items.map((cve) => ({
      cve,
      tracker: tracker.get(cve.cve_id),
      tags: tags.get(cve.cve_id) ?? [],
    }));
  };

  /** The tracker page for `query` (the URL's, or a refused form's filter), with a refused form's values. */
  const render = async (
    request: FastifyRequest,
    reply: FastifyReply,
    access: ProjectAccess,
    query: Record<string, unknown>,
    extra: { bulk?: BulkValues; rowErrors?: { cveId: string; errors: FormErrors }; status?: number } = {},
  ) => {
    const user = request.page.user!;
    const { assignees, tagNames } = await choices(access, user.id);
    const state = readTrackerState(query, assignees, tagNames);
    let page: CveBrowsePage | undefined;
    let rows: RowData[] = [];
    if (Object.keys(state.errors).length === 0) {
      try {
        const result = await services.tracker.browseCves(
          access.membership.organizationId,
          access.project.name,
          listQuery(state, access, user.id),
          state.list.cursor,
          state.list.size,
        );
        page = result.page;
        rows = await rowsOf(result.page, result.tracker, user.id);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'validation_error') throw err;
        state.errors = { ...state.errors, ...formErrorsOf(err) };
      }
    }
    const bad = Object.keys(state.errors).length > 0;
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
      extra.status ?? (bad ? 400 : 200),
    );
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
    const query = request.query as Record<string, unknown>;
    const { assignees, tagNames } = await choices(access, user.id);
    const state = readTrackerState(query, assignees, tagNames);
    if (Object.keys(state.errors).length === 0) {
      try {
        const { rows } = await services.tracker.exportCves(
          access.membership.organizationId,
          access.project.name,
          listQuery(state, access, user.id),
        );
        const filename = `cves-${access.membership.name}-${access.project.name}.csv`;
        return sendCsv(reply, filename, csvStream(PROJECT_CVE_CSV_COLUMNS, rows));
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'validation_error') throw err;
        const message = Object.values(formErrorsOf(err)).flat();
        return render(request, reply, access, query, {
          bulk: { ...NO_BULK, errors: { _form: message } },
          status: 400,
        });
      }
    }
    return render(request, reply, access, query, { status: 400 });
  });

  /** The tracker's filter sent back by a form (the query string it was shown with). */
  const filterOf = (value: string): Record<string, unknown> =>
    Object.fromEntries(new URLSearchParams(value.slice(0, 4000)));
  /** The tracker's URL for a filter sent back by a form (only the fields the tracker knows). */
  const listUrl = (access: ProjectAccess, filter: string, done: string) => {
    const state = readTrackerState(filterOf(filter), [], []);
    const params = new URLSearchParams(
      trackerQueryString({
        list: state.list,
        status: state.status,
        assignee: state.assignee,
        tag: state.tag,
      }),
    );
    params.set('done', done);
    return `${projectPath(access.membership.name, access.project.name, 'cves')}?${params}`;
  };

  // One CVE's status and assignee (the row's form): htmx gets the row again, a plain form the list.
  app.post<{ Params: { cve: string } }>(`${path}/:cve/move`, async (request, reply) => {
    const access = await projectAccess(services, request);
    const user = request.page.user!;
    const cveId = request.params.cve;
    const status = field(request.body, 'status');
    const assignee = field(request.body, 'assignee');
    const back = field(request.body, 'back');
    const errors: FormErrors = {};
    if (status && !(TRIAGE_STATUSES as readonly string[]).includes(status))
      errors.status = ['Choose one of the statuses offered.'];
    if (!errors.status) {
      try {
        await services.tracker.update(
          access.membership.organizationId,
          access.project.name,
          cveId,
          { status: (status || null) as TriageStatus | null, assignee: assignee || null },
          access.actor,
        );
      } catch (err) {
        Object.assign(errors, formErrorsOf(err));
        if (err instanceof AppError && err.code !== 'validation_error') throw err;
      }
    }
    const failed = Object.keys(errors).length > 0;
    if (!isHtmx(request)) {
      if (!failed) return reply.redirect(listUrl(access, back, 'moved'), 303);
      return render(request, reply, access, filterOf(back), { rowErrors: { cveId, errors }, status: 400 });
    }
    // The row as it is now (with the message beside its controls when the move was refused).
    const { assignees } = await choices(access, user.id);
    const { page, tracker } = await services.tracker.browseCves(
      access.membership.organizationId,
      access.project.name,
      { filters: { where: (eb) => eb('cve.cve_id', '=', cveId) }, ordering: 'cve_id' },
      undefined,
      1,
    );
    const [row] = await rowsOf(page, tracker, user.id);
    if (!row) throw new AppError('not_found');
    const base = projectPath(access.membership.name, access.project.name, 'cves');
    return sendFragment(
      reply,
      <TrackerRow
        ctx={request.page}
        base={base}
        back={back}
        row={row}
        assignees={assignees}
        errors={failed ? errors : undefined}
      />,
      failed ? 400 : 200,
    );
  });

  // The bulk edit: the selected CVEs or all matching the filter, one audited action.
  app.post(`${path}/bulk`, async (request, reply) => {
    const access = await projectAccess(services, request);
    const body = request.body;
    const values: BulkValues = {
      scope: field(body, 'scope') === 'all' ? 'all' : 'selected',
      set_status: field(body, 'set_status'),
      set_assignee: field(body, 'set_assignee').trim(),
      add_tags: field(body, 'add_tags'),
      remove_tags: field(body, 'remove_tags'),
      checked: fields(body, 'cve').slice(0, 10_000),
      errors: {},
    };
    const filter = field(body, 'filter');
    const errors: FormErrors = {};
    const status = values.set_status;
    if (status && status !== CLEAR && !(TRIAGE_STATUSES as readonly string[]).includes(status))
      errors.set_status = ['Choose one of the statuses offered.'];
    if (!Object.keys(errors).length) {
      const user = request.page.user!;
      let selection: Parameters<typeof services.tracker.bulkEdit>[2];
      if (values.scope === 'all') {
        const { assignees, tagNames } = await choices(access, user.id);
        const state = readTrackerState(filterOf(filter), assignees, tagNames);
        if (Object.keys(state.errors).length)
          errors.selection = ['The filter of this page is not valid: correct it, then edit again.'];
        selection = { matching: listQuery(state, access, user.id) };
      } else selection = { cveIds: values.checked };
      if (!Object.keys(errors).length) {
        try {
          const { changed } = await services.tracker.bulkEdit(
            access.membership.organizationId,
            access.project.name,
            selection,
            {
              status: status === CLEAR ? null : ((status || undefined) as TriageStatus | undefined),
              assignee: values.set_assignee === CLEAR ? null : values.set_assignee || undefined,
              addTags: tagList(values.add_tags),
              removeTags: tagList(values.remove_tags),
            },
            access.actor,
          );
          return reply.redirect(listUrl(access, filter, changed ? 'bulk' : 'unchanged'), 303);
        } catch (err) {
          const found = formErrorsOf(err);
          if (err instanceof AppError && err.code !== 'validation_error') throw err;
          for (const [key, messages] of Object.entries(found)) {
            const name =
              key === 'cve_ids'
                ? 'selection'
                : key === 'assignee'
                  ? 'set_assignee'
                  : key === 'q'
                    ? '_form'
                    : key;
            errors[name] = [...(errors[name] ?? []), ...messages];
          }
        }
      }
    }
    return render(request, reply, access, filterOf(filter), { bulk: { ...values, errors }, status: 400 });
  });
};
