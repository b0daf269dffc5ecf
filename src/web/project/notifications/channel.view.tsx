/** The create form of a notification, and each channel's fields, which the edit form draws too. */
import { Field, FormProblems } from '../../kit/fields.tsx';
import type { FormErrors } from '../../kit/input.ts';
import { Csrf } from '../../kit/layout.tsx';
import type { PageContext } from '../../kit/context.ts';
import type { ProjectAccess } from '../../kit/access.ts';
import { ProjectPage } from '../project-page.tsx';
import { CONFIG_FIELDS, type ChannelForm } from './channel.form.ts';
import { notificationsPath, TYPES, typeLabel } from './labels.ts';

/** The fields of the form's channel (on an edit, a blank secret field keeps the current one). */
export function ChannelFields({
  form,
  errors,
  editing,
}: {
  form: ChannelForm;
  errors: FormErrors | undefined;
  editing: boolean;
}) {
  const keep = editing ? ' Leave blank to keep the current one (it is secret and not shown).' : '';
  switch (form.type) {
    case 'email':
      return (
        <Field
          name="email"
          label="Email address"
          type="email"
          value={form.email}
          required
          errors={errors}
          hint="A member's address is confirmed at once; any other gets a confirmation email first."
        />
      );
    case 'webhook':
      return (
        <>
          <Field
            name="url"
            label="URL"
            type="url"
            value={form.url}
            required={!editing}
            maxlength={2048}
            placeholder="https://hooks.example.org/vulntrack"
            errors={errors}
            hint={`http or https, a public address.${keep}`}
          />
          <div class={errors?.headers ? 'field has-error' : 'field'}>
            <label for="f-headers">Extra headers (optional)</label>
            <textarea
              id="f-headers"
              name="headers"
              rows={3}
              placeholder="Authorization: Bearer …"
              aria-invalid={errors?.headers ? 'true' : undefined}
              aria-describedby={errors?.headers ? 'f-headers-hint f-headers-error' : 'f-headers-hint'}
            >
              {form.headers}
            </textarea>
            <div class="hint" id="f-headers-hint">
              One <code>Name: value</code> per line. Values are kept secret: only names are shown.
              {editing && ' Typed with the URL, they replace the current ones.'}
            </div>
            {errors?.headers && (
              <div class="error" id="f-headers-error">
                {errors.headers.join(' ')}
              </div>
            )}
          </div>
        </>
      );
    case 'slack':
    case 'teams':
      return (
        <Field
          name="webhook_url"
          label={`${typeLabel(form.type)} webhook URL`}
          type="url"
          value={form.webhook_url}
          required={!editing}
          maxlength={2048}
          errors={errors}
          hint={`The URL is a credential: it is kept secret and shown masked.${keep}`}
        />
      );
  }
}

/** The create form, with one tab per channel. */
export function NewNotificationPage({
  ctx,
  access,
  form,
  errors,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  form: ChannelForm;
  errors?: FormErrors | undefined;
}) {
  return (
    <ProjectPage ctx={ctx} access={access} tab="notifications" title="New notification">
      <section class="card">
        <h2>New notification</h2>
        <nav class="tabs channel-types" aria-label="Notification type">
          {TYPES.map((t) => (
            <a
              href={`${notificationsPath(access, '/new')}?type=${t.type}`}
              aria-current={t.type === form.type ? 'page' : undefined}
            >
              {t.label}
            </a>
          ))}
        </nav>
        <p class="muted">{TYPES.find((t) => t.type === form.type)?.hint}</p>
        <FormProblems errors={errors} fields={['name', ...CONFIG_FIELDS]} />
        <form method="post" action={notificationsPath(access)} class="stacked">
          <Csrf ctx={ctx} />
          <input type="hidden" name="type" value={form.type} />
          <Field
            name="name"
            label="Name"
            value={form.name}
            required
            maxlength={100}
            errors={errors}
            hint="Automations send through it by this name, e.g. security-team."
          />
          <ChannelFields form={form} errors={errors} editing={false} />
          <button type="submit" class="btn-primary">
            Create {typeLabel(form.type).toLowerCase()} notification
          </button>
        </form>
      </section>
    </ProjectPage>
  );
}
