/**
 * `/org/<org>/projects/<project>/automations`: the project's automations (docs/web-ui.md, "Projects:
 * automations"). Every member reads the list, an automation with its executions, an execution and a
 * dry run; owners create, edit, enable or disable, run and delete (members get 403).
 *
 * The builder (`…/new`, `…/<name>/edit`) writes the configuration API v2 takes and the service
 * validates (automation-form.ts); the JSON view edits the same configuration as text. Its buttons:
 * Save, Dry run (the unsaved configuration over the last 7 days, nothing acts), Edit as JSON / Back to
 * the builder. It works without script for a flat list of conditions; the island
 * (assets/automation-builder.js) adds nested groups and rows.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import {
  ACTION_TYPES,
  ALERT_TRIGGERS,
  CONDITION_TYPES,
  CVSS_VERSIONS,
  type AutomationView,
  type ExecutionRow,
} from '../../../domain/automation.ts';
import { WEEKDAYS, resultOutput, type ExecutionCve } from '../../../domain/automation-execution.ts';
import { AppError } from '../../../domain/errors.ts';
import { TRIAGE_STATUSES } from '../../../domain/triage.ts';
import type { AutomationInput, DryRun } from '../../../services/automation.service.ts';
import { Field, Notice, SelectField, Time } from '../../kit/fields.tsx';
import { formErrorsOf, type FormErrors, doneText, field, pageNumber } from '../../kit/input.ts';
import { Csrf, sendPage } from '../../kit/layout.tsx';
import type { PageContext, WebOptions, WebServices } from '../../kit/context.ts';
import { Pager } from '../../kit/paging.tsx';
import { ProjectPage } from '../project-page.tsx';
import { projectPath } from '../../kit/paths.ts';
import { assertCanConfigure, projectAccess, type ProjectAccess } from '../../kit/access.ts';
import {
  EMPTY_FORM,
  TEMPLATE_HINTS,
  TEMPLATES,
  TRIGGER_LABELS,
  builderOfConfiguration,
  configurationOf,
  formOfAutomation,
  formOfBody,
  inputOf,
  placeConfigurationErrors,
  readableOrder,
  templateForm,
  topFieldsOfBody,
  type ActionForm,
  type AutomationForm,
  type GroupForm,
  type LeafForm,
  type TemplateKey,
} from './builder.form.ts';
import { SeverityBadge } from '../../kit/severity.tsx';

const DONE: Record<string, string> = {
  created: 'The automation was created.',
  saved: 'The automation was saved.',
  enabled: 'The automation was enabled.',
  disabled: 'The automation was disabled: it runs no more until it is enabled again.',
  deleted: 'The automation and its executions were deleted (its reports stay).',
  ran: 'The report automation ran now: here is its execution.',
};
const doneOf = (query: unknown) => doneText(DONE, query);

const CONDITION_LABELS: Record<(typeof CONDITION_TYPES)[number], string> = {
  cvss_gte: 'CVSS at least',
  epss_gte: 'EPSS at least (0 to 1)',
  kev_present: 'In KEV (yes or no)',
  vendor_equals: 'Vendor is',
  product_equals: 'Product is',
  cve_newer_than: 'Published within (days)',
  cve_unassigned: 'Not assigned',
  cve_status: 'Status is',
};

const ACTION_LABELS: Record<(typeof ACTION_TYPES)[number], string> = {
  send_notification: 'Send a notification',
  assign_user: 'Assign to a member (email)',
  change_status: 'Set the status',
  generate_report: 'Generate a report',
};

type Params = { org: string; project: string; automation: string };

const base = (a: ProjectAccess) => projectPath(a.membership.name, a.project.name, 'automations');
const automationUrl = (a: ProjectAccess, name: string, rest = '') =>
  `${base(a)}/${encodeURIComponent(name)}${rest ? `/${rest}` : ''}`;

/** What the builder offers to pick: the project's notifications, the joined members, the statuses. */
interface Choices {
  notifications: string[];
  members: string[];
}

async function choicesOf(services: WebServices, access: ProjectAccess): Promise<Choices> {
  const orgId = access.membership.organizationId;
  const { items } = await services.notifications.list(orgId, access.project.name, { page: 1, pageSize: 100 });
  const members = await services.members.list(orgId, { page: 1, pageSize: 100 });
  return {
    notifications: items.map((n) => n.name),
    members: members.items.filter((m) => m.date_joined && m.user_id).map((m) => m.email),
  };
}

// ---------------------------------------------------------------------------------------------
// Builder

function ErrorText({ id, messages }: { id?: string; messages: string[] | undefined }) {
  if (!messages?.length) return null;
  return (
    <div class="error" id={id}>
      {messages.join(' ')}
    </div>
  );
}

