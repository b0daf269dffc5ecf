/**
 * One automation: its page (what runs it, its conditions and actions, its executions), the page of
 * its dry run, and the parts other automation pages draw too (the schedule in words, an action's
 * result badge, the enable and delete forms, the dry run's table).
 */
import type { AutomationView, ExecutionRow } from '../../../domain/automation.ts';
import { WEEKDAYS, resultOutput } from '../../../domain/automation-execution.ts';
import { nameLabel, vendorKeyLabel } from '../../../domain/cpe.ts';
import { statusLabel } from '../../../domain/triage.ts';
import type { DryRun } from '../../../services/automation.service.ts';
import type { ProjectAccess } from '../../kit/access.ts';
import type { PageContext } from '../../kit/context.ts';
import { Notice, Time } from '../../kit/fields.tsx';
import { Csrf } from '../../kit/layout.tsx';
import { Pager } from '../../kit/paging.tsx';
import { SeverityBadge } from '../../kit/severity.tsx';
import { ProjectPage } from '../project-page.tsx';
import { ACTION_LABELS, CONDITION_LABELS, automationUrl, automationsUrl, triggerLabel } from './labels.ts';

/** What a dry run would have matched, and why. */
export function DryRunResults({ run }: { run: DryRun }) {
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
                    {c.triggers.map(triggerLabel).join(', ')}
                    {c.matched_keys.length > 0 && (
                      <div class="muted">matched {c.matched_keys.map(vendorKeyLabel).join(', ')}</div>
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

/** One action's result in an execution. */
type Result = { action: string; status: 'success' | 'skipped' | 'failed'; details: Record<string, unknown> };

const STATUS_BADGE = { success: 'ok', skipped: 'neutral', failed: 'danger' } as const;

/** An action's result: success, skipped or failed. */
export function ResultBadge({ status }: { status: Result['status'] }) {
  return <span class={`badge ${STATUS_BADGE[status] ?? 'neutral'}`}>{status}</span>;
}

/** An execution's results by action (none when what was stored is not a list). */
export function resultsOf(e: Pick<ExecutionRow, 'results'>): Result[] {
  return Array.isArray(e.results) ? (e.results as Result[]) : [];
}

/** What runs an automation, in words: its triggers, or its schedule. */
export function describeSchedule(a: AutomationView): string {
  if (a.trigger_type === 'alert') {
    const triggers = ((a.configuration.triggers as string[] | undefined) ?? []).map(triggerLabel);
    return `On changes: ${triggers.join(', ') || 'none'}`;
  }
  const day =
    a.frequency === 'weekly' && a.schedule_weekday !== null ? ` on ${WEEKDAYS[a.schedule_weekday]}` : '';
  return `Report ${a.frequency ?? ''}${day} at ${a.schedule_time ?? ''} ${a.schedule_timezone ?? ''}`.trim();
}

/** A condition's value in words: `Microsoft / Exchange Server`, "Evaluated", "9 (CVSS 4.0)". */
function conditionValueLabel(type: string, value: unknown): string {
  switch (type) {
    case 'vendor_equals':
      return typeof value === 'string' ? nameLabel(value) : String(value);
    case 'product_equals':
      return typeof value === 'string' ? vendorKeyLabel(value) : String(value);
    case 'cve_status':
      return typeof value === 'string' ? statusLabel(value) : String(value);
    default:
      if (value && typeof value === 'object') {
        const v = value as { value?: unknown; version?: unknown };
        return `${String(v.value)} (CVSS ${String(v.version)})`;
      }
      return String(value);
  }
}

/** An action's value in words: a status as "Evaluated", a name or an email as it is. */
const actionValueLabel = (type: string, value: unknown): string =>
  type === 'change_status' && typeof value === 'string' ? statusLabel(value) : String(value);

type StoredActions = { type: string; value?: unknown }[] | undefined;

/** A stored configuration's actions, in order and in words ("Set the status: Evaluated"). */
function ActionList({ actions }: { actions: StoredActions }) {
  return (
    <ol>
      {(actions ?? []).map((x) => (
        <li>
          {ACTION_LABELS[x.type as keyof typeof ACTION_LABELS] ?? x.type}
          {x.value !== undefined && x.value !== null && <>: {actionValueLabel(x.type, x.value)}</>}
        </li>
      ))}
    </ol>
  );
}

/** A stored condition tree as nested lists. */
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
        // KEV reads as a sentence: "In KEV", "Not in KEV".
        if (child.type === 'kev_present') return <li>{child.value === false ? 'Not in KEV' : 'In KEV'}</li>;
        const value =
          child.value === undefined ? '' : ` ${conditionValueLabel(child.type ?? '', child.value)}`;
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

/** An automation's page: what runs it, its conditions and actions, the owner's buttons, its executions. */
export function AutomationPage({
  ctx,
  access,
  automation: a,
  executions,
  page,
  pageSize,
  done,
  error,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  automation: AutomationView;
  /** One page of its executions, newest first, and how many there are. */
  executions: { count: number; items: ExecutionRow[] };
  page: number;
  pageSize: number;
  done?: string | undefined;
  /** A sentence about what was refused (Run now on an alert automation). */
  error?: string | undefined;
}) {
  const config = a.configuration as { conditions?: unknown; actions?: StoredActions };
  return (
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
        <a href={automationsUrl(access)}>Automations</a>
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
          <ActionList actions={config.actions} />
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
    </ProjectPage>
  );
}

/** The page of a saved automation's dry run. */
export function DryRunPage({
  ctx,
  access,
  automation: a,
  run,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  automation: AutomationView;
  run: DryRun;
}) {
  return (
    <ProjectPage ctx={ctx} access={access} tab="automations" title={`Dry run of ${a.name}`}>
      <div class="crumbs">
        <a href={automationsUrl(access)}>Automations</a> /{' '}
        <a href={automationUrl(access, a.name)}>{a.name}</a>
      </div>
      <p class="muted">
        {describeSchedule(a)}. The project's recorded changes of the last {run.days} days, evaluated with the
        automation's {a.trigger_type === 'alert' ? 'triggers and ' : ''}conditions as CVEs are now; nothing
        acts.
      </p>
      <details class="card ab-dry-run-config" open>
        <summary>Its conditions and actions</summary>
        <ConditionTree node={(a.configuration as { conditions?: unknown }).conditions} />
        <h3>Actions it would take</h3>
        <ActionList actions={(a.configuration as { actions?: StoredActions }).actions} />
      </details>
      <DryRunResults run={run} />
    </ProjectPage>
  );
}

/** The button that disables an enabled automation, or enables a disabled one. */
export function EnableForm({
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

/** The button that deletes an automation, after asking. */
export function DeleteForm({
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
