/** Projects of an organization and their subscriptions (one row per vendor key). */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';
import { PreparedQuery } from './prepared.ts';
import type { ProjectRow } from '../domain/project.ts';

type Executor = Kysely<DB> | Transaction<DB>;

/** A project as its CVE list needs it (see migration 0010 for `listVersion`). */
export interface ListedProject {
  id: string;
  keys: string[];
  /**
   * CVEs of its own beyond its subscribed keys: keyword matches (migration 0039) and inventory
   * findings (0041); its list holds them, and moves its list version with them.
   */
  hasOwnCves: boolean;
  listVersion: number;
}

export class ProjectRepository {
  /** A project's list reads this on every request: a prepared statement (see prepared.ts). */
  private readonly listedByName: PreparedQuery<ListedProject, [organizationId: string, name: string]>;

  constructor(private readonly db: Kysely<DB>) {
    const keys = sql<string[]>`ARRAY(
      SELECT s.vendor_key FROM project_subscription s WHERE s.project_id = p.id ORDER BY s.vendor_key)`;
    this.listedByName = new PreparedQuery(
      db,
      db
        .selectFrom('project as p')
        .select([
          'p.id',
          sql<number>`p.list_version`.as('listVersion'),
          keys.as('keys'),
          // Inventories too (migration 0041): their CVEs are the project's as the keywords' are.
          sql<boolean>`(EXISTS (SELECT 1 FROM project_keyword k WHERE k.project_id = p.id)
                       OR EXISTS (SELECT 1 FROM inventory i WHERE i.project_id = p.id))`.as('hasOwnCves'),
        ])
        .where('p.organization_id', '=', '')
        .where('p.name', '=', '')
        // An inactive project's CVE list is a 404 (docs/api-v2.md): it is not listed here.
        .where(sql<boolean>`p.active`),
    );
  }

  /**
   * An active project of the organization, by name, with its subscribed vendor keys (sorted) and list
   * version.
   */
  async listed(organizationId: string, name: string): Promise<ListedProject | undefined> {
    const row = await this.listedByName.executeTakeFirst(organizationId, name);
    return row && { ...row, listVersion: Number(row.listVersion) };
  }

  private projects(tx: Executor = this.db) {
    return tx
      .selectFrom('project as p')
      .select([
        'p.id',
        'p.organization_id',
        'p.name',
        'p.description',
        'p.active',
        'p.created_at',
        'p.updated_at',
        sql<number>`(SELECT count(*)::int FROM project_subscription s WHERE s.project_id = p.id)`.as(
          'subscriptions_count',
        ),
      ]);
  }

