/**
 * The project dashboard's and the organization overview's reads (grouped queries: one per panel,
 * never one per project), the users' visits of a project and their Atom feeds (migration 0028).
 * "The project's CVEs" are those whose vendor keys overlap its subscriptions, and its own (keyword
 * matches, inventory findings: `ofProject`), REJECTED ones excepted, as in tracker.repository.ts. The
 * feed's read is dashboard-feed.ts's.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';
import { CATALOG_VERSION, CatalogVersion } from './catalog-version.ts';
import { readRecentChanges, type FeedOwn, type RecentChangeRow } from './dashboard-feed.ts';
import { CLOSED_STATUSES } from '../domain/triage.ts';
import type {
  AssignedCve,
  AssigneeCount,
  CatalogCell,
  CountCell,
  FeedCveFacts,
  OpenKevCve,
} from '../domain/dashboard.ts';

/** A user's feed of a project, found by its secret's hash, for a joined member of an active project. */
export interface FeedOwner {
  project_id: string;
  project: string;
  organization_id: string;
  organization: string;
  user_id: string;
  keys: string[];
  /** The project's watched keywords (migration 0039). */
  keywords: string[];
}

/** Grouped cells of one project of an organization. */
export interface OverviewCell {
  project: string;
  subscriptions: number;
  cvss31: number | null;
  kev: boolean;
  /** Published in the overview's week. */
  recent: boolean;
  count: number;
}

const closed = sql.join(CLOSED_STATUSES.map((s) => sql.lit(s)));
/** An open CVE: no tracker entry, no status, or a status that does not close it. */
const openEntry = sql`(te.status IS NULL OR te.status NOT IN (${closed}))`;
const highest = sql<number | null>`greatest(c.cvss20, c.cvss30, c.cvss31, c.cvss40)`;

/**
 * The CVE `c` is the project's: it carries one of `keys`, or, for a project with CVEs of its own
 * (`ownCvesProjectId`), one of its keywords matches it (`cve_keyword`) or one of its inventories has it
 * (`inventory_cve`), both read first: `ARRAY(…)`.
 */
function ofProject(keys: readonly string[], ownCvesProjectId: string | undefined) {
  if (ownCvesProjectId === undefined) return sql`c.vendors && ${[...keys]}::text[]`;
  return sql`(c.vendors && ${[...keys]}::text[] OR c.cve_id = ANY(ARRAY(
    SELECT ck.cve_id FROM project_keyword pk JOIN cve_keyword ck ON ck.keyword = pk.keyword
     WHERE pk.project_id = ${ownCvesProjectId}
    UNION ALL
    SELECT x.cve_id FROM inventory_cve x WHERE x.project_id = ${ownCvesProjectId})))`;
}

export class DashboardRepository {
  private readonly version: CatalogVersion;

  constructor(private readonly db: Kysely<DB>) {
    this.version = new CatalogVersion(db);
  }

  /**
   * Records a view of the dashboard at `now` and returns where its feed starts: the start kept by
   * the current visit (views less than `gapMs` apart are one visit), else the previous visit's time,
   * else (a first visit) `firstSince`; `first` while the user's first visit lasts. One statement.
   */
  async recordVisit(
    projectId: string,
    userId: string,
    now: Date,
    firstSince: Date,
    gapMs: number,
  ): Promise<{ since: Date; first: boolean }> {
    const sameVisitAfter = new Date(now.getTime() - gapMs);
    const { rows } = await sql<{ since: Date; first: boolean }>`
      INSERT INTO project_visit AS v (project_id, user_id, visited_at, since)
      VALUES (${projectId}, ${userId}, ${now}, ${firstSince})
      ON CONFLICT (project_id, user_id) DO UPDATE
         SET since = CASE WHEN v.visited_at > ${sameVisitAfter} THEN v.since
                          ELSE least(v.visited_at, ${now}) END,
             first = v.first AND v.visited_at > ${sameVisitAfter},
             visited_at = greatest(v.visited_at, ${now})
      RETURNING since, first`.execute(this.db);
    const row = rows[0]!;
    return { since: new Date(row.since), first: row.first };
  }

