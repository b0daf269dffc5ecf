/**
 * An automation's tracker actions (`assign_user`, `change_status`), run inside the event processor's
 * transaction (and a report's): the CVEs matched are moved as a user's move would be, audited, and
 * an assignee who is not a joined member is the action's failure, not an error.
 */
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { ProjectRepository } from '../db/project.repository.ts';
import type { TrackerRepository } from '../db/tracker.repository.ts';
import type { Actor } from '../domain/actor.ts';
import { emailOf, type TrackerPatch } from './tracker-model.ts';
import type { MoveAssignee, TrackerMoves } from './tracker-moves.ts';

export class TrackerAutomation {
  constructor(
    private readonly projects: ProjectRepository,
    private readonly tracker: TrackerRepository,
    private readonly moves: TrackerMoves,
  ) {}

  /**
   * An automation's tracker action inside the event processor's transaction: moves those of
   * `cveIds` the project has (the others are left out, not an error). Returns how many moved, or a
   * reason when the assignee is not a joined member.
   */
  async applyAutomation(
    tx: Transaction<DB>,
    organizationId: string,
    projectId: string,
    cveIds: string[],
    patch: TrackerPatch,
    actor: Actor,
  ): Promise<{ changed: number } | { error: string }> {
    const project = await this.projects.findById(projectId, tx);
    if (!project) return { error: 'the project no longer exists' };
    let assignee: MoveAssignee = undefined;
    if (patch.assignee !== undefined && patch.assignee !== null) {
      const email = emailOf(patch.assignee);
      assignee = email ? await this.tracker.joinedMember(organizationId, email, tx) : undefined;
      if (!assignee) return { error: `${patch.assignee} is not a member of this organization` };
    } else if (patch.assignee === null) assignee = null;
    const { changed } = await this.moves.within(
      tx,
      organizationId,
      project,
      cveIds,
      patch,
      assignee,
      actor,
      () => {},
    );
    return { changed };
  }
}
