/**
 * The CVE tracker of a project: the project's CVEs with their triage status and assignee, moves
 * (a single move one audit entry with old and new values; a bulk move one entry listing every CVE
 * moved with its old and new values) and comments.
 */
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { CveRepository } from '../db/cve.repository.ts';
import type { CveFilters } from '../db/cve-list-conditions.ts';
import { type CveCursor, type CveOrdering } from '../domain/cve-list.ts';
import { ProjectRepository, type ListedProject } from '../db/project.repository.ts';
import type { ProjectRow } from '../domain/project.ts';
import {
  TrackerRepository,
  type ProjectCveRow,
  type TrackerFilter,
  type TrackerState,
  type TrackerWrite,
  type CommentRow,
} from '../db/tracker.repository.ts';
import { AuditRepository, type AuditEntry } from '../db/audit.repository.ts';
import { TagRepository } from '../db/tag.repository.ts';
import { MAX_TAGS_PER_CVE, TAG_NAME } from './tag.service.ts';
import type { ListCache } from './list-cache.ts';
import { CveListReader } from './cve-list-reader.ts';
import { QueryCompiler } from './query-compiler.ts';
import { CveListRepository } from '../db/cve-list.repository.ts';
import { CVE_EXPORT_MAX, exportIds, inChunks, type CveExport, type CveExportRow } from './cve-export.ts';
import { browseKeyset, type CveBrowsePage } from './cve-browse.ts';
import type { Actor } from '../domain/actor.ts';
import { AppError, validationError } from '../domain/errors.ts';
import { EMAIL, normalizeEmail, PROJECT_NAME } from '../domain/names.ts';
import { COMMENT_MAX_LENGTH, MAX_BULK_CVES, type TriageStatus } from '../domain/triage.ts';
import { assertPageInRange, offsetOf, type PageRequest } from '../domain/paging.ts';
import { toSecondsZ } from '../domain/timestamps.ts';

/** A CVE of a project as lists show it: the catalog list item's fields and the tracker entry. */
export interface TrackedCve {
  cve_id: string;
  description: string | null;
  /** As the API writes CVE dates: `YYYY-MM-DDTHH:MM:SSZ`. */
  created_at: string;
  updated_at: string;
  tracker: Omit<TrackerState, 'assignee_id'>;
}

/** A move: `undefined` leaves a field as it is, `null` clears it. */
export interface TrackerPatch {
  status?: TriageStatus | null | undefined;
  /** The assignee's email. */
  assignee?: string | null | undefined;
}

export interface ProjectCveQuery {
  filters: CveFilters;
  /** The advanced query as the client wrote it (the projects it names are the organization's). */
  q?: string | undefined;
  ordering: CveOrdering;
  /** A status, or `no_status`. */
  status?: TriageStatus | 'no_status' | undefined;
  /** The assignee's email, or null for CVEs nobody is assigned to. */
  assignee?: string | null | undefined;
  /** CVEs the user tagged so (the user's own tags; a tag the user never used is a 400 under `tag`). */
  tag?: { userId: string; tag: string } | undefined;
  /** Names the catalog filters (as the client sent them) so the count can be cached. */
  countKey?: string | undefined;
}

/** A CVE of a project as an export writes it: the catalog's exported columns and the tracker entry. */
export interface TrackedCveExportRow extends CveExportRow {
  tracker: TrackedCve['tracker'];
}

/** A bulk edit of the web tracker: a move and the user's own tags to add and remove. */
export interface BulkEdit extends TrackerPatch {
  addTags?: readonly string[] | undefined;
  removeTags?: readonly string[] | undefined;
}

/** The most CVEs a bulk edit of "every CVE matching this filter" moves (as an export holds). */
export const BULK_MATCHING_MAX = CVE_EXPORT_MAX;

interface MoveOptions {
  /** One audit entry for the whole move (a bulk move) instead of one per CVE. */
  oneEntry?: boolean | undefined;
  /** The user's tags to put on and take off every CVE moved. */
  tags?: { userId: string; add: readonly string[]; remove: readonly string[] } | undefined;
}

interface ProjectList {
  projectId: string;
  keys: string[];
  filters: CveFilters;
  /** Whether tracker or tag filters apply (then the count is not cached). */
  byTracker: boolean;
}

