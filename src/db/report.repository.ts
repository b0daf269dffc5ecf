/** Reports (one per report automation and period, or one per alert `generate_report`) and their CVEs. */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';
import { inventoryHadAt } from './inventory.repository.ts';
import { keywordFlagKey } from '../domain/keywords.ts';
import { inventoryFlagKey, type InventoryEventDetails } from '../domain/inventory.ts';
import type { KeyFlag } from '../domain/project-events.ts';
import type { ProjectEventEntry } from '../domain/automation.ts';
import {
  WEEKLY_MIN_DAYS,
  type ReportPeriodType,
  type ReportRow,
  type ReportSummary,
} from '../domain/report.ts';
import type { ChangeEntry } from '../domain/cve-change.ts';
import type { CveFacts } from '../domain/cve-facts.ts';
import { CVE_FACT_COLUMNS, cveFactsOf } from './cve-facts.ts';

type Executor = Kysely<DB> | Transaction<DB>;

export interface ReportItemRow {
  id: string;
  report_id: string;
  cve_id: string;
  matched_keys: string[];
  event_types: string[];
  change_ids: string[];
  events: ProjectEventEntry[];
  highest_cvss: number | null;
  created_at: Date;
}

export interface NewReportItem {
  cve_id: string;
  matched_keys: string[];
  event_types: string[];
  change_ids: string[];
  events: ProjectEventEntry[];
  highest_cvss: number | null;
}

/**
 * A recorded change, EPSS move or inventory event of a report's period, with its CVE as it is now.
 */
export interface PeriodItem {
  cve_id: string;
  /** Null for an EPSS move or an inventory event. */
  change_id: string | null;
  changed_at: Date;
  entries: ChangeEntry[];
  epss: { old: number | null; new: number } | null;
  cve: { state: string; vendors: string[] };
  highest_cvss: number | null;
  /** Set for an inventory event: the CVE an inventory brought into the project. */
  inventory: InventoryEventDetails | null;
  /** The project's inventory flag (`inventoryFlagKey`) when an inventory event, or an inventory having the changed CVE, brings it. */
  flags: KeyFlag[];
}

export interface ReportChangeRow {
  id: string;
  created_at: Date;
  cve_id: string;
  types: string[];
  data: unknown[];
}

export class ReportRepository {
  constructor(private readonly db: Kysely<DB>) {}

  private reports(tx: Executor = this.db) {
    return tx
      .selectFrom('report as r')
      .leftJoin('automation as a', 'a.id', 'r.automation_id')
      .select([
        'r.id',
        'r.link',
        'r.project_id',
        'r.automation_id',
        'a.name as automation_name',
        'a.schedule_timezone as automation_timezone',
        'r.period_start',
        'r.period_end',
        'r.created_at',
        sql<ReportSummary>`r.summary`.as('summary'),
      ]);
  }

