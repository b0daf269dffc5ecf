/**
 * The event processor's inventory side (docs/inventories.md, "Findings kept current"), after the
 * keyword watches' pattern: for a chunk of recorded changes, the stored components sharing a key
 * with a changed CVE (its vendor keys, and `name <n>` for each package or product name its CNA
 * writes: `inventory_component_key`, one index probe per key) are matched again against the CVE as
 * it is now, and the findings made to agree; no inventory is scanned. A CVE now found in a project's
 * inventory that none of them had is recorded as an `inventory` event (the processor's third
 * stream, which alerts it as `cve_affects_component`); a CVE the project's inventories already had
 * gets a flag per project, so its changes reach the project as a subscribed key's do. An EPSS move
 * flags the projects whose inventories have its CVE.
 */
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { EventStream, StreamItem } from '../db/event.repository.ts';
import { InventoryMatchRepository } from '../db/inventory-match.repository.ts';
import { InventoryRepository, type KeyedComponent } from '../db/inventory.repository.ts';
import {
  inventoryFlagKey,
  matcherInput,
  NAME_KEY,
  withStoredKeys,
  type InventoryEventDetails,
} from '../domain/inventory.ts';
import { parseComponent } from '../domain/inventory-component.ts';
import { matchComponent, type MatchableCve, type MatchRule } from '../domain/inventory-match.ts';
import type { KeyFlag } from '../domain/project-events.ts';

