/**
 * The triage of a project's CVEs: single moves (one audit entry with old and new values), bulk moves
 * (all or nothing; one audit entry listing every CVE moved with its old and new values) and the web
 * tracker's bulk edit (also the user's own tags, of the CVEs selected or of every CVE matching a
 * filter). Reading the project's CVEs is ProjectCveService's, comments TrackerCommentService's, an
 * automation's moves TrackerAutomation's.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { CveRepository } from '../db/cve.repository.ts';
import type { ProjectRepository } from '../db/project.repository.ts';
import type { TrackerRepository } from '../db/tracker.repository.ts';
import type { Actor } from '../domain/actor.ts';
import { AppError, validationError } from '../domain/errors.ts';
import { MAX_BULK_CVES } from '../domain/triage.ts';
import { CVE_EXPORT_MAX } from './cve-export.ts';
import type { ProjectCveLists } from './project-cve-list.ts';
import { MAX_TAGS_PER_CVE, TAG_NAME } from './tag.service.ts';
import {
  activeProject,
  emailOf,
  type ProjectCveQuery,
  type TrackedCve,
  type TrackerPatch,
} from './tracker-model.ts';
import type { MoveAssignee, MoveOptions, TrackerMoves } from './tracker-moves.ts';

export type { TrackerPatch } from './tracker-model.ts';

/** A bulk edit of the web tracker: a move and the user's own tags to add and remove. */
export interface BulkEdit extends TrackerPatch {
  addTags?: readonly string[] | undefined;
  removeTags?: readonly string[] | undefined;
}

/** What a bulk edit changes: the CVEs selected, or every CVE matching a list query. */
export type BulkSelection = { cveIds: readonly string[] } | { matching: ProjectCveQuery };

/** The most CVEs a bulk edit of "every CVE matching this filter" moves (as an export holds). */
export const BULK_MATCHING_MAX = CVE_EXPORT_MAX;

