/**
 * `/org/<org>/projects/<project>/cves/<CVE-ID>`: one CVE in a project. Its summary (the catalog CVE
 * page's components) with a link to that page; the triage (status and assignee, `TrackerService`);
 * the user's own tags (`TagService`); the comments (`TrackerCommentService`; Markdown, sanitized; authors edit and delete
 * theirs, owners delete any); and why the CVE is in the project (`ProjectMatchService`).
 *
 * A CVE of the catalog that is not in the project answers 200 with why not (no triage, no comments):
 * "why was I not alerted?" deserves an answer, not a bare 404. A CVE the catalog does not list is a 404
 * saying so. Every member of the organization triages and comments (docs/web-ui.md).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import { projectAccess } from '../../kit/access.ts';
import type { WebOptions } from '../../kit/context.ts';
import { doneText, field, formErrorsOf, formStatusOf, type FormErrors } from '../../kit/input.ts';
import { sendPage } from '../../kit/layout.tsx';
import { readTriageForm, tagsOf } from './cve.form.ts';
import type { Forms, Triage } from './cve.model.ts';
import { cvePagePath, ProjectCvePage } from './cve.view.tsx';

const CVE_ID = /^cve-\d{4}-\d{4,19}$/i;

/** Fixed notices after a form (never text from the request). */
const DONE: Record<string, string> = {
  triaged: 'The triage was saved.',
  tagged: 'Your tags were saved.',
  commented: 'Your comment was added.',
  edited: 'The comment was changed.',
  deleted: 'The comment was deleted.',
};

/** A page of comments is at most this long (a longer conversation shows its newest). */
const COMMENTS_SHOWN = 100;

const cveIdOf = (param: string): string => {
  if (!CVE_ID.test(param)) throw new AppError('not_found', `${param} is not a CVE id.`);
  return param.toUpperCase();
};

export const projectCveRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const base = '/org/:org/projects/:project/cves/:cve';
  type Params = { org: string; project: string; cve: string };
  type CommentParams = Params & { comment: string };

  /** The project and the CVE of the URL; the CVE must be in the project (404 otherwise). */
  const inProject = async (request: FastifyRequest<{ Params: Params }>) => {
    const access = await projectAccess(services, request);
    const cveId = cveIdOf(request.params.cve);
    const orgId = access.membership.organizationId;
    await services.projectCves.getCve(orgId, access.project.name, cveId);
    return { access, cveId, orgId };
  };

  /** The page, with a form's values and errors when it is shown again (status 400). */
  const render = async (
    request: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    extra: { forms?: Forms; errors?: FormErrors; status?: number } = {},
  ) => {
    const access = await projectAccess(services, request);
    const cveId = cveIdOf(request.params.cve);
    const orgId = access.membership.organizationId;
    const project = access.project.name;
    const match = await services.projectMatch.explain(orgId, project, cveId);
    const cve = await services.catalog.getCve(cveId);
    let triage: Triage | undefined;
    if (match.inProject) {
      const [tracked, members, comments, rights, tags] = await Promise.all([
        services.projectCves.getCve(orgId, project, cveId),
        services.members.list(orgId, { page: 1, pageSize: 100 }),
        services.trackerComments.listComments(orgId, project, cveId, { page: 1, pageSize: COMMENTS_SHOWN }),
        services.trackerComments.commentRights(orgId, access.actor),
        services.tags.list(access.actor.id!, cveId),
      ]);
      // A long conversation shows its last page: the newest comments are the ones to read.
      const pages = Math.ceil(comments.count / COMMENTS_SHOWN);
      const shown =
        pages > 1
          ? await services.trackerComments.listComments(orgId, project, cveId, {
              page: pages,
              pageSize: COMMENTS_SHOWN,
            })
          : comments;
      triage = {
        tracked,
        members: members.items.filter((m) => m.date_joined !== null),
        comments: shown,
        rights,
        tags: tags[0]?.tags ?? [],
      };
    }
    return sendPage(
      reply,
      <ProjectCvePage
        ctx={request.page}
        access={access}
        cve={cve}
        match={match}
        triage={triage}
        done={doneText(DONE, request.query)}
        forms={extra.forms}
        errors={extra.errors}
      />,
      extra.status ?? 200,
    );
  };

  /** Runs a form's action: 303 to the page with a notice, or the page again with the errors (formStatusOf). */
  const act = async (
    request: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    forms: Forms,
    action: (ctx: Awaited<ReturnType<typeof inProject>>) => Promise<{ done: string; anchor: string }>,
  ) => {
    const target = await inProject(request);
    try {
      const { done, anchor } = await action(target);
      return reply.redirect(`${cvePagePath(target.access, target.cveId)}?done=${done}#${anchor}`, 303);
    } catch (err) {
      return render(request, reply, { forms, errors: formErrorsOf(err), status: formStatusOf(err, reply) });
    }
  };

  app.get<{ Params: Params }>(base, (request, reply) => render(request, reply));

  app.post<{ Params: Params }>(`${base}/triage`, (request, reply) => {
    const triage = readTriageForm(request.body);
    return act(request, reply, { triage: triage.values }, async ({ access, cveId, orgId }) => {
      // Refused after the CVE is found in the project: a CVE elsewhere is a 404 whatever the form.
      if (triage.errors) throw new AppError('validation_error', undefined, triage.errors);
      await services.tracker.update(orgId, access.project.name, cveId, triage.patch, access.actor);
      return { done: 'triaged', anchor: 'triage' };
    });
  });

  app.post<{ Params: Params }>(`${base}/tags`, (request, reply) => {
    const text = field(request.body, 'tags');
    return act(request, reply, { tags: text }, async ({ access, cveId }) => {
      await services.tags.set(access.actor.id!, cveId, tagsOf(text));
      return { done: 'tagged', anchor: 'tags' };
    });
  });

  app.post<{ Params: Params }>(`${base}/comments`, (request, reply) => {
    const body = field(request.body, 'body');
    return act(request, reply, { comment: body }, async ({ access, cveId, orgId }) => {
      const c = await services.trackerComments.addComment(
        orgId,
        access.project.name,
        cveId,
        body,
        access.actor,
      );
      return { done: 'commented', anchor: `comment-${c.id}` };
    });
  });

  app.post<{ Params: CommentParams }>(`${base}/comments/:comment`, (request, reply) => {
    const body = field(request.body, 'body');
    const id = request.params.comment;
    return act(request, reply, { edit: { id, body } }, async ({ access, cveId, orgId }) => {
      await services.trackerComments.editComment(orgId, access.project.name, cveId, id, body, access.actor);
      return { done: 'edited', anchor: `comment-${id}` };
    });
  });

  app.post<{ Params: CommentParams }>(`${base}/comments/:comment/delete`, (request, reply) =>
    act(request, reply, {}, async ({ access, cveId, orgId }) => {
      await services.trackerComments.deleteComment(
        orgId,
        access.project.name,
        cveId,
        request.params.comment,
        access.actor,
      );
      return { done: 'deleted', anchor: 'comments' };
    }),
  );
};
