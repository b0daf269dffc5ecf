/**
 * How a recorded change (or an EPSS move) concerns a project (docs/notifications.md), the pure part: which of the
 * project's subscribed keys the CVE carries, whether the CVE enters the project with it, and the
 * events it brings. The event processor applies it to every active project at once (SQL aggregates
 * the key flags), a report to one project; both through these functions. No I/O.
 */
import type { ChangeEntry } from './cve-change.ts';
import { eventsOfChange, eventsOfEpssMove, type ProjectEventEntry } from './automation.ts';
import { INVENTORY_FLAG } from './inventory.ts';
import type { PeriodEvent } from './report.ts';

/** A recorded change or an EPSS move, with the CVE as it is now. */
export interface ChangeItem {
  entries: readonly ChangeEntry[];
  /** Set for an EPSS move (then `entries` is empty). */
  epss: { old: number | null; new: number } | null;
  cve: { state: string; vendors: readonly string[] };
  /** Set for a CVE an inventory brings into the project (`cve_affects_component`). */
  inventory?: { inventory: string; component: unknown; rules: unknown } | null;
}

/** A vendor or product key of a change: whether the CVE carries it now, and carried it before the change. */
export interface KeyFlag {
  key: string;
  now: boolean;
  before: boolean;
}

/** What a project sees of an item that concerns it. */
export interface ProjectView {
  /** The project's subscribed keys among those the CVE carries now. */
  matchedKeys: string[];
  /** The CVE is new to the project: new to the catalog, or none of the project's keys was on it before. */
  enters: boolean;
}

function vendorsEntry(entries: readonly ChangeEntry[]): { added: string[]; removed: string[] } {
  const entry = entries.find((e) => e.type === 'vendors');
  const d = (entry?.details ?? {}) as { added?: string[]; removed?: string[] };
  return { added: d.added ?? [], removed: d.removed ?? [] };
}

/** False for an item no project hears of: a rejected CVE leaves every project; only the rejection itself is news. */
export function concernsProjects(item: ChangeItem): boolean {
  return item.cve.state !== 'REJECTED' || (!item.epss && item.entries.some((e) => e.type === 'state'));
}

/**
 * The item's keys: those the CVE carries now, and those the change removed. A project is concerned
 * when it subscribes to a key carried `now`; the CVE enters it when it subscribes to no key carried
 * `before` (a new CVE carried none; an EPSS move changes no key).
 */
export function keyFlags(item: ChangeItem): KeyFlag[] {
  // An inventory event carries no key of the catalog: its one flag names its project
  // (`inventoryFlagKey`, `before` unless the CVE enters), and its reader gives it.
  if (item.inventory) return [];
  if (item.epss) return item.cve.vendors.map((key) => ({ key, now: true, before: true }));
  const created = item.entries.some((e) => e.type === 'created');
  const { added, removed } = vendorsEntry(item.entries);
  return [
    ...item.cve.vendors.map((key) => ({ key, now: true, before: !created && !added.includes(key) })),
    ...removed.map((key) => ({ key, now: false, before: !created })),
  ];
}

/**
 * The item as a project subscribed to `subscribed` sees it; undefined when it does not concern the
 * project. `extra`: the flags its reader knows beyond `keyFlags` (an inventory's, `inventoryFlagKey`).
 */
export function projectView(
  item: ChangeItem,
  subscribed: ReadonlySet<string>,
  extra: readonly KeyFlag[] = [],
): ProjectView | undefined {
  if (!concernsProjects(item)) return undefined;
  const flags = [...keyFlags(item), ...extra].filter((f) => subscribed.has(f.key));
  const matchedKeys = flags.filter((f) => f.now).map((f) => f.key);
  if (!matchedKeys.length) return undefined;
  return { matchedKeys: matchedKeys.sort(), enters: !flags.some((f) => f.before) };
}

/** The items of a batch that concern one project, in batch order. */
export interface ProjectMatch {
  projectId: string;
  seqs: number[];
  /** Per item: the CVE enters the project with it. */
  enters: boolean[];
}

/**
 * `projectView` for many projects at once: given the items (each with its `keyFlags`, in order) and,
 * per project, its subscribed keys among the items' keys, the items that concern each project and
 * whether the CVE enters it. Linear in the (project, key, item) triples, so a busy day's hundreds of
 * thousands of (project, change) pairs take milliseconds.
 */
export function matchProjects(
  items: readonly { seq: number; flags: readonly KeyFlag[] }[],
  projects: Iterable<{ projectId: string; keys: readonly string[] }>,
): ProjectMatch[] {
  // key → the items that carry it: index, then 1 = now, 2 = before (bits).
  const byKey = new Map<string, number[]>();
  items.forEach((item, i) => {
    for (const f of item.flags) {
      let list = byKey.get(f.key);
      if (!list) byKey.set(f.key, (list = []));
      list.push(i, (f.now ? 1 : 0) | (f.before ? 2 : 0));
    }
  });
  const marks = new Uint8Array(items.length);
  const out: ProjectMatch[] = [];
  for (const { projectId, keys } of projects) {
    const touched: number[] = [];
    for (const key of keys) {
      const list = byKey.get(key);
      if (!list) continue;
      for (let j = 0; j < list.length; j += 2) {
        const i = list[j]!;
        if (!marks[i]) touched.push(i);
        marks[i] = marks[i]! | list[j + 1]! | 4;
      }
    }
    touched.sort((a, b) => a - b);
    const match: ProjectMatch = { projectId, seqs: [], enters: [] };
    for (const i of touched) {
      if (marks[i]! & 1) {
        match.seqs.push(items[i]!.seq);
        match.enters.push(!(marks[i]! & 2));
      }
      marks[i] = 0;
    }
    if (match.seqs.length) out.push(match);
  }
  return out;
}

/** The events an item brings to a project it concerns. */
export function itemEvents(item: ChangeItem, enters: boolean): ProjectEventEntry[] {
  if (item.inventory) {
    const { inventory, component, rules } = item.inventory;
    return [
      ...(enters
        ? [{ type: 'cve_enters_project' as const, details: { created: false, cause: 'inventory' } }]
        : []),
      { type: 'cve_affects_component' as const, details: { inventory, component, rules } },
    ];
  }
  return item.epss ? eventsOfEpssMove(item.epss.old, item.epss.new) : eventsOfChange(item.entries, enters);
}

/**
 * What a period's changes, EPSS moves and inventory events (oldest first) brought to a project
 * subscribed to `subscribed`; an item's `flags` are its `projectView` extra flags. An inventory's
 * flag is no key a person subscribed to: the report's matched keys leave it out (its events name
 * the inventory and component).
 */
export function periodEvents(
  items: readonly (ChangeItem & {
    cve_id: string;
    change_id: string | null;
    highest_cvss: number | null;
    flags?: readonly KeyFlag[];
  })[],
  subscribed: ReadonlySet<string>,
): PeriodEvent[] {
  const out: PeriodEvent[] = [];
  for (const item of items) {
    const view = projectView(item, subscribed, item.flags);
    if (!view) continue;
    const events = itemEvents(item, view.enters);
    if (item.epss && !events.length) continue;
    out.push({
      cve_id: item.cve_id,
      change_id: item.change_id,
      types: events.map((e) => e.type),
      matched_keys: view.matchedKeys.filter((k) => !k.startsWith(INVENTORY_FLAG)),
      events,
      highest_cvss: item.highest_cvss,
    });
  }
  return out;
}
