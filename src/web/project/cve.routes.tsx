/**
 * `/org/<org>/projects/<project>/cves/<CVE-ID>`: one CVE in a project. Its summary (the catalog CVE
 * page's components) with a link to that page; the triage (status and assignee, `TrackerService`);
 * the user's own tags (`TagService`); the comments (Markdown, sanitized; authors edit and delete
 * theirs, owners delete any); and why the CVE is in the project (`ProjectMatchService`).
 *
 * A CVE of the catalog that is not in the project answers 200 with why not (no triage, no comments):
 * "why was I not alerted?" deserves an answer, not a bare 404. A CVE the catalog does not list is a 404
 * saying so. Every member of the organization triages and comments (docs/web-ui.md).
 */
import { statusLabel } from '../kit/format.ts';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import type { ProjectMatch } from '../../domain/project-match.ts';
import { COMMENT_MAX_LENGTH, TRIAGE_STATUSES } from '../../domain/triage.ts';
import type { CommentRights, CommentRow, TrackedCve } from '../../services/tracker.service.ts';
import { FormProblems, SelectField, Time } from '../kit/fields.tsx';
import { formErrorsOf, type FormErrors, field, doneText } from '../kit/input.ts';
import { Summary } from '../shared/cve/summary.tsx';
import { renderMarkdown } from '../kit/markdown.ts';
import { Csrf, sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions, WebServices } from '../kit/context.ts';
import { MatchExplanation } from '../shared/project-match-panel.tsx';
import { ProjectPage } from './project-page.tsx';
import { projectPath } from '../kit/paths.ts';
import { projectAccess, type ProjectAccess } from '../kit/access.ts';

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

const cvePagePath = (access: ProjectAccess, cveId: string) =>
  projectPath(access.membership.name, access.project.name, `cves/${cveId}`);

/** What the form had, to show again with its errors. */
interface Forms {
  triage?: { status: string; assignee: string };
  tags?: string;
  comment?: string;
  /** The comment being edited, and its text. */
  edit?: { id: string; body: string };
}

interface Triage {
  tracked: TrackedCve;
  members: { email: string; username: string | null }[];
  comments: { count: number; items: CommentRow[] };
  rights: (comment: CommentRow) => CommentRights;
  tags: string[];
}

type Cve = Awaited<ReturnType<WebServices['catalog']['getCve']>>;

function TriageForm({
  ctx,
  action,
  triage,
  form,
  errors,
}: {
  ctx: PageContext;
  action: string;
  triage: Triage;
  form: Forms['triage'];
  errors: FormErrors | undefined;
}) {
  const { tracker } = triage.tracked;
  const status = form?.status ?? tracker.status ?? '';
  const assignee = form?.assignee ?? tracker.assignee ?? '';
  const known = triage.members.some((m) => m.email === assignee);
  return (
    <section class="card" id="triage" aria-labelledby="triage-title">
      <h2 id="triage-title">Triage</h2>
      <FormProblems errors={errors} fields={['status', 'assignee']} />
      <form method="post" action={`${action}/triage`} class="stacked triage-form">
        <Csrf ctx={ctx} />
        <SelectField
          name="status"
          label="Status"
          value={status}
          options={[
            { value: '', label: 'No status' },
            ...TRIAGE_STATUSES.map((s) => ({ value: s, label: statusLabel(s) })),
          ]}
          errors={errors}
        />
        <SelectField
          name="assignee"
          label="Assignee"
          value={assignee}
          options={[
            { value: '', label: 'Nobody' },
            ...(assignee && !known ? [{ value: assignee, label: assignee }] : []),
            ...triage.members.map((m) => ({
              value: m.email,
              label: m.username ? `${m.username} (${m.email})` : m.email,
            })),
          ]}
          errors={errors}
        />
        <button type="submit" class="btn-primary">
          Save triage
        </button>
      </form>
      {tracker.updated_at && (
        <p class="muted small">
          Last changed <Time date={tracker.updated_at} style={ctx.dateStyle} />
          {tracker.assigned_at && (
            <>
              ; assigned <Time date={tracker.assigned_at} style={ctx.dateStyle} />
            </>
          )}
          .
        </p>
      )}
    </section>
  );
}