  async count(organizationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('project')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  /** One page of an organization's projects, by name. */
  list(organizationId: string, limit: number, offset: number): Promise<ProjectRow[]> {
    return this.projects()
      .where('p.organization_id', '=', organizationId)
      .orderBy('p.name')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /**
   * For each project, its CVEs (those carrying a subscribed key or matching a watched keyword, REJECTED
   * excepted, counted among the first `cap` `cve_vendor` and `cve_keyword` rows: `capped` when the
   * cap was reached) and its tracker
   * entries in one of the `open` statuses. The CVE count reads at most `cap` index rows and their
   * `cve` rows, whatever the size of the project.
   */
  async listCounts(
    projectIds: readonly string[],
    cap: number,
    open: readonly string[],
  ): Promise<Map<string, { cves: number; capped: boolean; open: number }>> {
    if (!projectIds.length) return new Map();
    const rows = await sql<{ id: string; read: number; cves: number; open: number }>`
      SELECT p.id, c.read, c.cves,
        (SELECT count(*)::int FROM tracker_entry t
          WHERE t.project_id = p.id AND t.status = ANY(${[...open]}::text[])) AS open
      FROM project p
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS read,
               count(DISTINCT x.cve_id) FILTER (WHERE x.state <> 'REJECTED')::int AS cves
        FROM (SELECT cv.cve_id, cve.state FROM project_subscription s
                JOIN cve_vendor cv ON cv.vendor_key = s.vendor_key
                JOIN cve ON cve.cve_id = cv.cve_id
               WHERE s.project_id = p.id
              UNION ALL
              SELECT ck.cve_id, cve.state FROM project_keyword pk
                JOIN cve_keyword ck ON ck.keyword = pk.keyword
                JOIN cve ON cve.cve_id = ck.cve_id
               WHERE pk.project_id = p.id
              UNION ALL
              SELECT x.cve_id, cve.state FROM inventory_cve x
                JOIN cve ON cve.cve_id = x.cve_id
               WHERE x.project_id = p.id
              LIMIT ${cap}) x) c
      WHERE p.id = ANY(${[...projectIds]}::uuid[])`.execute(this.db);
    return new Map(rows.rows.map((r) => [r.id, { cves: r.cves, capped: r.read >= cap, open: r.open }]));
  }

  findById(id: string, tx?: Executor): Promise<ProjectRow | undefined> {
    return this.projects(tx).where('p.id', '=', id).executeTakeFirst();
  }

  findByName(organizationId: string, name: string, tx?: Executor): Promise<ProjectRow | undefined> {
    return this.projects(tx)
      .where('p.organization_id', '=', organizationId)
      .where('p.name', '=', name)
      .executeTakeFirst();
  }

  async nameTaken(organizationId: string, name: string, tx: Executor = this.db): Promise<boolean> {
    const row = await tx
      .selectFrom('project')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row !== undefined;
  }

  async create(
    values: { organizationId: string; name: string; description: string; active: boolean },
    tx: Executor,
  ): Promise<string> {
    const row = await tx
      .insertInto('project')
      .values({
        organization_id: values.organizationId,
        name: values.name,
        description: values.description,
        active: values.active,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /**
   * Locks the project row against concurrent writers of the same project (subscriptions, tracker)
   * until the transaction ends. `NO KEY UPDATE` leaves inserts referencing the project unblocked.
   * False when the project is gone (deleted since it was read).
   */
  async lock(id: string, tx: Transaction<DB>): Promise<boolean> {
    const result = await sql`SELECT id FROM project WHERE id = ${id} FOR NO KEY UPDATE`.execute(tx);
    return result.rows.length > 0;
  }

  async update(
    id: string,
    values: { name?: string; description?: string; active?: boolean },
    tx: Executor,
  ): Promise<void> {
    await tx
      .updateTable('project')
      .set({ ...values, updated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .execute();
  }

  async delete(id: string, tx: Executor): Promise<void> {
    await tx.deleteFrom('project').where('id', '=', id).execute();
  }

  /**
   * Every project of the organization (by name) with those of `keys` it subscribes to: what a CVE page
   * shows beside each of the CVE's vendors and products.
   */
  async subscribedAmong(
    organizationId: string,
    keys: readonly string[],
  ): Promise<{ name: string; active: boolean; keys: string[] }[]> {
    return this.db
      .selectFrom('project as p')
      .select([
        'p.name',
        'p.active',
        sql<string[]>`ARRAY(
          SELECT s.vendor_key FROM project_subscription s
           WHERE s.project_id = p.id AND s.vendor_key = ANY(${[...keys]}::text[])
           ORDER BY s.vendor_key)`.as('keys'),
      ])
      .where('p.organization_id', '=', organizationId)
      .orderBy('p.name')
      .execute();
  }

  /** Every project (active or not, of any organization) subscribed to `key`, by organization and name. */
  async subscribersOf(key: string): Promise<{ id: string; organizationId: string; name: string }[]> {
    return this.db
      .selectFrom('project as p')
      .innerJoin('project_subscription as s', 's.project_id', 'p.id')
      .select(['p.id', 'p.organization_id as organizationId', 'p.name'])
      .where('s.vendor_key', '=', key)
      .orderBy('p.organization_id')
      .orderBy('p.name')
      .execute();
  }

  /** The subscribed vendor keys, sorted. */
  async subscriptionKeys(projectId: string, tx: Executor = this.db): Promise<string[]> {
    const rows = await tx
      .selectFrom('project_subscription')
      .select('vendor_key')
      .where('project_id', '=', projectId)
      .orderBy('vendor_key')
      .execute();
    return rows.map((r) => r.vendor_key);
  }

  /** Makes the subscriptions exactly `keys`: two set-based statements, returning what they changed. */
  async replaceSubscriptions(
    projectId: string,
    keys: string[],
    tx: Executor,
  ): Promise<{ added: string[]; removed: string[] }> {
    const removed = await sql<{ vendor_key: string }>`
      DELETE FROM project_subscription
       WHERE project_id = ${projectId} AND NOT (vendor_key = ANY(${keys}::text[]))
      RETURNING vendor_key`.execute(tx);
    const added = await sql<{ vendor_key: string }>`
      INSERT INTO project_subscription (project_id, vendor_key)
      SELECT ${projectId}, k FROM unnest(${keys}::text[]) AS k
      ON CONFLICT DO NOTHING
      RETURNING vendor_key`.execute(tx);
    return {
      added: added.rows.map((r) => r.vendor_key).sort(),
      removed: removed.rows.map((r) => r.vendor_key).sort(),
    };
  }

  /** Adds one subscription; false when the project already had it. */
  async addSubscription(projectId: string, key: string, tx: Executor): Promise<boolean> {
    const rows = await tx
      .insertInto('project_subscription')
      .values({ project_id: projectId, vendor_key: key })
      .onConflict((oc) => oc.doNothing())
      .returning('vendor_key')
      .execute();
    return rows.length > 0;
  }

  /** Removes one subscription; false when the project did not have it. */
  async removeSubscription(projectId: string, key: string, tx: Executor): Promise<boolean> {
    const rows = await tx
      .deleteFrom('project_subscription')
      .where('project_id', '=', projectId)
      .where('vendor_key', '=', key)
      .returning('vendor_key')
      .execute();
    return rows.length > 0;
  }
}
