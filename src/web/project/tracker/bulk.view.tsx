/** The tracker's bulk edit form: the CVEs selected or all matching the filter; status, assignee, tags. */
import type { CveBrowsePage } from '../../../services/cve-browse.ts';
import type { PageContext } from '../../kit/context.ts';
import { Field, SelectField } from '../../kit/fields.tsx';
import { formatCount } from '../../kit/format.ts';
import { Csrf } from '../../kit/layout.tsx';
import { CLEAR, type BulkValues } from './bulk.form.ts';
import { STATUS_OPTIONS } from './row.view.tsx';
import type { Assignee } from './state.ts';

/** The bulk edit bar under the list (the row checkboxes belong to its form through `form="bulk"`). */
export function BulkEditForm({
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
  const all = page.capped ? `${formatCount(page.count)}+` : formatCount(page.count);
  // Open when the server shows a selection or a refusal; otherwise tracker.js shows and opens the bar
  // when a row is selected (`data-idle` hides it only once the script runs: without JavaScript the
  // folded bar stays in view, one click from the form).
  const shown = values.checked.length > 0 || Object.keys(errors).length > 0;
  return (
    <details class="bulk-edit" id="bulk-bar" open={shown || undefined} data-idle={shown ? undefined : ''}>
      <summary>
        Bulk edit: <span data-selected-count>{values.checked.length}</span> selected
      </summary>
      <BulkFields ctx={ctx} base={base} query={query} all={all} assignees={assignees} values={values} />
    </details>
  );
}

function BulkFields({
  ctx,
  base,
  query,
  all,
  assignees,
  values,
}: {
  ctx: PageContext;
  base: string;
  query: string;
  all: string;
  assignees: Assignee[];
  values: BulkValues;
}) {
  const errors = values.errors;
  const selectionErrors = errors.selection ?? [];
  return (
    <form id="bulk" method="post" action={`${base}/bulk`}>
      <Csrf ctx={ctx} />
      <input type="hidden" name="filter" value={query} />
      <fieldset class={selectionErrors.length ? 'bulk-scope has-error' : 'bulk-scope'}>
        <legend>Which CVEs</legend>
        <label>
          <input type="radio" name="scope" value="selected" checked={values.scope !== 'all'} /> The CVEs
          selected above
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
