/**
 * Comments on a project's CVE and who may change them: every member comments; a comment is edited by
 * its author only, deleted by its author or an owner of the organization (an API token only what it
 * wrote). Each change is audited with the text it had.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { AuditEntry, AuditRepository } from '../db/audit.repository.ts';
import type { ProjectRepository } from '../db/project.repository.ts';
import type { CommentRow, TrackerRepository } from '../db/tracker.repository.ts';
import { recordedName, type Actor } from '../domain/actor.ts';
import { AppError, validationError } from '../domain/errors.ts';
import { assertPageInRange, offsetOf, type PageRequest } from '../domain/paging.ts';
import type { ProjectRow } from '../domain/project.ts';
import { COMMENT_MAX_LENGTH } from '../domain/triage.ts';
import { activeProject } from './tracker-model.ts';

export type { CommentRow };

/** What an actor may do to one comment. */
export interface CommentRights {
  edit: boolean;
  delete: boolean;
}

export class TrackerCommentService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly projects: ProjectRepository,
    private readonly tracker: TrackerRepository,
    private readonly audit: AuditRepository,
  ) {}

  /** A page of the comments on a project's CVE, oldest first; 404 when the project does not have it. */
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
        { projectId: project.id, cveId, authorType, authorId, authorName: recordedName(actor), body },
        tx,
      );
      await this.audit.record(commentAudit(organizationId, actor, project, comment, 'create', {}), tx);
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
        commentAudit(organizationId, actor, project, comment, 'update', {
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
        commentAudit(organizationId, actor, project, comment, 'delete', {
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
  /** The active project, when it has the CVE (else 404). */
  private async projectWithCve(
    organizationId: string,
    projectName: string,
    cveId: string,
  ): Promise<ProjectRow> {
    const project = await activeProject(this.projects, organizationId, projectName);
    const keys = await this.projects.subscriptionKeys(project.id);
    if (!(await this.tracker.projectCves(project.id, keys, [cveId])).length) throw new AppError('not_found');
    return project;
  }
}

function checkCommentBody(body: string): void {
  if (!body.trim()) throw validationError({ body: ['must not be blank'] });
  if (body.includes('\u0000')) throw validationError({ body: ['must not contain NUL characters'] });
  if (body.length > COMMENT_MAX_LENGTH)
    throw validationError({ body: [`must be at most ${COMMENT_MAX_LENGTH} characters`] });
}

const isAuthor = (comment: CommentRow, actor: Actor) =>
  actor.type !== 'system' && actor.type === comment.author_type && actor.id === comment.author_id;

function commentAudit(
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
