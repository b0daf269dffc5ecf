/**
 * The event processor's SQL: the cursor over recorded changes and EPSS moves, and the set-based
 * match of a chunk of them to the active projects whose subscriptions cover the CVE. Everything here
 * runs inside the processor's transaction.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';
import type { ChangeEntry } from '../domain/cve-change.ts';
import type { CveFacts } from '../domain/cve-facts.ts';
import { matchProjects, type KeyFlag, type ProjectMatch } from '../domain/project-events.ts';
import { keywordFlagKey } from '../domain/keywords.ts';
import { INVENTORY_FLAG, type InventoryEventDetails } from '../domain/inventory.ts';
import { CVE_FACT_COLUMNS, cveFactsOf, type PrefixedCveFacts } from './cve-facts.ts';

const KEYWORD_FLAG = keywordFlagKey('');

type Executor = Kysely<DB> | Transaction<DB>;

/** Recorded changes, EPSS moves, and CVEs inventories bring into projects (migration 0041). */
export type EventStream = 'changes' | 'epss' | 'inventory';

/** A recorded change (or an EPSS move), with the CVE as it is now. */
export interface StreamItem {
  seq: number;
  /** cve_change.id; null for an EPSS move. */
  changeId: string | null;
  cveId: string;
  changedAt: Date;
  entries: ChangeEntry[];
  epss: { old: number | null; new: number } | null;
  cve: CveFacts;
  /** A change recorded elsewhere and imported (OpenCVE's KB history): history, not news. */
  imported: boolean;
  /** Set for an `inventory` item: the CVE an inventory brings into one project. */
  inventory: InventoryEventDetails | null;
}

const json = (v: unknown) => JSON.stringify(v);

export class EventRepository {
  constructor(private readonly db: Executor) {}

  /** The stream's position, locked until the transaction ends: one processor at a time. */
  async lockCursor(stream: EventStream): Promise<number> {
    const row = await sql<{ seq: string }>`
      SELECT seq FROM event_cursor WHERE stream = ${stream} FOR UPDATE`.execute(this.db);
    return Number(row.rows[0]?.seq ?? 0);
  }

  async advanceCursor(stream: EventStream, seq: number): Promise<void> {
    await sql`UPDATE event_cursor SET seq = ${seq}, updated_at = now() WHERE stream = ${stream}`.execute(
      this.db,
    );
  }

  /** Up to `limit` items after `afterSeq`, in order, with their CVE as it is now. */
  async readChunk(stream: EventStream, afterSeq: number, limit: number): Promise<StreamItem[]> {
    // The CVE's columns as `cve_<column>` (the change's own `created_at` is another).
    const cveColumns = sql.join(
      CVE_FACT_COLUMNS.map((c) => sql`${sql.ref(`c.${c}`)} AS ${sql.ref(`cve_${c}`)}`),
    );
    const rows =
      stream === 'changes'
        ? await sql<ChunkRow>`
            SELECT ch.seq, ch.id AS change_id, ch.cve_id, ch.created_at AS changed_at, ch.data,
                   ch.origin IS NOT NULL AS imported,
                   NULL::float8 AS old_score, NULL::float8 AS new_score, ${cveColumns}
              FROM cve_change ch JOIN cve c ON c.cve_id = ch.cve_id
             WHERE ch.seq > ${afterSeq}
             ORDER BY ch.seq LIMIT ${limit}`.execute(this.db)
        : stream === 'epss'
          ? await sql<ChunkRow>`
            SELECT m.seq, NULL::uuid AS change_id, m.cve_id, m.created_at AS changed_at, '[]'::jsonb AS data,
                   false AS imported, m.old_score, m.new_score, ${cveColumns}
              FROM epss_move m JOIN cve c ON c.cve_id = m.cve_id
             WHERE m.seq > ${afterSeq}
             ORDER BY m.seq LIMIT ${limit}`.execute(this.db)
          : await sql<ChunkRow>`
            SELECT e.seq, NULL::uuid AS change_id, e.cve_id, e.created_at AS changed_at, '[]'::jsonb AS data,
                   false AS imported, NULL::float8 AS old_score, NULL::float8 AS new_score,
                   e.data AS inventory, ${cveColumns}
              FROM inventory_event e JOIN cve c ON c.cve_id = e.cve_id
             WHERE e.seq > ${afterSeq}
             ORDER BY e.seq LIMIT ${limit}`.execute(this.db);
    return rows.rows.map((r) => ({
      seq: Number(r.seq),
      changeId: r.change_id,
      cveId: r.cve_id,
      changedAt: new Date(r.changed_at),
      entries: r.data,
      epss: r.new_score === null ? null : { old: r.old_score, new: r.new_score },
      cve: cveFactsOf(r, 'cve_'),
      imported: r.imported,
      inventory: r.inventory ?? null,
    }));
  }

