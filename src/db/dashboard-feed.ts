/**
 * A project's feed of recent changes, the dashboard's, its "since your visit" count's and its Atom
 * feed's read (docs/web-ui.md, "Projects: dashboard"): the latest recorded changes of its CVEs (its
 * subscribed keys', watched keywords', inventories') and its inventory events, latest first. Which
 * of them concern the project, and how, is domain/project-events.ts's to say.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';
import { inventoryHadAt } from './inventory.repository.ts';
import type { ChangeEntry } from '../domain/cve-change.ts';
import { inventoryFlagKey, type InventoryEventDetails } from '../domain/inventory.ts';
import { keywordFlagKey } from '../domain/keywords.ts';
import type { KeyFlag } from '../domain/project-events.ts';

type Executor = Kysely<DB> | Transaction<DB>;

/** What a project has of its own beyond its subscribed keys. */
export interface FeedOwn {
  /** Watched keywords: a CVE one of them matches is the project's too, its `vendors` carrying `keywordFlagKey(k)`. */
  keywords?: readonly string[];
  /** A project with inventories (whose CVEs and events are its own). */
  inventoryProjectId?: string | undefined;
}

/**
 * A recorded change of one of a project's CVEs, or one of its inventory events, with the CVE's state
 * and keys now.
 */
export interface RecentChangeRow {
  /** Null for an inventory event. */
  change_id: string | null;
  /** The inventory event's seq; null for a change. */
  event_seq: number | null;
  cve_id: string;
  changed_at: Date;
  entries: ChangeEntry[];
  state: string;
  vendors: string[];
  /** Set for an inventory event: the CVE an inventory brought into the project. */
  inventory: InventoryEventDetails | null;
  /** The project's inventory flag (`inventoryFlagKey`) when an inventory event, or an inventory having the changed CVE, brings it. */
  flags: KeyFlag[];
}

/** Changes of the window read at once by `readRecentChanges`. */
const CHANGE_CHUNK = 2000;

/**
 * The latest `limit` changes recorded in [since, until) of CVEs carrying one of `keys` now, latest
 * first. Changes copied from OpenCVE's history (`origin`) are history, not news, as in reports.
 * Read in chunks of the window's latest changes (keyset on `(created_at, seq)`, the CVEs by
 * primary key) until `limit` match: a busy project stops after a chunk or two instead of joining
 * every change of the window, a quiet one reads the window once. With `own.inventoryProjectId`,
 * also the changes of CVEs that project's inventories had at the change (found at or before it,
 * not resolved before it), and its inventory events of the window, merged in time order.
 */
export async function readRecentChanges(
  db: Executor,
  keys: readonly string[],
  since: Date,
  until: Date,
  limit: number,
  chunk = CHANGE_CHUNK,
  own: FeedOwn = {},
): Promise<RecentChangeRow[]> {
  const keywords = own.keywords ?? [];
  const projectId = own.inventoryProjectId;
  if (!keys.length && !keywords.length && projectId === undefined) return [];
  const changes = await recentCatalogChanges(db, keys, since, until, limit, chunk, keywords, projectId);
  if (projectId === undefined) return changes;
  const events = await recentInventoryEvents(db, projectId, since, until, limit);
  return [...changes, ...events]
    .sort(
      (a, b) =>
        b.changed_at.getTime() - a.changed_at.getTime() ||
        Number(b.event_seq !== null) - Number(a.event_seq !== null),
    )
    .slice(0, limit);
}