const UNTRACKED: TrackedCve['tracker'] = {
  status: null,
  assignee: null,
  assigned_at: null,
  updated_at: null,
};

export class TrackerService {
  private readonly cves: CveRepository;
  private readonly lists: CveListRepository;
  private readonly reader: CveListReader;
  private readonly query: QueryCompiler;
  private readonly projects: ProjectRepository;
  private readonly tracker: TrackerRepository;
  private readonly audit: AuditRepository;
  private readonly tags: TagRepository;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly cache: ListCache,
  ) {
    this.tags = new TagRepository(db);
    this.cves = new CveRepository(db);
    this.lists = new CveListRepository(db);
    this.reader = new CveListReader(this.lists, cache);
    this.query = new QueryCompiler(db);
    this.projects = new ProjectRepository(db);
    this.tracker = new TrackerRepository(db);
    this.audit = new AuditRepository(db);
  }

  /**
   * One page of the project's CVEs with the catalog filters and the tracker's: the project and its
   * subscriptions in one read, then the page with its tracker entries (LEFT JOINed) and its count
   * (cached per catalog version, see CveListReader).
   */
  async listCves(
    organizationId: string,
    projectName: string,
    query: ProjectCveQuery,
    page: PageRequest,
    listed?: ListedProject,
  ): Promise<{ count: number; items: TrackedCve[]; version: number | undefined }> {
    const list = await this.projectList(organizationId, projectName, query, listed);
    if (!list) {
      assertPageInRange(page, 0);
      return { count: 0, items: [], version: undefined };
    }
    const { count, items, version } = await this.reader.read(
      { filters: list.filters, countKey: this.countKeyOf(list, query.countKey) },
      query.ordering,
      page,
      (window) => this.lists.trackedPage(list.projectId, list.filters, query.ordering, window),
    );
    return {
      count,
      version,
      items: items.map((r) => ({
        cve_id: r.cve_id,
        description: r.description,
        created_at: r.created_at,
        updated_at: r.updated_at,
        tracker: {
          status: r.tracker_status,
          assignee: r.tracker_assignee,
          assigned_at: r.tracker_assigned_at,
          updated_at: r.tracker_updated_at,
        },
      })),
    };
  }

  /** Every CVE of the project's list, in its order, for an export (at most CVE_EXPORT_MAX, else a 400). */
  async exportCves(
    organizationId: string,
    projectName: string,
    query: ProjectCveQuery,
  ): Promise<CveExport<TrackedCveExportRow>> {
    const list = await this.projectList(organizationId, projectName, query);
    if (!list) return { count: 0, rows: inChunks([], () => Promise.resolve([])) };
    const { projectId, filters } = list;
    const countKey = this.countKeyOf(list, query.countKey);
    const ids = await exportIds(this.cves, filters, query.ordering, () =>
      this.reader.count({ filters, countKey }),
    );
    const read = async (chunk: string[]): Promise<TrackedCveExportRow[]> => {
      const rows = await this.cves.exportRows(chunk);
      const entries = await this.tracker.entries(projectId, chunk);
      return rows.map((r) => {
        const entry = entries.get(r.cve_id);
        return { ...r, tracker: entry ? trackerOf(entry) : UNTRACKED };
      });
    };
    return { count: ids.length, rows: inChunks(ids, read) };
  }

  /**
   * The repository filters of the project's list: its subscriptions, REJECTED excepted, the catalog
   * filters and the tracker's. Undefined when nothing can match (no subscriptions, or nobody with
   * the assignee's email).
   */
  private async projectList(
    organizationId: string,
    projectName: string,
    query: ProjectCveQuery,
    listed?: ListedProject,
  ): Promise<ProjectList | undefined> {
    const { id: projectId, keys } = listed ?? (await this.listedProject(organizationId, projectName));
    const byQuery = await this.query.compile(query.q, organizationId);
    const trackerFilter: TrackerFilter = {};
    if (query.status !== undefined) trackerFilter.status = query.status === 'no_status' ? null : query.status;
    let unknownAssignee = false;
    if (query.assignee === null) trackerFilter.assigneeId = null;
    else if (query.assignee !== undefined) {
      const email = emailOf(query.assignee);
      trackerFilter.assigneeId = email === undefined ? undefined : await this.tracker.userIdByEmail(email);
      unknownAssignee = trackerFilter.assigneeId === undefined;
    }
    let byTag: CveFilters['where'];
    if (query.tag) {
      const { userId, tag } = query.tag;
      if (!TAG_NAME.test(tag) || !(await this.tags.exists(userId, tag)))
        throw validationError({ tag: [`You have not put the tag "${tag}" on any CVE.`] });
      byTag = this.tags.filter(userId, tag);
    }
    if (!keys.length || unknownAssignee) return;
    const byTracker = this.tracker.filter(projectId, trackerFilter);
    const conditions = [byQuery.where ?? query.filters.where, byTracker, byTag].filter(
      (c) => c !== undefined,
    );
    const filters: CveFilters = {
      ...query.filters,
      ...byQuery,
      anyVendorKeys: keys,
      excludeRejected: true,
      where: conditions.length ? (eb) => eb.and(conditions.map((c) => c(eb))) : undefined,
    };
    return { projectId, keys, filters, byTracker: byTracker !== undefined || byTag !== undefined };
  }

  /**
   * The list's cache key: counts depend on the catalog and the subscriptions; with tracker filters
   * they also depend on triage, which moves without a catalog version, so nothing is cached.
   */
  private countKeyOf(list: ProjectList, countKey: string | undefined): string | undefined {
    return countKey !== undefined && !list.byTracker
      ? JSON.stringify([countKey, list.projectId, list.keys])
      : undefined;
  }

  /**
   * A project as its CVE list needs it: id, subscribed vendor keys and list version (one prepared
   * statement); 404 when the organization has no such project, or it is inactive.
   */
  async listedProject(organizationId: string, projectName: string): Promise<ListedProject> {
    // A name no project can have (a NUL byte, say) is not looked up: PostgreSQL text cannot hold it.
    const project = PROJECT_NAME.test(projectName)
      ? await this.projects.listed(organizationId, projectName)
      : undefined;
    if (!project) throw new AppError('not_found');
    return project;
  }

  /** One CVE of the project; 404 when the project does not have it. */
  async getCve(organizationId: string, projectName: string, cveId: string): Promise<TrackedCve> {
    const project = await this.project(organizationId, projectName);
    const keys = await this.projects.subscriptionKeys(project.id);
    const [row] = await this.tracker.projectCves(project.id, keys, [cveId]);
    if (!row) throw new AppError('not_found');
    return trackedOf(row);
  }

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
    selection: { cveIds: readonly string[] } | { matching: ProjectCveQuery },
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
      const list = await this.projectList(organizationId, projectName, selection.matching);
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

  /**
   * A keyset page of the project's list for the web UI (from `cursor`, its count capped as /cves'
   * is), each CVE with its tracker entry. Undefined page items when nothing can match.
   */
  async browseCves(
    organizationId: string,
    projectName: string,
    query: ProjectCveQuery,
    cursor: CveCursor | undefined,
    limit: number,
  ): Promise<{ page: CveBrowsePage; tracker: Map<string, TrackedCve['tracker']> }> {
    const list = await this.projectList(organizationId, projectName, query);
    if (!list) {
      const empty = { items: [], count: 0, capped: false, next: undefined, previous: undefined, position: 0 };
      return { page: empty, tracker: new Map() };
    }
    const countKey = this.countKeyOf(list, query.countKey);
    const page = await browseKeyset(
      this.lists,
      this.cache,
      list.filters,
      query.ordering,
      cursor,
      limit,
      countKey,
    );
    const entries = await this.tracker.entries(
      list.projectId,
      page.items.map((r) => r.cve_id),
    );
    return {
      page,
      tracker: new Map([...entries].map(([id, entry]) => [id, trackerOf(entry)])),
    };
  }

  /** Who may be assigned the organization's CVEs: its joined members, by username. */
  async assignees(organizationId: string): Promise<{ email: string; username: string }[]> {
    return (await this.tracker.joinedMembers(organizationId)).map(({ email, username }) => ({
      email,
      username,
    }));
  }

  async listComments(organizationId: string, projectName: string, cveId: string, page: PageRequest) {
    const project = await this.projectWithCve(organizationId, projectName, cveId);
    const count = await this.tracker.countComments(project.id, cveId);
    assertPageInRange(page, count);
    return {
      count,
      items: await this.tracker.listComments(project.id, cveId, page.pageSize, offsetOf(page)),
    };
  }

  /** Adds a comment (audited `tracker_comment.create`); 404 when the project does not have the CVE. */
  async addComment(
    organizationId: string,
    projectName: string,
    cveId: string,
    body: string,
    actor: Actor,
  ): Promise<CommentRow> {
    checkCommentBody(body);
    const { type: authorType, id: authorId } = actor;
    if (authorType === 'system' || authorId === null) throw new AppError('permission_denied');
    const project = await this.projectWithCve(organizationId, projectName, cveId);
    return this.db.transaction().execute(async (tx) => {
      const comment = await this.tracker.addComment(
        { projectId: project.id, cveId, authorType, authorId, authorName: actor.name, body },
        tx,
      );
      await this.audit.record(this.commentAudit(organizationId, actor, project, comment, 'create', {}), tx);
      return comment;
    });
  }

  /**
   * Replaces the text of a comment: its author only (a user, or the API token that wrote it), else 403.
   * Audited `tracker_comment.update` with the old and new text; 404 for a comment of another CVE or
   * project. An unchanged text changes nothing.
   */
  async editComment(
    organizationId: string,
    projectName: string,
    cveId: string,
    commentId: string,
    body: string,
    actor: Actor,
  ): Promise<CommentRow> {
    checkCommentBody(body);
    const { project, comment } = await this.comment(organizationId, projectName, cveId, commentId);
    if (!isAuthor(comment, actor))
      throw new AppError('permission_denied', 'Only its author can edit a comment.');
    if (comment.body === body) return comment;
    return this.db.transaction().execute(async (tx) => {
      const edited = await this.tracker.editComment(comment.id, body, tx);
      await this.audit.record(
        this.commentAudit(organizationId, actor, project, comment, 'update', {
          body: { old: comment.body, new: body },
        }),
        tx,
      );
      return edited;
    });
  }

  /**
   * Deletes a comment: its author, or an owner of the organization (a user; an API token deletes only
   * what it wrote), else 403. Audited `tracker_comment.delete` with the text it had.
   */
  async deleteComment(
    organizationId: string,
    projectName: string,
    cveId: string,
    commentId: string,
    actor: Actor,
  ): Promise<void> {
    const { project, comment } = await this.comment(organizationId, projectName, cveId, commentId);
    if (!isAuthor(comment, actor) && !(await this.isOwner(organizationId, actor)))
      throw new AppError(
        'permission_denied',
        'Only its author or an owner of the organization can delete a comment.',
      );
    await this.db.transaction().execute(async (tx) => {
      await this.tracker.deleteComment(comment.id, tx);
      await this.audit.record(
        this.commentAudit(organizationId, actor, project, comment, 'delete', {
          body: { old: comment.body, new: null },
          author: comment.author_name,
        }),
        tx,
      );
    });
  }

  /** What the actor may do to each comment (the web page shows only the controls that will work). */
  async commentRights(organizationId: string, actor: Actor): Promise<(comment: CommentRow) => CommentRights> {
    const owner = await this.isOwner(organizationId, actor);
    return (comment) => {
      const author = isAuthor(comment, actor);
      return { edit: author, delete: author || owner };
    };
  }

  private async isOwner(organizationId: string, actor: Actor): Promise<boolean> {
    if (actor.type !== 'user' || actor.id === null) return false;
    return (await this.tracker.memberRole(organizationId, actor.id)) === 'owner';
  }

  private async comment(
    organizationId: string,
    projectName: string,
    cveId: string,
    commentId: string,
  ): Promise<{ project: ProjectRow; comment: CommentRow }> {
    const project = await this.projectWithCve(organizationId, projectName, cveId);
    const comment = await this.tracker.findComment(project.id, cveId, commentId);
    if (!comment) throw new AppError('not_found');
    return { project, comment };
  }

  private commentAudit(
    organizationId: string,
    actor: Actor,
    project: ProjectRow,
    comment: CommentRow,
    verb: 'create' | 'update' | 'delete',
    changes: Record<string, unknown>,
  ): AuditEntry {
    return {
      organizationId,
      actor,
      action: `tracker_comment.${verb}`,
      resourceType: 'tracker_comment',
      resourceId: comment.id,
      resourceName: `${project.name}/${comment.cve_id}`,
      changes,
    };
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
    const project = await this.project(organizationId, projectName);
    // Resolved before the transaction: the embedded database has one session, which a transaction holds.
    const assignee = await this.assignee(organizationId, patch.assignee);
    return this.db
      .transaction()
      .execute((tx) =>
        this.moveWithin(tx, organizationId, project, cveIds, patch, assignee, actor, onMissing, options),
      );
  }

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
    let assignee: { id: string; email: string } | null | undefined = undefined;
    if (patch.assignee !== undefined && patch.assignee !== null) {
      const email = emailOf(patch.assignee);
      assignee = email ? await this.tracker.joinedMember(organizationId, email, tx) : undefined;
      if (!assignee) return { error: `${patch.assignee} is not a member of this organization` };
    } else if (patch.assignee === null) assignee = null;
    const { changed } = await this.moveWithin(
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

  private async moveWithin(
    tx: Transaction<DB>,
    organizationId: string,
    project: ProjectRow,
    requested: string[],
    patch: TrackerPatch,
    assignee: { id: string; email: string } | null | undefined,
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
        if (!oneEntry)
          entries.push(this.auditEntry(organizationId, actor, project, id, row.tracked, changes));
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

  private auditEntry(
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

  /**
   * The assignee of a patch: undefined to leave it, null to clear it, else the joined member with
   * that email (400 for anyone else, invitations included).
   */
  private async assignee(
    organizationId: string,
    email: string | null | undefined,
  ): Promise<{ id: string; email: string } | null | undefined> {
    if (email === undefined || email === null) return email;
    const normalized = emailOf(email);
    const member = normalized && (await this.tracker.joinedMember(organizationId, normalized));
    if (!member) throw validationError({ assignee: [`${email} is not a member of this organization`] });
    return member;
  }

  /** The active project named `name`: an inactive project's CVEs are a 404, as on OpenCVE. */
  private async project(organizationId: string, name: string): Promise<ProjectRow> {
    // A name no project can have (a NUL byte, say) is not looked up: PostgreSQL text cannot hold it.
    const project = PROJECT_NAME.test(name)
      ? await this.projects.findByName(organizationId, name)
      : undefined;
    if (!project?.active) throw new AppError('not_found');
    return project;
  }

  private async projectWithCve(
    organizationId: string,
    projectName: string,
    cveId: string,
  ): Promise<ProjectRow> {
    const project = await this.project(organizationId, projectName);
    const keys = await this.projects.subscriptionKeys(project.id);
    if (!(await this.tracker.projectCves(project.id, keys, [cveId])).length) throw new AppError('not_found');
    return project;
  }
}

export type { CommentRow };

export interface CommentRights {
  edit: boolean;
  delete: boolean;
}

function checkCommentBody(body: string): void {
  if (!body.trim()) throw validationError({ body: ['must not be blank'] });
  if (body.includes('\u0000')) throw validationError({ body: ['must not contain NUL characters'] });
  if (body.length > COMMENT_MAX_LENGTH)
    throw validationError({ body: [`must be at most ${COMMENT_MAX_LENGTH} characters`] });
}

const isAuthor = (comment: CommentRow, actor: Actor) =>
  actor.type !== 'system' && actor.type === comment.author_type && actor.id === comment.author_id;

/** The email trimmed and in lower case; undefined when it cannot be one (no lookup is made). */
function emailOf(value: string): string | undefined {
  const email = normalizeEmail(value);
  return EMAIL.test(email) && !email.includes('\u0000') ? email : undefined;
}

function trackerOf(entry: TrackerState): TrackedCve['tracker'] {
  return {
    status: entry.status,
    assignee: entry.assignee,
    assigned_at: entry.assigned_at,
    updated_at: entry.updated_at,
  };
}

function trackedOf(row: ProjectCveRow): TrackedCve {
  return {
    cve_id: row.cve_id,
    description: row.description,
    created_at: toSecondsZ(row.created_at),
    updated_at: toSecondsZ(row.updated_at_cve),
    tracker: row.tracked ? trackerOf(row) : UNTRACKED,
  };
}
