/**
 * The automation builder's form, as data: what the page's fields hold (strings, as typed), read from
 * a posted body or from a stored automation, and turned into the input API v2 takes (AutomationInput),
 * which the service validates. The condition tree travels in field names: `cond.op` is the root
 * group's operator, `cond.0.type` / `cond.0.value` / `cond.0.version` its first condition, `cond.1.op`
 * a nested group at its second place, `cond.1.0.type` that group's first condition; actions are
 * `act.<i>.type` / `act.<i>.value`. A plain form (no script) posts a flat list; the builder island
 * adds and removes rows and groups and numbers the names again.
 *
 * A POST of the builder or of the JSON view is read here too (`readBuilderPost`): which view posted,
 * which button, the JSON parsed, and whether the page is only shown again (switching views) or the
 * service is asked (save, dry run).
 */
import {
  type AlertTrigger,
  type AutomationRow,
  type ConditionGroup,
  type ConditionNode,
  type ConditionType,
} from '../../../domain/automation.ts';
import { WEEKDAYS } from '../../../domain/automation-execution.ts';
import { catalogName, nameLabel, vendorKeyLabel, vendorKeyOfLabel } from '../../../domain/cpe.ts';
import type { AutomationInput, DryRun } from '../../../services/automation.service.ts';
import { field, type FormErrors } from '../../kit/input.ts';

/** A condition row, as typed. */
export interface LeafForm {
  kind: 'leaf';
  type: string;
  value: string;
  version: string;
}
/** A group of conditions, as typed. */
export interface GroupForm {
  kind: 'group';
  operator: string;
  children: (LeafForm | GroupForm)[];
}
/** An action row, as typed. */
export interface ActionForm {
  type: string;
  value: string;
}

/** The builder's fields. */
export interface AutomationForm {
  name: string;
  is_enabled: boolean;
  trigger_type: string;
  triggers: string[];
  frequency: string;
  schedule_time: string;
  schedule_timezone: string;
  schedule_weekday: string;
  conditions: GroupForm;
  actions: ActionForm[];
}

/** The fields of a new automation. */
export const EMPTY_FORM: AutomationForm = {
  name: '',
  is_enabled: true,
  trigger_type: 'alert',
  triggers: ['cve_enters_project'],
  frequency: 'weekly',
  schedule_time: '08:00',
  schedule_timezone: 'UTC',
  schedule_weekday: 'monday',
  conditions: { kind: 'group', operator: 'AND', children: [] },
  actions: [],
};

const MAX_DEPTH = 6;
const MAX_INDEX = 100;

type Body = Record<string, unknown> | undefined;

const str = (body: Body, key: string) => {
  const v = body?.[key];
  return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : '';
};

const strs = (body: Body, key: string): string[] => {
  const v = body?.[key];
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
};

/** The builder's fields of a posted body (blank condition and action rows dropped). */
export function formOfBody(body: unknown): AutomationForm {
  const b = body as Body;
  return {
    ...topFieldsOfBody(b),
    triggers: strs(b, 'triggers'),
    conditions: conditionsOfBody(b),
    actions: actionsOfBody(b),
  };
}

/** The fields above the builder (name, kind, schedule), which the JSON view shares. */
export function topFieldsOfBody(b: Body): Omit<AutomationForm, 'triggers' | 'conditions' | 'actions'> {
  return {
    name: str(b, 'name').trim(),
    is_enabled: str(b, 'is_enabled') === 'on' || str(b, 'is_enabled') === 'true',
    trigger_type: str(b, 'trigger_type'),
    frequency: str(b, 'frequency'),
    schedule_time: str(b, 'schedule_time').trim(),
    schedule_timezone: str(b, 'schedule_timezone').trim(),
    schedule_weekday: str(b, 'schedule_weekday'),
  };
}

