/**
 * The builder page (`…/new`, `…/<name>/edit`): the templates (new only), the top fields, then the
 * builder (triggers, the condition tree, the actions) or the JSON view of the same configuration,
 * the buttons, the island's row templates and value lists, and a dry run's results.
 */
import { ALERT_TRIGGERS } from '../../../domain/automation.ts';
import { WEEKDAYS } from '../../../domain/automation-execution.ts';
import type { ProjectAccess } from '../../kit/access.ts';
import type { PageContext } from '../../kit/context.ts';
import { Field, Notice, SelectField } from '../../kit/fields.tsx';
import type { FormErrors } from '../../kit/input.ts';
import { Csrf } from '../../kit/layout.tsx';
import { projectPath } from '../../kit/paths.ts';
import { ProjectPage } from '../project-page.tsx';
import { DryRunResults } from './automation.view.tsx';
import { placeConfigurationErrors, type AutomationForm, type BuilderState } from './builder.form.ts';
import { ActionRow, type Choices, ErrorText, GroupBox, LeafRow } from './conditions.view.tsx';
import { TRIGGER_LABELS, automationUrl, automationsUrl, messageInWords } from './labels.ts';
import { TEMPLATE_HINTS, TEMPLATES, type TemplateKey } from './templates.ts';

export type { Choices };

/** The fields the builder page places itself; any other message is shown above the form. */
const PLACED = [
  'name',
  'trigger_type',
  'frequency',
  'schedule_time',
  'schedule_timezone',
  'schedule_weekday',
  'configuration',
  'json',
];

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

/** The builder page, new (`editing` unset) or of an automation. */
export function BuilderPage({
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
  const action = editing ? automationUrl(access, editing, 'edit') : `${automationsUrl(access)}/new`;
  // Beside the rows, the service's sentences in the builder's words (messageInWords).
  const placed = new Map(
    [...placeConfigurationErrors(errors?.configuration ?? [])].map(([k, v]) => [k, v.map(messageInWords)]),
  );
  const other = placed.get('other');
  const general = Object.entries(errors ?? {}).filter(([k]) => !PLACED.includes(k));
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
        <a href={automationsUrl(access)}>Automations</a>
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
                  href={`${automationsUrl(access)}/new?template=${k}`}
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
              Values: CVSS a score from 0 to 10, EPSS a probability from 0 to 1; a vendor by its name (
              <kbd>Apache</kbd>); a product by its name (<kbd>Exchange Server</kbd>) or with its vendor (
              <kbd>Microsoft / Exchange Server</kbd>); days a whole number. KEV and statuses are picked from
              their lists.
            </p>
            <fieldset class={placed.get('act') ? 'ab-actions has-error' : 'ab-actions'}>
              <legend>Actions, in order</legend>
              <ErrorText messages={placed.get('act')} />
              <div data-children>
                {form.actions.map((a, i) => (
                  <ActionRow action={a} index={i} errors={placed} choices={choices} />
                ))}
                <ActionRow
                  action={{ type: '', value: '' }}
                  index={form.actions.length}
                  errors={placed}
                  choices={choices}
                  spare
                />
              </div>
              <div class="ab-tools" hidden>
                <button type="button" class="btn-small" data-add="action">
                  Add action
                </button>
              </div>
              <p class="hint small muted">
                Each action picks its value from a list: one of the project's notifications, a member, a
                status; a report needs none.
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
        <ActionRow action={{ type: '', value: '' }} index={0} errors={new Map()} choices={choices} />
      </template>
      {state.dryRun && <DryRunResults run={state.dryRun} />}
    </ProjectPage>
  );
}