/** The catalog's part of `readRecentChanges`: the changes, in chunks. */
async function recentCatalogChanges(
  db: Executor,
  keys: readonly string[],
  since: Date,
  until: Date,
  limit: number,
  chunk: number,
  keywords: readonly string[],
  inventoryProjectId: string | undefined,
): Promise<RecentChangeRow[]> {
  // One of the project's inventories had the CVE at the change.
  const inInventory =
    inventoryProjectId === undefined
      ? sql<boolean>`false`
      : inventoryHadAt(inventoryProjectId, sql`ch.cve_id`, sql`ch.created_at`);
  const flag = inventoryProjectId === undefined ? undefined : inventoryFlagKey(inventoryProjectId);
  const out: RecentChangeRow[] = [];
  let cursor: number | undefined;
  for (;;) {
    // The cursor's time is read again by its seq: a JavaScript Date would drop the microseconds,
    // and an import batch's changes all share one time.
    const after =
      cursor === undefined
        ? sql``
        : sql`AND (created_at, seq) < ((SELECT created_at FROM cve_change WHERE seq = ${cursor}), ${cursor})`;
    const { rows } = await sql<
      Omit<RecentChangeRow, 'flags' | 'inventory' | 'event_seq'> & {
        seq: number;
        matched: boolean;
        keywords: string[];
        in_inventory: boolean;
      }
    >`
        SELECT ch.id AS change_id, ch.cve_id, ch.created_at AS changed_at, ch.seq,
               c.cve_id IS NOT NULL AS matched, ch.in_inventory,
               CASE WHEN c.cve_id IS NOT NULL THEN ch.data END AS entries, c.state, c.vendors,
               ARRAY(SELECT ck.keyword FROM cve_keyword ck
                      WHERE ck.cve_id = c.cve_id AND ck.keyword = ANY(${[...keywords]}::text[])) AS keywords
          FROM (SELECT id, cve_id, created_at, seq, data, ${inInventory} AS in_inventory FROM cve_change ch
                 WHERE created_at >= ${since} AND created_at < ${until} AND origin IS NULL ${after}
                 ORDER BY created_at DESC, seq DESC
                 LIMIT ${chunk}) ch
          LEFT JOIN cve c ON c.cve_id = ch.cve_id
                         AND (c.vendors && ${[...keys]}::text[] OR ch.in_inventory
                              OR EXISTS (SELECT 1 FROM cve_keyword ck
                                          WHERE ck.cve_id = c.cve_id AND ck.keyword = ANY(${[...keywords]}::text[])))
         ORDER BY ch.created_at DESC, ch.seq DESC`.execute(db);
    for (const r of rows) {
      if (!r.matched) continue;
      out.push({
        change_id: r.change_id,
        event_seq: null,
        cve_id: r.cve_id,
        changed_at: new Date(r.changed_at),
        entries: r.entries,
        state: r.state,
        vendors: [...r.vendors, ...r.keywords.map(keywordFlagKey)],
        inventory: null,
        flags: flag && r.in_inventory ? [{ key: flag, now: true, before: true }] : [],
      });
      if (out.length === limit) return out;
    }
    const last = rows.at(-1);
    if (rows.length < chunk || !last) return out;
    cursor = Number(last.seq);
  }
}

/** The project's latest `limit` inventory events in [since, until), latest first. */
async function recentInventoryEvents(
  db: Executor,
  projectId: string,
  since: Date,
  until: Date,
  limit: number,
): Promise<RecentChangeRow[]> {
  const { rows } = await sql<{
    seq: string;
    cve_id: string;
    changed_at: Date;
    inventory: InventoryEventDetails;
    state: string;
    vendors: string[];
  }>`
      SELECT e.seq, e.cve_id, e.created_at AS changed_at, e.data AS inventory, c.state, c.vendors
        FROM inventory_event e JOIN cve c ON c.cve_id = e.cve_id
       WHERE e.project_id = ${projectId} AND e.created_at >= ${since} AND e.created_at < ${until}
       ORDER BY e.created_at DESC, e.seq DESC
       LIMIT ${limit}`.execute(db);
  const key = inventoryFlagKey(projectId);
  return rows.map((r) => ({
    change_id: null,
    event_seq: Number(r.seq),
    cve_id: r.cve_id,
    changed_at: new Date(r.changed_at),
    entries: [],
    state: r.state,
    vendors: r.vendors,
    inventory: r.inventory,
    flags: [{ key, now: true, before: !r.inventory.enters }],
  }));
}
