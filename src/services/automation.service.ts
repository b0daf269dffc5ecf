/**
 * Automations of a project (docs/notifications.md): alert automations run on each matched change (see
 * EventProcessor), report automations on their schedule (see ReportService). Here: create, read,
 * change, delete (each audited), their executions, and running a report automation now.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AutomationRepository, type AutomationValues } from '../db/automation.repository.ts';
import type {
  AutomationRow,
  AutomationTrigger,
  AutomationView,
  AutomationWithLatest,
  ReportFrequency,
} from '../domain/automation.ts';
import { weekdayNumber, WEEKDAYS, type Weekday } from '../domain/automation-execution.ts';
import { AuditRepository } from '../db/audit.repository.ts';
import { NotificationRepository } from '../db/notification.repository.ts';
import { TrackerRepository } from '../db/tracker.repository.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';
import type { Actor } from '../domain/actor.ts';
import {
  conditionProblems,
  configurationShapeProblems,
  REPORT_FREQUENCIES,
  triggersFire,
  type AlertTrigger,
  type AutomationAction,
  type ConditionGroup,
} from '../domain/automation.ts';
import { AppError, validationError } from '../domain/errors.ts';
import { EMAIL, isReservedName, NAME_MESSAGES, normalizeEmail, PROJECT_NAME } from '../domain/names.ts';
import { isTimeZone, SCHEDULE_TIME } from '../domain/report.ts';
import { TRIAGE_STATUSES } from '../domain/triage.ts';
import { assertPageInRange, offsetOf, type PageRequest } from '../domain/paging.ts';
import type { ProjectService } from './project.service.ts';
import type { ReportService } from './report.service.ts';

export interface AutomationInput {
  name: string;
  is_enabled?: boolean | undefined;
  trigger_type: AutomationTrigger;
  frequency?: ReportFrequency | undefined;
  schedule_time?: string | undefined;
  schedule_timezone?: string | undefined;
  /** A name (`monday`, as OpenCVE writes it) or a number (0 Sunday … 6 Saturday). */
  schedule_weekday?: Weekday | number | undefined;
  configuration: {
    triggers?: AlertTrigger[] | undefined;
    conditions?: ConditionGroup | undefined;
    actions: AutomationAction[];
  };
}

export type AutomationPatch = Partial<AutomationInput>;

/** One CVE a dry run matched: what it is, and why (the triggers its changes fired, the subscriptions it matched). */
export interface DryRunCve {
  cve_id: string;
  title: string | null;
  highest_cvss: number | null;
  kev: boolean;
  epss: number | null;
  triggers: string[];
  matched_keys: string[];
}

/** What an automation would have matched from `since` to `until` (`count` CVEs; `cves` the first 500, highest CVSS first). */
export interface DryRun {
  since: Date;
  until: Date;
  days: number;
  count: number;
  cves: DryRunCve[];
}

const DAY_MS = 86_400_000;
const DRY_RUN_DAYS = 7;
const DRY_RUN_LISTED = 500;

