/**
 * Automations (docs/notifications.md), the pure part: which alert triggers a recorded change fires for a project,
 * and whether a CVE meets an automation's condition tree. No I/O.
 */
import { PRODUCT_SEPARATOR } from './cpe.ts';
import { CVSS_METRICS, type CvssMetric } from './cve.ts';
import type { ChangeEntry } from './cve-change.ts';
import type { CveFacts } from './cve-facts.ts';
import { TRIAGE_STATUSES } from './triage.ts';

export const ALERT_TRIGGERS = [
  'cve_enters_project',
  'cvss_increased',
  'cvss_decreased',
  'epss_increased',
  'epss_decreased',
  'kev_added',
  'new_vendor',
  'new_product',
  'description_changed',
  'title_changed',
  'new_reference',
  'new_weakness',
  'affected_changed',
  'cve_affects_component',
] as const;
export type AlertTrigger = (typeof ALERT_TRIGGERS)[number];

/** The triggers (the payload's event types) as people read them: pages, the web UI's CSV files. */
export const TRIGGER_LABELS: Record<AlertTrigger, string> = {
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
  cve_affects_component: 'A CVE affects an inventory component',
};

/** A trigger's label, or the trigger itself when it has none (an old or unknown one). */
export const triggerLabel = (t: string): string => TRIGGER_LABELS[t as AlertTrigger] ?? t;

export const CONDITION_TYPES = [
  'cvss_gte',
  'epss_gte',
  'kev_present',
  'vendor_equals',
  'product_equals',
  'cve_newer_than',
  'cve_unassigned',
  'cve_status',
] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