function conditionsOfBody(b: Body): GroupForm {
  const nodes = new Map<string, { op?: string; type?: string; value?: string; version?: string }>();
  for (const key of Object.keys(b ?? {})) {
    const m = /^cond((?:\.\d{1,3})*)\.(op|type|value|version)$/.exec(key);
    if (!m) continue;
    const path = m[1]!;
    const parts = path.split('.').slice(1).map(Number);
    if (parts.length > MAX_DEPTH || parts.some((n) => n >= MAX_INDEX)) continue;
    const node = nodes.get(path) ?? {};
    node[m[2] as 'op'] = str(b, key);
    nodes.set(path, node);
  }
  const build = (path: string): GroupForm => {
    const childPaths = [...nodes.keys()]
      .filter((p) => p.startsWith(`${path}.`) && !p.slice(path.length + 1).includes('.'))
      .sort((x, y) => Number(x.slice(path.length + 1)) - Number(y.slice(path.length + 1)));
    const children: (LeafForm | GroupForm)[] = [];
    for (const p of childPaths) {
      const n = nodes.get(p)!;
      if (n.op !== undefined) children.push(build(p));
      else if (n.type || n.value?.trim())
        children.push({
          kind: 'leaf',
          type: n.type ?? '',
          value: (n.value ?? '').trim(),
          version: n.version ?? '3.1',
        });
    }
    return { kind: 'group', operator: nodes.get(path)?.op ?? 'AND', children };
  };
  return build('');
}

function actionsOfBody(b: Body): ActionForm[] {
  const rows = new Map<number, ActionForm>();
  for (const key of Object.keys(b ?? {})) {
    const m = /^act\.(\d{1,2})\.(type|value)$/.exec(key);
    if (!m) continue;
    const i = Number(m[1]);
    const row = rows.get(i) ?? { type: '', value: '' };
    row[m[2] as 'type'] = str(b, key).trim();
    rows.set(i, row);
  }
  return [...rows.entries()]
    .sort((x, y) => x[0] - y[0])
    .map(([, r]) => r)
    .filter((r) => r.type);
}

/** What the builder page shows: the fields, the JSON view's text, messages, a dry run's CVEs. */
export interface BuilderState {
  form: AutomationForm;
  /** Set for the JSON view: the textarea's text. */
  json?: string | undefined;
  errors?: FormErrors | undefined;
  dryRun?: DryRun | undefined;
}

/**
 * What a POST of the builder asks: to show the page again (`show`, with its status: another view,
 * or JSON that cannot be read or shown in the builder), or to `save` or `dry-run` the service's
 * `input` (`state` is the page to show again if the service refuses it).
 */
export type BuilderPost =
  | { show: BuilderState; status: 200 | 400 }
  | { intent: 'save' | 'dry-run'; state: BuilderState; input: AutomationInput };

/**
 * Reads a POST of the builder (`mode=builder`) or of the JSON view (`mode=json`). The buttons
 * (`intent`): save (also when none is named), dry-run, json (to the JSON view), builder (back to
 * the builder, only when the JSON has the shape the builder shows).
 */
export function readBuilderPost(body: unknown): BuilderPost {
  const intent = field(body, 'intent') || 'save';
  const submit = intent === 'dry-run' ? 'dry-run' : 'save';
  if (field(body, 'mode') !== 'json') {
    const form = formOfBody(body);
    const configuration = configurationOf(form);
    if (intent === 'json') return { show: { form, json: prettyJson(configuration) }, status: 200 };
    if (intent === 'builder') return { show: { form }, status: 200 };
    return { intent: submit, state: { form }, input: inputOf(form, configuration) };
  }
  const json = field(body, 'configuration');
  let form: AutomationForm = { ...EMPTY_FORM, ...topFieldsOfBody(body as Body), triggers: [], actions: [] };
  let configuration: AutomationInput['configuration'];
  try {
    configuration = JSON.parse(json) as AutomationInput['configuration'];
  } catch (err) {
    return {
      show: { form, json, errors: { json: [`This is not JSON: ${(err as Error).message}`] } },
      status: 400,
    };
  }
  const builder = builderOfConfiguration(configuration);
  if (builder) form = { ...form, ...builder };
  if (intent === 'builder') {
    if (!builder) return { show: { form, json, errors: { json: [NOT_FOR_THE_BUILDER] } }, status: 400 };
    return { show: { form }, status: 200 };
  }
  // The service validates what was parsed, whatever its shape (it names every problem).
  return { intent: submit, state: { form, json }, input: inputOf(form, configuration) };
}

const NOT_FOR_THE_BUILDER =
  'The builder shows a configuration {"triggers": [...], "conditions": {...}, "actions": [...]}: fix it here first.';

/** Whether `?view=json` asks for the JSON view. */
export const jsonViewAsked = (query: unknown): boolean =>
  (query as { view?: unknown } | undefined)?.view === 'json';