function TagsForm({
  ctx,
  action,
  tags,
  value,
  errors,
}: {
  ctx: PageContext;
  action: string;
  tags: string[];
  value: string | undefined;
  errors: FormErrors | undefined;
}) {
  const fieldErrors = errors?.tags ?? [];
  return (
    <section class="card" id="tags" aria-labelledby="tags-title">
      <h2 id="tags-title">Your tags</h2>
      <p class="muted small">Only you see your tags; they follow the CVE in every project and list.</p>
      {tags.length > 0 && (
        <p>
          {tags.map((t) => (
            <span class="chip">{t}</span>
          ))}
        </p>
      )}
      <form method="post" action={`${action}/tags`} class="stacked">
        <Csrf ctx={ctx} />
        <div class={fieldErrors.length ? 'field has-error' : 'field'}>
          <label for="f-tags">Tags</label>
          <input
            id="f-tags"
            name="tags"
            type="text"
            value={value ?? tags.join(' ')}
            maxLength={2000}
            aria-describedby={fieldErrors.length ? 'f-tags-hint f-tags-error' : 'f-tags-hint'}
            aria-invalid={fieldErrors.length ? 'true' : undefined}
          />
          <div class="hint" id="f-tags-hint">
            Separated by spaces or commas: letters, digits, _ . - (e.g. <code>patched-2025 needs.vendor</code>
            ). Empty removes them all.
          </div>
          {fieldErrors.length > 0 && (
            <div class="error" id="f-tags-error">
              {fieldErrors.join(' ')}
            </div>
          )}
        </div>
        <button type="submit">Save tags</button>
      </form>
    </section>
  );
}

