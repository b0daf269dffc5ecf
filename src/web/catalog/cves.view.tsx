/**
 * The CVE list page: the query box with its errors, the filters as a GET form, the table of one
 * keyset page, the CSV export link and the saved views menu with the form that saves one.
 */
import type { CveBrowseRow } from '../../domain/cve-list.ts';
import type { CveBrowsePage } from '../../services/catalog.service.ts';
import type { SavedView } from '../../services/saved-view.service.ts';
import { Field, FormProblems, SelectField, Time } from '../kit/fields.tsx';
import type { FormErrors } from '../kit/input.ts';
import { Csrf, Layout } from '../kit/layout.tsx';
import { FreshnessLine } from '../kit/freshness.tsx';
import type { PageContext } from '../kit/context.ts';
import { FILTER_FIELDS, listQueryString, type CveListState } from '../shared/cve-list/query.ts';
import {
  CatalogFilterFields,
  headline,
  OrderAndSizeFields,
  Pager,
  QueryField,
  BestSeverity,
  Vendors,
} from '../shared/cve-list/view.tsx';

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

/**
 * What to try when nothing matched: where the words were looked for, the vendors and products named
 * like them (a nickname such as "Log4Shell" is rarely in a record's text), and the filters to drop.
 */
function NoMatchHelp({ form }: { form: CveListState['form'] }) {
  const filtered = FILTER_FIELDS.some((name) => name !== 'search' && name !== 'q' && form[name]);
  // The words searched: the text filter's, or a query that is words only (no field=value term).
  const plainQuery = form.q && !/[=<>()]/.test(form.q) ? form.q.trim() : '';
  const words = form.search.trim() || plainQuery;
  if (!words && !filtered && !form.q) return null;
  return (
    <section class="card" aria-labelledby="no-match-title">
      <h2 id="no-match-title">Nothing matched</h2>
      <ul>
        {words && (
          <li>
            The search looks for all of “{words}” in CVE ids, titles, descriptions, vendors and products.
            Nicknames such as Log4Shell are rarely in a record's text: try the product (<code>log4j</code>) or
            the CVE id.{' '}
            <a href={`/vendors?search=${encodeURIComponent(words)}`}>
              Vendors and products named like “{words}”
            </a>
          </li>
        )}
        {(filtered || (form.q && !plainQuery)) && (
          <li>
            Filters narrow the list too:{' '}
            <a
              href={`/cves${words ? `?${form.search.trim() ? 'search' : 'q'}=${encodeURIComponent(words)}` : ''}`}
            >
              {words ? `search “${words}” without the filters` : 'clear the filters'}
            </a>
            .
          </li>
        )}
      </ul>
    </section>
  );
}

/** The list page's data: the state read from the URL, one page of results (none on an error), the user's saved views. */
export interface CveListPageProps {
  ctx: PageContext;
  state: CveListState;
  page: CveBrowsePage | undefined;
  views: SavedView[];
  errors: FormErrors;
  save?: { errors: FormErrors; name: string; organization: string } | undefined;
}

/** The CVE list page. */
export function CveListPage({ ctx, state, page, views, errors, save }: CveListPageProps) {
  const { form } = state;
  const exportQuery = listQueryString(form);
  return (
    <Layout ctx={ctx} title="CVEs" section="cves" search={false}>
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
      <FreshnessLine ctx={ctx} />
      <FormProblems errors={errors} fields={[...Object.keys(form), 'name', 'organization']} />
      <form method="get" action="/cves" class="cve-filters" id="cve-filters">
        <QueryField path="/cves" form={form} errors={errors} />
        {/* The builder's script loads when it is first opened (app.js): the list's pages carry no more JS. */}
        <details class="query-builder-toggle" data-island={ctx.assets['query-builder.js'].url} hidden>
          <summary>Build the query from lists</summary>
          <div id="query-builder" class="query-builder" hidden></div>
        </details>
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
          <div class="row list-actions" hidden={page.items.length === 0 || undefined}>
            <a href={`/cves/export.csv${exportQuery ? `?${exportQuery}` : ''}`} download>
              Export CSV
            </a>
            <span class="muted small">(up to 10,000 CVEs)</span>
          </div>
          <Pager path="/cves" query={exportQuery} page={page} />
          {page.items.length > 0 ? <CveTable items={page.items} ctx={ctx} /> : <NoMatchHelp form={form} />}
          {page.items.length > 0 && <Pager path="/cves" query={exportQuery} page={page} />}
        </>
      )}
    </Layout>
  );
}