  /**
   * The active projects with enabled alert automations that each item concerns, in item order. One
   * statement fetches those projects' subscriptions among the items' keys, and their keywords among
   * the items' keyword flags (a few tens of thousands
   * of rows on a busy day); `matchProjects` (domain/project-events.ts) turns them into the
   * hundreds of thousands of (project, item) pairs without a row each.
   */
  async alertMatches(items: readonly { seq: number; flags: readonly KeyFlag[] }[]): Promise<ProjectMatch[]> {
    const all = [...new Set(items.flatMap((i) => i.flags.map((f) => f.key)))];
    // Keyword flags (`keywordFlagKey`) are matched to the projects watching the keyword.
    const keys = all.filter((k) => !k.startsWith(KEYWORD_FLAG) && !k.startsWith(INVENTORY_FLAG));
    const keywords = all.filter((k) => k.startsWith(KEYWORD_FLAG)).map((k) => k.slice(KEYWORD_FLAG.length));
    // Inventory flags (`inventoryFlagKey`) name their project.
    const inventoryProjects = all
      .filter((k) => k.startsWith(INVENTORY_FLAG))
      .map((k) => k.slice(INVENTORY_FLAG.length));
    if (!all.length) return [];
    const alerting = sql`(SELECT DISTINCT a.project_id FROM automation a JOIN project p ON p.id = a.project_id
               WHERE p.active AND a.is_enabled AND a.trigger_type = 'alert')`;
    const rows = await sql<{ project_id: string; keys: string[] }>`
      SELECT x.project_id, array_agg(x.key) AS keys FROM (
        SELECT s.project_id, s.vendor_key AS key
          FROM project_subscription s JOIN ${alerting} e ON e.project_id = s.project_id
         WHERE s.vendor_key = ANY(${keys}::text[])
        UNION ALL
        SELECT k.project_id, ${KEYWORD_FLAG} || k.keyword
          FROM project_keyword k JOIN ${alerting} e ON e.project_id = k.project_id
         WHERE k.keyword = ANY(${keywords}::text[])
        UNION ALL
        SELECT e.project_id, ${INVENTORY_FLAG} || e.project_id::text
          FROM ${alerting} e
         WHERE e.project_id = ANY(${inventoryProjects}::uuid[])) x
       GROUP BY x.project_id`.execute(this.db);
    return matchProjects(
      items,
      rows.rows.map((r) => ({ projectId: r.project_id, keys: r.keys })),
    );
  }

  /** The subscribed keys of each project. */
  async subscribedKeys(projectIds: readonly string[]): Promise<Map<string, Set<string>>> {
    const out = new Map<string, Set<string>>();
    if (!projectIds.length) return out;
    const rows = await this.db
      .selectFrom('project_subscription')
      .select(['project_id', 'vendor_key'])
      .where('project_id', 'in', [...projectIds])
      .execute();
    for (const r of rows) {
      const keys = out.get(r.project_id) ?? new Set<string>();
      keys.add(r.vendor_key);
      out.set(r.project_id, keys);
    }
    return out;
  }

  /** Tracker status and assignee email of each (project, CVE) pair that has an entry. */
  async trackerStates(
    pairs: readonly { projectId: string; cveId: string }[],
  ): Promise<Map<string, { status: string | null; assignee: string | null }>> {
    const out = new Map<string, { status: string | null; assignee: string | null }>();
    if (!pairs.length) return out;
    const rows = await sql<{
      project_id: string;
      cve_id: string;
      status: string | null;
      assignee: string | null;
    }>`
      SELECT t.project_id, t.cve_id, t.status, u.email AS assignee
        FROM jsonb_to_recordset(${json(pairs.map((p) => ({ project_id: p.projectId, cve_id: p.cveId })))}::jsonb)
             AS x(project_id uuid, cve_id text)
        JOIN tracker_entry t ON t.project_id = x.project_id AND t.cve_id = x.cve_id
        LEFT JOIN app_user u ON u.id = t.assignee_id`.execute(this.db);
    for (const r of rows.rows)
      out.set(`${r.project_id} ${r.cve_id}`, { status: r.status, assignee: r.assignee });
    return out;
  }

  /** Name, organization id and organization name of each project. */
  async projectInfo(
    projectIds: readonly string[],
  ): Promise<Map<string, { name: string; organizationId: string; organization: string }>> {
    const out = new Map<string, { name: string; organizationId: string; organization: string }>();
    if (!projectIds.length) return out;
    const rows = await this.db
      .selectFrom('project as p')
      .innerJoin('organization as o', 'o.id', 'p.organization_id')
      .select(['p.id', 'p.name', 'p.organization_id', 'o.name as organization'])
      .where('p.id', 'in', [...projectIds])
      .execute();
    for (const r of rows)
      out.set(r.id, { name: r.name, organizationId: r.organization_id, organization: r.organization });
    return out;
  }

  /** Deletes EPSS moves already processed and older than `before` (they are only the processor's input). */
  async purgeEpssMoves(uptoSeq: number, before: Date): Promise<void> {
    await sql`DELETE FROM epss_move WHERE seq <= ${uptoSeq} AND created_at < ${before}`.execute(this.db);
  }
}

interface ChunkRow extends PrefixedCveFacts<'cve_'> {
  seq: string;
  change_id: string | null;
  cve_id: string;
  changed_at: Date;
  data: ChangeEntry[];
  imported: boolean;
  old_score: number | null;
  new_score: number | null;
  inventory?: InventoryEventDetails | null;
}