  /**
   * The changes and EPSS moves recorded in [start, end) — and since the project exists: a new
   * project's first report is not the catalog's history — of the CVEs that carry one of the
   * project's subscribed keys now (or match one of its keywords: a key `keyword <keyword>`), or that
   * one of its inventories had at the change (found at or before it, not resolved before it: the
   * flag `inventoryFlagKey(projectId)`, there before the change, so a change never brings such a CVE
   * in), and the project's inventory events of the period (the CVE an inventory newly found, entering
   * the project unless it was the project's already); oldest first, and those keys. Which of them
   * concern the project, and how, is domain/project-events.ts's to say, as for alerts.
   */
  async periodItems(
    projectId: string,
    start: Date,
    end: Date,
    tx: Executor = this.db,
    /** False: the whole period, even before the project existed (a dry run's "what would it have matched"). */
    sinceProjectCreation = true,
  ): Promise<{ keys: Set<string>; items: PeriodItem[] }> {
    const subscribed = await tx
      .selectFrom('project_subscription')
      .select('vendor_key')
      .where('project_id', '=', projectId)
      .execute();
    const keys = subscribed.map((r) => r.vendor_key);
    // Watched keywords count as keys the CVE carries while it matches them (`keywordFlagKey`); a
    // report cannot tell when a keyword started to match, so a CVE enters through one only when new.
    const watched = await tx
      .selectFrom('project_keyword')
      .select('keyword')
      .where('project_id', '=', projectId)
      .execute();
    const keywords = watched.map((r) => r.keyword);
    // An inventory's CVEs (found, even when resolved since) and events: a deleted inventory's events happened.
    const inventories = await sql<{ any: boolean }>`
      SELECT EXISTS (SELECT 1 FROM inventory_cve WHERE project_id = ${projectId})
          OR EXISTS (SELECT 1 FROM inventory_event WHERE project_id = ${projectId}) AS any`.execute(tx);
    const hasInventories = inventories.rows[0]?.any ?? false;
    if (!keys.length && !keywords.length && !hasInventories) return { keys: new Set(), items: [] };
    if (sinceProjectCreation) {
      const project = await tx
        .selectFrom('project')
        .select('created_at')
        .where('id', '=', projectId)
        .executeTakeFirstOrThrow();
      if (new Date(project.created_at) > start) start = new Date(project.created_at);
    }
    const rows = await sql<{
      cve_id: string;
      change_id: string | null;
      changed_at: Date;
      data: ChangeEntry[];
      old_score: number | null;
      new_score: number | null;
      inventory: InventoryEventDetails | null;
      in_inventory: boolean;
      state: string;
      vendors: string[];
      keywords: string[];
      highest_cvss: number | null;
    }>`
      SELECT * FROM (
        SELECT x.*, c.state, c.vendors, greatest(c.cvss20, c.cvss30, c.cvss31, c.cvss40) AS highest_cvss,
               ARRAY(SELECT ck.keyword FROM cve_keyword ck
                      WHERE ck.cve_id = c.cve_id AND ck.keyword = ANY(${keywords}::text[])) AS keywords,
               x.inventory IS NULL AND ${inventoryHadAt(projectId, sql`x.cve_id`, sql`x.changed_at`)} AS in_inventory
          FROM (SELECT ch.cve_id, ch.id AS change_id, ch.created_at AS changed_at, ch.data, ch.seq, 0 AS kind,
                       NULL::float8 AS old_score, NULL::float8 AS new_score, NULL::jsonb AS inventory
                  FROM cve_change ch WHERE ch.created_at >= ${start} AND ch.created_at < ${end}
                   AND ch.origin IS NULL
                UNION ALL
                SELECT m.cve_id, NULL, m.created_at, '[]'::jsonb, m.seq, 1, m.old_score, m.new_score, NULL
                  FROM epss_move m WHERE m.created_at >= ${start} AND m.created_at < ${end}
                UNION ALL
                SELECT e.cve_id, NULL, e.created_at, '[]'::jsonb, e.seq, 2, NULL, NULL, e.data
                  FROM inventory_event e
                 WHERE e.project_id = ${projectId} AND e.created_at >= ${start} AND e.created_at < ${end}) x
          JOIN cve c ON c.cve_id = x.cve_id
         -- The candidates first (keyword matches and inventory CVEs read once: \`ARRAY(…)\`), then the
         -- exact rule on them.
         WHERE x.inventory IS NOT NULL OR c.vendors && ${keys}::text[]
            OR c.cve_id = ANY(ARRAY(SELECT ck.cve_id FROM cve_keyword ck WHERE ck.keyword = ANY(${keywords}::text[])))
            OR c.cve_id = ANY(ARRAY(SELECT ic.cve_id FROM inventory_cve ic WHERE ic.project_id = ${projectId}))) y
       WHERE y.inventory IS NOT NULL OR y.in_inventory OR y.vendors && ${keys}::text[]
          OR cardinality(y.keywords) > 0
       ORDER BY y.changed_at, y.cve_id, y.kind, y.seq`.execute(tx);
    const inventoryKey = inventoryFlagKey(projectId);
    return {
      keys: new Set([...keys, ...keywords.map(keywordFlagKey), ...(hasInventories ? [inventoryKey] : [])]),
      items: rows.rows.map((r) => ({
        cve_id: r.cve_id,
        change_id: r.change_id,
        changed_at: new Date(r.changed_at),
        entries: r.data,
        epss: r.new_score === null ? null : { old: r.old_score, new: r.new_score },
        cve: { state: r.state, vendors: [...r.vendors, ...r.keywords.map(keywordFlagKey)] },
        highest_cvss: r.highest_cvss,
        inventory: r.inventory,
        flags: r.inventory
          ? [{ key: inventoryKey, now: true, before: !r.inventory.enters }]
          : r.in_inventory
            ? [{ key: inventoryKey, now: true, before: true }]
            : [],
      })),
    };
  }

