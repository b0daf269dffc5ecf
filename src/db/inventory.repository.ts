/**
 * Inventories (migration 0041, docs/inventories.md): a project's SBOMs, their components and lookup
 * keys, the findings, and what the project sees of them (`inventory_cve`). What a component is and
 * whether a CVE affects it is decided by the domain's matcher; the SQL here reads and writes.
 */
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from './schema.ts';
import { CATALOG_VERSION } from './catalog-version.ts';
import type {
  Finding,
  InventorySummary,
  StoredComponent,
  VersionChange,
  VexRow,
  InventoryEventDetails,
} from '../domain/inventory.ts';
import type { MatchRule } from '../domain/inventory-match.ts';
import type { SbomComponent, SbomFormat } from '../domain/sbom/sbom.ts';

type Executor = Kysely<DB> | Transaction<DB>;

const json = (v: unknown) => JSON.stringify(v);

/**
 * Serializes uploads with the event processor's upkeep of the findings, so a CVE changed while an
 * inventory is uploaded is neither missed by both nor found twice.
 */
const INVENTORY_LOCK = 0x696e7674; // 'invt'

/** Rows written per statement (components, keys, findings). */
const WRITE_SLICE = 5000;

export interface InventoryRow {
  id: string;
  project_id: string;
  name: string;
}

/** A component to store, with its lookup keys and its findings. */
export interface ComponentWrite {
  component: SbomComponent;
  keys: string[];
  findings: { cveId: string; rules: MatchRule[] }[];
}

/** A stored finding with its component, as an upload or a changed CVE compares them. */
export interface FindingRow {
  componentId: string;
  inventoryId: string;
  projectId: string;
  cveId: string;
  name: string;
  version: string | null;
  purl: string | null;
  rules: MatchRule[];
}

/** A stored component as the event processor matches it again. */
/**
 * One of the project's inventories had the CVE at `at` (found at or before it, not resolved before
 * it): a change then concerns the project through its inventories (reports, the dashboard's feed).
 */
export function inventoryHadAt(projectId: string, cveId: RawBuilder<unknown>, at: RawBuilder<unknown>) {
  return sql<boolean>`EXISTS (SELECT 1 FROM inventory_cve ic
    WHERE ic.project_id = ${projectId} AND ic.cve_id = ${cveId} AND ic.found_at <= ${at}
      AND (ic.resolved_at IS NULL OR ic.resolved_at > ${at}))`;
}

export interface KeyedComponent {
  id: string;
  inventoryId: string;
  projectId: string;
  name: string;
  version: string | null;
  purl: string | null;
  cpe: string | null;
  supplier: string | null;
  keys: string[];
}

export type InventoryEventData = InventoryEventDetails;

export class InventoryRepository {
  constructor(private readonly db: Executor) {}