/** A number when the text is one (else the text, for the service to say what it needs). */
const num = (text: string): unknown => (/^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text);

function leafOf(leaf: LeafForm): ConditionNode {
  switch (leaf.type) {
    case 'cvss_gte':
      return { type: leaf.type, value: { version: leaf.version, value: num(leaf.value) } };
    case 'epss_gte':
    case 'cve_newer_than':
      return { type: leaf.type, value: num(leaf.value) };
    case 'kev_present': {
      const v = leaf.value.toLowerCase();
      if (v === '' || v === 'yes' || v === 'true') return { type: leaf.type };
      return { type: leaf.type, value: v === 'no' || v === 'false' ? false : leaf.value };
    }
    case 'cve_unassigned':
      return { type: leaf.type };
    // Vendors and products as people write them (`Microsoft / Exchange Server`), read as keys.
    case 'vendor_equals':
      return { type: leaf.type, value: leaf.value.includes('$') ? leaf.value : catalogName(leaf.value) };
    case 'product_equals':
      return { type: leaf.type, value: vendorKeyOfLabel(leaf.value) };
    default:
      return { type: leaf.type as ConditionType, value: leaf.value };
  }
}

/** The condition tree the builder's groups and rows describe. */
export function conditionsOf(group: GroupForm): ConditionGroup {
  return {
    operator: group.operator as 'AND',
    children: group.children.map((c) => (c.kind === 'group' ? conditionsOf(c) : leafOf(c))),
  };
}

/** The configuration the form describes (`{triggers, conditions, actions}` as API v2 takes it). */
export function configurationOf(form: AutomationForm): AutomationInput['configuration'] {
  return {
    ...(form.trigger_type === 'report' ? {} : { triggers: form.triggers as AlertTrigger[] }),
    conditions: conditionsOf(form.conditions),
    actions: form.actions.map((a) =>
      a.type === 'generate_report'
        ? { type: a.type }
        : { type: a.type as 'send_notification', value: a.value },
    ),
  };
}

/** The service's input for the form's top fields and a configuration. */
export function inputOf(
  form: Omit<AutomationForm, 'triggers' | 'conditions' | 'actions'>,
  configuration: AutomationInput['configuration'],
): AutomationInput {
  const report = form.trigger_type === 'report';
  const opt = (v: string) => (report && v ? v : undefined);
  return {
    name: form.name,
    is_enabled: form.is_enabled,
    trigger_type: form.trigger_type as 'alert',
    frequency: opt(form.frequency) as 'weekly' | undefined,
    schedule_time: opt(form.schedule_time),
    schedule_timezone: opt(form.schedule_timezone),
    schedule_weekday:
      report && form.frequency === 'weekly' && form.schedule_weekday
        ? (form.schedule_weekday as 'monday')
        : undefined,
    configuration,
  };
}

/** A configuration (from JSON or stored) as the builder's fields; undefined when its shape is not one. */
export function builderOfConfiguration(
  config: unknown,
): Pick<AutomationForm, 'triggers' | 'conditions' | 'actions'> | undefined {
  if (!config || typeof config !== 'object' || Array.isArray(config)) return undefined;
  const c = config as { triggers?: unknown; conditions?: unknown; actions?: unknown };
  const triggers = Array.isArray(c.triggers) ? c.triggers.map(String) : [];
  const group = (node: unknown, depth: number): GroupForm | undefined => {
    const g = node as { operator?: unknown; children?: unknown } | null;
    if (!g || typeof g !== 'object' || !Array.isArray(g.children) || depth > MAX_DEPTH) return undefined;
    const children: (LeafForm | GroupForm)[] = [];
    for (const child of g.children as unknown[]) {
      if (child && typeof child === 'object' && 'operator' in child) {
        const sub = group(child, depth + 1);
        if (!sub) return undefined;
        children.push(sub);
      } else if (child && typeof child === 'object' && 'type' in child) {
        children.push(leafForm(child as { type: unknown; value?: unknown }));
      } else return undefined;
    }
    return { kind: 'group', operator: String(g.operator), children };
  };
  const conditions =
    c.conditions === undefined
      ? { kind: 'group' as const, operator: 'AND', children: [] }
      : group(c.conditions, 1);
  if (!conditions || !Array.isArray(c.actions)) return undefined;
  const actions = (c.actions as unknown[]).map((a) => {
    const x = (a ?? {}) as { type?: unknown; value?: unknown };
    return {
      type: String(x.type ?? ''),
      value: x.value === undefined || x.value === null ? '' : String(x.value),
    };
  });
  return { triggers, conditions, actions };
}

