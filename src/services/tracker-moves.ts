/**
 * Moving CVEs of a project in a transaction: the status, the assignee and the user's own tags, with
 * the audit entries (one per CVE, or one for a bulk move listing each CVE with its old and new
 * values). Shared by TrackerService (the API and web moves) and TrackerAutomation (an automation's
 * actions inside the event processor's transaction).
 */
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { AuditEntry, AuditRepository } from '../db/audit.repository.ts';
import type { ProjectRepository } from '../db/project.repository.ts';
import type { TagRepository } from '../db/tag.repository.ts';
import type { TrackerRepository, TrackerWrite } from '../db/tracker.repository.ts';
import type { Actor } from '../domain/actor.ts';
import { AppError } from '../domain/errors.ts';
import type { ProjectRow } from '../domain/project.ts';
import { trackedOf, type TrackedCve, type TrackerPatch } from './tracker-model.ts';

/** The assignee of a move: undefined leaves it, null clears it. */
export type MoveAssignee = { id: string; email: string } | null | undefined;

export interface MoveOptions {
  /** One audit entry for the whole move (a bulk move) instead of one per CVE. */
  oneEntry?: boolean | undefined;
  /** The user's tags to put on and take off every CVE moved. */
  tags?: { userId: string; add: readonly string[]; remove: readonly string[] } | undefined;
}

export class TrackerMoves {
  constructor(
    private readonly projects: ProjectRepository,
    private readonly tracker: TrackerRepository,
    private readonly tags: TagRepository,
    private readonly audit: AuditRepository,
  ) {}

  /**
   * Moves `requested` CVEs of the project in `tx` (the project locked first). `onMissing` is called
   * with the CVEs the project does not have (it throws to refuse the move, or returns to leave them
   * out). Returns how many changed and each CVE moved, as it is now.
   */
  async within(
    tx: Transaction<DB>,
    organizationId: string,
    project: ProjectRow,
    requested: string[],
    patch: TrackerPatch,
    assignee: MoveAssignee,
    actor: Actor,
    onMissing: (missing: string[]) => void,
    { oneEntry = false, tags }: MoveOptions = {},
  ): Promise<{ changed: number; results: TrackedCve[] }> {
    if (!(await this.projects.lock(project.id, tx))) throw new AppError('not_found');
    const keys = await this.projects.subscriptionKeys(project.id, tx);
    const current = new Map(
      (await this.tracker.projectCves(project.id, keys, requested, tx)).map((r) => [r.cve_id, r]),
    );
    const missing = requested.filter((id) => !current.has(id));
    if (missing.length) onMissing(missing);
    const cveIds = requested.filter((id) => current.has(id));
    const tagsBefore = tags ? await this.tags.ofCves(tags.userId, cveIds, tx) : new Map<string, string[]>();

    const writes: TrackerWrite[] = [];
    const entries: AuditEntry[] = [];
    /** Each CVE that changed, with its changes (one bulk audit entry). */
    const moved: Record<string, Record<string, unknown>> = {};
    let changed = 0;
    for (const id of cveIds) {
      const row = current.get(id)!;
      const changes: Record<string, { old: string | null; new: string | null }> = {};
      if (patch.status !== undefined && patch.status !== row.status)
        changes.status = { old: row.status, new: patch.status };
      if (assignee !== undefined && (assignee?.id ?? null) !== row.assignee_id)
        changes.assignee = { old: row.assignee, new: assignee?.email ?? null };
      const had = tags ? (tagsBefore.get(id) ?? []) : [];
      const tagChanges = tags && {
        added: tags.add.filter((t) => !had.includes(t)),
        removed: tags.remove.filter((t) => had.includes(t)),
      };
      const retagged = tagChanges && (tagChanges.added.length > 0 || tagChanges.removed.length > 0);
      if (Object.keys(changes).length) {
        writes.push({
          cve_id: id,
          status: patch.status === undefined ? row.status : patch.status,
          assignee_id: changes.assignee ? (assignee?.id ?? null) : row.assignee_id,
          assigned_at: changes.assignee ? (assignee ? 'now' : null) : row.assigned_at,
        });
        if (!oneEntry) entries.push(auditEntry(organizationId, actor, project, id, row.tracked, changes));
      }
      if (Object.keys(changes).length || retagged) {
        changed++;
        moved[id] = retagged ? { ...changes, tags: tagChanges } : changes;
      }
    }
    if (oneEntry && changed > 0)
      entries.push({
        organizationId,
        actor,
        action: 'tracker_entry.bulk_update',
        resourceType: 'tracker_entry',
        resourceId: null,
        resourceName: project.name,
        changes: { count: changed, cves: moved },
      });
    await this.audit.recordMany(entries, tx);
    await this.tracker.upsert(project.id, writes, tx);
    if (tags) await this.tags.addAndRemove(tags.userId, cveIds, tags.add, tags.remove, tx);
    const after = new Map(
      (await this.tracker.projectCves(project.id, keys, cveIds, tx)).map((r) => [r.cve_id, trackedOf(r)]),
    );
    return { changed, results: cveIds.map((id) => after.get(id)!) };
  }
}

function auditEntry(
  organizationId: string,
  actor: Actor,
  project: ProjectRow,
  cveId: string,
  tracked: boolean,
  changes: Record<string, { old: string | null; new: string | null }>,
): AuditEntry {
  return {
    organizationId,
    actor,
    action: tracked ? 'tracker_entry.update' : 'tracker_entry.create',
    resourceType: 'tracker_entry',
    resourceId: cveId,
    resourceName: `${project.name}/${cveId}`,
    changes,
  };
}
