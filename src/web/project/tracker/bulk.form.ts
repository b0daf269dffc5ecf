/**
 * The tracker's bulk edit form: what it asks for (a status, an assignee, tags to add and to remove)
 * and of which CVEs (those checked, or every CVE matching the page's filter), read into the tracker
 * service's bulk edit; and the service's refusals placed beside the form's own fields.
 */
import { TRIAGE_STATUSES, type TriageStatus } from '../../../domain/triage.ts';
import type { BulkEdit, BulkSelection } from '../../../services/tracker.service.ts';
import type { ProjectCveQuery } from '../../../services/project-cves.service.ts';
import { field, fields, type FormErrors } from '../../kit/input.ts';

/** The bulk edit's value that clears a status or an assignee ('' leaves them as they are). */
export const CLEAR = 'none';

/** The most CVE ids a form's selection is read for (the service refuses more than it moves). */
const MAX_CHECKED = 10_000;

/** The form as typed (to show it again), with its errors. */
export interface BulkValues {
  scope: 'selected' | 'all';
  set_status: string;
  set_assignee: string;
  add_tags: string;
  remove_tags: string;
  checked: string[];
  errors: FormErrors;
}

/** The form as first shown: nothing chosen, the selected CVEs. */
export const NO_BULK: BulkValues = {
  scope: 'selected',
  set_status: '',
  set_assignee: '',
  add_tags: '',
  remove_tags: '',
  checked: [],
  errors: {},
};

/** A bulk edit form read: its values, the page's filter it was sent from, and the edit asked for. */
export interface BulkForm {
  values: BulkValues;
  /** The tracker's query string the form was shown with ("every CVE matching this filter"). */
  filter: string;
  edit: BulkEdit;
}

/** Tags typed as a list: separated by commas or spaces. */
export const tagList = (value: string): string[] => value.split(/[\s,]+/).filter(Boolean);

/**
 * The bulk edit of a form body. A status not offered is refused under `set_status` (the form's own
 * errors, in `values.errors`); the rest (tag names, an assignee who is not a member, nothing chosen)
 * is the service's to refuse.
 */
export function readBulkForm(body: unknown): BulkForm {
  const values: BulkValues = {
    scope: field(body, 'scope') === 'all' ? 'all' : 'selected',
    set_status: field(body, 'set_status'),
    set_assignee: field(body, 'set_assignee').trim(),
    add_tags: field(body, 'add_tags'),
    remove_tags: field(body, 'remove_tags'),
    checked: fields(body, 'cve').slice(0, MAX_CHECKED),
    errors: {},
  };
  const status = values.set_status;
  if (status && status !== CLEAR && !(TRIAGE_STATUSES as readonly string[]).includes(status))
    values.errors.set_status = ['Choose one of the statuses offered.'];
  const edit: BulkEdit = {
    status: status === CLEAR ? null : ((status || undefined) as TriageStatus | undefined),
    assignee: values.set_assignee === CLEAR ? null : values.set_assignee || undefined,
    addTags: tagList(values.add_tags),
    removeTags: tagList(values.remove_tags),
  };
  return { values, filter: field(body, 'filter'), edit };
}

/**
 * Which CVEs the edit changes: those checked, or with scope "all" every CVE matching the page's
 * filter (`matching`, undefined when that filter is not valid: then refused under `selection`).
 */
export function bulkSelection(
  values: BulkValues,
  matching: ProjectCveQuery | undefined,
): { selection: BulkSelection } | { errors: FormErrors } {
  if (values.scope !== 'all') return { selection: { cveIds: values.checked } };
  if (!matching)
    return { errors: { selection: ['The filter of this page is not valid: correct it, then edit again.'] } };
  return { selection: { matching } };
}

/** The service's field names in the form's: the CVE ids are the selection, a query's error the form's. */
const FORM_FIELD: Readonly<Record<string, string>> = {
  cve_ids: 'selection',
  assignee: 'set_assignee',
  q: '_form',
};

/** A refused bulk edit's messages, each under the form's field it is about. */
export function bulkErrorsOf(found: FormErrors): FormErrors {
  const errors: FormErrors = {};
  for (const [key, messages] of Object.entries(found)) {
    const name = Object.hasOwn(FORM_FIELD, key) ? FORM_FIELD[key]! : key;
    errors[name] = [...(Object.hasOwn(errors, name) ? errors[name]! : []), ...messages];
  }
  return errors;
}