function leafForm(leaf: { type: unknown; value?: unknown }): LeafForm {
  const type = String(leaf.type);
  const v = leaf.value;
  if (type === 'cvss_gte' && v && typeof v === 'object') {
    const o = v as { version?: unknown; value?: unknown };
    return {
      kind: 'leaf',
      type,
      version: String(o.version ?? '3.1'),
      value: o.value === undefined ? '' : String(o.value),
    };
  }
  if (type === 'kev_present')
    return {
      kind: 'leaf',
      type,
      version: '3.1',
      value: v === false ? 'no' : v === undefined || v === null || v === true ? 'yes' : String(v),
    };
  if ((type === 'vendor_equals' || type === 'product_equals') && typeof v === 'string')
    return { kind: 'leaf', type, version: '3.1', value: typedKey(type, v) };
  return {
    kind: 'leaf',
    type,
    version: '3.1',
    value: v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v),
  };
}

/**
 * A vendor or product key as the builder shows it, in words (`Microsoft / Exchange Server`), when
 * those words read back as the same key (else the key, so a save never changes it).
 */
function typedKey(type: 'vendor_equals' | 'product_equals', key: string): string {
  const words = type === 'vendor_equals' ? nameLabel(key) : vendorKeyLabel(key);
  const back = type === 'vendor_equals' ? catalogName(words) : vendorKeyOfLabel(words);
  return back === key ? words : key;
}

/** A stored automation as the builder's fields. */
export function formOfAutomation(a: AutomationRow): AutomationForm {
  const builder = builderOfConfiguration(a.configuration) ?? {
    triggers: [],
    conditions: EMPTY_FORM.conditions,
    actions: [],
  };
  return {
    name: a.name,
    is_enabled: a.is_enabled,
    trigger_type: a.trigger_type,
    frequency: a.frequency ?? EMPTY_FORM.frequency,
    schedule_time: a.schedule_time ?? EMPTY_FORM.schedule_time,
    schedule_timezone: a.schedule_timezone ?? EMPTY_FORM.schedule_timezone,
    schedule_weekday:
      a.schedule_weekday === null ? EMPTY_FORM.schedule_weekday : (WEEKDAYS[a.schedule_weekday] ?? 'monday'),
    ...builder,
  };
}

/**
 * The service's configuration messages sorted by the part of the builder they concern: `triggers`,
 * a condition or group by its path (`cond`, `cond.0.1`), an action by its index (`act.0`), the
 * action list (`act`), anything else (`other`). Each message without its path prefix.
 */
export function placeConfigurationErrors(messages: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const put = (key: string, message: string) => out.set(key, [...(out.get(key) ?? []), message]);
  for (const message of messages) {
    let m = /^conditions((?:\.children\[\d+\])*): (.*)$/s.exec(message);
    if (m) {
      const path = [...m[1]!.matchAll(/\[(\d+)\]/g)].map((x) => `.${x[1]}`).join('');
      put(`cond${path}`, m[2]!);
      continue;
    }
    m = /^actions\[(\d+)\]: (.*)$/s.exec(message);
    if (m) {
      put(`act.${m[1]}`, m[2]!);
      continue;
    }
    m = /^(actions|triggers): (.*)$/s.exec(message);
    if (m) {
      put(m[1] === 'actions' ? 'act' : 'triggers', m[2]!);
      continue;
    }
    put('other', message);
  }
  return out;
}

const KEY_ORDER = ['triggers', 'conditions', 'actions', 'operator', 'children', 'type', 'version', 'value'];

/** A configuration as the JSON view shows it: its keys in the order people write them, indented. */
export const prettyJson = (value: unknown): string => JSON.stringify(readableOrder(value), null, 2);

/** A configuration with its keys in the order people write them (jsonb stores them by length). */
export function readableOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(readableOrder);
  if (!value || typeof value !== 'object') return value;
  const rank = (k: string) => (KEY_ORDER.includes(k) ? KEY_ORDER.indexOf(k) : KEY_ORDER.length);
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => rank(a) - rank(b))
      .map(([k, v]) => [k, readableOrder(v)]),
  );
}