function LeafRow({
  leaf,
  path,
  errors,
  spare,
}: {
  leaf: LeafForm;
  path: string;
  errors: Map<string, string[]>;
  spare?: boolean;
}) {
  const key = `cond${path}`;
  const id = `c${path.replace(/\./g, '-')}`;
  const messages = errors.get(key);
  return (
    <div
      class={messages ? 'ab-leaf has-error' : 'ab-leaf'}
      data-leaf
      data-spare={spare ? '' : undefined}
      data-type={leaf.type}
    >
      <div class="field">
        <label for={`${id}-type`}>Condition</label>
        <select id={`${id}-type`} name={`${key}.type`} data-field="type">
          <option value="">(none)</option>
          {CONDITION_TYPES.map((t) => (
            <option value={t} selected={t === leaf.type}>
              {CONDITION_LABELS[t]}
            </option>
          ))}
          {leaf.type && !(CONDITION_TYPES as readonly string[]).includes(leaf.type) && (
            <option value={leaf.type} selected>
              {leaf.type}
            </option>
          )}
        </select>
      </div>
      <div class="field ab-version">
        <label for={`${id}-version`}>CVSS version</label>
        <select id={`${id}-version`} name={`${key}.version`} data-field="version">
          {Object.keys(CVSS_VERSIONS).map((v) => (
            <option value={v} selected={v === leaf.version}>
              {v}
            </option>
          ))}
        </select>
      </div>
      <div class="field ab-value">
        <label for={`${id}-value`}>Value</label>
        <input
          id={`${id}-value`}
          type="text"
          name={`${key}.value`}
          value={leaf.value}
          data-field="value"
          list={leaf.type === 'cve_status' ? 'ab-statuses' : undefined}
          aria-invalid={messages ? 'true' : undefined}
          aria-describedby={messages ? `${id}-error` : undefined}
        />
      </div>
      <button type="button" class="btn-small ab-remove" data-remove hidden>
        Remove
      </button>
      <ErrorText id={`${id}-error`} messages={messages} />
    </div>
  );
}

function GroupBox({
  group,
  path,
  errors,
  root,
}: {
  group: GroupForm;
  path: string;
  errors: Map<string, string[]>;
  root?: boolean;
}) {
  const key = `cond${path}`;
  const id = `g${path.replace(/\./g, '-')}`;
  return (
    <fieldset class={root ? 'ab-group ab-root' : 'ab-group'} data-group>
      <legend>{root ? 'Conditions' : 'Group'}</legend>
      <div class="field ab-op">
        <label for={`${id}-op`}>Match</label>
        <select id={`${id}-op`} name={`${key}.op`} data-field="op">
          <option value="AND" selected={group.operator === 'AND'}>
            all of these (AND)
          </option>
          <option value="OR" selected={group.operator === 'OR'}>
            any of these (OR)
          </option>
          {group.operator !== 'AND' && group.operator !== 'OR' && (
            <option value={group.operator} selected>
              {group.operator}
            </option>
          )}
        </select>
      </div>
      <ErrorText messages={errors.get(key)} />
      <div class="ab-children" data-children>
        {group.children.map((child, i) =>
          child.kind === 'group' ? (
            <GroupBox group={child} path={`${path}.${i}`} errors={errors} />
          ) : (
            <LeafRow leaf={child} path={`${path}.${i}`} errors={errors} />
          ),
        )}
        {root &&
          [0, 1].map((n) => (
            <LeafRow
              leaf={{ kind: 'leaf', type: '', value: '', version: '3.1' }}
              path={`.${group.children.length + n}`}
              errors={errors}
              spare
            />
          ))}
      </div>
      {root && group.children.length === 0 && (
        <p class="hint small muted ab-empty">No condition: every CVE its triggers fire for.</p>
      )}
      <div class="ab-tools" hidden>
        <button type="button" class="btn-small" data-add="leaf">
          Add condition
        </button>
        <button type="button" class="btn-small" data-add="group">
          Add group
        </button>
        {!root && (
          <button type="button" class="btn-small btn-danger" data-remove>
            Remove group
          </button>
        )}
      </div>
    </fieldset>
  );
}

function ActionRow({
  action,
  index,
  errors,
  spare,
}: {
  action: ActionForm;
  index: number;
  errors: Map<string, string[]>;
  spare?: boolean;
}) {
  const id = `a-${index}`;
  const messages = errors.get(`act.${index}`);
  return (
    <div
      class={messages ? 'ab-action has-error' : 'ab-action'}
      data-action
      data-spare={spare ? '' : undefined}
    >
      <div class="field">
        <label for={`${id}-type`}>Action</label>
        <select id={`${id}-type`} name={`act.${index}.type`} data-field="type">
          <option value="">(none)</option>
          {ACTION_TYPES.map((t) => (
            <option value={t} selected={t === action.type}>
              {ACTION_LABELS[t]}
            </option>
          ))}
        </select>
      </div>
      <div class="field ab-value">
        <label for={`${id}-value`}>Value</label>
        <input
          id={`${id}-value`}
          type="text"
          name={`act.${index}.value`}
          value={action.value}
          data-field="value"
          list="ab-action-values"
          aria-invalid={messages ? 'true' : undefined}
          aria-describedby={messages ? `${id}-error` : undefined}
        />
      </div>
      <button type="button" class="btn-small ab-remove" data-remove hidden>
        Remove
      </button>
      <ErrorText id={`${id}-error`} messages={messages} />
    </div>
  );
}