/** A comment's text field (add and edit), with its errors beside it. */
function CommentField({
  id,
  value,
  errors,
  label,
}: {
  id: string;
  value: string;
  errors: string[];
  label: string;
}) {
  return (
    <div class={errors.length ? 'field has-error' : 'field'}>
      <label for={id}>{label}</label>
      <textarea
        id={id}
        name="body"
        rows={5}
        maxLength={COMMENT_MAX_LENGTH}
        required
        aria-describedby={errors.length ? `${id}-hint ${id}-error` : `${id}-hint`}
        aria-invalid={errors.length ? 'true' : undefined}
      >
        {value}
      </textarea>
      <div class="hint" id={`${id}-hint`}>
        Markdown: **bold**, _italic_, `code`, lists, [links](https://example.org). HTML is shown as text.
      </div>
      {errors.length > 0 && (
        <div class="error" id={`${id}-error`}>
          {errors.join(' ')}
        </div>
      )}
    </div>
  );
}

function Comment({
  ctx,
  action,
  comment,
  rights,
  edit,
  errors,
}: {
  ctx: PageContext;
  action: string;
  comment: CommentRow;
  rights: CommentRights;
  edit: Forms['edit'];
  errors: FormErrors | undefined;
}) {
  const editing = edit?.id === comment.id;
  const url = `${action}/comments/${comment.id}`;
  return (
    <li class="card comment" id={`comment-${comment.id}`}>
      <div class="comment-head small">
        <strong>{comment.author_name}</strong>
        {comment.author_type === 'token' && <span class="badge neutral">API token</span>}{' '}
        <span class="muted">
          <Time date={comment.created_at} style={ctx.dateStyle} />
          {comment.edited_at && (
            <>
              {' '}
              · edited <Time date={comment.edited_at} style={ctx.dateStyle} />
            </>
          )}
        </span>
      </div>
      {/* The one raw-HTML spot: markdown-it with raw HTML escaped and links checked (../markdown.ts). */}
      <div class="comment-body markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(comment.body) }} />
      {(rights.edit || rights.delete) && (
        <div class="comment-actions">
          {rights.edit && (
            <details class="comment-edit" open={editing}>
              <summary>Edit</summary>
              <form method="post" action={url} class="stacked">
                <Csrf ctx={ctx} />
                <CommentField
                  id={`f-body-${comment.id}`}
                  label="Comment"
                  value={editing ? edit.body : comment.body}
                  errors={editing ? (errors?.body ?? []) : []}
                />
                <button type="submit" class="btn-primary">
                  Save comment
                </button>
              </form>
            </details>
          )}
          {rights.delete && (
            <form
              method="post"
              action={`${url}/delete`}
              class="inline-form"
              data-confirm="Delete this comment? This cannot be undone."
            >
              <Csrf ctx={ctx} />
              <button type="submit" class="btn-small btn-danger">
                Delete
              </button>
            </form>
          )}
        </div>
      )}
    </li>
  );
}

function Comments({
  ctx,
  action,
  triage,
  forms,
  errors,
}: {
  ctx: PageContext;
  action: string;
  triage: Triage;
  forms: Forms;
  errors: FormErrors | undefined;
}) {
  const { count, items } = triage.comments;
  const addErrors = forms.comment !== undefined ? (errors?.body ?? []) : [];
  return (
    <section id="comments" aria-labelledby="comments-title">
      <h2 id="comments-title">Comments {count > 0 && <span class="muted small">({count})</span>}</h2>
      {count > items.length && (
        <p class="muted small">
          The {items.length} most recent of {count} comments, oldest first (API v2 lists them all).
        </p>
      )}
      {items.length === 0 ? (
        <p class="muted">No comment yet.</p>
      ) : (
        <ol class="comments">
          {items.map((c) => (
            <Comment
              ctx={ctx}
              action={action}
              comment={c}
              rights={triage.rights(c)}
              edit={forms.edit}
              errors={errors}
            />
          ))}
        </ol>
      )}
      <form method="post" action={`${action}/comments`} class="stacked card" id="new-comment">
        <Csrf ctx={ctx} />
        <CommentField id="f-body" label="Add a comment" value={forms.comment ?? ''} errors={addErrors} />
        <button type="submit" class="btn-primary">
          Add comment
        </button>
      </form>
    </section>
  );
}

function ProjectCvePage({
  ctx,
  access,
  cve,
  match,
  triage,
  done,
  forms = {},
  errors,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  cve: Cve;
  match: ProjectMatch;
  triage: Triage | undefined;
  done: string | undefined;
  forms?: Forms;
  errors?: FormErrors | undefined;
}) {
  const action = cvePagePath(access, cve.cve_id);
  const catalogUrl = `/cves/${cve.cve_id}`;
  return (
    <ProjectPage ctx={ctx} access={access} tab="tracker" title={cve.cve_id} done={done}>
      <div class="page-head project-cve-head">
        <div>
          <h2 class="project-cve-id">
            {cve.cve_id}
            {cve.kev && <span class="badge kev">Known exploited</span>}
            {!match.inProject && <span class="badge neutral">not in this project</span>}
          </h2>
          {cve.title && <p class="cve-title">{cve.title}</p>}
        </div>
        <div class="head-actions">
          <a href={catalogUrl}>Full catalog page</a>
        </div>
      </div>
      {cve.state === 'REJECTED' && (
        <div class="banner-rejected" role="note">
          REJECTED: this CVE id was rejected by its CNA and should not be used.
        </div>
      )}
      <div class="two-col project-cve">
        <div class="stack">
          <section id="description" aria-labelledby="description-title">
            <h2 id="description-title">Description</h2>
            {cve.description ? (
              <p class="cve-description" lang="en">
                {cve.description}
              </p>
            ) : (
              <p class="muted">No description yet.</p>
            )}
          </section>
          {triage && (
            <TriageForm ctx={ctx} action={action} triage={triage} form={forms.triage} errors={errors} />
          )}
          <MatchExplanation ctx={ctx} match={match} catalogUrl={catalogUrl} />
          {triage && <Comments ctx={ctx} action={action} triage={triage} forms={forms} errors={errors} />}
        </div>
        <div class="stack">
          <Summary cve={cve} ctx={ctx} />
          {triage && (
            <TagsForm ctx={ctx} action={action} tags={triage.tags} value={forms.tags} errors={errors} />
          )}
        </div>
      </div>
    </ProjectPage>
  );
}

/** Tags as typed: separated by blanks or commas. */
const tagsOf = (text: string) => text.split(/[\s,]+/).filter(Boolean);

export const projectCveRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const base = '/org/:org/projects/:project/cves/:cve';
  type Params = { org: string; project: string; cve: string };
  type CommentParams = Params & { comment: string };

  /** The project and the CVE of the URL; the CVE must be in the project (404 otherwise). */
  const inProject = async (request: FastifyRequest<{ Params: Params }>) => {
    const access = await projectAccess(services, request);
    const cveId = cveIdOf(request.params.cve);
    const orgId = access.membership.organizationId;
    await services.tracker.getCve(orgId, access.project.name, cveId);
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
        services.tracker.getCve(orgId, project, cveId),
        services.members.list(orgId, { page: 1, pageSize: 100 }),
        services.tracker.listComments(orgId, project, cveId, { page: 1, pageSize: COMMENTS_SHOWN }),
        services.tracker.commentRights(orgId, access.actor),
        services.tags.list(access.actor.id!, cveId),
      ]);
      // A long conversation shows its last page: the newest comments are the ones to read.
      const pages = Math.ceil(comments.count / COMMENTS_SHOWN);
      const shown =
        pages > 1
          ? await services.tracker.listComments(orgId, project, cveId, {
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

  /** Runs a form's action: 303 to the page with a notice, or the page again with the errors (400). */
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
      if (!(err instanceof AppError) || err.code !== 'validation_error') throw err;
      return render(request, reply, { forms, errors: formErrorsOf(err), status: 400 });
    }
  };

  app.get<{ Params: Params }>(base, (request, reply) => render(request, reply));

  app.post<{ Params: Params }>(`${base}/triage`, (request, reply) => {
    const status = field(request.body, 'status');
    const assignee = field(request.body, 'assignee').trim();
    return act(request, reply, { triage: { status, assignee } }, async ({ access, cveId, orgId }) => {
      if (status !== '' && !(TRIAGE_STATUSES as readonly string[]).includes(status))
        throw new AppError('validation_error', undefined, { status: ['Choose a status from the list.'] });
      await services.tracker.update(
        orgId,
        access.project.name,
        cveId,
        {
          status: status === '' ? null : (status as (typeof TRIAGE_STATUSES)[number]),
          assignee: assignee === '' ? null : assignee,
        },
        access.actor,
      );
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
      const c = await services.tracker.addComment(orgId, access.project.name, cveId, body, access.actor);
      return { done: 'commented', anchor: `comment-${c.id}` };
    });
  });

  app.post<{ Params: CommentParams }>(`${base}/comments/:comment`, (request, reply) => {
    const body = field(request.body, 'body');
    const id = request.params.comment;
    return act(request, reply, { edit: { id, body } }, async ({ access, cveId, orgId }) => {
      await services.tracker.editComment(orgId, access.project.name, cveId, id, body, access.actor);
      return { done: 'edited', anchor: `comment-${id}` };
    });
  });

  app.post<{ Params: CommentParams }>(`${base}/comments/:comment/delete`, (request, reply) =>
    act(request, reply, {}, async ({ access, cveId, orgId }) => {
      await services.tracker.deleteComment(
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