export class AutomationService {
  private readonly automations: AutomationRepository;
  private readonly notifications: NotificationRepository;
  private readonly tracker: TrackerRepository;
  private readonly audit: AuditRepository;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly projects: ProjectService,
    private readonly reports: ReportService,
  ) {
    this.automations = new AutomationRepository(db);
    this.notifications = new NotificationRepository(db);
    this.tracker = new TrackerRepository(db);
    this.audit = new AuditRepository(db);
  }

  async list(organizationId: string, projectName: string, page: PageRequest) {
    const project = await this.projects.findActive(organizationId, projectName);
    const count = await this.automations.count(project.id);
    assertPageInRange(page, count);
    return {
      count,
      items: await this.withLastExecution(
        await this.automations.list(project.id, page.pageSize, offsetOf(page)),
      ),
    };
  }

  /** A page of the project's automations, each with its latest execution (two reads, whatever their number). */
  async listWithLatestExecution(
    organizationId: string,
    projectName: string,
    page: PageRequest,
  ): Promise<{ count: number; items: AutomationWithLatest[] }> {
    const project = await this.projects.findActive(organizationId, projectName);
    const count = await this.automations.count(project.id);
    assertPageInRange(page, count);
    const rows = await this.automations.list(project.id, page.pageSize, offsetOf(page));
    const latest = await this.automations.latestExecutions(rows.map((r) => r.id));
    return {
      count,
      items: rows.map((r) => {
        const execution = latest.get(r.id) ?? null;
        return { ...r, last_execution_at: execution?.executed_at ?? null, latest_execution: execution };
      }),
    };
  }

  async get(organizationId: string, projectName: string, name: string): Promise<AutomationView> {
    const [view] = await this.withLastExecution([
      (await this.find(organizationId, projectName, name)).automation,
    ]);
    return view!;
  }

  /** The automations with when each last ran. */
  private async withLastExecution(rows: AutomationRow[]): Promise<AutomationView[]> {
    const last = await this.automations.lastExecutedAt(rows.map((r) => r.id));
    return rows.map((r) => ({ ...r, last_execution_at: last.get(r.id) ?? null }));
  }

  async create(
    organizationId: string,
    projectName: string,
    input: AutomationInput,
    actor: Actor,
  ): Promise<AutomationView> {
    const project = await this.projects.findActive(organizationId, projectName);
    const values = await this.validated(organizationId, project.id, input);
    const created = await this.uniqueName(() =>
      this.db.transaction().execute(async (tx) => {
        const created = await this.automations.create(values, tx);
        await this.audit.record(
          {
            organizationId,
            actor,
            action: 'automation.create',
            resourceType: 'automation',
            resourceId: created.id,
            resourceName: `${project.name}/${created.name}`,
            changes: {
              name: { old: null, new: created.name },
              trigger_type: { old: null, new: created.trigger_type },
            },
          },
          tx,
        );
        return created;
      }),
    );
    return { ...created, last_execution_at: null };
  }

  /** Changes the fields given (the result is validated as a whole, like a create). */
  async update(
    organizationId: string,
    projectName: string,
    name: string,
    patch: AutomationPatch,
    actor: Actor,
  ): Promise<AutomationView> {
    const { project, automation } = await this.find(organizationId, projectName, name);
    const merged: AutomationInput = {
      name: patch.name ?? automation.name,
      is_enabled: patch.is_enabled ?? automation.is_enabled,
      trigger_type: patch.trigger_type ?? automation.trigger_type,
      frequency: patch.frequency ?? automation.frequency ?? undefined,
      schedule_time: patch.schedule_time ?? automation.schedule_time ?? undefined,
      schedule_timezone: patch.schedule_timezone ?? automation.schedule_timezone ?? undefined,
      schedule_weekday: patch.schedule_weekday ?? automation.schedule_weekday ?? undefined,
      configuration: (patch.configuration ?? automation.configuration) as AutomationInput['configuration'],
    };
    if (merged.trigger_type === 'alert' && patch.trigger_type === 'alert') {
      merged.frequency = patch.frequency;
      merged.schedule_time = patch.schedule_time;
      merged.schedule_timezone = patch.schedule_timezone;
      merged.schedule_weekday = patch.schedule_weekday;
    }
    // Weekly to daily: the stored weekday goes too (the body cannot clear it: it takes no null).
    if (merged.frequency === 'daily' && patch.schedule_weekday === undefined)
      merged.schedule_weekday = undefined;
    const values = await this.validated(organizationId, project.id, merged);
    const changes: Record<string, { old: unknown; new: unknown }> = {};
    for (const key of Object.keys(values) as (keyof AutomationValues)[]) {
      if (canonical(values[key]) !== canonical(automation[key]))
        changes[key] = { old: automation[key], new: values[key] };
    }
    if (!Object.keys(changes).length) return (await this.withLastExecution([automation]))[0]!;
    const updated = await this.uniqueName(() =>
      this.db.transaction().execute(async (tx) => {
        const updated = await this.automations.update(automation.id, values, tx);
        await this.audit.record(
          {
            organizationId,
            actor,
            action: 'automation.update',
            resourceType: 'automation',
            resourceId: automation.id,
            resourceName: `${project.name}/${updated.name}`,
            changes,
          },
          tx,
        );
        return updated;
      }),
    );
    return (await this.withLastExecution([updated]))[0]!;
  }

  async delete(organizationId: string, projectName: string, name: string, actor: Actor): Promise<void> {
    const { project, automation } = await this.find(organizationId, projectName, name);
    await this.db.transaction().execute(async (tx) => {
      await this.automations.delete(automation.id, tx);
      await this.audit.record(
        {
          organizationId,
          actor,
          action: 'automation.delete',
          resourceType: 'automation',
          resourceId: automation.id,
          resourceName: `${project.name}/${automation.name}`,
          changes: { name: { old: automation.name, new: null } },
        },
        tx,
      );
    });
  }

  async listExecutions(organizationId: string, projectName: string, name: string, page: PageRequest) {
    const { automation } = await this.find(organizationId, projectName, name);
    const count = await this.automations.countExecutions(automation.id);
    assertPageInRange(page, count);
    return {
      count,
      items: await this.automations.listExecutions(automation.id, page.pageSize, offsetOf(page)),
    };
  }

  async getExecution(organizationId: string, projectName: string, name: string, id: string) {
    const { automation } = await this.find(organizationId, projectName, name);
    const row = /^[0-9a-f-]{36}$/.test(id)
      ? await this.automations.findExecution(automation.id, id)
      : undefined;
    if (!row) throw new AppError('not_found');
    return row;
  }

  /** Runs a report automation now; 400 for an alert automation (those run on changes). */
  async run(organizationId: string, projectName: string, name: string) {
    const { automation } = await this.find(organizationId, projectName, name);
    if (automation.trigger_type !== 'report')
      throw validationError({ trigger_type: ['only report automations can be run on demand'] });
    await this.reports.runNow(organizationId, automation);
    const [execution] = await this.automations.listExecutions(automation.id, 1, 0);
    return execution!;
  }

  /**
   * What an automation would have matched over the project's recorded changes (and EPSS moves) of the
   * last `days` days, WITHOUT acting: the events each change brought the project, kept when one is a
   * trigger of the automation (alert; a report takes every event) and the CVE meets the conditions, as
   * the event processor and the reports decide (`triggersFire`, ReportService.periodMatches). For an
   * unsaved configuration (the web builder): its triggers and conditions are validated as a save would.
   */
  async dryRun(
    organizationId: string,
    projectName: string,
    input: Pick<AutomationInput, 'trigger_type' | 'configuration'>,
    { days = DRY_RUN_DAYS, now = new Date() }: { days?: number; now?: Date } = {},
  ): Promise<DryRun> {
    const project = await this.projects.findActive(organizationId, projectName);
    const problems = configurationShapeProblems(input.configuration);
    if (!problems.length) {
      const triggers = input.configuration.triggers ?? [];
      if (input.trigger_type === 'alert' && !triggers.length)
        problems.push('triggers: an alert automation needs at least one trigger');
      problems.push(
        ...conditionProblems(input.configuration.conditions ?? { operator: 'AND', children: [] }),
      );
    }
    if (problems.length) throw validationError({ configuration: problems });
    const config = input.configuration;
    const triggers = new Set<string>(input.trigger_type === 'alert' ? (config.triggers ?? []) : []);
    const period = { start: new Date(now.getTime() - days * DAY_MS), end: now };
    const { kept, cves } = await this.reports.periodMatches(
      project.id,
      config.conditions ?? { operator: 'AND', children: [] },
      period,
      now,
      this.db,
      { sinceProjectCreation: false },
    );
    const byCve = new Map<string, DryRunCve>();
    for (const e of kept) {
      if (input.trigger_type === 'alert' && !triggersFire(triggers, e.types)) continue;
      const fired = input.trigger_type === 'alert' ? e.types.filter((t) => triggers.has(t)) : e.types;
      const cve = cves.get(e.cve_id)!;
      const row = byCve.get(e.cve_id);
      if (row) {
        for (const t of fired) if (!row.triggers.includes(t)) row.triggers.push(t);
        continue;
      }
      byCve.set(e.cve_id, {
        cve_id: e.cve_id,
        title: cve.title,
        highest_cvss: e.highest_cvss,
        kev: cve.kev,
        epss: cve.epss,
        triggers: [...new Set(fired)],
        matched_keys: e.matched_keys,
      });
    }
    const rows = [...byCve.values()].sort(
      (a, b) => (b.highest_cvss ?? -1) - (a.highest_cvss ?? -1) || a.cve_id.localeCompare(b.cve_id),
    );
    return {
      since: period.start,
      until: period.end,
      days,
      count: rows.length,
      cves: rows.slice(0, DRY_RUN_LISTED),
    };
  }

  /** `dryRun` of a saved automation. */
  async dryRunSaved(organizationId: string, projectName: string, name: string, options: { now?: Date } = {}) {
    const { automation } = await this.find(organizationId, projectName, name);
    return this.dryRun(
      organizationId,
      projectName,
      {
        trigger_type: automation.trigger_type,
        configuration: automation.configuration as unknown as AutomationInput['configuration'],
      },
      options,
    );
  }

  private async find(organizationId: string, projectName: string, name: string) {
    const project = await this.projects.findActive(organizationId, projectName);
    const automation = PROJECT_NAME.test(name)
      ? await this.automations.findByName(project.id, name)
      : undefined;
    if (!automation) throw new AppError('not_found');
    return { project, automation };
  }

  /** The row values of a valid input; 400 naming every problem otherwise. */
  private async validated(
    organizationId: string,
    projectId: string,
    input: AutomationInput,
  ): Promise<AutomationValues> {
    const details: Record<string, string[]> = {};
    const add = (field: string, message: string) => (details[field] ??= []).push(message);
    if (!PROJECT_NAME.test(input.name))
      add(
        'name',
        'starts with a letter or digit; letters, digits, spaces and _ . - only; at most 100 characters',
      );
    else if (isReservedName(input.name)) add('name', NAME_MESSAGES.automation.reserved);
    if (input.trigger_type !== 'alert' && input.trigger_type !== 'report')
      add('trigger_type', 'alert (on changes) or report (on a schedule)');
    const shape = configurationShapeProblems(input.configuration);
    if (shape.length) {
      for (const p of shape) add('configuration', p);
      throw validationError(details);
    }
    const config = input.configuration;
    const triggers = config.triggers ?? [];
    const conditions = config.conditions ?? { operator: 'AND', children: [] };
    if (input.trigger_type === 'alert') {
      if (!triggers.length) add('configuration', 'triggers: an alert automation needs at least one trigger');
      for (const field of ['frequency', 'schedule_time', 'schedule_timezone', 'schedule_weekday'] as const)
        if (input[field] !== undefined) add(field, 'applies to report automations only');
    } else {
      if (triggers.length)
        add('configuration', 'triggers: report automations run on their schedule, not on triggers');
      if (!input.frequency) add('frequency', 'daily or weekly is required for a report automation');
      else if (!(REPORT_FREQUENCIES as readonly string[]).includes(input.frequency))
        add('frequency', 'daily or weekly');
      if (
        input.schedule_weekday !== undefined &&
        !(typeof input.schedule_weekday === 'number'
          ? Number.isInteger(input.schedule_weekday) &&
            input.schedule_weekday >= 0 &&
            input.schedule_weekday <= 6
          : (WEEKDAYS as readonly string[]).includes(input.schedule_weekday))
      )
        add('schedule_weekday', 'a weekday, monday to sunday');
      if (input.schedule_time !== undefined && !SCHEDULE_TIME.test(scheduleTime(input.schedule_time)))
        add('schedule_time', 'must be HH:MM or HH:MM:00 (24-hour), such as 09:00:00');
      if (input.schedule_timezone !== undefined && !isTimeZone(input.schedule_timezone))
        add('schedule_timezone', 'must be an IANA time zone such as Europe/Paris');
      if (input.frequency === 'daily' && input.schedule_weekday !== undefined)
        add('schedule_weekday', 'applies to weekly reports only');
    }
    for (const p of conditionProblems(conditions)) add('configuration', p);
    if (!config.actions.length) add('configuration', 'actions: at least one action');
    const notificationNames = new Set((await this.notifications.forProjects([projectId])).map((n) => n.name));
    for (const [i, action] of config.actions.entries()) {
      const at = `actions[${i}]`;
      switch (action.type) {
        case 'send_notification':
          if (typeof action.value !== 'string' || !notificationNames.has(action.value))
            add('configuration', `${at}: send_notification needs the name of a notification of this project`);
          break;
        case 'assign_user': {
          const email = typeof action.value === 'string' ? normalizeEmail(action.value) : '';
          if (!EMAIL.test(email) || !(await this.tracker.joinedMember(organizationId, email)))
            add('configuration', `${at}: assign_user needs the email of a joined member`);
          else action.value = email;
          break;
        }
        case 'change_status':
          if (
            typeof action.value !== 'string' ||
            !(TRIAGE_STATUSES as readonly string[]).includes(action.value)
          )
            add('configuration', `${at}: change_status needs one of ${TRIAGE_STATUSES.join(', ')}`);
          break;
        case 'generate_report':
          break;
      }
    }
    if (Object.keys(details).length) throw validationError(details);
    const report = input.trigger_type === 'report';
    return {
      project_id: projectId,
      name: input.name,
      is_enabled: input.is_enabled ?? true,
      trigger_type: input.trigger_type,
      frequency: report ? input.frequency! : null,
      schedule_time: report ? scheduleTime(input.schedule_time ?? '08:00') : null,
      schedule_timezone: report ? (input.schedule_timezone ?? 'UTC') : null,
      schedule_weekday:
        report && input.frequency === 'weekly' ? weekdayNumber(input.schedule_weekday ?? 1) : null,
      configuration: { triggers, conditions, actions: config.actions } as unknown as Record<string, unknown>,
    };
  }

  private async uniqueName<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isUniqueViolation(err)) throw validationError({ name: [NAME_MESSAGES.automation.taken] });
      throw err;
    }
  }
}

/** JSON with object keys sorted: a stored configuration (jsonb orders its keys) compared with a new one. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/** A run time as stored (`HH:MM`): OpenCVE's `HH:MM:SS` is taken with zero seconds. */
function scheduleTime(value: string): string {
  return /^\d{2}:\d{2}:00$/.test(value) ? value.slice(0, 5) : value;
}
