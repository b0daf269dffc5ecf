/**
 * A project's inventories (issue 33, docs/inventories.md): upload an SBOM under a name (replacing the
 * one stored), list them, page through one's components, read a component's findings, delete one,
 * export the project's triage of its findings as VEX.
 *
 * An upload is one transaction: the document's components are matched (InventoryMatchService, a
 * thousand at a time), stored with their lookup keys and findings, and compared with what the
 * inventory had: a CVE new to the project is recorded as an `inventory` event, which the event
 * processor turns into the project's alerts (`cve_enters_project`, `cve_affects_component`) as it
 * does a catalog change; a CVE whose every finding is gone (the component upgraded past the range,
 * or removed) is marked resolved: the tracker's status `resolved`, a comment in its history and an
 * audit entry naming the versions before and after. Nothing is deleted.
 */
import { activeProject } from './tracker-model.ts';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AuditRepository, type AuditEntry } from '../db/audit.repository.ts';
import {
  InventoryRepository,
  type ComponentWrite,
  type FindingRow,
  type InventoryEventData,
} from '../db/inventory.repository.ts';
import { ProjectRepository } from '../db/project.repository.ts';
import { TrackerRepository, type NewComment, type TrackerWrite } from '../db/tracker.repository.ts';
import type { Actor } from '../domain/actor.ts';
import { AppError, validationError } from '../domain/errors.ts';
import {
  changesText,
  INVENTORY_NAME,
  lookupKeys,
  matcherInput,
  MAX_INVENTORY_COMPONENTS,
  type Finding,
  type FindingWithFacts,
  type InventorySummary,
  type StoredComponent,
  type UploadSummary,
  type VersionChange,
} from '../domain/inventory.ts';
import { MAX_INVENTORY, type ComponentMatch } from '../domain/inventory-match.ts';
import type { ProjectRow } from '../domain/project.ts';
import { SbomError, type SbomComponent, type SbomDocument } from '../domain/sbom/sbom.ts';
import { parseSbom } from '../sources/sbom/sbom.ts';
import type { InventoryMatchService } from './inventory-match.service.ts';
import { vexDocument, type VexFormat } from '../domain/inventory-vex.ts';

/** Uploads match again at most this often when the catalog moves meanwhile (the last attempt stores). */
const MATCH_ATTEMPTS = 3;

