/**
 * `/org/<org>/projects/<project>/settings`: the project's name and description, whether it is active,
 * and deleting it (the name typed again). Members read it; owners change it (a member's POST is a
 * 403). It opens for an inactive project too, so that it can be made active again. Every change goes
 * through ProjectService (validated, audited as API v2's project calls).
 */
import type { FastifyPluginAsync } from 'fastify';
import { validationError } from '../../domain/errors.ts';
import { Field, FormProblems, Notice } from '../kit/fields.tsx';
import { formErrorsOf, formStatusOf, type FormErrors, doneText, field } from '../kit/input.ts';
import { Csrf, sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';
import { orgPath, projectPath } from '../kit/paths.ts';
import { ProjectPage } from './project-page.tsx';
import { assertCanConfigure, projectAccess, type ProjectAccess } from '../kit/access.ts';

/** Fixed texts of `?done=<code>` (never text from the request). */
const DONE: Record<string, string> = {
  saved: 'The project was saved.',
  activated: 'The project is active again: its pages, alerts and reports work as before.',
  deactivated:
    'The project is inactive: it sends no alerts or reports, and its other pages are closed until it is active again.',
};

interface SettingsForm {
  name: string;
  description: string;
  confirm: string;
}

function SettingsPage({
  ctx,
  access,
  form,
  errors,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  form?: Partial<SettingsForm>;
  errors?: FormErrors | undefined;
  done?: string | undefined;
}) {
  const org = access.membership.name;
  const project = access.project;
  const base = projectPath(org, project.name, 'settings');
  const owner = access.isOwner;
  return (
    <ProjectPage ctx={ctx} access={access} tab="settings" title="Settings" done={done}>
      {!project.active && (
        <Notice kind="warn">
          This project is inactive: it sends no alerts or reports, and its other pages answer “not found”
          until it is active again.
        </Notice>
      )}
      <FormProblems errors={errors} fields={['name', 'description', 'confirm']} />
      <section class="card">
        <h2>Name and description</h2>
        {owner ? (
          <form method="post" action={base} class="stacked">
            <Csrf ctx={ctx} />
            <Field
              name="name"
              label="Name"
              value={form?.name ?? project.name}
              required
              maxlength={100}
              errors={errors}
              hint="Renaming changes the project's addresses (pages and API); old links stop working."
            />
            <div class={errors?.description ? 'field has-error' : 'field'}>
              <label for="f-description">Description</label>
              <textarea
                id="f-description"
                name="description"
                rows={3}
                maxLength={2000}
                aria-invalid={errors?.description ? 'true' : undefined}
                aria-describedby={errors?.description ? 'f-description-error' : undefined}
              >
                {form?.description ?? project.description}
              </textarea>
              {errors?.description && (
                <div class="error" id="f-description-error">
                  {errors.description.join(' ')}
                </div>
              )}
            </div>
            <div class="form-actions">
              <button type="submit" class="btn-primary">
                Save
              </button>
            </div>
          </form>
        ) : (
          <>
            <dl class="summary-list">
              <dt>Name</dt>
              <dd>{project.name}</dd>
              <dt>Description</dt>
              <dd>{project.description || <span class="muted">none</span>}</dd>
            </dl>
            <p class="muted small">Only owners of {org} can change a project's settings.</p>
          </>
        )}
      </section>
      <section class="card">
        <h2>Status</h2>
        <p>
          {project.active ? (
            <>
              <span class="badge ok">Active</span> The project follows its subscriptions, sends its alerts and
              makes its reports.
            </>
          ) : (
            <>
              <span class="badge neutral">Inactive</span> Nothing is sent or made; its subscriptions, tracker,
              notifications and automations are kept.
            </>
          )}
        </p>
        {owner && (
          <form method="post" action={`${base}/active`} class="inline-form">
            <Csrf ctx={ctx} />
            <input type="hidden" name="active" value={project.active ? 'false' : 'true'} />
            <button type="submit">{project.active ? 'Make inactive' : 'Make active'}</button>
          </form>
        )}
      </section>
      {owner && (
        <section class="card danger-zone">
          <h2>Delete this project</h2>
          <p>
            Deleting {project.name} deletes its subscriptions, its tracker (statuses, assignees, comments),
            its notifications, automations and reports, for good. The audit log keeps that it was deleted.
          </p>
          <form
            method="post"
            action={`${base}/delete`}
            class="stacked"
            data-confirm={`Delete the project ${project.name} and everything in it?`}
          >
            <Csrf ctx={ctx} />
            <Field
              name="confirm"
              label={`Type the project's name, ${project.name}, to confirm`}
              value={form?.confirm ?? ''}
              autocomplete="off"
              required
              errors={errors}
            />
            <div class="form-actions">
              <button type="submit" class="btn-danger">
                Delete project
              </button>
            </div>
          </form>
        </section>
      )}
    </ProjectPage>
  );
}

export const projectSettingsRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  app.get('/org/:org/projects/:project/settings', async (request, reply) => {
    const access = await projectAccess(services, request, { inactiveToo: true });
    const done = doneText(DONE, request.query);
    return sendPage(reply, <SettingsPage ctx={request.page} access={access} done={done} />);
  });

  /** Renames and describes the project; the page comes back at the (new) name. */
  app.post('/org/:org/projects/:project/settings', async (request, reply) => {
    const access = await projectAccess(services, request, { inactiveToo: true });
    assertCanConfigure(access);
    const form = {
      name: field(request.body, 'name').trim(),
      description: field(request.body, 'description').trim(),
    };
    try {
      const { project } = await services.projects.update(
        access.membership.organizationId,
        access.project.name,
        form,
        access.actor,
      );
      return reply.redirect(
        `${projectPath(access.membership.name, project.name, 'settings')}?done=saved`,
        303,
      );
    } catch (err) {
      const errors = formErrorsOf(err);
      return sendPage(
        reply,
        <SettingsPage ctx={request.page} access={access} form={form} errors={errors} />,
        formStatusOf(err, reply),
      );
    }
  });

  app.post('/org/:org/projects/:project/settings/active', async (request, reply) => {
    const access = await projectAccess(services, request, { inactiveToo: true });
    assertCanConfigure(access);
    const value = field(request.body, 'active');
    if (value !== 'true' && value !== 'false') {
      const errors = { _form: ['Press Make active or Make inactive.'] };
      return sendPage(reply, <SettingsPage ctx={request.page} access={access} errors={errors} />, 400);
    }
    const active = value === 'true';
    await services.projects.update(
      access.membership.organizationId,
      access.project.name,
      { active },
      access.actor,
    );
    const base = projectPath(access.membership.name, access.project.name, 'settings');
    return reply.redirect(`${base}?done=${active ? 'activated' : 'deactivated'}`, 303);
  });

  app.post('/org/:org/projects/:project/settings/delete', async (request, reply) => {
    const access = await projectAccess(services, request, { inactiveToo: true });
    assertCanConfigure(access);
    const confirm = field(request.body, 'confirm').trim();
    try {
      if (confirm !== access.project.name)
        throw validationError({
          confirm: [`Type the project's name exactly (${access.project.name}) to delete it.`],
        });
      await services.projects.delete(access.membership.organizationId, access.project.name, access.actor);
    } catch (err) {
      const errors = formErrorsOf(err);
      return sendPage(
        reply,
        <SettingsPage ctx={request.page} access={access} form={{ confirm }} errors={errors} />,
        formStatusOf(err, reply),
      );
    }
    return reply.redirect(`${orgPath(access.membership.name, 'projects')}?done=deleted`, 303);
  });
};