  /** The latest changes and inventory events of a project's feed: `readRecentChanges` (dashboard-feed.ts). */
  recentChanges(
    keys: readonly string[],
    since: Date,
    until: Date,
    limit: number,
    chunk?: number,
    own?: FeedOwn,
  ): Promise<RecentChangeRow[]> {
    return readRecentChanges(this.db, keys, since, until, limit, chunk, own);
  }

  /** What a feed shows of some CVEs, by id. */
  async cveFacts(cveIds: readonly string[]): Promise<Map<string, FeedCveFacts>> {
    if (!cveIds.length) return new Map();
    const { rows } = await sql<FeedCveFacts>`
      SELECT c.cve_id, c.title, c.description, c.cvss31, ${highest} AS highest_cvss, c.kev
        FROM cve c WHERE c.cve_id = ANY(${[...cveIds]}::text[])`.execute(this.db);
    return new Map(rows.map((r) => [r.cve_id, r]));
  }

  /** The catalog's version (src/db/catalog-version.ts). */
  catalogVersion(): Promise<number> {
    return this.version.read();
  }

  /**
   * CVEs carrying one of `keys` (or the own CVEs of `ownCvesProjectId`: keyword matches, inventory
   * findings; REJECTED ones excepted) grouped by CVSS 3.1 score and KEV, with the
   * catalog version read in the same statement: a pass over those CVEs (the `vendors` GIN index, or
   * a scan when they are a large part of the catalog), so callers keep it per version.
   */
  async catalogCells(
    keys: readonly string[],
    ownCvesProjectId?: string,
  ): Promise<{ version: number; cells: CatalogCell[] }> {
    if (!keys.length && ownCvesProjectId === undefined)
      return { version: await this.catalogVersion(), cells: [] };
    const { rows } = await sql<CatalogCell & { version: number }>`
      SELECT ${CATALOG_VERSION} AS version, c.cvss31, c.kev, count(*)::int AS count
        FROM cve c
       WHERE ${ofProject(keys, ownCvesProjectId)} AND c.state <> 'REJECTED'
       GROUP BY c.cvss31, c.kev`.execute(this.db);
    const version = rows[0] ? Number(rows[0].version) : await this.catalogVersion();
    return { version, cells: rows.map(({ cvss31, kev, count }) => ({ cvss31, kev, count })) };
  }

  /**
   * The project's CVEs with a triage status grouped by status, CVSS 3.1 score and KEV: from its
   * tracker entries (the primary key), each CVE by primary key.
   */
  async statusCells(projectId: string, keys: readonly string[], ownCves = false): Promise<CountCell[]> {
    if (!keys.length && !ownCves) return [];
    const { rows } = await sql<CountCell>`
      SELECT te.status, c.cvss31, c.kev, count(*)::int AS count
        FROM tracker_entry te
        JOIN cve c ON c.cve_id = te.cve_id
       WHERE te.project_id = ${projectId} AND te.status IS NOT NULL
         AND ${ofProject(keys, ownCves ? projectId : undefined)} AND c.state <> 'REJECTED'
       GROUP BY te.status, c.cvss31, c.kev`.execute(this.db);
    return rows;
  }

