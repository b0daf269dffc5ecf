/**
 * What the automations pages call things: the notices after a form, the names people read for
 * conditions, actions and triggers, and the automations' URLs.
 */
import type { ACTION_TYPES, CONDITION_TYPES } from '../../../domain/automation.ts';
import { NO_STATUS, statusLabel, TRIAGE_STATUSES } from '../../../domain/triage.ts';
import type { ProjectAccess } from '../../kit/access.ts';
import { doneText } from '../../kit/input.ts';
import { projectPath } from '../../kit/paths.ts';

const DONE: Record<string, string> = {
  created: 'The automation was created.',
  saved: 'The automation was saved.',
  enabled: 'The automation was enabled.',
  disabled: 'The automation was disabled: it runs no more until it is enabled again.',
  deleted: 'The automation and its executions were deleted (its reports stay).',
  ran: 'The report automation ran now: here is its execution.',
};

/** The notice of `?done=<code>` on an automations page. */
export const doneOf = (query: unknown) => doneText(DONE, query);

/** The conditions a person reads. */
export const CONDITION_LABELS: Record<(typeof CONDITION_TYPES)[number], string> = {
  cvss_gte: 'CVSS at least',
  epss_gte: 'EPSS at least (0 to 1)',
  kev_present: 'In KEV',
  vendor_equals: 'Vendor is',
  product_equals: 'Product is',
  cve_newer_than: 'Published within (days)',
  cve_unassigned: 'Not assigned',
  cve_status: 'Status is',
};

/**
 * How a builder row takes its value: typed (`text`), picked from a list (KEV yes or no, a status, a
 * notification, a member), or none at all.
 */
export type ValueKind = 'text' | 'kev' | 'status' | 'notification' | 'member' | 'none';

/** The conditions whose value is not typed (the island, assets/automation-builder.js, knows them too). */
export const LEAF_VALUE_KINDS: Partial<Record<string, ValueKind>> = {
  kev_present: 'kev',
  cve_status: 'status',
  cve_unassigned: 'none',
};

/** The actions whose value is not typed (the island, assets/automation-builder.js, knows them too). */
export const ACTION_VALUE_KINDS: Partial<Record<string, ValueKind>> = {
  send_notification: 'notification',
  assign_user: 'member',
  change_status: 'status',
  generate_report: 'none',
};

/** The statuses to pick, in words ("No status" first: a condition may ask for it). */
export const STATUS_CHOICES: { value: string; label: string }[] = [NO_STATUS, ...TRIAGE_STATUSES].map(
  (s) => ({
    value: s,
    label: statusLabel(s),
  }),
);

/** The actions a person reads. */
export const ACTION_LABELS: Record<(typeof ACTION_TYPES)[number], string> = {
  send_notification: 'Send a notification',
  assign_user: 'Assign to a member',
  change_status: 'Set the status',
  generate_report: 'Generate a report',
};

export { TRIGGER_LABELS, triggerLabel } from '../../../domain/automation.ts';

/** The project's automations list. */
export const automationsUrl = (a: ProjectAccess): string =>
  projectPath(a.membership.name, a.project.name, 'automations');

/** An automation's page, or one below it (`edit`, `executions/<id>`…). */
export const automationUrl = (a: ProjectAccess, name: string, rest = ''): string =>
  `${automationsUrl(a)}/${encodeURIComponent(name)}${rest ? `/${rest}` : ''}`;

const TYPE_LABELS: Record<string, string> = { ...CONDITION_LABELS, ...ACTION_LABELS };

/** What the service's sentences ask for, as the builder's fields ask it (the version is its own field). */
const WANTS: [string, string][] = [
  ['a value {version: "2.0"|"3.0"|"3.1"|"4.0", value: 0–10}', 'a score from 0 to 10'],
  ['a boolean value (or none)', 'yes or no'],
];

const STATUS_KEY = new RegExp(`\\b(${[NO_STATUS, ...TRIAGE_STATUSES].join('|')})\\b`, 'g');

/**
 * A service sentence about a condition or an action, as the builder shows it beside the row: the
 * type by its label, statuses in words (`change_status needs one of to_evaluate, …` → `"Set the
 * status" needs one of To evaluate, …`). API v2 and the JSON view keep the service's own sentence.
 */
export function messageInWords(message: string): string {
  const m = /^(\w+) needs (.*)$/s.exec(message);
  const label = m ? TYPE_LABELS[m[1]!] : undefined;
  if (!m || label === undefined) return message;
  let wants = m[2]!;
  for (const [key, words] of WANTS) wants = wants.replace(key, words);
  return `"${label}" needs ${wants.replace(STATUS_KEY, (s) => statusLabel(s))}`;
}