export class InventoryService {
  private readonly projects: ProjectRepository;
  private readonly inventories: InventoryRepository;
  private readonly tracker: TrackerRepository;
  private readonly audit: AuditRepository;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly matcher: Pick<InventoryMatchService, 'match'>,
  ) {
    this.projects = new ProjectRepository(db);
    this.inventories = new InventoryRepository(db);
    this.tracker = new TrackerRepository(db);
    this.audit = new AuditRepository(db);
  }

  /** The project's inventories, by name. */
  async list(organizationId: string, projectName: string): Promise<InventorySummary[]> {
    const project = await activeProject(this.projects, organizationId, projectName);
    return this.inventories.list(project.id);
  }

  /** One inventory and a page of its components (document order), `search` a piece of their name. */
  async get(
    organizationId: string,
    projectName: string,
    name: string,
    page: { limit: number; offset: number; search?: string | undefined; affected?: boolean },
  ): Promise<{ inventory: InventorySummary; count: number; components: StoredComponent[] }> {
    const { inventory } = await this.inventory(organizationId, projectName, name);
    const { count, items } = await this.inventories.components(
      inventory.id,
      page.search?.trim() || undefined,
      page.limit,
      page.offset,
      page.affected,
    );
    return { inventory: withoutId(inventory), count, components: items };
  }

  /** One component of an inventory (by its position in the document) and the CVEs found for it. */
  async component(
    organizationId: string,
    projectName: string,
    name: string,
    position: number,
  ): Promise<{ component: StoredComponent; findings: Finding[] }> {
    const { inventory } = await this.inventory(organizationId, projectName, name);
    const found = await this.inventories.component(inventory.id, position);
    if (!found) throw new AppError('not_found');
    return found;
  }

  /**
   * One component and the CVEs found for it, each with what a page shows beside it: its title, best
   * score and KEV from the catalog, and its status in the project's tracker.
   */
  async componentFindings(
    organizationId: string,
    projectName: string,
    name: string,
    position: number,
  ): Promise<{ component: StoredComponent; findings: FindingWithFacts[] }> {
    const { project, inventory } = await this.inventory(organizationId, projectName, name);
    const found = await this.inventories.component(inventory.id, position);
    if (!found) throw new AppError('not_found');
    const facts = await this.inventories.findingFacts(
      project.id,
      found.findings.map((f) => f.cveId),
    );
    return {
      component: found.component,
      findings: found.findings.map((f) => ({
        ...f,
        ...(facts.get(f.cveId) ?? { title: null, cvssScore: null, kev: false, status: null }),
      })),
    };
  }

  /**
   * Stores `text` (an SBOM) as the project's inventory `name`, replacing the one stored, and brings
   * its findings to the project (see the file's comment). 400 naming the document's first problem.
   */
  async upload(
    organizationId: string,
    projectName: string,
    name: string,
    text: string,
    contentType: string | undefined,
    actor: Actor,
  ): Promise<UploadSummary> {
    if (!INVENTORY_NAME.test(name))
      throw validationError({
        name: [
          'An inventory name starts with a letter or digit; letters, digits, space, _ . - after; at most 100.',
        ],
      });
    const project = await activeProject(this.projects, organizationId, projectName);
    const document = await readDocument(text, contentType);
    if (document.components.length > MAX_INVENTORY_COMPONENTS)
      throw validationError({
        components: [
          `An inventory holds at most ${MAX_INVENTORY_COMPONENTS} components; this document has ${document.components.length}.`,
        ],
      });
    // Matched before the transaction (the embedded database has one connection, which the
    // transaction holds); stored only if the catalog has not moved since, else matched again: a
    // CVE changed after the lock is taken is matched by the event processor once this commits.
    for (let attempt = 1; ; attempt++) {
      const version = await this.inventories.catalogVersion();
      const matches = await this.match(document.components);
      const summary = await this.db.transaction().execute(async (tx) => {
        if (!(await this.projects.lock(project.id, tx))) throw new AppError('not_found');
        await new InventoryRepository(tx).lock(tx);
        if (attempt < MATCH_ATTEMPTS && (await new InventoryRepository(tx).catalogVersion()) !== version)
          return undefined;
        return this.store(tx, organizationId, project, name, document, matches, actor);
      });
      if (summary) return summary;
    }
  }

  /** Stores the matched document as the inventory and brings its findings to the project (in `tx`, locked). */
  private async store(
    tx: Transaction<DB>,
    organizationId: string,
    project: ProjectRow,
    name: string,
    document: SbomDocument,
    matches: readonly ComponentMatch[],
    actor: Actor,
  ): Promise<UploadSummary> {
    const repo = new InventoryRepository(tx);
    const old = await repo.find(project.id, name, tx);
    const before = old ? await repo.findings(old.id, tx) : [];
    const projectBefore = await repo.projectCves(project.id, tx);
    const writes: ComponentWrite[] = document.components.map((component, i) => {
      const m = matches[i]!;
      return {
        component,
        keys: m.ok ? lookupKeys(m.component) : [],
        findings: m.ok
          ? m.cves.filter((c) => c.verdict === 'affected').map((c) => ({ cveId: c.cveId, rules: c.rules }))
          : [],
      };
    });
    const id = await repo.replace(
      project.id,
      name,
      { format: document.format, specVersion: document.specVersion, uploadedBy: actor.name },
      writes,
      tx,
    );
    const found = new Map<
      string,
      { component: SbomComponent; rules: ComponentWrite['findings'][0]['rules'] }
    >();
    for (const w of writes)
      for (const f of w.findings)
        if (!found.has(f.cveId)) found.set(f.cveId, { component: w.component, rules: f.rules });
    await repo.foundCves(id, project.id, [...found.keys()], tx);

    // New to the project's inventories: an event (entering the project unless listed otherwise).
    const newCves = [...found.keys()].filter((cveId) => !projectBefore.has(cveId));
    const listed = await repo.listedElsewhere(
      newCves.map((cveId) => ({ projectId: project.id, cveId })),
      tx,
    );
    const events = newCves.map((cveId): InventoryEventData & { cveId: string } => {
      const f = found.get(cveId)!;
      return {
        cveId,
        projectId: project.id,
        enters: !listed.has(`${project.id} ${cveId}`),
        inventory: name,
        component: {
          name: f.component.name,
          version: f.component.version ?? null,
          purl: f.component.purl ?? null,
        },
        rules: f.rules,
      };
    });
    await repo.recordEvents(events, tx);

    // Gone from this inventory, and found by no other of the project's: resolved by this upload.
    const gone = groupByCve(before.filter((f) => !found.has(f.cveId)));
    const resolved = [...gone].map(([cveId, rows]) => ({
      cveId,
      changes: versionChanges(rows, document.components),
    }));
    await repo.resolveCves(id, resolved, tx);
    const closing = resolved.filter(
      (r) => ![...(projectBefore.get(r.cveId) ?? [])].some((inv) => inv !== old?.id),
    );
    await this.resolveInTracker(tx, organizationId, project, name, closing, actor);

    const summary = (await repo.find(project.id, name, tx))!;
    await this.audit.record(
      {
        organizationId,
        actor,
        action: old ? 'inventory.update' : 'inventory.create',
        resourceType: 'inventory',
        resourceId: id,
        resourceName: `${project.name}/${name}`,
        changes: {
          format: document.format,
          components: document.components.length,
          cves: found.size,
          entered: newCves,
          resolved: closing.map((r) => r.cveId),
        },
      },
      tx,
    );
    return {
      inventory: withoutId(summary),
      components: document.components.length,
      versionUnknown: document.components.filter((c) => c.version === undefined).length,
      unmatchable: matches.filter((m) => !m.ok).length,
      findings: writes.reduce((n, w) => n + w.findings.length, 0),
      cves: found.size,
      entered: events.filter((e) => e.enters).map((e) => e.cveId),
      resolved: closing,
    };
  }

  /** Deletes the inventory: its components and findings go; the CVEs' tracker entries stay. */
  async delete(organizationId: string, projectName: string, name: string, actor: Actor): Promise<void> {
    const { project, inventory } = await this.inventory(organizationId, projectName, name);
    await this.db.transaction().execute(async (tx) => {
      await this.inventories.delete(inventory.id, tx);
      await this.audit.record(
        {
          organizationId,
          actor,
          action: 'inventory.delete',
          resourceType: 'inventory',
          resourceId: inventory.id,
          resourceName: `${project.name}/${name}`,
          changes: { components: inventory.componentCount },
        },
        tx,
      );
    });
  }

  /** The project's triage of the inventory's findings as a VEX document (docs/inventories.md, "VEX"). */
  async vex(
    organizationId: string,
    projectName: string,
    name: string,
    format: VexFormat,
    now = new Date(),
  ): Promise<Record<string, unknown>> {
    const { project, inventory } = await this.inventory(organizationId, projectName, name);
    const rows = await this.inventories.vexRows(inventory.id, project.id);
    return vexDocument(
      format,
      {
        organization: organizationId,
        project: project.name,
        inventory: withoutId(inventory),
        id: inventory.id,
      },
      rows,
      now,
    );
  }

  /** Matches the components a thousand at a time (the matcher's limit per call). */
  private async match(components: readonly SbomComponent[]): Promise<ComponentMatch[]> {
    const out: ComponentMatch[] = [];
    for (let start = 0; start < components.length; start += MAX_INVENTORY) {
      const slice = components.slice(start, start + MAX_INVENTORY).map(matcherInput);
      for (const m of await this.matcher.match(slice)) out.push({ ...m, index: m.index + start });
    }
    return out;
  }

  /**
   * Marks the CVEs resolved in the project's tracker (those already closed keep their status), with a
   * comment saying why and an audit entry naming the versions before and after.
   */
  private async resolveInTracker(
    tx: Transaction<DB>,
    organizationId: string,
    project: ProjectRow,
    inventory: string,
    resolved: readonly { cveId: string; changes: VersionChange[] }[],
    actor: Actor,
  ): Promise<void> {
    if (!resolved.length) return;
    const tracker = new TrackerRepository(tx);
    const current = await tracker.entries(
      project.id,
      resolved.map((r) => r.cveId),
    );
    const writes: TrackerWrite[] = [];
    const entries: AuditEntry[] = [];
    const comments: NewComment[] = [];
    for (const r of resolved) {
      const entry = current.get(r.cveId);
      const status = entry?.status ?? null;
      const text = `Resolved by inventory ${inventory}: ${changesText(r.changes)}.`;
      if (status !== 'resolved')
        writes.push({
          cve_id: r.cveId,
          status: 'resolved',
          assignee_id: entry?.assignee_id ?? null,
          assigned_at: entry?.assigned_at ?? null,
        });
      entries.push({
        organizationId,
        actor,
        action: entry ? 'tracker_entry.update' : 'tracker_entry.create',
        resourceType: 'tracker_entry',
        resourceId: r.cveId,
        resourceName: `${project.name}/${r.cveId}`,
        changes: {
          ...(status !== 'resolved' ? { status: { old: status, new: 'resolved' } } : {}),
          resolved_by: { inventory, changes: r.changes },
        },
      });
      if (actor.type !== 'system' && actor.id)
        comments.push({
          projectId: project.id,
          cveId: r.cveId,
          authorType: actor.type,
          authorId: actor.id,
          authorName: actor.name,
          body: text,
        });
    }
    await tracker.addComments(comments, tx);
    await tracker.upsert(project.id, writes, tx);
    await this.audit.recordMany(entries, tx);
  }

  private async inventory(
    organizationId: string,
    projectName: string,
    name: string,
  ): Promise<{ project: ProjectRow; inventory: InventorySummary & { id: string } }> {
    const project = await activeProject(this.projects, organizationId, projectName);
    const inventory = INVENTORY_NAME.test(name) ? await this.inventories.find(project.id, name) : undefined;
    if (!inventory) throw new AppError('not_found');
    return { project, inventory };
  }
}