export const ACTION_TYPES = ['send_notification', 'assign_user', 'change_status', 'generate_report'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export const CVSS_VERSIONS = { '2.0': 'cvss20', '3.0': 'cvss30', '3.1': 'cvss31', '4.0': 'cvss40' } as const;
export type CvssVersion = keyof typeof CVSS_VERSIONS;

export interface ConditionLeaf {
  type: ConditionType;
  value?: unknown;
}
export interface ConditionGroup {
  operator: 'AND' | 'OR';
  children: ConditionNode[];
}
export type ConditionNode = ConditionLeaf | ConditionGroup;

export interface AutomationAction {
  type: ActionType;
  value?: unknown;
}

export interface AutomationConfiguration {
  triggers: AlertTrigger[];
  conditions: ConditionGroup;
  actions: AutomationAction[];
}

/** One event of a project: a trigger that fired, with what changed. */
export interface ProjectEventEntry {
  type: AlertTrigger;
  details: unknown;
}

/** What conditions look at: the CVE as it is now, and the project's tracker entry for it. */
export type ConditionSubject = Pick<
  CveFacts,
  'cvss20' | 'cvss30' | 'cvss31' | 'cvss40' | 'epss' | 'kev' | 'vendors' | 'created_at'
> & {
  status: string | null;
  assignee: string | null;
};

function cvssScore(data: unknown): number | undefined {
  if (data && typeof data === 'object' && typeof (data as { score?: unknown }).score === 'number')
    return (data as { score: number }).score;
  return undefined;
}

/**
 * The events a change brings to a project. `enters`: the CVE is new to the project (new to the
 * catalog, or a newly attached vendor key is the first of the project's subscriptions it carries).
 */
export function eventsOfChange(entries: readonly ChangeEntry[], enters: boolean): ProjectEventEntry[] {
  const events: ProjectEventEntry[] = [];
  if (enters) {
    const created = entries.find((e) => e.type === 'created');
    events.push({ type: 'cve_enters_project', details: created ? { created: true } : { created: false } });
  }
  for (const entry of entries) {
    switch (entry.type) {
      case 'description':
        events.push({ type: 'description_changed', details: entry.details });
        break;
      case 'title':
        events.push({ type: 'title_changed', details: entry.details });
        break;
      case 'references': {
        const added = (entry.details as { added?: unknown[] }).added ?? [];
        if (added.length) events.push({ type: 'new_reference', details: { added } });
        break;
      }
      case 'weaknesses': {
        const added = (entry.details as { added?: unknown[] }).added ?? [];
        if (added.length) events.push({ type: 'new_weakness', details: { added } });
        break;
      }
      case 'first_time': {
        // Only for a CVE already in the catalog: a new CVE's first keys are its entry, not news.
        if (entries.some((e) => e.type === 'created')) break;
        const keys = entry.details as string[];
        const vendors = keys.filter((k) => !k.includes(PRODUCT_SEPARATOR));
        const products = keys.filter((k) => k.includes(PRODUCT_SEPARATOR));
        if (vendors.length) events.push({ type: 'new_vendor', details: { added: vendors } });
        if (products.length) events.push({ type: 'new_product', details: { added: products } });
        break;
      }
      case 'metrics':
        events.push(...metricEvents(entry.details as MetricsDiff));
        break;
      case 'affected':
        events.push({ type: 'affected_changed', details: entry.details });
        break;
      case 'created': // the entry itself, above
      case 'state':
      case 'cpes':
      case 'vendors': // through first_time (added keys); removals are no trigger
        break;
    }
  }
  return events;
}

interface MetricsDiff {
  added?: Record<string, unknown>;
  removed?: Record<string, unknown>;
  updated?: Record<string, { old: unknown; new: unknown }>;
}

function metricEvents(diff: MetricsDiff): ProjectEventEntry[] {
  const events: ProjectEventEntry[] = [];
  const up: Record<string, { old: number | null; new: number }> = {};
  const down: Record<string, { old: number; new: number | null }> = {};
  for (const key of CVSS_METRICS as readonly CvssMetric[]) {
    const added = cvssScore(diff.added?.[key]);
    const removed = cvssScore(diff.removed?.[key]);
    const updated = diff.updated?.[key];
    if (added !== undefined) up[key] = { old: null, new: added };
    if (removed !== undefined) down[key] = { old: removed, new: null };
    if (updated) {
      const o = cvssScore(updated.old);
      const n = cvssScore(updated.new);
      if (o !== undefined && n !== undefined && n > o) up[key] = { old: o, new: n };
      if (o !== undefined && n !== undefined && n < o) down[key] = { old: o, new: n };
    }
  }
  if (Object.keys(up).length) events.push({ type: 'cvss_increased', details: up });
  if (Object.keys(down).length) events.push({ type: 'cvss_decreased', details: down });
  if (diff.added && 'kev' in diff.added) events.push({ type: 'kev_added', details: diff.added.kev });
  return events;
}

/** The events of an EPSS move (`old` null: the first score). */
export function eventsOfEpssMove(oldScore: number | null, newScore: number): ProjectEventEntry[] {
  const details = { old: oldScore, new: newScore };
  if (oldScore === null || newScore > oldScore) return [{ type: 'epss_increased', details }];
  if (newScore < oldScore) return [{ type: 'epss_decreased', details }];
  return [];
}

function isGroup(node: ConditionNode): node is ConditionGroup {
  return 'operator' in node;
}

const DAY_MS = 86_400_000;

function leafHolds(leaf: ConditionLeaf, subject: ConditionSubject, now: Date): boolean {
  const value = leaf.value;
  switch (leaf.type) {
    case 'cvss_gte': {
      const { version, value: min } = value as { version: CvssVersion; value: number };
      const score = subject[CVSS_VERSIONS[version]];
      return score !== null && score >= min;
    }
    case 'epss_gte':
      return subject.epss !== null && subject.epss >= (value as number);
    case 'kev_present':
      return subject.kev === (value === undefined || value === null ? true : value === true);
    case 'vendor_equals':
      return subject.vendors.includes(value as string);
    case 'product_equals': {
      const product = value as string;
      if (product.includes(PRODUCT_SEPARATOR)) return subject.vendors.includes(product);
      return subject.vendors.some((k) => k.endsWith(`${PRODUCT_SEPARATOR}${product}`));
    }
    case 'cve_newer_than':
      return now.getTime() - subject.created_at.getTime() <= (value as number) * DAY_MS;
    case 'cve_unassigned':
      return subject.assignee === null;
    case 'cve_status':
      return value === 'no_status' ? subject.status === null : subject.status === value;
  }
}

/** Whether `subject` meets the tree: an empty AND holds for everything, an empty OR for nothing. */
export function conditionsHold(node: ConditionNode, subject: ConditionSubject, now: Date): boolean {
  if (!isGroup(node)) return leafHolds(node, subject, now);
  if (node.operator === 'AND') return node.children.every((c) => conditionsHold(c, subject, now));
  return node.children.some((c) => conditionsHold(c, subject, now));
}

const MAX_DEPTH = 5;
const MAX_LEAVES = 50;

/**
 * Problems with a condition tree beyond its JSON schema (value types per leaf type, depth, size),
 * as messages for `details.configuration`; empty when it is valid.
 */
export function conditionProblems(root: ConditionGroup): string[] {
  const problems: string[] = [];
  let leaves = 0;
  const walk = (node: ConditionNode, depth: number, at: string) => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) {
      problems.push(`${at}: must be a condition {type, value} or a group {operator, children}`);
      return;
    }
    if (depth > MAX_DEPTH) {
      problems.push(`${at}: conditions nest at most ${MAX_DEPTH} levels deep`);
      return;
    }
    if (isGroup(node)) {
      if (node.operator !== 'AND' && node.operator !== 'OR')
        problems.push(`${at}: operator must be AND or OR`);
      if (!Array.isArray(node.children)) problems.push(`${at}: children must be a list`);
      else node.children.forEach((c, i) => walk(c, depth + 1, `${at}.children[${i}]`));
      return;
    }
    if (!(CONDITION_TYPES as readonly string[]).includes(node.type)) {
      problems.push(`${at}: unknown condition type ${JSON.stringify(node.type)}`);
      return;
    }
    leaves++;
    const v = node.value;
    const bad = (what: string) => problems.push(`${at}: ${node.type} needs ${what}`);
    switch (node.type) {
      case 'cvss_gte': {
        const o = v as { version?: unknown; value?: unknown } | null;
        if (
          !o ||
          typeof o !== 'object' ||
          typeof o.version !== 'string' ||
          !(o.version in CVSS_VERSIONS) ||
          typeof o.value !== 'number' ||
          o.value < 0 ||
          o.value > 10
        )
          bad('a value {version: "2.0"|"3.0"|"3.1"|"4.0", value: 0–10}');
        break;
      }
      case 'epss_gte':
        if (typeof v !== 'number' || v < 0 || v > 1) bad('a value from 0 to 1');
        break;
      case 'kev_present':
        if (v !== undefined && v !== null && typeof v !== 'boolean') bad('a boolean value (or none)');
        break;
      case 'vendor_equals':
      case 'product_equals':
        if (typeof v !== 'string' || !v.trim()) bad('a name');
        break;
      case 'cve_newer_than':
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 36_500) bad('a number of days');
        break;
      case 'cve_unassigned':
        break;
      case 'cve_status':
        if (
          typeof v !== 'string' ||
          (v !== 'no_status' && !(TRIAGE_STATUSES as readonly string[]).includes(v))
        )
          bad(`one of no_status, ${TRIAGE_STATUSES.join(', ')}`);
        break;
    }
  };
  walk(root, 1, 'conditions');
  if (leaves > MAX_LEAVES) problems.push(`conditions: at most ${MAX_LEAVES} conditions`);
  return problems;
}

