/** The comments of a project's CVE: each (Markdown, sanitized) with its edit and delete controls, and the form to add one. */
import { COMMENT_MAX_LENGTH } from '../../../domain/triage.ts';
import type { CommentRights, CommentRow } from '../../../services/tracker-comments.service.ts';
import type { PageContext } from '../../kit/context.ts';
import { Time } from '../../kit/fields.tsx';
import type { FormErrors } from '../../kit/input.ts';
import { Csrf } from '../../kit/layout.tsx';
import { renderMarkdown } from '../../kit/markdown.ts';
import type { Forms, Triage } from './cve.model.ts';

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

/** One comment, with the controls the user's rights allow. */
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

/** The comments section: the newest page of comments, then the form to add one. */
export function Comments({
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