  /** The members holding the most open CVEs of the project (from its tracker entries). */
  async topAssignees(
    projectId: string,
    keys: readonly string[],
    limit: number,
    ownCves = false,
  ): Promise<AssigneeCount[]> {
    if (!keys.length && !ownCves) return [];
    const { rows } = await sql<AssigneeCount>`
      SELECT u.email, u.username, count(*)::int AS open
        FROM tracker_entry te
        JOIN app_user u ON u.id = te.assignee_id
        JOIN cve c ON c.cve_id = te.cve_id
       WHERE te.project_id = ${projectId} AND ${openEntry}
         AND ${ofProject(keys, ownCves ? projectId : undefined)} AND c.state <> 'REJECTED'
       GROUP BY u.email, u.username
       ORDER BY open DESC, u.email
       LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  /** The project's KEV CVEs still open, latest updated first (the KEV partial index of migration 0020). */
  async openKev(
    projectId: string,
    keys: readonly string[],
    limit: number,
    ownCves = false,
  ): Promise<OpenKevCve[]> {
    if (!keys.length && !ownCves) return [];
    const { rows } = await sql<OpenKevCve>`
      SELECT c.cve_id, c.title, c.description, c.cvss31, ${highest} AS highest_cvss, c.kev,
             te.status, u.email AS assignee
        FROM cve c
        LEFT JOIN tracker_entry te ON te.project_id = ${projectId} AND te.cve_id = c.cve_id
        LEFT JOIN app_user u ON u.id = te.assignee_id
       WHERE c.kev AND ${ofProject(keys, ownCves ? projectId : undefined)} AND c.state <> 'REJECTED'
         AND ${openEntry}
       ORDER BY c.updated_at DESC, c.cve_id DESC
       LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  /** The organization's active projects, by name, with their list version (migration 0010). */
  /**
   * Per active project of the organization (by name) that `userId` opened, where its dashboard's feed
   * would start if opened at `now` (as `recordVisit` decides, without recording anything): the
   * current visit's start while it lasts (views less than `gapMs` apart), else the last view.
   */
  async visitStarts(
    organizationId: string,
    userId: string,
    now: Date,
    gapMs: number,
  ): Promise<Map<string, Date>> {
    const sameVisitAfter = new Date(now.getTime() - gapMs);
    const rows = await this.db
      .selectFrom('project_visit as v')
      .innerJoin('project as p', 'p.id', 'v.project_id')
      .select([
        'p.name',
        sql<Date>`CASE WHEN v.visited_at > ${sameVisitAfter} THEN v.since ELSE least(v.visited_at, ${now}) END`.as(
          'since',
        ),
      ])
      .where('p.organization_id', '=', organizationId)
      .where('p.active', '=', true)
      .where('v.user_id', '=', userId)
      .execute();
    return new Map(rows.map((r) => [r.name, new Date(r.since)]));
  }

  async activeProjects(organizationId: string): Promise<{ name: string; list_version: number }[]> {
    const rows = await this.db
      .selectFrom('project')
      .select(['name', 'list_version'])
      .where('organization_id', '=', organizationId)
      .where('active', '=', true)
      .orderBy('name')
      .execute();
    return rows.map((r) => ({ name: r.name, list_version: Number(r.list_version) }));
  }

  /**
   * Every active project of the organization with its CVEs grouped by CVSS 3.1 score, KEV and
   * published since `weekStart`: one statement (a lateral join per project, each on the `vendors`
   * GIN index); a project without subscriptions is one row with a null cell.
   */
  async overviewCells(organizationId: string, weekStart: Date): Promise<OverviewCell[]> {
    const { rows } = await sql<{ [K in keyof OverviewCell]: OverviewCell[K] | null }>`
      SELECT p.name AS project, cardinality(k.keys) AS subscriptions, x.cvss31, x.kev, x.recent, x.count
        FROM project p
        CROSS JOIN LATERAL (
              SELECT ARRAY(SELECT s.vendor_key FROM project_subscription s WHERE s.project_id = p.id) AS keys) k
        LEFT JOIN LATERAL (
              SELECT c.cvss31, c.kev, c.created_at >= ${weekStart} AS recent, count(*)::int AS count
                FROM cve c
               WHERE c.vendors && k.keys AND c.state <> 'REJECTED'
               GROUP BY 1, 2, 3) x ON true
       WHERE p.organization_id = ${organizationId} AND p.active
       ORDER BY p.name`.execute(this.db);
    return rows.map((r) => ({
      project: r.project!,
      subscriptions: r.subscriptions ?? 0,
      cvss31: r.cvss31,
      kev: r.kev ?? false,
      recent: r.recent ?? false,
      count: r.count ?? 0,
    }));
  }

  /**
   * The CVEs of the organization's active projects whose status closes them, grouped by project,
   * CVSS 3.1 score and KEV: from the tracker entries, each CVE by primary key.
   */
  async overviewClosedCells(
    organizationId: string,
  ): Promise<{ project: string; cvss31: number | null; kev: boolean; count: number }[]> {
    const { rows } = await sql<{ project: string; cvss31: number | null; kev: boolean; count: number }>`
      SELECT p.name AS project, c.cvss31, c.kev, count(*)::int AS count
        FROM tracker_entry te
        JOIN project p ON p.id = te.project_id AND p.organization_id = ${organizationId} AND p.active
        JOIN cve c ON c.cve_id = te.cve_id
       WHERE te.status IN (${closed}) AND c.state <> 'REJECTED'
         AND c.vendors && ARRAY(SELECT s.vendor_key FROM project_subscription s WHERE s.project_id = p.id)
       GROUP BY p.name, c.cvss31, c.kev`.execute(this.db);
    return rows;
  }

  /** The members holding the most open CVEs across the organization's active projects. */
  async organizationAssignees(organizationId: string, limit: number): Promise<AssigneeCount[]> {
    const { rows } = await sql<AssigneeCount>`
      SELECT u.email, u.username, count(*)::int AS open
        FROM tracker_entry te
        JOIN project p ON p.id = te.project_id AND p.organization_id = ${organizationId} AND p.active
        JOIN app_user u ON u.id = te.assignee_id
        JOIN cve c ON c.cve_id = te.cve_id
       WHERE ${openEntry} AND c.state <> 'REJECTED'
         AND c.vendors && ARRAY(SELECT s.vendor_key FROM project_subscription s WHERE s.project_id = p.id)
       GROUP BY u.email, u.username
       ORDER BY open DESC, u.email
       LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  /**
   * The open CVEs assigned to `userId` across the organization's active projects, most severe first
   * (KEV, then CVSS 3.1), at most `limit`, and how many there are in all: counted as
   * `organizationAssignees` counts them, so the two agree.
   */
  async assignedTo(
    organizationId: string,
    userId: string,
    limit: number,
  ): Promise<{ total: number; cves: AssignedCve[] }> {
    const { rows } = await sql<AssignedCve & { total: number }>`
      SELECT p.name AS project, c.cve_id AS "cveId", c.title, c.cvss31, c.kev, te.status,
             count(*) OVER ()::int AS total
        FROM tracker_entry te
        JOIN project p ON p.id = te.project_id AND p.organization_id = ${organizationId} AND p.active
        JOIN cve c ON c.cve_id = te.cve_id
       WHERE te.assignee_id = ${userId} AND ${openEntry} AND c.state <> 'REJECTED'
         AND c.vendors && ARRAY(SELECT s.vendor_key FROM project_subscription s WHERE s.project_id = p.id)
       ORDER BY c.kev DESC, c.cvss31 DESC NULLS LAST, c.cve_id DESC, p.name
       LIMIT ${limit}`.execute(this.db);
    return { total: rows[0]?.total ?? 0, cves: rows.map(({ total: _, ...cve }) => cve) };
  }

  /** The user's feed of the project, if they made one. */
  async feed(projectId: string, userId: string): Promise<{ nonce: string; created_at: Date } | undefined> {
    return this.db
      .selectFrom('project_feed')
      .select(['nonce', 'created_at'])
      .where('project_id', '=', projectId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }

  /** Makes or replaces the user's feed of the project (the old URL stops working). */
  async setFeed(projectId: string, userId: string, nonce: string, secretHash: string): Promise<void> {
    await this.db
      .insertInto('project_feed')
      .values({ project_id: projectId, user_id: userId, nonce, secret_hash: secretHash })
      .onConflict((oc) =>
        oc.columns(['project_id', 'user_id']).doUpdateSet({
          nonce,
          secret_hash: secretHash,
          created_at: sql<Date>`now()`,
        }),
      )
      .execute();
  }

  /**
   * The feed whose secret hashes to `secretHash`, while its user is a joined member of the
   * project's organization and the project is active; undefined otherwise.
   */
  async feedByHash(secretHash: string): Promise<FeedOwner | undefined> {
    const { rows } = await sql<FeedOwner>`
      SELECT f.project_id, p.name AS project, p.organization_id, o.name AS organization, f.user_id,
             ARRAY(SELECT s.vendor_key FROM project_subscription s WHERE s.project_id = p.id) AS keys,
             ARRAY(SELECT k.keyword FROM project_keyword k WHERE k.project_id = p.id ORDER BY k.keyword) AS keywords
        FROM project_feed f
        JOIN project p ON p.id = f.project_id AND p.active
        JOIN organization o ON o.id = p.organization_id
        JOIN membership m ON m.organization_id = p.organization_id AND m.user_id = f.user_id
                         AND m.date_joined IS NOT NULL
       WHERE f.secret_hash = ${secretHash}`.execute(this.db);
    return rows[0];
  }
}
