/** Automations of projects and their executions. */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';
import type { AutomationRow, ExecutionRow, ExecutionSummary } from '../domain/automation.ts';
import type { ExecutionCve } from '../domain/automation-execution.ts';

type Executor = Kysely<DB> | Transaction<DB>;

export type AutomationValues = Omit<AutomationRow, 'id' | 'created_at' | 'updated_at'>;

export interface NewExecution {
  automation_id: string;
  window_start: Date;
  window_end: Date;
  matched_cves_count: number;
  results: unknown[];
  report_id: string | null;
  /** The matched CVEs as they were (domain/automation-execution.ts). */
  cves: ExecutionCve[];
}

/** A report automation due for a run, with what the run needs to know of its project. */
export interface ScheduledAutomation extends AutomationRow {
  organization_id: string;
}

const COLUMNS = [
  'a.id',
  'a.project_id',
  'a.name',
  'a.is_enabled',
  'a.trigger_type',
  'a.frequency',
  'a.schedule_time',
  'a.schedule_timezone',
  'a.schedule_weekday',
  'a.configuration',
  'a.created_at',
  'a.updated_at',
] as const;

export class AutomationRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async count(projectId: string): Promise<number> {
    const row = await this.db
      .selectFrom('automation')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  list(projectId: string, limit: number, offset: number): Promise<AutomationRow[]> {
    return this.db
      .selectFrom('automation as a')
      .select(COLUMNS)
      .where('a.project_id', '=', projectId)
      .orderBy('a.name')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  findByName(projectId: string, name: string, tx: Executor = this.db): Promise<AutomationRow | undefined> {
    return tx
      .selectFrom('automation as a')
      .select(COLUMNS)
      .where('a.project_id', '=', projectId)
      .where('a.name', '=', name)
      .executeTakeFirst();
  }

  /** The enabled alert automations of these projects. */
  enabledAlerts(projectIds: readonly string[], tx: Executor = this.db): Promise<AutomationRow[]> {
    if (!projectIds.length) return Promise.resolve([]);
    return tx
      .selectFrom('automation as a')
      .innerJoin('project as p', 'p.id', 'a.project_id')
      .select(COLUMNS)
      .where('a.project_id', 'in', [...projectIds])
      .where('a.trigger_type', '=', 'alert')
      .where('a.is_enabled', '=', true)
      .where('p.active', '=', true)
      .orderBy('a.project_id')
      .orderBy('a.name')
      .execute();
  }

  /** Every enabled report automation of an active project. */
  enabledReports(): Promise<ScheduledAutomation[]> {
    return this.db
      .selectFrom('automation as a')
      .innerJoin('project as p', 'p.id', 'a.project_id')
      .select([...COLUMNS, 'p.organization_id'])
      .where('a.trigger_type', '=', 'report')
      .where('a.is_enabled', '=', true)
      .where('p.active', '=', true)
      .execute();
  }

  async create(values: AutomationValues, tx: Executor = this.db): Promise<AutomationRow> {
    const row = await tx
      .insertInto('automation')
      .values({ ...values, configuration: JSON.stringify(values.configuration) })
      .returning('id')
      .executeTakeFirstOrThrow();
    return (await this.findById(row.id, tx))!;
  }

  findById(id: string, tx: Executor = this.db): Promise<AutomationRow | undefined> {
    return tx.selectFrom('automation as a').select(COLUMNS).where('a.id', '=', id).executeTakeFirst();
  }

  async update(id: string, values: AutomationValues, tx: Executor = this.db): Promise<AutomationRow> {
    await tx
      .updateTable('automation')
      .set({ ...values, configuration: JSON.stringify(values.configuration), updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
    return (await this.findById(id, tx))!;
  }

  /** When each of `automationIds` last ran (absent: never). */
  async lastExecutedAt(automationIds: readonly string[]): Promise<Map<string, Date>> {
    if (!automationIds.length) return new Map();
    const rows = await this.db
      .selectFrom('automation_execution')
      .select(['automation_id', sql<Date>`max(executed_at)`.as('at')])
      .where('automation_id', 'in', [...automationIds])
      .groupBy('automation_id')
      .execute();
    return new Map(rows.map((r) => [r.automation_id, r.at]));
  }

  /**
   * The latest execution of each of `automationIds` (absent: never ran), in one query, without the
   * CVEs it matched. Latest as listExecutions orders them: by time, then by id.
   */
  async latestExecutions(automationIds: readonly string[]): Promise<Map<string, ExecutionSummary>> {
    if (!automationIds.length) return new Map();
    const rows = (await this.db
      .selectFrom('automation_execution')
      .distinctOn('automation_id')
      .select([
        'id',
        'automation_id',
        'executed_at',
        'window_start',
        'window_end',
        'matched_cves_count',
        'results',
        'report_id',
      ])
      .where('automation_id', 'in', [...automationIds])
      .orderBy('automation_id')
      .orderBy('executed_at', 'desc')
      .orderBy('id', 'desc')
      .execute()) as ExecutionSummary[];
    return new Map(rows.map((r) => [r.automation_id, r]));
  }

  /** Points the project's `send_notification` actions naming `from` at `to` (a renamed notification). */
  async renameNotification(
    projectId: string,
    from: string,
    to: string,
    tx: Executor = this.db,
  ): Promise<void> {
    await sql`
      UPDATE automation
         SET configuration = jsonb_set(configuration, '{actions}', (
               SELECT jsonb_agg(CASE WHEN a->>'type' = 'send_notification' AND a->>'value' = ${from}
                                     THEN jsonb_set(a, '{value}', to_jsonb(${to}::text)) ELSE a END
                                ORDER BY ord)
                 FROM jsonb_array_elements(configuration->'actions') WITH ORDINALITY AS x(a, ord))),
             updated_at = now()
       WHERE project_id = ${projectId}
         AND configuration->'actions' @> ${JSON.stringify([{ type: 'send_notification', value: from }])}::jsonb`.execute(
      tx,
    );
  }

  async delete(id: string, tx: Executor = this.db): Promise<void> {
    await tx.deleteFrom('automation').where('id', '=', id).execute();
  }

  async insertExecutions(rows: readonly NewExecution[], tx: Executor = this.db): Promise<string[]> {
    if (!rows.length) return [];
    const out = await tx
      .insertInto('automation_execution')
      .values(rows.map((r) => ({ ...r, results: JSON.stringify(r.results), cves: JSON.stringify(r.cves) })))
      .returning('id')
      .execute();
    return out.map((r) => r.id);
  }

  async countExecutions(automationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('automation_execution')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('automation_id', '=', automationId)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  listExecutions(automationId: string, limit: number, offset: number): Promise<ExecutionRow[]> {
    return this.db
      .selectFrom('automation_execution')
      .selectAll()
      .where('automation_id', '=', automationId)
      .orderBy('executed_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute() as Promise<ExecutionRow[]>;
  }

  findExecution(automationId: string, id: string): Promise<ExecutionRow | undefined> {
    return this.db
      .selectFrom('automation_execution')
      .selectAll()
      .where('automation_id', '=', automationId)
      .where('id', '=', id)
      .executeTakeFirst() as Promise<ExecutionRow | undefined>;
  }
}
