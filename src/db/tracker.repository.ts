/**
 * The CVE tracker of projects: one entry per (project, CVE) with a triage status and an assignee,
 * created on the first move; comments on a project's CVE. "The project's CVEs" are the catalog CVEs
 * whose vendor keys overlap the project's subscriptions (`vendors && keys`, GIN-indexed), REJECTED
 * ones excepted.
 */
import {
  sql,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type SqlBool,
  type Transaction,
} from 'kysely';
import type { DB } from './schema.ts';
import { statementBatches } from './batches.ts';
import type { TriageStatus } from '../domain/triage.ts';

type Executor = Kysely<DB> | Transaction<DB>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const COMMENT_COLUMNS = [
  'id',
  'cve_id',
  'created_at',
  'edited_at',
  'author_type',
  'author_id',
  'author_name',
  'body',
] as const;

/** A comment on a project's CVE; `author_id` is the user's id or the token's id. */
export interface CommentRow {
  id: string;
  cve_id: string;
  created_at: Date;
  edited_at: Date | null;
  author_type: 'user' | 'token';
  author_id: string;
  author_name: string;
  body: string;
}

/** A tracker entry as the API shows it; every field null for an untracked CVE. */
export interface TrackerState {
  status: string | null;
  assignee_id: string | null;
  assignee: string | null;
  assigned_at: Date | null;
  updated_at: Date | null;
}

export interface ProjectCveRow extends TrackerState {
  cve_id: string;
  description: string | null;
  created_at: Date;
  updated_at_cve: Date;
  /** Whether a tracker entry exists (it may exist with every field cleared). */
  tracked: boolean;
}

/** The tracker filters of a project's CVE list. */
export interface TrackerFilter {
  /** A status, or null for CVEs without one (untracked, or the status cleared). */
  status?: TriageStatus | null | undefined;
  /** An assignee, or null for CVEs nobody is assigned to. */
  assigneeId?: string | null | undefined;
}

/** The values of one tracker entry to write; `assigned_at: 'now'` stamps it with the database clock. */
export interface TrackerWrite {
  cve_id: string;
  status: string | null;
  assignee_id: string | null;
  assigned_at: Date | 'now' | null;
}

/** A comment to write: on a CVE of the project, by a person or a token. */
export interface NewComment {
  projectId: string;
  cveId: string;
  authorType: 'user' | 'token';
  authorId: string;
  authorName: string;
  body: string;
}