export class TrackerService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly projects: ProjectRepository,
    private readonly tracker: TrackerRepository,
    private readonly cves: CveRepository,
    private readonly projectLists: ProjectCveLists,
    private readonly moves: TrackerMoves,
  ) {}

  /** Moves one CVE of the project; 404 when the project does not have it. */
  async update(
    organizationId: string,
    projectName: string,
    cveId: string,
    patch: TrackerPatch,
    actor: Actor,
  ): Promise<TrackedCve> {
    const { results } = await this.move(organizationId, projectName, [cveId], patch, actor, () => {
      throw new AppError('not_found');
    });
    return results[0]!;
  }

  /**
   * Moves several CVEs of the project at once, all or nothing: any CVE the project does not have is a
   * 400 naming each, and nothing moves. One audit entry lists every CVE that moved with its old and
   * new values. Returns the CVEs (in the order given) and how many moved.
   */
  bulkUpdate(
    organizationId: string,
    projectName: string,
    cveIds: readonly string[],
    patch: TrackerPatch,
    actor: Actor,
  ): Promise<{ changed: number; results: TrackedCve[] }> {
    return this.move(
      organizationId,
      projectName,
      [...new Set(cveIds)],
      patch,
      actor,
      (missing) => {
        throw validationError({ cve_ids: missing.map((id) => `${id} is not a CVE of this project`) });
      },
      { oneEntry: true },
    );
  }

  /**
   * The web tracker's bulk edit: status, assignee and the user's own tags of the CVEs selected
   * (`cveIds`, all of them the project's, else a 400 under `cve_ids` and nothing changes) or of every
   * CVE matching a list query (`matching`, chosen by the server at the time of the edit, at most
   * BULK_MATCHING_MAX), in one transaction and one audit entry listing each CVE that changed.
   */
  async bulkEdit(
    organizationId: string,
    projectName: string,
    selection: BulkSelection,
    edit: BulkEdit,
    actor: Actor,
  ): Promise<{ changed: number; selected: number }> {
    const add = [...new Set(edit.addTags ?? [])].sort();
    const remove = [...new Set(edit.removeTags ?? [])].sort();
    const problems: Record<string, string[]> = {};
    for (const [field, tags] of [
      ['add_tags', add],
      ['remove_tags', remove],
    ] as const) {
      const bad = tags.filter((t) => !TAG_NAME.test(t));
      if (bad.length)
        problems[field] = [
          `Not a tag: ${bad.map((t) => `"${t}"`).join(', ')}. Letters, digits, _ . - only, at most 64 characters.`,
        ];
      else if (tags.length > MAX_TAGS_PER_CVE) problems[field] = [`At most ${MAX_TAGS_PER_CVE} tags.`];
    }
    const both = add.filter((t) => remove.includes(t));
    if (both.length && !problems.remove_tags)
      problems.remove_tags = [`${both.join(', ')}: a tag cannot be both added and removed.`];
    const nothing = edit.status === undefined && edit.assignee === undefined && !add.length && !remove.length;
    if (nothing) problems._form = ['Choose a status, an assignee or tags to change.'];
    if ((add.length || remove.length) && (actor.type !== 'user' || actor.id === null))
      problems._form = ['Only a signed-in user has tags.'];
    if (Object.keys(problems).length) throw validationError(problems);

    let cveIds: string[];
    let onMissing: (missing: string[]) => void;
    if ('cveIds' in selection) {
      cveIds = [...new Set(selection.cveIds)];
      if (!cveIds.length) throw validationError({ cve_ids: ['Select at least one CVE.'] });
      if (cveIds.length > MAX_BULK_CVES)
        throw validationError({
          cve_ids: [`At most ${MAX_BULK_CVES.toLocaleString('en-US')} CVEs at once.`],
        });
      onMissing = (missing) => {
        throw validationError({ cve_ids: missing.map((id) => `${id} is not a CVE of this project.`) });
      };
    } else {
      const list = await this.projectLists.resolve(organizationId, projectName, selection.matching);
      cveIds = list
        ? await this.cves.listIds(list.filters, selection.matching.ordering, BULK_MATCHING_MAX + 1)
        : [];
      if (cveIds.length > BULK_MATCHING_MAX)
        throw validationError({
          cve_ids: [
            `More than ${BULK_MATCHING_MAX.toLocaleString('en-US')} CVEs match: narrow the filter first.`,
          ],
        });
      if (!cveIds.length) throw validationError({ cve_ids: ['No CVE matches this filter.'] });
      // A CVE that left the project since (its subscription removed) is left out.
      onMissing = () => {};
    }
    const tags = add.length || remove.length ? { userId: actor.id!, add, remove } : undefined;
    const { changed } = await this.move(organizationId, projectName, cveIds, edit, actor, onMissing, {
      oneEntry: true,
      tags,
    });
    return { changed, selected: cveIds.length };
  }

  private async move(
    organizationId: string,
    projectName: string,
    cveIds: string[],
    patch: TrackerPatch,
    actor: Actor,
    onMissing: (missing: string[]) => void,
    options: MoveOptions = {},
  ): Promise<{ changed: number; results: TrackedCve[] }> {
    const project = await activeProject(this.projects, organizationId, projectName);
    // Resolved before the transaction: the embedded database has one session, which a transaction holds.
    const assignee = await this.assignee(organizationId, patch.assignee);
    return this.db
      .transaction()
      .execute((tx) =>
        this.moves.within(tx, organizationId, project, cveIds, patch, assignee, actor, onMissing, options),
      );
  }

  /**
   * The assignee of a patch: undefined to leave it, null to clear it, else the joined member with
   * that email (400 for anyone else, invitations included).
   */
  private async assignee(organizationId: string, email: string | null | undefined): Promise<MoveAssignee> {
    if (email === undefined || email === null) return email;
    const normalized = emailOf(email);
    const member = normalized && (await this.tracker.joinedMember(organizationId, normalized));
    if (!member) throw validationError({ assignee: [`${email} is not a member of this organization`] });
    return member;
  }
}
