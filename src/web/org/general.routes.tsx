/**
 * Organization pages under `/org/<org>`: General (the start page: rename, delete), and the plugins of
 * the other tabs (members, API tokens, audit log), `/org/new`, and invitations. Members see General
 * and Members read-only; API tokens, the audit log and every change are for owners (403 for members).
 * A user who has not joined the organization gets 404 for all of it.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { OrganizationSummary } from '../../services/organization.service.ts';
import { Field, FormProblems, Time } from '../kit/fields.tsx';
import { formErrorsOf, formStatusOf, type FormErrors, field } from '../kit/input.ts';
import { Csrf, Layout, sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';
import { doneNotice, OrgPage } from './org-page.tsx';
import { orgPath } from '../kit/paths.ts';
import { orgAccess, ownerAccess, type OrgAccess } from '../kit/access.ts';

function GeneralPage({
  ctx,
  access,
  org,
  done,
  values = { name: org.name, confirm: '' },
  errors,
}: {
  ctx: PageContext;
  access: OrgAccess;
  org: OrganizationSummary;
  done?: string | undefined;
  values?: { name: string; confirm: string };
  errors?: FormErrors | undefined;
}) {
  return (
    <OrgPage ctx={ctx} access={access} tab="general" title="General" done={done}>
      <div class="grid">
        <div class="card">
          <div class="muted small">Members</div>
          <div class="stat">{org.members_count}</div>
          <a href={orgPath(org.name, 'members')}>See the members</a>
        </div>
        <div class="card">
          <div class="muted small">Projects</div>
          <div class="stat">{org.projects_count}</div>
          <a href={orgPath(org.name, 'overview')}>Overview of all projects</a>
        </div>
        <div class="card">
          <div class="muted small">Created</div>
          <div>
            <Time date={org.created_at} style={ctx.dateStyle} />
          </div>
        </div>
      </div>
      {access.isOwner ? (
        <>
          <section class="card">
            <h2>Name</h2>
            <FormProblems errors={errors} fields={['name', 'confirm']} />
            <form method="post" action={orgPath(org.name, 'rename')} class="stacked">
              <Csrf ctx={ctx} />
              <Field
                name="name"
                label="Organization name"
                value={values.name}
                required
                maxlength={100}
                errors={errors}
                hint="Letters, digits and -. It is part of every URL and API path of the organization: links and scripts that name the old one stop working."
              />
              <button type="submit" class="btn-primary">
                Rename
              </button>
            </form>
          </section>
          <section class="card danger-zone">
            <h2>Delete the organization</h2>
            <p>
              Deletes the organization with its members, invitations, API tokens, projects, tracker,
              notifications, automations, reports and its audit log. This cannot be undone.
            </p>
            <form
              method="post"
              action={orgPath(org.name, 'delete')}
              class="stacked"
              data-confirm={`Delete ${org.name} and everything in it?`}
            >
              <Csrf ctx={ctx} />
              <Field
                name="confirm"
                label={`Type ${org.name} to confirm`}
                value={values.confirm}
                autocomplete="off"
                required
                errors={errors}
              />
              <button type="submit" class="btn-danger">
                Delete this organization
              </button>
            </form>
          </section>
        </>
      ) : (
        <p class="muted">
          You are a member of {org.name}. Its owners manage its settings, members and API tokens.
        </p>
      )}
    </OrgPage>
  );
}

function NewOrganizationPage({ ctx, name, errors }: { ctx: PageContext; name: string; errors?: FormErrors }) {
  return (
    <Layout ctx={ctx} title="New organization" section="organization">
      <div class="page-head">
        <h1>New organization</h1>
      </div>
      <div class="card">
        <p>An organization holds projects, members and API tokens. You become its owner.</p>
        <FormProblems errors={errors} fields={['name']} />
        <form method="post" action="/org/new" class="stacked">
          <Csrf ctx={ctx} />
          <Field
            name="name"
            label="Name"
            value={name}
            required
            autofocus
            maxlength={100}
            errors={errors}
            hint="Letters, digits and - (your team or company, e.g. acme)."
          />
          <button type="submit" class="btn-primary">
            Create
          </button>
        </form>
      </div>
    </Layout>
  );
}

export const organizationRoutes: FastifyPluginAsync<WebOptions> = async (app, opts) => {
  const { services } = opts;

  app.get('/org/new', async (request, reply) =>
    sendPage(reply, <NewOrganizationPage ctx={request.page} name="" />),
  );

  app.post('/org/new', async (request, reply) => {
    const name = field(request.body, 'name').trim();
    try {
      const org = await services.accounts.createOrganization(name, request.page.user!.username);
      request.session.orgName = org.name;
      return reply.redirect(`${orgPath(org.name)}?done=created`, 303);
    } catch (err) {
      return sendPage(
        reply,
        <NewOrganizationPage ctx={request.page} name={name} errors={formErrorsOf(err)} />,
        formStatusOf(err, reply),
      );
    }
  });

  app.get<{ Params: { org: string } }>('/org/:org', async (request, reply) => {
    const access = await orgAccess(services, request);
    const org = await services.organizations.get(access.membership.organizationId);
    return sendPage(
      reply,
      <GeneralPage ctx={request.page} access={access} org={org} done={doneNotice(request.query)} />,
    );
  });

  app.post<{ Params: { org: string } }>('/org/:org/rename', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const name = field(request.body, 'name').trim();
    try {
      const org = await services.organizations.rename(access.membership.organizationId, name, access.actor);
      request.session.orgName = org.name;
      return reply.redirect(`${orgPath(org.name)}?done=renamed`, 303);
    } catch (err) {
      const errors = formErrorsOf(err);
      const org = await services.organizations.get(access.membership.organizationId);
      return sendPage(
        reply,
        <GeneralPage
          ctx={request.page}
          access={access}
          org={org}
          values={{ name, confirm: '' }}
          errors={errors}
        />,
        formStatusOf(err, reply),
      );
    }
  });

  app.post<{ Params: { org: string } }>('/org/:org/delete', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const confirm = field(request.body, 'confirm');
    try {
      const deleted = await services.organizations.delete(
        access.membership.organizationId,
        confirm,
        access.actor,
      );
      // The organization's audit log went with it: this log line is what remains of the deletion.
      request.log.warn(
        { organization: { id: deleted.id, name: deleted.name }, actor: deleted.actor },
        `organization ${deleted.name} deleted by ${deleted.actor.name ?? deleted.actor.type}`,
      );
      if (request.session.orgName === deleted.name) request.session.orgName = undefined;
      return reply.redirect('/?done=org-deleted', 303);
    } catch (err) {
      const errors = formErrorsOf(err);
      const org = await services.organizations.get(access.membership.organizationId);
      return sendPage(
        reply,
        <GeneralPage
          ctx={request.page}
          access={access}
          org={org}
          values={{ name: org.name, confirm }}
          errors={errors}
        />,
        formStatusOf(err, reply),
      );
    }
  });
};