export class TrackerRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * The CVEs among `cveIds` that belong to the project (subscribed vendor keys, watched keywords or inventories, not REJECTED), each
   * with its tracker entry: one query, LEFT JOINed.
   */
  projectCves(
    projectId: string,
    keys: readonly string[],
    cveIds: readonly string[],
    tx: Executor = this.db,
  ): Promise<ProjectCveRow[]> {
    return tx
      .selectFrom('cve as c')
      .leftJoin('tracker_entry as te', (join) =>
        join.onRef('te.cve_id', '=', 'c.cve_id').on('te.project_id', '=', projectId),
      )
      .leftJoin('app_user as u', 'u.id', 'te.assignee_id')
      .select([
        'c.cve_id',
        'c.description',
        'c.created_at',
        'c.updated_at as updated_at_cve',
        'te.status',
        'te.assignee_id',
        'u.email as assignee',
        'te.assigned_at',
        'te.updated_at',
        sql<boolean>`te.project_id IS NOT NULL`.as('tracked'),
      ])
      .where(sql<SqlBool>`c.cve_id = ANY(${[...cveIds]}::text[])`)
      .where(
        sql<SqlBool>`(c.vendors && ${[...keys]}::text[] OR EXISTS (
          SELECT 1 FROM cve_keyword ck JOIN project_keyword pk ON pk.keyword = ck.keyword
           WHERE ck.cve_id = c.cve_id AND pk.project_id = ${projectId}) OR EXISTS (
          SELECT 1 FROM inventory_cve x WHERE x.project_id = ${projectId} AND x.cve_id = c.cve_id))`,
      )
      .where('c.state', '<>', 'REJECTED')
      .orderBy('c.cve_id')
      .execute();
  }

  /** The tracker entries of some CVEs of a project (a list page), by CVE id. */
  async entries(
    projectId: string,
    cveIds: readonly string[],
    tx: Executor = this.db,
  ): Promise<Map<string, TrackerState>> {
    if (!cveIds.length) return new Map();
    const rows = await tx
      .selectFrom('tracker_entry as te')
      .leftJoin('app_user as u', 'u.id', 'te.assignee_id')
      .select([
        'te.cve_id',
        'te.status',
        'te.assignee_id',
        'u.email as assignee',
        'te.assigned_at',
        'te.updated_at',
      ])
      .where('te.project_id', '=', projectId)
      .where(sql<SqlBool>`te.cve_id = ANY(${[...cveIds]}::text[])`)
      .execute();
    return new Map(rows.map(({ cve_id, ...state }) => [cve_id, state]));
  }

  /** The condition on `cve` for one CVE (for CveFilters.where): a row of the tracker read again. */
  onlyCve(cveId: string): (eb: ExpressionBuilder<DB, 'cve'>) => Expression<SqlBool> {
    return (eb) => eb('cve.cve_id', '=', cveId);
  }

  /**
   * The condition on `cve` for the tracker filters (for CveFilters.where). "No status" is an anti-join
   * on the project's entries. A status or an assignee selects few CVEs: their ids are read first,
   * from the project's entries (`ARRAY(…)`, evaluated once), and the CVEs fetched by primary key; as
   * a semi-join the planner would walk the `updated_at` index probing each CVE, which is slow when the
   * matching ones are old (measured: 600 ms against 5 ms on a 300k catalog, docs/api-v2.md).
   */
  filter(
    projectId: string,
    f: TrackerFilter,
  ): ((eb: ExpressionBuilder<DB, 'cve'>) => Expression<SqlBool>) | undefined {
    if (f.status === undefined && f.assigneeId === undefined) return undefined;
    return (eb) => {
      let entries = eb.selectFrom('tracker_entry as te').where('te.project_id', '=', projectId);
      // Untracked CVEs have neither a status nor an assignee: "none" is an anti-join on the entries
      // that have one (the other filter, when set to a value, is then a condition of those entries).
      if (f.status === null || f.assigneeId === null) {
        const having = entries
          .select(sql`1`.as('one'))
          .whereRef('te.cve_id', '=', 'cve.cve_id')
          .where((w) =>
            w.or([
              ...(f.status === null ? [w('te.status', 'is not', null)] : []),
              ...(f.assigneeId === null ? [w('te.assignee_id', 'is not', null)] : []),
            ]),
          );
        if (
          f.status === undefined ||
          f.assigneeId === undefined ||
          (f.status === null && f.assigneeId === null)
        )
          return eb.not(eb.exists(having));
        // One value, one "none": the entries with the value and without the other.
        if (f.status === null) entries = entries.where('te.status', 'is', null);
        else entries = entries.where('te.status', '=', f.status);
        if (f.assigneeId === null) entries = entries.where('te.assignee_id', 'is', null);
        else entries = entries.where('te.assignee_id', '=', f.assigneeId);
        return sql<SqlBool>`${eb.ref('cve.cve_id')} = ANY(ARRAY(${entries.select('te.cve_id')}))`;
      }
      if (f.status !== undefined) entries = entries.where('te.status', '=', f.status);
      if (f.assigneeId !== undefined) entries = entries.where('te.assignee_id', '=', f.assigneeId);
      return sql<SqlBool>`${eb.ref('cve.cve_id')} = ANY(ARRAY(${entries.select('te.cve_id')}))`;
    };
  }

  /** Writes entries (insert or update), all in one statement; updated_at is the database's now(). */
  async upsert(projectId: string, writes: readonly TrackerWrite[], tx: Executor): Promise<void> {
    for (const batch of statementBatches(writes, 5))
      await tx
        .insertInto('tracker_entry')
        .values(
          batch.map((w) => ({
            project_id: projectId,
            cve_id: w.cve_id,
            status: w.status,
            assignee_id: w.assignee_id,
            assigned_at: w.assigned_at === 'now' ? sql<Date>`now()` : w.assigned_at,
          })),
        )
        .onConflict((oc) =>
          oc.columns(['project_id', 'cve_id']).doUpdateSet((eb) => ({
            status: eb.ref('excluded.status'),
            assignee_id: eb.ref('excluded.assignee_id'),
            assigned_at: eb.ref('excluded.assigned_at'),
            updated_at: sql<Date>`now()`,
          })),
        )
        .execute();
  }

  /** Clears the user's assignments in the organization's projects; returns what was unassigned. */
  async unassignUser(
    organizationId: string,
    userId: string,
    tx: Executor,
  ): Promise<{ project: string; cve_id: string }[]> {
    const rows = await sql<{ project: string; cve_id: string }>`
      UPDATE tracker_entry t SET assignee_id = NULL, assigned_at = NULL, updated_at = now()
        FROM project p
       WHERE p.id = t.project_id AND p.organization_id = ${organizationId} AND t.assignee_id = ${userId}
      RETURNING p.name AS project, t.cve_id`.execute(tx);
    return rows.rows;
  }

  /** The user of a joined membership of the organization with this email (the user's email). */
  joinedMember(
    organizationId: string,
    email: string,
    tx: Executor = this.db,
  ): Promise<{ id: string; email: string } | undefined> {
    return tx
      .selectFrom('membership as m')
      .innerJoin('app_user as u', 'u.id', 'm.user_id')
      .select(['u.id', 'u.email'])
      .where('m.organization_id', '=', organizationId)
      .where('m.date_joined', 'is not', null)
      .where('u.email', '=', email)
      .executeTakeFirst();
  }

  /** The organization's joined members (who may be assigned), by username. */
  joinedMembers(organizationId: string): Promise<{ id: string; email: string; username: string }[]> {
    return this.db
      .selectFrom('membership as m')
      .innerJoin('app_user as u', 'u.id', 'm.user_id')
      .select(['u.id', 'u.email', 'u.username'])
      .where('m.organization_id', '=', organizationId)
      .where('m.date_joined', 'is not', null)
      .orderBy('u.username')
      .execute();
  }

  async userIdByEmail(email: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('app_user')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirst();
    return row?.id;
  }

  async countComments(projectId: string, cveId: string): Promise<number> {
    const row = await this.db
      .selectFrom('tracker_comment')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('project_id', '=', projectId)
      .where('cve_id', '=', cveId)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  /** Comments oldest first (a conversation reads top-down). */
  listComments(projectId: string, cveId: string, limit: number, offset: number): Promise<CommentRow[]> {
    return this.db
      .selectFrom('tracker_comment')
      .select(COMMENT_COLUMNS)
      .where('project_id', '=', projectId)
      .where('cve_id', '=', cveId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  addComment(values: NewComment, tx: Executor = this.db): Promise<CommentRow> {
    return tx
      .insertInto('tracker_comment')
      .values({
        project_id: values.projectId,
        cve_id: values.cveId,
        author_type: values.authorType,
        author_id: values.authorId,
        author_name: values.authorName,
        body: values.body,
        created_at: sql<Date>`clock_timestamp()`,
      })
      .returning(COMMENT_COLUMNS)
      .executeTakeFirstOrThrow();
  }

  /** Comments on many CVEs at once (an upload resolving thousands). */
  async addComments(values: readonly NewComment[], tx: Executor = this.db): Promise<void> {
    for (const batch of statementBatches(values, 6))
      await tx
        .insertInto('tracker_comment')
        .values(
          batch.map((v) => ({
            project_id: v.projectId,
            cve_id: v.cveId,
            author_type: v.authorType,
            author_id: v.authorId,
            author_name: v.authorName,
            body: v.body,
            created_at: sql<Date>`clock_timestamp()`,
          })),
        )
        .execute();
  }

  /** One comment on a CVE of the project (undefined for another project's, or an id that is no UUID). */
  findComment(projectId: string, cveId: string, id: string): Promise<CommentRow | undefined> {
    if (!UUID.test(id)) return Promise.resolve(undefined);
    return this.db
      .selectFrom('tracker_comment')
      .select(COMMENT_COLUMNS)
      .where('project_id', '=', projectId)
      .where('cve_id', '=', cveId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Replaces a comment's text and stamps it edited (the database clock). */
  editComment(id: string, body: string, tx: Executor): Promise<CommentRow> {
    return tx
      .updateTable('tracker_comment')
      .set({ body, edited_at: sql<Date>`clock_timestamp()` })
      .where('id', '=', id)
      .returning(COMMENT_COLUMNS)
      .executeTakeFirstOrThrow();
  }

  async deleteComment(id: string, tx: Executor): Promise<void> {
    await tx.deleteFrom('tracker_comment').where('id', '=', id).execute();
  }

  /** The role of a joined member of the organization (undefined for anyone else). */
  async memberRole(organizationId: string, userId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('membership')
      .select('role')
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .where('date_joined', 'is not', null)
      .executeTakeFirst();
    return row?.role;
  }
}