/** The fields above the builder and the JSON view: name, kind, enabled, the report's schedule. */
function TopFields({ form, errors }: { form: AutomationForm; errors: FormErrors | undefined }) {
  const err = errors ?? {};
  return (
    <>
      <Field name="name" label="Name" value={form.name} required maxlength={100} errors={err} />
      <SelectField
        name="trigger_type"
        label="Runs"
        value={form.trigger_type}
        options={[
          { value: 'alert', label: 'On changes (alert)' },
          { value: 'report', label: 'On a schedule (report)' },
        ]}
        errors={err}
      />
      <div class="field">
        <label>
          <input type="checkbox" name="is_enabled" checked={form.is_enabled} /> Enabled
        </label>
      </div>
      <fieldset class="ab-schedule" data-for="report">
        <legend>Schedule (report automations)</legend>
        <div class="grid ab-grid">
          <SelectField
            name="frequency"
            label="Every"
            value={form.frequency}
            options={[
              { value: 'daily', label: 'day' },
              { value: 'weekly', label: 'week' },
            ]}
            errors={err}
          />
          <SelectField
            name="schedule_weekday"
            label="On (weekly)"
            value={form.schedule_weekday}
            options={WEEKDAYS.map((d) => ({ value: d, label: d[0]!.toUpperCase() + d.slice(1) }))}
            errors={err}
          />
          <Field
            name="schedule_time"
            label="At (HH:MM)"
            value={form.schedule_time}
            maxlength={8}
            errors={err}
          />
          <Field
            name="schedule_timezone"
            label="Time zone"
            value={form.schedule_timezone}
            maxlength={64}
            errors={err}
            hint="IANA, e.g. Europe/Paris"
          />
        </div>
      </fieldset>
    </>
  );
}

interface BuilderState {
  form: AutomationForm;
  /** Set for the JSON view: the textarea's text. */
  json?: string | undefined;
  errors?: FormErrors | undefined;
  dryRun?: DryRun | undefined;
}

function BuilderPage({
  ctx,
  access,
  choices,
  state,
  editing,
  template,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  choices: Choices;
  state: BuilderState;
  /** The automation's name when editing. */
  editing?: string | undefined;
  template?: TemplateKey | undefined;
}) {
  const { form, errors, json } = state;
  const action = editing ? automationUrl(access, editing, 'edit') : `${base(access)}/new`;
  const placed = placeConfigurationErrors(errors?.configuration ?? []);
  const other = placed.get('other');
  const general = Object.entries(errors ?? {}).filter(
    ([k]) =>
      ![
        'name',
        'trigger_type',
        'frequency',
        'schedule_time',
        'schedule_timezone',
        'schedule_weekday',
        'configuration',
        'json',
      ].includes(k),
  );
  const title = editing ? `Edit ${editing}` : 'New automation';
  return (
    <ProjectPage
      ctx={ctx}
      access={access}
      tab="automations"
      title={title}
      scripts={['automation-builder.js']}
    >
      <div class="crumbs">
        <a href={base(access)}>Automations</a>
        {editing && (
          <>
            {' / '}
            <a href={automationUrl(access, editing)}>{editing}</a>
          </>
        )}
      </div>
      <h2>{title}</h2>
      {!editing && (
        <section class="ab-templates" aria-labelledby="templates-title">
          <h3 id="templates-title">Start from a template</h3>
          <ul class="ab-template-list">
            {(Object.keys(TEMPLATES) as TemplateKey[]).map((k) => (
              <li>
                <a
                  href={`${base(access)}/new?template=${k}`}
                  aria-current={template === k ? 'true' : undefined}
                  class="card"
                >
                  <strong>{TEMPLATES[k]}</strong>
                  <span class="small muted">{TEMPLATE_HINTS[k]}</span>
                </a>
              </li>
            ))}
          </ul>
          {choices.notifications.length === 0 && (
            <Notice kind="warn">
              This project has no notification yet: a "send a notification" action needs one.{' '}
              <a href={projectPath(access.membership.name, access.project.name, 'notifications')}>
                Create one
              </a>{' '}
              first, or use other actions.
            </Notice>
          )}
        </section>
      )}
      {general.length > 0 && (
        <div class="notice error" role="alert">
          {general.map(([, m]) => (
            <p>{m.join(' ')}</p>
          ))}
        </div>
      )}
      <form
        method="post"
        action={action}
        class="stacked ab-form card"
        data-builder={json === undefined ? '' : undefined}
      >
        <Csrf ctx={ctx} />
        <input type="hidden" name="mode" value={json === undefined ? 'builder' : 'json'} />
        <TopFields form={form} errors={errors} />
        {json === undefined ? (
          <>
            <fieldset
              class={placed.get('triggers') ? 'ab-triggers has-error' : 'ab-triggers'}
              data-for="alert"
            >
              <legend>Triggers (alert automations): run when</legend>
              <div class="checks">
                {ALERT_TRIGGERS.map((t) => (
                  <label>
                    <input type="checkbox" name="triggers" value={t} checked={form.triggers.includes(t)} />{' '}
                    {TRIGGER_LABELS[t]}
                  </label>
                ))}
              </div>
              <ErrorText messages={placed.get('triggers')} />
            </fieldset>
            <GroupBox group={form.conditions} path="" errors={placed} root />
            <p class="hint small muted ab-hint">
              Values: CVSS and EPSS a number (CVSS 0–10, EPSS 0–1); KEV yes or no; vendor a name such as{' '}
              <code>apache</code>; product <code>vendor$PRODUCT$product</code> or a product name; days a whole
              number; status one of no_status, {TRIAGE_STATUSES.join(', ')}.
            </p>
            <fieldset class={placed.get('act') ? 'ab-actions has-error' : 'ab-actions'}>
              <legend>Actions, in order</legend>
              <ErrorText messages={placed.get('act')} />
              <div data-children>
                {form.actions.map((a, i) => (
                  <ActionRow action={a} index={i} errors={placed} />
                ))}
                <ActionRow
                  action={{ type: '', value: '' }}
                  index={form.actions.length}
                  errors={placed}
                  spare
                />
              </div>
              <div class="ab-tools" hidden>
                <button type="button" class="btn-small" data-add="action">
                  Add action
                </button>
              </div>
              <p class="hint small muted">
                Values: a notification's name, a member's email, a status; a report needs none.
              </p>
            </fieldset>
            <ErrorText messages={other} />
          </>
        ) : (
          <div class={errors?.configuration || errors?.json ? 'field has-error' : 'field'}>
            <label for="f-configuration">Configuration (JSON)</label>
            <textarea
              id="f-configuration"
              name="configuration"
              rows={18}
              class="mono"
              spellcheck={false}
              aria-describedby="f-configuration-hint"
            >
              {json}
            </textarea>
            <div class="hint" id="f-configuration-hint">
              The configuration API v2 takes:{' '}
              <code>{'{"triggers": [...], "conditions": {...}, "actions": [...]}'}</code>.
            </div>
            <ErrorText messages={[...(errors?.json ?? []), ...(errors?.configuration ?? [])]} />
          </div>
        )}
        <div class="row ab-buttons">
          <button type="submit" name="intent" value="save" class="btn-primary">
            {editing ? 'Save' : 'Create automation'}
          </button>
          <button type="submit" name="intent" value="dry-run" formaction={`${action}#dry-run`}>
            Dry run (last 7 days)
          </button>
          {json === undefined ? (
            <button type="submit" name="intent" value="json">
              Edit as JSON
            </button>
          ) : (
            <button type="submit" name="intent" value="builder">
              Back to the builder
            </button>
          )}
        </div>
      </form>
      <template id="ab-leaf-template">
        <LeafRow leaf={{ kind: 'leaf', type: '', value: '', version: '3.1' }} path=".0" errors={new Map()} />
      </template>
      <template id="ab-group-template">
        <GroupBox
          group={{
            kind: 'group',
            operator: 'OR',
            children: [{ kind: 'leaf', type: '', value: '', version: '3.1' }],
          }}
          path=".0"
          errors={new Map()}
        />
      </template>
      <template id="ab-action-template">
        <ActionRow action={{ type: '', value: '' }} index={0} errors={new Map()} />
      </template>
      <datalist id="ab-statuses">
        {['no_status', ...TRIAGE_STATUSES].map((s) => (
          <option value={s} />
        ))}
      </datalist>
      <datalist id="ab-notifications">
        {choices.notifications.map((s) => (
          <option value={s} />
        ))}
      </datalist>
      <datalist id="ab-members">
        {choices.members.map((s) => (
          <option value={s} />
        ))}
      </datalist>
      <datalist id="ab-action-values">
        {[...choices.notifications, ...choices.members, ...TRIAGE_STATUSES].map((s) => (
          <option value={s} />
        ))}
      </datalist>
      {state.dryRun && <DryRunResults run={state.dryRun} />}
    </ProjectPage>
  );
}