/**
 * Problems with the shape of a configuration that did not come through API v2's JSON schema (the web
 * UI's JSON view): an object with `triggers` (known names), `conditions` (a group) and `actions`
 * (known types); the condition tree itself is checked by `conditionProblems`. Empty when the shape is right.
 */
export function configurationShapeProblems(config: unknown): string[] {
  if (!config || typeof config !== 'object' || Array.isArray(config))
    return ['must be an object {"triggers": [...], "conditions": {...}, "actions": [...]}'];
  const problems: string[] = [];
  const c = config as Record<string, unknown>;
  for (const key of Object.keys(c))
    if (!['triggers', 'conditions', 'actions'].includes(key))
      problems.push(`${key}: unknown; a configuration has triggers, conditions and actions only`);
  if (c.triggers !== undefined) {
    if (!Array.isArray(c.triggers)) problems.push('triggers: must be a list of trigger names');
    else
      for (const t of c.triggers)
        if (!(ALERT_TRIGGERS as readonly unknown[]).includes(t))
          problems.push(`triggers: unknown trigger ${JSON.stringify(t)}`);
  }
  if (c.conditions !== undefined) {
    const g = c.conditions as Record<string, unknown> | null;
    if (!g || typeof g !== 'object' || Array.isArray(g) || !('operator' in g))
      problems.push('conditions: must be a group {"operator": "AND" or "OR", "children": [...]}');
  }
  if (!Array.isArray(c.actions)) problems.push('actions: must be a list of actions {type, value}');
  else
    c.actions.forEach((a: unknown, i) => {
      const type = (a as { type?: unknown } | null)?.type;
      if (!a || typeof a !== 'object' || !(ACTION_TYPES as readonly unknown[]).includes(type))
        problems.push(`actions[${i}]: type must be one of ${ACTION_TYPES.join(', ')}`);
    });
  return problems;
}

/** Whether an alert automation with `triggers` fires on an event of these types (one of them is a trigger). */
export function triggersFire(triggers: ReadonlySet<string>, types: readonly string[]): boolean {
  return types.some((t) => triggers.has(t));
}

/** One run of an automation: the window it looked at, what it matched and each action's result. */
export interface ExecutionRow {
  id: string;
  automation_id: string;
  executed_at: Date;
  window_start: Date;
  window_end: Date;
  matched_cves_count: number;
  results: unknown[];
  report_id: string | null;
  /** The matched CVEs as they were (automation-execution.ts `ExecutionCve`); null before they were kept. */
  cves: unknown[] | null;
}

export type AutomationTrigger = 'alert' | 'report';

/** How often a report automation runs. */
export const REPORT_FREQUENCIES = ['daily', 'weekly'] as const;
export type ReportFrequency = (typeof REPORT_FREQUENCIES)[number];

/** An automation as the API shows it: as stored, with when it last ran. */
export interface AutomationView extends AutomationRow {
  last_execution_at: Date | null;
}

/** An execution as a list of automations shows it: without the CVEs it matched (they can be many). */
export type ExecutionSummary = Omit<ExecutionRow, 'cves'>;

/** An automation with its latest execution (null: it never ran), as the list of automations shows it. */
export interface AutomationWithLatest extends AutomationView {
  latest_execution: ExecutionSummary | null;
}

/** An automation of a project as stored. */
export interface AutomationRow {
  id: string;
  project_id: string;
  name: string;
  is_enabled: boolean;
  trigger_type: AutomationTrigger;
  frequency: ReportFrequency | null;
  schedule_time: string | null;
  schedule_timezone: string | null;
  schedule_weekday: number | null;
  configuration: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}
