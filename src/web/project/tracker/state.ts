/**
 * The tracker's state, all of it in the URL: the catalog list's filters, order and size
 * (shared/cve-list/query.ts) plus the triage filters (status, assignee, the user's own tag). Read
 * from the query string with a message for each bad value, written back into links and forms, and
 * turned into the project CVE service's list query.
 */
import { NO_STATUS, TRIAGE_STATUSES, type TriageStatus } from '../../../domain/triage.ts';
import type { ProjectCveQuery } from '../../../services/project-cves.service.ts';
import { type FormErrors, queryText } from '../../kit/input.ts';
import {
  listCountKey,
  listQueryString,
  readCveListState,
  type CveListState,
} from '../../shared/cve-list/query.ts';

/** The value of the assignee filter for CVEs nobody is assigned to. */
export const UNASSIGNED = 'none';

/** A member who may be assigned CVEs. */
export interface Assignee {
  email: string;
  username: string;
}

/** The tracker's state from the query string: the catalog list's and the triage filters. */
export interface TrackerState {
  list: CveListState;
  status: string;
  assignee: string;
  tag: string;
  errors: FormErrors;
}

/** The tracker's state from a query; `errors` names each bad field (the page answers 400). */
export function readTrackerState(
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
export function trackerQueryString(
  state: Pick<TrackerState, 'list' | 'status' | 'assignee' | 'tag'>,
): string {
  const params = new URLSearchParams(listQueryString(state.list.form));
  for (const name of ['status', 'assignee', 'tag'] as const) if (state[name]) params.set(name, state[name]);
  return params.toString();
}

/** The project CVE service's list query for a valid state (`tag` is the user's own). */
export function listQuery(state: TrackerState, organizationId: string, userId: string): ProjectCveQuery {
  const { list } = state;
  return {
    filters: list.filters,
    q: list.form.q || undefined,
    ordering: list.ordering,
    status: (state.status || undefined) as TriageStatus | typeof NO_STATUS | undefined,
    assignee: state.assignee === UNASSIGNED ? null : state.assignee || undefined,
    tag: state.tag ? { userId, tag: state.tag } : undefined,
    countKey: listCountKey(list.form, organizationId),
  };
}

/** The tracker's filter sent back by a form (the query string it was shown with). */
export const filterOf = (value: string): Record<string, unknown> =>
  Object.fromEntries(new URLSearchParams(value.slice(0, 4000)));

/** The query string of a filter sent back by a form, keeping only the fields the tracker knows. */
export function cleanFilter(filter: string): string {
  const state = readTrackerState(filterOf(filter), [], []);
  return trackerQueryString(state);
}