/** Keeps the findings of the chunk's CVEs and returns the inventory flags of each item, by seq. */
export async function inventoryFlags(
  tx: Transaction<DB>,
  stream: EventStream,
  items: readonly StreamItem[],
): Promise<Map<number, KeyFlag[]>> {
  const out = new Map<number, KeyFlag[]>();
  const repo = new InventoryRepository(tx);
  const cveIds = [...new Set(items.map((i) => i.cveId))];
  if (stream !== 'changes') {
    if (stream === 'epss') flagStored(out, items, await repo.projectsOfCves(cveIds, tx));
    return out;
  }
  await repo.lock(tx);
  if (!(await repo.any(tx))) return out;

  // The keys of each changed CVE, and the components sharing one.
  const names = await repo.cnaNames(cveIds, tx);
  const keysOf = new Map<string, Set<string>>();
  for (const item of items) {
    let keys = keysOf.get(item.cveId);
    if (!keys) keysOf.set(item.cveId, (keys = new Set()));
    item.cve.vendors.forEach((k) => keys.add(k));
    for (const n of names.get(item.cveId) ?? []) keys.add(NAME_KEY + n);
  }
  const allKeys = new Set<string>();
  for (const keys of keysOf.values()) keys.forEach((k) => allKeys.add(k));
  const components = await repo.componentsByKeys([...allKeys], tx);
  const before = await repo.findingsOfCves(cveIds, tx);
  if (!components.length && !before.length) return out;

  // Each candidate component matched against the changed CVEs sharing one of its keys.
  const cves = new Map<string, MatchableCve>();
  if (components.length)
    for (const { cve } of await new InventoryMatchRepository(tx).matchable(cveIds)) cves.set(cve.cveId, cve);
  // Projects list the same components (the same library at the same version): each distinct one is
  // matched once and its findings given to every copy.
  const now = new Map<string, { component: KeyedComponent; cveId: string; rules: MatchRule[] }>();
  const copies = new Map<string, KeyedComponent[]>();
  for (const component of components) {
    const identity = JSON.stringify([stored(component), [...component.keys].sort()]);
    const list = copies.get(identity);
    if (list) list.push(component);
    else copies.set(identity, [component]);
  }
  for (const [first, ...others] of copies.values()) {
    const parsed = parseComponent(matcherInput(stored(first!)));
    if (!parsed.ok) continue;
    const matchable = withStoredKeys(parsed.component, first!.keys);
    const candidates: MatchableCve[] = [];
    for (const [cveId, keys] of keysOf) {
      const cve = cves.get(cveId);
      if (cve && first!.keys.some((k) => keys.has(k))) candidates.push(cve);
    }
    for (const m of matchComponent(matchable, candidates))
      if (m.verdict === 'affected')
        for (const component of [first!, ...others])
          now.set(`${component.id} ${m.cveId}`, { component, cveId: m.cveId, rules: m.rules });
  }

  // The findings made to agree.
  const projectsBefore = new Set(
    (await repo.projectsOfCves(cveIds, tx)).map((p) => `${p.projectId} ${p.cveId}`),
  );
  const was = new Map(before.map((f) => [`${f.componentId} ${f.cveId}`, f]));
  await repo.deleteFindings(
    before
      .filter((f) => !now.has(`${f.componentId} ${f.cveId}`))
      .map((f) => ({ c: f.componentId, cve_id: f.cveId })),
    tx,
  );
  await repo.insertFindings(
    [...now.values()].map((n) => ({ c: n.component.id, cve_id: n.cveId, rules: n.rules })),
    tx,
  );

  // (inventory, CVE) pairs: those found now are stored; those no longer found are dropped.
  const pairsBefore = pairs(
    before.map((f) => ({ inventoryId: f.inventoryId, projectId: f.projectId, cveId: f.cveId })),
  );
  const pairsNow = pairs(
    [...now.values()].map((n) => ({
      inventoryId: n.component.inventoryId,
      projectId: n.component.projectId,
      cveId: n.cveId,
    })),
  );
  await repo.forgetCves(
    [...pairsBefore.values()].filter((p) => !pairsNow.has(`${p.inventoryId} ${p.cveId}`)),
    tx,
  );
  const byInventory = new Map<string, { projectId: string; cveIds: string[] }>();
  for (const p of pairsNow.values()) {
    const entry = byInventory.get(p.inventoryId) ?? { projectId: p.projectId, cveIds: [] };
    entry.cveIds.push(p.cveId);
    byInventory.set(p.inventoryId, entry);
  }
  for (const [inventoryId, { projectId, cveIds: ids }] of byInventory)
    await repo.foundCves(inventoryId, projectId, ids, tx);

  // A CVE new to a project's inventories: an event; one they had: a flag on the change.
  const fresh = new Map<string, { component: KeyedComponent; cveId: string; rules: MatchRule[] }>();
  for (const n of now.values()) {
    const key = `${n.component.projectId} ${n.cveId}`;
    if (!projectsBefore.has(key) && !fresh.has(key) && !was.has(`${n.component.id} ${n.cveId}`))
      fresh.set(key, n);
  }
  const listed = await repo.listedElsewhere(
    [...fresh.values()].map((n) => ({ projectId: n.component.projectId, cveId: n.cveId })),
    tx,
  );
  const inventoryNames = await repo.inventoryNames(
    [...new Set([...fresh.values()].map((n) => n.component.inventoryId))],
    tx,
  );
  await repo.recordEvents(
    [...fresh.entries()].map(([key, n]): InventoryEventDetails & { cveId: string } => ({
      cveId: n.cveId,
      projectId: n.component.projectId,
      enters: !listed.has(key),
      inventory: inventoryNames.get(n.component.inventoryId) ?? '',
      component: { name: n.component.name, version: n.component.version, purl: n.component.purl },
      rules: n.rules,
    })),
    tx,
  );
  flagStored(
    out,
    items,
    [...projectsBefore]
      .filter((k) => !fresh.has(k))
      .map((k) => {
        const [projectId, cveId] = k.split(' ') as [string, string];
        return { projectId, cveId };
      }),
  );
  return out;
}

/** A project's inventories have the CVE (before and now): the item concerns the project. */
function flagStored(
  out: Map<number, KeyFlag[]>,
  items: readonly StreamItem[],
  stored: readonly { projectId: string; cveId: string }[],
): void {
  const byCve = new Map<string, string[]>();
  for (const s of stored) {
    const list = byCve.get(s.cveId);
    if (list) list.push(s.projectId);
    else byCve.set(s.cveId, [s.projectId]);
  }
  for (const item of items) {
    const projects = byCve.get(item.cveId);
    if (projects)
      out.set(
        item.seq,
        projects.map((p) => ({ key: inventoryFlagKey(p), now: true, before: true })),
      );
  }
}

/** A stored component as the matcher input reads it. */
const stored = (c: KeyedComponent) => ({
  name: c.name,
  ...(c.version !== null ? { version: c.version } : {}),
  ...(c.purl !== null ? { purl: c.purl } : {}),
  ...(c.cpe !== null ? { cpe: c.cpe } : {}),
  ...(c.supplier !== null ? { supplier: c.supplier } : {}),
});

function pairs(
  rows: readonly { inventoryId: string; projectId: string; cveId: string }[],
): Map<string, { inventoryId: string; projectId: string; cveId: string }> {
  return new Map(rows.map((r) => [`${r.inventoryId} ${r.cveId}`, r]));
}
