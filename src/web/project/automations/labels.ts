/**
 * What the automations pages call things: the notices after a form, the names people read for
 * conditions, actions and triggers, and the automations' URLs.
 */
import type { ACTION_TYPES, ALERT_TRIGGERS, CONDITION_TYPES } from '../../../domain/automation.ts';
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
  kev_present: 'In KEV (yes or no)',
  vendor_equals: 'Vendor is',
  product_equals: 'Product is',
  cve_newer_than: 'Published within (days)',
  cve_unassigned: 'Not assigned',
  cve_status: 'Status is',
};

/** The actions a person reads. */
export const ACTION_LABELS: Record<(typeof ACTION_TYPES)[number], string> = {
  send_notification: 'Send a notification',
  assign_user: 'Assign to a member (email)',
  change_status: 'Set the status',
  generate_report: 'Generate a report',
};

/** The triggers a person reads. */
export const TRIGGER_LABELS: Record<(typeof ALERT_TRIGGERS)[number], string> = {
  cve_enters_project: 'A CVE enters the project',
  cvss_increased: 'CVSS increased',
  cvss_decreased: 'CVSS decreased',
  epss_increased: 'EPSS increased',
  epss_decreased: 'EPSS decreased',
  kev_added: 'Added to KEV',
  new_vendor: 'New vendor',
  new_product: 'New product',
  description_changed: 'Description changed',
  title_changed: 'Title changed',
  new_reference: 'New reference',
  new_weakness: 'New weakness',
  affected_changed: 'Affected versions changed',
};

/** A trigger's label, or the trigger itself when it has none (an old or unknown one). */
export const triggerLabel = (t: string): string => TRIGGER_LABELS[t as keyof typeof TRIGGER_LABELS] ?? t;

/** The project's automations list. */
export const automationsUrl = (a: ProjectAccess): string =>
  projectPath(a.membership.name, a.project.name, 'automations');

/** An automation's page, or one below it (`edit`, `executions/<id>`…). */
export const automationUrl = (a: ProjectAccess, name: string, rest = ''): string =>
  `${automationsUrl(a)}/${encodeURIComponent(name)}${rest ? `/${rest}` : ''}`;
