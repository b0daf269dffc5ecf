/**
 * The tracker's filter bar: one line at a desktop width (the query, the triage filters, sort and page
 * size, Apply), with the catalog's filters and the query language's help behind one disclosure
 * (`<details>`, so without JavaScript too), open by itself when one of those filters is set.
 */
import { QUERY_FIELDS } from '../../../domain/query-language.ts';
import { NO_STATUS } from '../../../domain/triage.ts';
import { SelectField } from '../../kit/fields.tsx';
import { FILTER_FIELDS } from '../../shared/cve-list/query.ts';
import {
  CatalogFilterFields,
  OrderAndSizeFields,
  QUERY_EXAMPLES,
  QueryError,
  QueryInput,
} from '../../shared/cve-list/view.tsx';
import { STATUS_OPTIONS } from './row.view.tsx';
import { UNASSIGNED, type Assignee, type TrackerState } from './state.ts';

/** The catalog filters folded under "More filters" (the query box stays in view). */
const CATALOG_FIELDS = FILTER_FIELDS.filter((name) => name !== 'q');

/** The GET form of the tracker's filters (`id="cve-filters"`, as the catalog list's). */
export function TrackerFilters({
  base,
  state,
  assignees,
  tagNames,
}: {
  base: string;
  state: TrackerState;
  assignees: Assignee[];
  tagNames: string[];
}) {
  const { form } = state.list;
  const errors = state.errors;
  const qErrors = errors.q ?? [];
  // The catalog's filters fold away unless one is set (or refused).
  const catalogFiltered = CATALOG_FIELDS.some((name) => form[name] || errors[name]);
  return (
    <form method="get" action={base} class="cve-filters tracker-filters" id="cve-filters">
      <div class="filter-bar">
        <div class={qErrors.length ? 'field query-field has-error' : 'field query-field'}>
          <label for="f-q">Query</label>
          <QueryInput form={form} errors={errors} placeholder="e.g. kev=true AND cvss31>=9" />
        </div>
        <SelectField
          name="status"
          label="Status"
          value={state.status}
          options={[{ value: '', label: 'Any' }, { value: NO_STATUS, label: 'No status' }, ...STATUS_OPTIONS]}
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
        <div class="filter-buttons">
          <button type="submit" class="btn-primary">
            Apply
          </button>
          <a href={base}>Clear</a>
        </div>
        {/* Open, the disclosure takes a line of its own under the bar (app.css). */}
        <details class="more-filters" open={catalogFiltered ? true : undefined}>
          <summary title="Text, vendor, product, weakness, CVSS, KEV, EPSS, dates; the query language">
            More filters
          </summary>
          <div class="filters">
            <CatalogFilterFields form={form} errors={errors} />
          </div>
          <div class="hint query-help" id="f-q-hint">
            Query: terms <code>field=value</code> joined by AND / OR, words search the text. Fields:{' '}
            {QUERY_FIELDS.join(', ')}. Examples:{' '}
            {QUERY_EXAMPLES.map((e) => (
              <a class="chip" href={`${base}?q=${encodeURIComponent(e.q)}`} data-q={e.q}>
                {e.label}
              </a>
            ))}
          </div>
        </details>
      </div>
      {qErrors.length > 0 && <QueryError q={form.q} messages={qErrors} />}
    </form>
  );
}