/** The document read, or 400 naming its first problem (and where: a JSON pointer or a line). */
async function readDocument(text: string, contentType: string | undefined): Promise<SbomDocument> {
  try {
    return await parseSbom(text, contentType);
  } catch (e) {
    if (!(e instanceof SbomError)) throw e;
    const where =
      e.pointer !== undefined
        ? e.pointer === ''
          ? 'document'
          : e.pointer
        : e.line !== undefined
          ? `line ${e.line}`
          : 'document';
    throw new AppError('validation_error', `The SBOM cannot be read: ${e.message}`, { [where]: [e.message] });
  }
}

function groupByCve(rows: readonly FindingRow[]): Map<string, FindingRow[]> {
  const out = new Map<string, FindingRow[]>();
  for (const r of rows) {
    const list = out.get(r.cveId);
    if (list) list.push(r);
    else out.set(r.cveId, [r]);
  }
  return out;
}

/** Each component of a resolved CVE's old findings, with the version the new document gives it (same name, or same package URL without its version). */
function versionChanges(rows: readonly FindingRow[], now: readonly SbomComponent[]): VersionChange[] {
  const seen = new Set<string>();
  const out: VersionChange[] = [];
  const purlBase = (p: string | null | undefined) => p?.replace(/@[^?#]*/, '') ?? null;
  for (const r of rows) {
    const key = `${r.name}\u0000${r.version ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const base = purlBase(r.purl);
    const after =
      now.find((c) => base !== null && purlBase(c.purl) === base) ?? now.find((c) => c.name === r.name);
    out.push({ name: r.name, before: r.version, after: after ? (after.version ?? 'version unknown') : null });
  }
  return out;
}

const withoutId = ({ id: _id, ...rest }: InventorySummary & { id?: string }): InventorySummary => rest;