// ---------------------------------------------------------------------------------------------
// Dry run, executions

function DryRunResults({ run }: { run: DryRun }) {
  return (
    <section class="card ab-dry-run" id="dry-run" aria-labelledby="dry-run-title">
      <h2 id="dry-run-title">Dry run</h2>
      <p role="status">
        Over the last {run.days} days this would have matched{' '}
        <strong>
          {run.count} CVE{run.count === 1 ? '' : 's'}
        </strong>
        . Nothing was sent or changed.
      </p>
      {run.cves.length > 0 && (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">CVE</th>
                <th scope="col">Title</th>
                <th scope="col">Severity</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {run.cves.map((c) => (
                <tr>
                  <td class="nowrap">
                    <a href={`/cves/${c.cve_id}`}>{c.cve_id}</a>
                    {c.kev && <span class="badge kev">KEV</span>}
                  </td>
                  <td>{c.title ?? <span class="muted">–</span>}</td>
                  <td>
                    <SeverityBadge score={c.highest_cvss} named />
                  </td>
                  <td class="small">
                    {c.triggers.map((t) => TRIGGER_LABELS[t as keyof typeof TRIGGER_LABELS] ?? t).join(', ')}
                    {c.matched_keys.length > 0 && (
                      <div class="muted">matched {c.matched_keys.join(', ')}</div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {run.count > run.cves.length && (
        <p class="small muted">The {run.cves.length} with the highest CVSS are listed.</p>
      )}
    </section>
  );
}

type Result = { action: string; status: 'success' | 'skipped' | 'failed'; details: Record<string, unknown> };

const STATUS_BADGE = { success: 'ok', skipped: 'neutral', failed: 'danger' } as const;

function ResultBadge({ status }: { status: Result['status'] }) {
  return <span class={`badge ${STATUS_BADGE[status] ?? 'neutral'}`}>{status}</span>;
}

function resultsOf(e: ExecutionRow): Result[] {
  return Array.isArray(e.results) ? (e.results as Result[]) : [];
}

function describeSchedule(a: AutomationView): string {
  if (a.trigger_type === 'alert') {
    const triggers = ((a.configuration.triggers as string[] | undefined) ?? []).map(
      (t) => TRIGGER_LABELS[t as keyof typeof TRIGGER_LABELS] ?? t,
    );
    return `On changes: ${triggers.join(', ') || 'none'}`;
  }
  const day =
    a.frequency === 'weekly' && a.schedule_weekday !== null ? ` on ${WEEKDAYS[a.schedule_weekday]}` : '';
  return `Report ${a.frequency ?? ''}${day} at ${a.schedule_time ?? ''} ${a.schedule_timezone ?? ''}`.trim();
}

function ConditionTree({ node }: { node: unknown }) {
  const g = node as { operator?: string; children?: unknown[] } | undefined;
  if (!g || !Array.isArray(g.children)) return null;
  if (!g.children.length)
    return <span class="muted">{g.operator === 'OR' ? 'none holds (empty OR)' : 'every CVE'}</span>;
  return (
    <ul class="ab-tree">
      <li class="muted small">{g.operator === 'OR' ? 'any of' : 'all of'}</li>
      {g.children.map((c) => {
        const child = c as { operator?: string; type?: string; value?: unknown };
        if (child && 'operator' in child)
          return (
            <li>
              <ConditionTree node={child} />
            </li>
          );
        const value =
          child.value === undefined
            ? ''
            : typeof child.value === 'object'
              ? ` ${(child.value as { value?: unknown }).value} (CVSS ${(child.value as { version?: unknown }).version})`
              : ` ${String(child.value)}`;
        return (
          <li>
            {CONDITION_LABELS[child.type as keyof typeof CONDITION_LABELS] ?? child.type}
            {value}
          </li>
        );
      })}
    </ul>
  );
}

// ---------------------------------------------------------------------------------------------
// Routes

function templateOf(query: unknown): TemplateKey | undefined {
  const t = (query as { template?: unknown } | undefined)?.template;
  return typeof t === 'string' && t in TEMPLATES ? (t as TemplateKey) : undefined;
}

export const projectAutomationsRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const { automations } = services;
  const orgIdOf = (a: ProjectAccess) => a.membership.organizationId;

  app.get('/org/:org/projects/:project/automations', async (request, reply) => {
    const access = await projectAccess(services, request);
    const { items } = await automations.list(orgIdOf(access), access.project.name, {
      page: 1,
      pageSize: 100,
    });
    const last = new Map<string, ExecutionRow | undefined>();
    for (const a of items) {
      if (!a.last_execution_at) continue;
      const { items: e } = await automations.listExecutions(orgIdOf(access), access.project.name, a.name, {
        page: 1,
        pageSize: 1,
      });
      last.set(a.id, e[0]);
    }
    const ctx = request.page;
    return sendPage(
      reply,
      <ProjectPage
        ctx={ctx}
        access={access}
        tab="automations"
        title="Automations"
        done={doneOf(request.query)}
        actions={
          access.isOwner && (
            <a class="btn btn-primary" href={`${base(access)}/new`}>
              New automation
            </a>
          )
        }
      >
        {items.length === 0 ? (
          <div class="card">
            <p>
              No automation yet. An automation notifies, assigns, sets a status or makes a report when CVEs of
              this project change, or on a schedule.
            </p>
            {access.isOwner && (
              <ul>
                {(Object.keys(TEMPLATES) as TemplateKey[]).map((k) => (
                  <li>
                    <a href={`${base(access)}/new?template=${k}`}>{TEMPLATES[k]}</a>: {TEMPLATE_HINTS[k]}
                  </li>
                ))}
              </ul>
            )}
          </div>
        ) : (
          <div class="table-wrap">
            <table class="data">
              <caption class="visually-hidden">Automations of {access.project.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Runs</th>
                  <th scope="col">Enabled</th>
                  <th scope="col">Last execution</th>
                  {access.isOwner && (
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {items.map((a) => {
                  const e = last.get(a.id);
                  return (
                    <tr>
                      <td>
                        <a href={automationUrl(access, a.name)}>{a.name}</a>
                      </td>
                      <td class="small">{describeSchedule(a)}</td>
                      <td>
                        {a.is_enabled ? (
                          <span class="badge ok">enabled</span>
                        ) : (
                          <span class="badge neutral">disabled</span>
                        )}
                      </td>
                      <td>
                        {e ? (
                          <>
                            <a href={automationUrl(access, a.name, `executions/${e.id}`)}>
                              <Time date={e.executed_at} style={ctx.dateStyle} />
                            </a>
                            <div class="small">
                              {e.matched_cves_count} CVE{e.matched_cves_count === 1 ? '' : 's'}{' '}
                              {resultsOf(e).map((r) => (
                                <ResultBadge status={r.status} />
                              ))}
                            </div>
                          </>
                        ) : (
                          <span class="muted">never</span>
                        )}
                      </td>
                      {access.isOwner && (
                        <td class="nowrap">
                          <a class="btn btn-small" href={automationUrl(access, a.name, 'edit')}>
                            Edit
                          </a>{' '}
                          <EnableForm ctx={ctx} access={access} automation={a} />{' '}
                          <DeleteForm ctx={ctx} access={access} automation={a} />
                        </td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </ProjectPage>,
    );
  });

  /** The builder page for GET (new, from a template, or an automation read back). */
  async function showBuilder(
    request: FastifyRequest,
    access: ProjectAccess,
    state: BuilderState,
    status: number,
    editing?: string,
    template?: TemplateKey,
  ) {
    const choices = await choicesOf(services, access);
    return {
      choices,
      page: (
        <BuilderPage
          ctx={request.page}
          access={access}
          choices={choices}
          state={state}
          editing={editing}
          template={template}
        />
      ),
      status,
    };
  }

  app.get('/org/:org/projects/:project/automations/new', async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const template = templateOf(request.query);
    const choices = await choicesOf(services, access);
    const form = template
      ? templateForm(template, choices.notifications[0] ?? '', request.page.user?.email ?? '')
      : EMPTY_FORM;
    const json =
      (request.query as { view?: unknown }).view === 'json' ? pretty(configurationOf(form)) : undefined;
    return sendPage(
      reply,
      <BuilderPage
        ctx={request.page}
        access={access}
        choices={choices}
        state={{ form, json }}
        template={template}
      />,
    );
  });

  app.get<{ Params: Params }>(
    '/org/:org/projects/:project/automations/:automation/edit',
    async (request, reply) => {
      const access = await projectAccess(services, request);
      assertCanConfigure(access);
      const automation = await automations.get(
        orgIdOf(access),
        access.project.name,
        request.params.automation,
      );
      const form = formOfAutomation(automation);
      const json =
        (request.query as { view?: unknown }).view === 'json' ? pretty(automation.configuration) : undefined;
      const { page } = await showBuilder(request, access, { form, json }, 200, automation.name);
      return sendPage(reply, page);
    },
  );

  /** A POST of the builder or the JSON view: save, dry run, or switch views. */
  async function handleBuilder(request: FastifyRequest, access: ProjectAccess, editing?: AutomationView) {
    const body = request.body as Record<string, unknown> | undefined;
    const intent = field(body, 'intent') || 'save';
    const jsonMode = field(body, 'mode') === 'json';
    let form: AutomationForm;
    let configuration: AutomationInput['configuration'] | undefined;
    let json: string | undefined;
    if (jsonMode) {
      json = field(body, 'configuration');
      form = { ...EMPTY_FORM, ...topFieldsOfBody(body), triggers: [], actions: [] };
      try {
        configuration = JSON.parse(json) as AutomationInput['configuration'];
      } catch (err) {
        const state = { form, json, errors: { json: [`This is not JSON: ${(err as Error).message}`] } };
        return showBuilder(request, access, state, 400, editing?.name);
      }
      const builder = builderOfConfiguration(configuration);
      if (builder) form = { ...form, ...builder };
      if (intent === 'builder') {
        if (!builder) {
          const errors = {
            json: [
              'The builder shows a configuration {"triggers": [...], "conditions": {...}, "actions": [...]}: fix it here first.',
            ],
          };
          return showBuilder(request, access, { form, json, errors }, 400, editing?.name);
        }
        return showBuilder(request, access, { form }, 200, editing?.name);
      }
    } else {
      form = formOfBody(body);
      configuration = configurationOf(form);
      if (intent === 'json')
        return showBuilder(request, access, { form, json: pretty(configuration) }, 200, editing?.name);
      if (intent === 'builder') return showBuilder(request, access, { form }, 200, editing?.name);
    }
    const input = inputOf(form, configuration);
    try {
      if (intent === 'dry-run') {
        const dryRun = await automations.dryRun(orgIdOf(access), access.project.name, input);
        return showBuilder(request, access, { form, json, dryRun }, 200, editing?.name);
      }
      const saved = editing
        ? await automations.update(orgIdOf(access), access.project.name, editing.name, input, access.actor)
        : await automations.create(orgIdOf(access), access.project.name, input, access.actor);
      return { redirect: `${automationUrl(access, saved.name)}?done=${editing ? 'saved' : 'created'}` };
    } catch (err) {
      const errors = formErrorsOf(err);
      return showBuilder(request, access, { form, json, errors }, 400, editing?.name);
    }
  }

  app.post('/org/:org/projects/:project/automations/new', async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const r = await handleBuilder(request, access);
    if ('redirect' in r) return reply.redirect(r.redirect!, 303);
    return sendPage(reply, r.page, r.status);
  });

  app.post<{ Params: Params }>(
    '/org/:org/projects/:project/automations/:automation/edit',
    async (request, reply) => {
      const access = await projectAccess(services, request);
      assertCanConfigure(access);
      const automation = await automations.get(
        orgIdOf(access),
        access.project.name,
        request.params.automation,
      );
      const r = await handleBuilder(request, access, automation);
      if ('redirect' in r) return reply.redirect(r.redirect!, 303);
      return sendPage(reply, r.page, r.status);
    },
  );

  app.get<{ Params: Params }>(
    '/org/:org/projects/:project/automations/:automation',
    async (request, reply) => {
      const access = await projectAccess(services, request);
      const automation = await automations.get(
        orgIdOf(access),
        access.project.name,
        request.params.automation,
      );
      return sendAutomationPage(request, reply, access, automation, doneOf(request.query));
    },
  );

  async function sendAutomationPage(
    request: FastifyRequest,
    reply: Parameters<typeof sendPage>[0],
    access: ProjectAccess,
    a: AutomationView,
    done: string | undefined,
    error?: string,
    status = 200,
  ) {
    const ctx = request.page;
    const pageSize = 20;
    const page = pageNumber(request.query);
    let executions: { count: number; items: ExecutionRow[] };
    try {
      executions = await automations.listExecutions(orgIdOf(access), access.project.name, a.name, {
        page,
        pageSize,
      });
    } catch (err) {
      if (err instanceof AppError && err.code !== 'not_found') {
        executions = await automations.listExecutions(orgIdOf(access), access.project.name, a.name, {
          page: 1,
          pageSize,
        });
      } else throw err;
    }
    const config = a.configuration as { conditions?: unknown; actions?: { type: string; value?: unknown }[] };
    return sendPage(
      reply,
      <ProjectPage
        ctx={ctx}
        access={access}
        tab="automations"
        title={a.name}
        done={done}
        actions={
          <a class="btn" href={automationUrl(access, a.name, 'dry-run')}>
            Dry run
          </a>
        }
      >
        <div class="crumbs">
          <a href={base(access)}>Automations</a>
        </div>
        <h2>
          {a.name}{' '}
          {a.is_enabled ? <span class="badge ok">enabled</span> : <span class="badge neutral">disabled</span>}
        </h2>
        {error && <Notice kind="error">{error}</Notice>}
        <div class="grid ab-summary">
          <section class="card">
            <h3>Runs</h3>
            <p>{describeSchedule(a)}</p>
            <h3>Conditions</h3>
            <ConditionTree node={config.conditions} />
          </section>
          <section class="card">
            <h3>Actions</h3>
            <ol>
              {(config.actions ?? []).map((x) => (
                <li>
                  {ACTION_LABELS[x.type as keyof typeof ACTION_LABELS] ?? x.type}
                  {x.value !== undefined && x.value !== null && <>: {String(x.value)}</>}
                </li>
              ))}
            </ol>
            {access.isOwner && (
              <div class="row ab-owner-actions">
                <a class="btn btn-small" href={automationUrl(access, a.name, 'edit')}>
                  Edit
                </a>
                {a.trigger_type === 'report' && (
                  <form method="post" action={automationUrl(access, a.name, 'run')} class="inline-form">
                    <Csrf ctx={ctx} />
                    <button type="submit">Run now</button>
                  </form>
                )}
                <EnableForm ctx={ctx} access={access} automation={a} />
                <DeleteForm ctx={ctx} access={access} automation={a} />
              </div>
            )}
          </section>
        </div>
        <h3 class="ab-heading">Executions</h3>
        {executions.items.length === 0 ? (
          <p class="muted">
            No execution yet.{' '}
            {a.trigger_type === 'alert'
              ? 'It runs when a change of the project fires one of its triggers and meets its conditions.'
              : 'It runs on its schedule.'}
          </p>
        ) : (
          <div class="table-wrap">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">Executed</th>
                  <th scope="col">Window</th>
                  <th scope="col">CVEs</th>
                  <th scope="col">Results</th>
                </tr>
              </thead>
              <tbody>
                {executions.items.map((e) => (
                  <tr>
                    <td class="nowrap">
                      <a href={automationUrl(access, a.name, `executions/${e.id}`)}>
                        <Time date={e.executed_at} style={ctx.dateStyle} />
                      </a>
                    </td>
                    <td class="small nowrap">
                      <Time date={e.window_start} style={ctx.dateStyle} /> –{' '}
                      <Time date={e.window_end} style={ctx.dateStyle} />
                    </td>
                    <td>{e.matched_cves_count}</td>
                    <td>
                      {resultsOf(e).map((r) => (
                        <span class="ab-result">
                          {resultOutput(r.action).label} <ResultBadge status={r.status} />
                        </span>
                      ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager
          path={automationUrl(access, a.name)}
          query={{}}
          page={page}
          pageSize={pageSize}
          count={executions.count}
        />
      </ProjectPage>,
      status,
    );
  }

  app.get<{ Params: Params }>(
    '/org/:org/projects/:project/automations/:automation/dry-run',
    async (request, reply) => {
      const access = await projectAccess(services, request);
      const a = await automations.get(orgIdOf(access), access.project.name, request.params.automation);
      const run = await automations.dryRunSaved(orgIdOf(access), access.project.name, a.name);
      return sendPage(
        reply,
        <ProjectPage ctx={request.page} access={access} tab="automations" title={`Dry run of ${a.name}`}>
          <div class="crumbs">
            <a href={base(access)}>Automations</a> / <a href={automationUrl(access, a.name)}>{a.name}</a>
          </div>
          <p class="muted">
            {describeSchedule(a)}. The project's recorded changes of the last {run.days} days, evaluated with
            the automation's {a.trigger_type === 'alert' ? 'triggers and ' : ''}conditions as CVEs are now;
            nothing acts.
          </p>
          <DryRunResults run={run} />
        </ProjectPage>,
      );
    },
  );

  app.post<{ Params: Params }>(
    '/org/:org/projects/:project/automations/:automation/enabled',
    async (request, reply) => {
      const access = await projectAccess(services, request);
      assertCanConfigure(access);
      const enabled = field(request.body, 'enabled') === 'true';
      const a = await automations.update(
        orgIdOf(access),
        access.project.name,
        request.params.automation,
        { is_enabled: enabled },
        access.actor,
      );
      return reply.redirect(`${automationUrl(access, a.name)}?done=${enabled ? 'enabled' : 'disabled'}`, 303);
    },
  );

  app.post<{ Params: Params }>(
    '/org/:org/projects/:project/automations/:automation/delete',
    async (request, reply) => {
      const access = await projectAccess(services, request);
      assertCanConfigure(access);
      await automations.delete(orgIdOf(access), access.project.name, request.params.automation, access.actor);
      return reply.redirect(`${base(access)}?done=deleted`, 303);
    },
  );

  app.post<{ Params: Params }>(
    '/org/:org/projects/:project/automations/:automation/run',
    async (request, reply) => {
      const access = await projectAccess(services, request);
      assertCanConfigure(access);
      const a = await automations.get(orgIdOf(access), access.project.name, request.params.automation);
      if (a.trigger_type !== 'report')
        return sendAutomationPage(
          request,
          reply,
          access,
          a,
          undefined,
          'Only report automations run on demand: an alert automation runs when a change fires one of its triggers.',
          400,
        );
      const execution = await automations.run(orgIdOf(access), access.project.name, a.name);
      return reply.redirect(`${automationUrl(access, a.name, `executions/${execution.id}`)}?done=ran`, 303);
    },
  );

  app.get<{ Params: Params & { execution: string } }>(
    '/org/:org/projects/:project/automations/:automation/executions/:execution',
    async (request, reply) => {
      const access = await projectAccess(services, request);
      const a = await automations.get(orgIdOf(access), access.project.name, request.params.automation);
      const e = await automations.getExecution(
        orgIdOf(access),
        access.project.name,
        a.name,
        request.params.execution,
      );
      const ctx = request.page;
      const cves = (e.cves ?? []) as ExecutionCve[];
      return sendPage(
        reply,
        <ProjectPage
          ctx={ctx}
          access={access}
          tab="automations"
          title={`Execution of ${a.name}`}
          done={doneOf(request.query)}
        >
          <div class="crumbs">
            <a href={base(access)}>Automations</a> / <a href={automationUrl(access, a.name)}>{a.name}</a>
          </div>
          <h2>
            Execution of <Time date={e.executed_at} style={ctx.dateStyle} />
          </h2>
          <p>
            Changes from <Time date={e.window_start} style={ctx.dateStyle} /> to{' '}
            <Time date={e.window_end} style={ctx.dateStyle} />: {e.matched_cves_count} CVE
            {e.matched_cves_count === 1 ? '' : 's'} matched.
            {e.report_id && (
              <>
                {' '}
                <a href={projectPath(access.membership.name, access.project.name, `reports/${e.report_id}`)}>
                  Its report
                </a>
                .
              </>
            )}
          </p>
          <h3 class="ab-heading">Actions</h3>
          <div class="table-wrap">
            <table class="data ab-results">
              <thead>
                <tr>
                  <th scope="col">Action</th>
                  <th scope="col">Result</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {resultsOf(e).map((r) => (
                  <tr>
                    <td>{resultOutput(r.action).label}</td>
                    <td>
                      <ResultBadge status={r.status} />
                    </td>
                    <td class="small">
                      {Object.entries(r.details ?? {}).map(([k, v]) => (
                        <div>
                          <span class="muted">{k.replace(/_/g, ' ')}:</span>{' '}
                          {k === 'report' && typeof v === 'string' ? (
                            <a
                              href={projectPath(access.membership.name, access.project.name, `reports/${v}`)}
                            >
                              the report
                            </a>
                          ) : v === null ? (
                            '–'
                          ) : typeof v === 'object' ? (
                            JSON.stringify(v)
                          ) : (
                            String(v)
                          )}
                        </div>
                      ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h3 class="ab-heading">Matched CVEs</h3>
          {e.cves === null ? (
            <p class="muted">This execution predates the keeping of its CVEs.</p>
          ) : cves.length === 0 ? (
            <p class="muted">None.</p>
          ) : (
            <div class="table-wrap">
              <table class="data">
                <thead>
                  <tr>
                    <th scope="col">CVE</th>
                    <th scope="col">CVSS 3.1</th>
                    <th scope="col">CVSS 4.0</th>
                    <th scope="col">EPSS</th>
                    <th scope="col">Matched</th>
                  </tr>
                </thead>
                <tbody>
                  {cves.map((c) => (
                    <tr>
                      <td class="nowrap">
                        <a href={`/cves/${c.cve_id}`}>{c.cve_id}</a>
                        {c.kev && <span class="badge kev">KEV</span>}
                      </td>
                      <td>{c.cvss_31 ?? '–'}</td>
                      <td>{c.cvss_40 ?? '–'}</td>
                      <td>{c.epss ?? '–'}</td>
                      <td class="small">{c.matched_vendors_or_products.join(', ')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </ProjectPage>,
      );
    },
  );
};

function EnableForm({
  ctx,
  access,
  automation,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  automation: AutomationView;
}) {
  return (
    <form method="post" action={automationUrl(access, automation.name, 'enabled')} class="inline-form">
      <Csrf ctx={ctx} />
      <input type="hidden" name="enabled" value={automation.is_enabled ? 'false' : 'true'} />
      <button type="submit" class="btn-small">
        {automation.is_enabled ? 'Disable' : 'Enable'}
        <span class="visually-hidden"> {automation.name}</span>
      </button>
    </form>
  );
}

function DeleteForm({
  ctx,
  access,
  automation,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  automation: AutomationView;
}) {
  return (
    <form
      method="post"
      action={automationUrl(access, automation.name, 'delete')}
      class="inline-form"
      data-confirm={`Delete the automation ${automation.name} and its executions? Its reports stay.`}
    >
      <Csrf ctx={ctx} />
      <button type="submit" class="btn-small btn-danger">
        Delete<span class="visually-hidden"> {automation.name}</span>
      </button>
    </form>
  );
}

const pretty = (value: unknown) => JSON.stringify(readableOrder(value), null, 2);