  async exists(automationId: string, start: Date, end: Date): Promise<boolean> {
    const row = await this.db
      .selectFrom('report')
      .select('id')
      .where('automation_id', '=', automationId)
      .where('period_start', '=', start)
      .where('period_end', '=', end)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The end of the automation's newest report period. */
  async lastPeriodEnd(automationId: string): Promise<Date | undefined> {
    const row = await this.db
      .selectFrom('report')
      .select(sql<Date | null>`max(period_end)`.as('end'))
      .where('automation_id', '=', automationId)
      .executeTakeFirst();
    return row?.end ? new Date(row.end) : undefined;
  }

  /** What reports and their payloads show of each CVE, as it is now. */
  async cveSummaries(ids: readonly string[], tx: Executor = this.db): Promise<Map<string, CveFacts>> {
    const out = new Map<string, CveFacts>();
    if (!ids.length) return out;
    const rows = await tx
      .selectFrom('cve')
      .select(CVE_FACT_COLUMNS)
      .where('cve_id', 'in', [...ids])
      .execute();
    for (const r of rows) out.set(r.cve_id, cveFactsOf(r, ''));
    return out;
  }

  /** The dates of these CVEs (a report's CVEs are shown as CVE list items, with them). */
  async cveDates(ids: readonly string[]): Promise<Map<string, { created_at: Date; updated_at: Date }>> {
    if (!ids.length) return new Map();
    const rows = await this.db
      .selectFrom('cve')
      .select(['cve_id', 'created_at', 'updated_at'])
      .where('cve_id', 'in', [...ids])
      .execute();
    return new Map(
      rows.map((r) => [r.cve_id, { created_at: new Date(r.created_at), updated_at: new Date(r.updated_at) }]),
    );
  }

  /** Creates a report with its CVEs; undefined when the automation already has one for the period. */
  async create(
    report: {
      link: string;
      project_id: string;
      automation_id: string | null;
      period_start: Date;
      period_end: Date;
      summary: ReportSummary;
    },
    items: readonly NewReportItem[],
    tx: Executor = this.db,
  ): Promise<ReportRow | undefined> {
    const row = await tx
      .insertInto('report')
      .values({ ...report, summary: JSON.stringify(report.summary) })
      .onConflict((oc) => oc.columns(['automation_id', 'period_start', 'period_end']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!row) return undefined;
    for (let i = 0; i < items.length; i += 1000) {
      await tx
        .insertInto('report_item')
        .values(
          items
            .slice(i, i + 1000)
            .map((it) => ({ ...it, report_id: row.id, events: JSON.stringify(it.events) })),
        )
        .execute();
    }
    return this.reports(tx).where('r.id', '=', row.id).executeTakeFirstOrThrow();
  }

  async count(projectId: string, periodType?: ReportPeriodType): Promise<number> {
    const row = await this.db
      .selectFrom('report as r')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('r.project_id', '=', projectId)
      .$if(periodType !== undefined, (q) => q.where(periodIs(periodType!)))
      .executeTakeFirstOrThrow();
    return row.n;
  }

  list(
    projectId: string,
    limit: number,
    offset: number,
    periodType?: ReportPeriodType,
  ): Promise<ReportRow[]> {
    return this.reports()
      .where('r.project_id', '=', projectId)
      .$if(periodType !== undefined, (q) => q.where(periodIs(periodType!)))
      .orderBy('r.created_at', 'desc')
      .orderBy('r.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  find(projectId: string, id: string): Promise<ReportRow | undefined> {
    return this.reports().where('r.project_id', '=', projectId).where('r.id', '=', id).executeTakeFirst();
  }

  findByLink(link: string): Promise<ReportRow | undefined> {
    return this.reports().where('r.link', '=', link).executeTakeFirst();
  }

  /** The reports of these projects, newest first (API v1: the reports of a user's projects). */
  async countForProjects(projectIds: readonly string[]): Promise<number> {
    if (!projectIds.length) return 0;
    const row = await this.db
      .selectFrom('report')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('project_id', 'in', [...projectIds])
      .executeTakeFirstOrThrow();
    return row.n;
  }

  listForProjects(projectIds: readonly string[], limit: number, offset: number): Promise<ReportRow[]> {
    if (!projectIds.length) return Promise.resolve([]);
    return this.reports()
      .where('r.project_id', 'in', [...projectIds])
      .orderBy('r.created_at', 'desc')
      .orderBy('r.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /** The matched vendor keys of each report's CVEs, united per report. */
  async matchedKeys(reportIds: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (!reportIds.length) return out;
    const rows = await sql<{ report_id: string; keys: string[] }>`
      SELECT i.report_id, array_agg(DISTINCT k ORDER BY k) AS keys
        FROM report_item i, unnest(i.matched_keys) AS k
       WHERE i.report_id = ANY(${[...reportIds]}::uuid[])
       GROUP BY i.report_id`.execute(this.db);
    for (const r of rows.rows) out.set(r.report_id, r.keys);
    return out;
  }

  /**
   * The send actions' results of the executions that made this report, each with its delivery's
   * status and last error when it queued one (oldest execution first).
   */
  async sends(reportId: string): Promise<
    {
      result: { action: string; status: string; details: Record<string, unknown> };
      delivery: { status: string; error: string | null } | undefined;
    }[]
  > {
    const executions = await this.db
      .selectFrom('automation_execution')
      .select('results')
      .where('report_id', '=', reportId)
      .orderBy('executed_at')
      .execute();
    const results = executions
      .flatMap((e) => e.results as { action: string; status: string; details?: Record<string, unknown> }[])
      .filter((r) => r.action === 'send_notification')
      .map((r) => ({ ...r, details: r.details ?? {} }));
    const ids = results.map((r) => r.details.delivery).filter((id): id is string => typeof id === 'string');
    const deliveries = new Map(
      ids.length
        ? (
            await this.db
              .selectFrom('delivery')
              .select(['id', 'status', 'attempts'])
              .where('id', 'in', ids)
              .execute()
          ).map((d) => {
            const last = (d.attempts as { error?: string | null }[]).at(-1);
            return [d.id, { status: d.status as string, error: last?.error ?? null }] as const;
          })
        : [],
    );
    return results.map((result) => ({
      result,
      delivery:
        typeof result.details.delivery === 'string' ? deliveries.get(result.details.delivery) : undefined,
    }));
  }

  async countItems(reportId: string): Promise<number> {
    const row = await this.db
      .selectFrom('report_item')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('report_id', '=', reportId)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  items(reportId: string, limit = 100_000, offset = 0): Promise<ReportItemRow[]> {
    return this.db
      .selectFrom('report_item')
      .selectAll()
      .where('report_id', '=', reportId)
      .orderBy('highest_cvss', (ob) => ob.desc().nullsLast())
      .orderBy('cve_id')
      .limit(limit)
      .offset(offset)
      .execute() as Promise<ReportItemRow[]>;
  }

  item(reportId: string, id: string): Promise<ReportItemRow | undefined> {
    return this.db
      .selectFrom('report_item')
      .selectAll()
      .where('report_id', '=', reportId)
      .where('id', '=', id)
      .executeTakeFirst() as Promise<ReportItemRow | undefined>;
  }

  /** The recorded changes with these ids, oldest first. */
  changes(ids: readonly string[]): Promise<ReportChangeRow[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.db
      .selectFrom('cve_change')
      .select(['id', 'created_at', 'cve_id', 'types', sql<unknown[]>`data`.as('data')])
      .where('id', 'in', [...ids])
      .orderBy('seq')
      .execute();
  }
}

/** A report's period type as `reportPeriodType` (domain/report.ts) decides it, in SQL. */
function periodIs(periodType: ReportPeriodType) {
  const weekly = sql<boolean>`(r.period_end - r.period_start) >= make_interval(days => ${WEEKLY_MIN_DAYS})`;
  return periodType === 'weekly' ? weekly : sql<boolean>`NOT ${weekly}`;
}