  /** Holds the inventories lock until the transaction ends. */
  async lock(tx: Transaction<DB>): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(${INVENTORY_LOCK})`.execute(tx);
  }

  /** The catalog's version (migration 0004): it moves with every import that changes a CVE. */
  async catalogVersion(): Promise<number> {
    const r = await sql<{ v: number }>`SELECT ${CATALOG_VERSION} AS v`.execute(this.db);
    return Number(r.rows[0]!.v);
  }

  /** Whether any project has an inventory (the event processor's fast path). */
  async any(tx: Executor = this.db): Promise<boolean> {
    const r = await sql<{ one: number }>`SELECT 1 AS one FROM inventory LIMIT 1`.execute(tx);
    return r.rows.length > 0;
  }

  /** The project's inventories by name, each with its unresolved CVEs counted. */
  async list(projectId: string): Promise<InventorySummary[]> {
    const rows = await sql<SummaryRow>`
      SELECT i.*, (SELECT count(*)::int FROM inventory_cve x
                    WHERE x.inventory_id = i.id AND x.resolved_at IS NULL) AS cve_count
        FROM inventory i WHERE i.project_id = ${projectId} ORDER BY i.name`.execute(this.db);
    return rows.rows.map(summaryOf);
  }

  async find(
    projectId: string,
    name: string,
    tx: Executor = this.db,
  ): Promise<(InventorySummary & { id: string }) | undefined> {
    const rows = await sql<SummaryRow & { id: string }>`
      SELECT i.*, (SELECT count(*)::int FROM inventory_cve x
                    WHERE x.inventory_id = i.id AND x.resolved_at IS NULL) AS cve_count
        FROM inventory i WHERE i.project_id = ${projectId} AND i.name = ${name}`.execute(tx);
    const r = rows.rows[0];
    return r && { id: r.id, ...summaryOf(r) };
  }

  /** A page of the inventory's components in document order, `search` a piece of the name (any case). */
  async components(
    inventoryId: string,
    search: string | undefined,
    limit: number,
    offset: number,
    affected = false,
  ): Promise<{ count: number; items: StoredComponent[] }> {
    const named = search
      ? sql`ic.inventory_id = ${inventoryId} AND strpos(lower(ic.name), ${search.toLowerCase()}) > 0`
      : sql`ic.inventory_id = ${inventoryId}`;
    const where = affected
      ? sql`${named} AND EXISTS (SELECT 1 FROM inventory_finding f WHERE f.component_id = ic.id)`
      : named;
    const count = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM inventory_component ic WHERE ${where}`.execute(this.db);
    const rows = await sql<ComponentRow>`
      SELECT ic.position, ic.name, ic.version, ic.purl, ic.cpe, ic.supplier, ic.ref,
             (SELECT count(*)::int FROM inventory_finding f WHERE f.component_id = ic.id) AS findings
        FROM inventory_component ic WHERE ${where}
       ORDER BY ic.position LIMIT ${limit} OFFSET ${offset}`.execute(this.db);
    return { count: count.rows[0]!.n, items: rows.rows };
  }

  /** One component (by position) with its findings, by CVE id; undefined for no such position. */
  async component(
    inventoryId: string,
    position: number,
  ): Promise<{ component: StoredComponent; findings: Finding[] } | undefined> {
    const rows = await sql<ComponentRow & { id: string }>`
      SELECT ic.id, ic.position, ic.name, ic.version, ic.purl, ic.cpe, ic.supplier, ic.ref,
             (SELECT count(*)::int FROM inventory_finding f WHERE f.component_id = ic.id) AS findings
        FROM inventory_component ic WHERE ic.inventory_id = ${inventoryId} AND ic.position = ${position}`.execute(
      this.db,
    );
    const row = rows.rows[0];
    if (!row) return undefined;
    const findings = await sql<{ cve_id: string; rules: MatchRule[]; found_at: Date }>`
      SELECT cve_id, rules, found_at FROM inventory_finding WHERE component_id = ${row.id} ORDER BY cve_id`.execute(
      this.db,
    );
    const { id: _id, ...component } = row;
    return {
      component,
      findings: findings.rows.map((f) => ({
        cveId: f.cve_id,
        rules: f.rules,
        foundAt: new Date(f.found_at),
      })),
    };
  }

  /** The inventory's findings with their components (an upload's "before"; the VEX export). */
  async findings(inventoryId: string, tx: Executor = this.db): Promise<FindingRow[]> {
    const rows = await sql<FindingSqlRow>`
      SELECT f.component_id, ic.inventory_id, i.project_id, f.cve_id, ic.name, ic.version, ic.purl, f.rules
        FROM inventory_component ic JOIN inventory i ON i.id = ic.inventory_id
        JOIN inventory_finding f ON f.component_id = ic.id
       WHERE ic.inventory_id = ${inventoryId}
       ORDER BY f.cve_id, ic.position`.execute(tx);
    return rows.rows.map(findingOf);
  }

  /** The VEX export's rows: every CVE the inventory has or had, its components, the tracker's triage. */
  async vexRows(inventoryId: string, projectId: string): Promise<VexRow[]> {
    const rows = await sql<VexRow>`
      SELECT x.cve_id, x.resolved_at, x.resolution, t.status,
             coalesce((SELECT jsonb_agg(jsonb_build_object('name', ic.name, 'version', ic.version,
                                        'purl', ic.purl, 'ref', ic.ref) ORDER BY ic.position)
                         FROM inventory_finding f JOIN inventory_component ic ON ic.id = f.component_id
                        WHERE ic.inventory_id = x.inventory_id AND f.cve_id = x.cve_id),
                      -- Resolved: the components it was found in, as they are now (upgraded).
                      (SELECT jsonb_agg(jsonb_build_object('name', ic.name, 'version', ic.version,
                                        'purl', ic.purl, 'ref', ic.ref) ORDER BY ic.position)
                         FROM inventory_component ic
                        WHERE ic.inventory_id = x.inventory_id
                          AND ic.name IN (SELECT jsonb_array_elements(x.resolution->'changes')->>'name')),
                      '[]'::jsonb) AS components,
             (SELECT c.body FROM tracker_comment c
               WHERE c.project_id = ${projectId} AND c.cve_id = x.cve_id
               ORDER BY c.created_at DESC, c.id DESC LIMIT 1) AS comment
        FROM inventory_cve x
        LEFT JOIN tracker_entry t ON t.project_id = ${projectId} AND t.cve_id = x.cve_id
       WHERE x.inventory_id = ${inventoryId}
       ORDER BY x.cve_id`.execute(this.db);
    return rows.rows;
  }

  /**
   * Makes the project's inventory `name` the document's: the row written (created, or its metadata
   * replaced), the old components (with their keys and findings) dropped, the new ones written in
   * document order with their keys and findings. Returns the inventory's id.
   */
  async replace(
    projectId: string,
    name: string,
    meta: { format: SbomFormat; specVersion: string; uploadedBy: string },
    components: readonly ComponentWrite[],
    tx: Transaction<DB>,
  ): Promise<string> {
    const row = await sql<{ id: string }>`
      INSERT INTO inventory (project_id, name, format, spec_version, component_count, uploaded_by)
      VALUES (${projectId}, ${name}, ${meta.format}, ${meta.specVersion}, ${components.length}, ${meta.uploadedBy})
      ON CONFLICT (project_id, name) DO UPDATE
        SET format = EXCLUDED.format, spec_version = EXCLUDED.spec_version,
            component_count = EXCLUDED.component_count, uploaded_by = EXCLUDED.uploaded_by, uploaded_at = now()
      RETURNING id`.execute(tx);
    const id = row.rows[0]!.id;
    await sql`DELETE FROM inventory_component WHERE inventory_id = ${id}`.execute(tx);
    for (let start = 0; start < components.length; start += WRITE_SLICE) {
      const slice = components.slice(start, start + WRITE_SLICE);
      const inserted = await sql<{ id: string; position: number }>`
        INSERT INTO inventory_component (inventory_id, position, name, version, purl, cpe, supplier, ref)
        SELECT ${id}, x.position, x.name, x.version, x.purl, x.cpe, x.supplier, x.ref
          FROM jsonb_to_recordset(${json(
            slice.map((w, i) => ({ position: start + i, ...w.component })),
          )}::jsonb) AS x(position int, name text, version text, purl text, cpe text, supplier text, ref text)
        RETURNING id, position`.execute(tx);
      const idOf = new Map(inserted.rows.map((r) => [r.position, String(r.id)]));
      const keys = slice.flatMap((w, i) => w.keys.map((key) => ({ c: idOf.get(start + i)!, key })));
      if (keys.length)
        await sql`
          INSERT INTO inventory_component_key (component_id, key)
          SELECT x.c::bigint, x.key FROM jsonb_to_recordset(${json(keys)}::jsonb) AS x(c text, key text)
          ON CONFLICT DO NOTHING`.execute(tx);
      const findings = slice.flatMap((w, i) =>
        w.findings.map((f) => ({ c: idOf.get(start + i)!, cve_id: f.cveId, rules: f.rules })),
      );
      await this.insertFindings(findings, tx);
    }
    return id;
  }

  /** Adds findings (`c`: the component's id); one already stored gets its rules replaced. */
  async insertFindings(
    rows: readonly { c: string; cve_id: string; rules: MatchRule[] }[],
    tx: Executor,
  ): Promise<void> {
    for (let start = 0; start < rows.length; start += WRITE_SLICE)
      await sql`
        INSERT INTO inventory_finding (component_id, cve_id, rules)
        SELECT x.c::bigint, x.cve_id, x.rules
          FROM jsonb_to_recordset(${json(rows.slice(start, start + WRITE_SLICE))}::jsonb) AS x(c text, cve_id text, rules jsonb)
        ON CONFLICT (component_id, cve_id) DO UPDATE SET rules = EXCLUDED.rules
          WHERE inventory_finding.rules IS DISTINCT FROM EXCLUDED.rules`.execute(tx);
  }

  async deleteFindings(rows: readonly { c: string; cve_id: string }[], tx: Executor): Promise<void> {
    if (!rows.length) return;
    await sql`
      DELETE FROM inventory_finding f USING jsonb_to_recordset(${json(rows)}::jsonb) AS x(c text, cve_id text)
       WHERE f.component_id = x.c::bigint AND f.cve_id = x.cve_id`.execute(tx);
  }

  /** The project's CVEs its inventories have now (unresolved), each with the inventories that have it. */
  async projectCves(projectId: string, tx: Executor): Promise<Map<string, Set<string>>> {
    const rows = await sql<{ cve_id: string; inventory_id: string }>`
      SELECT cve_id, inventory_id FROM inventory_cve
       WHERE project_id = ${projectId} AND resolved_at IS NULL`.execute(tx);
    const out = new Map<string, Set<string>>();
    for (const r of rows.rows) {
      let s = out.get(r.cve_id);
      if (!s) out.set(r.cve_id, (s = new Set()));
      s.add(r.inventory_id);
    }
    return out;
  }

  /** (inventory, CVE) pairs found now: stored unresolved (a resolved one found again is reopened). */
  async foundCves(
    inventoryId: string,
    projectId: string,
    cveIds: readonly string[],
    tx: Executor,
  ): Promise<void> {
    if (!cveIds.length) return;
    await sql`
      INSERT INTO inventory_cve (inventory_id, project_id, cve_id)
      SELECT ${inventoryId}, ${projectId}, c FROM unnest(${[...cveIds]}::text[]) AS c
      ON CONFLICT (inventory_id, cve_id) DO UPDATE
        SET resolved_at = NULL, resolution = NULL, found_at = now()
        WHERE inventory_cve.resolved_at IS NOT NULL`.execute(tx);
  }

  /** Marks (inventory, CVE) pairs resolved by an upload, with the versions before and after. */
  async resolveCves(
    inventoryId: string,
    resolved: readonly { cveId: string; changes: VersionChange[] }[],
    tx: Executor,
  ): Promise<void> {
    if (!resolved.length) return;
    await sql`
      UPDATE inventory_cve x SET resolved_at = now(), resolution = jsonb_build_object('changes', r.changes)
        FROM jsonb_to_recordset(${json(resolved)}::jsonb) AS r("cveId" text, changes jsonb)
       WHERE x.inventory_id = ${inventoryId} AND x.cve_id = r."cveId" AND x.resolved_at IS NULL`.execute(tx);
  }

  /** Drops (inventory, CVE) pairs the catalog no longer says are affected (a changed CVE). */
  async forgetCves(pairs: readonly { inventoryId: string; cveId: string }[], tx: Executor): Promise<void> {
    if (!pairs.length) return;
    await sql`
      DELETE FROM inventory_cve x USING jsonb_to_recordset(${json(pairs)}::jsonb) AS p("inventoryId" uuid, "cveId" text)
       WHERE x.inventory_id = p."inventoryId" AND x.cve_id = p."cveId" AND x.resolved_at IS NULL`.execute(tx);
  }

  /** Records CVEs inventories bring into projects, for the event processor's `inventory` stream. */
  async recordEvents(
    events: readonly (InventoryEventData & { cveId: string })[],
    tx: Executor,
  ): Promise<void> {
    if (!events.length) return;
    await sql`
      INSERT INTO inventory_event (project_id, cve_id, data)
      SELECT x."projectId", x."cveId", x.data
        FROM jsonb_to_recordset(${json(events.map(({ cveId, ...data }) => ({ projectId: data.projectId, cveId, data })))}::jsonb)
             AS x("projectId" uuid, "cveId" text, data jsonb)`.execute(tx);
  }

  async delete(inventoryId: string, tx: Executor): Promise<void> {
    await sql`DELETE FROM inventory WHERE id = ${inventoryId}`.execute(tx);
  }

  // The event processor's side.

  /** The CNA's package and product names (lower case) of each CVE (the `mitre` statement). */
  async cnaNames(cveIds: readonly string[], tx: Executor): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (!cveIds.length) return out;
    const rows = await sql<{ cve_id: string; names: string[] | null }>`
      SELECT s.cve_id,
             (SELECT array_agg(DISTINCT lower(n)) FROM jsonb_array_elements_text(
                jsonb_path_query_array(s.data, '$.affected[*].packageName')
                || jsonb_path_query_array(s.data, '$.affected[*].product')) AS n) AS names
        FROM cve_source s
       WHERE s.provider = 'mitre' AND s.cve_id = ANY(${[...cveIds]}::text[])`.execute(tx);
    for (const r of rows.rows) if (r.names?.length) out.set(r.cve_id, r.names);
    return out;
  }

  /** What a component's page shows of its CVEs: the title, best score and KEV, and the project's status. */
  async findingFacts(
    projectId: string,
    cveIds: readonly string[],
  ): Promise<
    Map<string, { title: string | null; cvssScore: number | null; kev: boolean; status: string | null }>
  > {
    if (!cveIds.length) return new Map();
    const rows = await sql<{
      cve_id: string;
      title: string | null;
      score: number | null;
      kev: boolean;
      status: string | null;
    }>`
      SELECT c.cve_id, c.title, coalesce(c.cvss40, c.cvss31, c.cvss30, c.cvss20) AS score, c.kev, t.status
        FROM cve c
        LEFT JOIN tracker_entry t ON t.project_id = ${projectId} AND t.cve_id = c.cve_id
       WHERE c.cve_id = ANY(${[...cveIds]}::text[])`.execute(this.db);
    return new Map(
      rows.rows.map((r) => [
        r.cve_id,
        {
          title: r.title,
          cvssScore: r.score === null ? null : Number(r.score),
          kev: r.kev,
          status: r.status,
        },
      ]),
    );
  }

  /** The stored components having one of the keys, each with all its keys. */
  async componentsByKeys(keys: readonly string[], tx: Executor): Promise<KeyedComponent[]> {
    if (!keys.length) return [];
    const rows = await sql<{
      id: string;
      inventory_id: string;
      project_id: string;
      name: string;
      version: string | null;
      purl: string | null;
      cpe: string | null;
      supplier: string | null;
      keys: string[];
    }>`
      SELECT ic.id, ic.inventory_id, i.project_id, ic.name, ic.version, ic.purl, ic.cpe, ic.supplier,
             ARRAY(SELECT k2.key FROM inventory_component_key k2 WHERE k2.component_id = ic.id) AS keys
        FROM (SELECT DISTINCT component_id FROM inventory_component_key
               WHERE key = ANY(${[...keys]}::text[])) k
        JOIN inventory_component ic ON ic.id = k.component_id
        JOIN inventory i ON i.id = ic.inventory_id`.execute(tx);
    return rows.rows.map((r) => ({
      id: String(r.id),
      inventoryId: r.inventory_id,
      projectId: r.project_id,
      name: r.name,
      version: r.version,
      purl: r.purl,
      cpe: r.cpe,
      supplier: r.supplier,
      keys: r.keys,
    }));
  }

  /** The names of inventories, by id. */
  async inventoryNames(ids: readonly string[], tx: Executor): Promise<Map<string, string>> {
    if (!ids.length) return new Map();
    const rows = await sql<{ id: string; name: string }>`
      SELECT id, name FROM inventory WHERE id = ANY(${[...ids]}::uuid[])`.execute(tx);
    return new Map(rows.rows.map((r) => [r.id, r.name]));
  }

  /** The stored findings of the CVEs, with their components. */
  async findingsOfCves(cveIds: readonly string[], tx: Executor): Promise<FindingRow[]> {
    if (!cveIds.length) return [];
    const rows = await sql<FindingSqlRow>`
      SELECT f.component_id, ic.inventory_id, i.project_id, f.cve_id, ic.name, ic.version, ic.purl, f.rules
        FROM inventory_finding f JOIN inventory_component ic ON ic.id = f.component_id
        JOIN inventory i ON i.id = ic.inventory_id
       WHERE f.cve_id = ANY(${[...cveIds]}::text[])`.execute(tx);
    return rows.rows.map(findingOf);
  }

  /** The (project, CVE) pairs of these CVEs some inventory has now (unresolved). */
  async projectsOfCves(
    cveIds: readonly string[],
    tx: Executor,
  ): Promise<{ projectId: string; cveId: string }[]> {
    if (!cveIds.length) return [];
    const rows = await sql<{ project_id: string; cve_id: string }>`
      SELECT DISTINCT project_id, cve_id FROM inventory_cve
       WHERE cve_id = ANY(${[...cveIds]}::text[]) AND resolved_at IS NULL`.execute(tx);
    return rows.rows.map((r) => ({ projectId: r.project_id, cveId: r.cve_id }));
  }

  /**
   * Of (project, CVE) pairs, those where the CVE is already the project's through a subscribed key or a
   * watched keyword (so an inventory finding it is no entry).
   */
  async listedElsewhere(
    pairs: readonly { projectId: string; cveId: string }[],
    tx: Executor,
  ): Promise<Set<string>> {
    if (!pairs.length) return new Set();
    const rows = await sql<{ project_id: string; cve_id: string }>`
      SELECT x.project_id, x.cve_id
        FROM jsonb_to_recordset(${json(pairs.map((p) => ({ project_id: p.projectId, cve_id: p.cveId })))}::jsonb)
             AS x(project_id uuid, cve_id text)
        JOIN cve c ON c.cve_id = x.cve_id
       WHERE c.vendors && ARRAY(SELECT s.vendor_key FROM project_subscription s WHERE s.project_id = x.project_id)
          OR EXISTS (SELECT 1 FROM project_keyword pk JOIN cve_keyword ck ON ck.keyword = pk.keyword
                      WHERE pk.project_id = x.project_id AND ck.cve_id = x.cve_id)`.execute(tx);
    return new Set(rows.rows.map((r) => `${r.project_id} ${r.cve_id}`));
  }
}

interface SummaryRow {
  name: string;
  format: SbomFormat;
  spec_version: string;
  component_count: number;
  uploaded_at: Date;
  uploaded_by: string;
  cve_count: number;
}

const summaryOf = (r: SummaryRow): InventorySummary => ({
  name: r.name,
  format: r.format,
  specVersion: r.spec_version,
  componentCount: r.component_count,
  uploadedAt: new Date(r.uploaded_at),
  uploadedBy: r.uploaded_by,
  cveCount: r.cve_count,
});

type ComponentRow = StoredComponent;

interface FindingSqlRow {
  component_id: string;
  inventory_id: string;
  project_id: string;
  cve_id: string;
  name: string;
  version: string | null;
  purl: string | null;
  rules: MatchRule[];
}

const findingOf = (r: FindingSqlRow): FindingRow => ({
  componentId: String(r.component_id),
  inventoryId: r.inventory_id,
  projectId: r.project_id,
  cveId: r.cve_id,
  name: r.name,
  version: r.version,
  purl: r.purl,
  rules: r.rules,
});
