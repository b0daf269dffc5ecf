/**
 * `/org/<org>/projects/<project>/automations`: the project's automations (docs/web-ui.md, "Projects:
 * automations"). Every member reads the list, an automation with its executions, an execution and a
 * dry run; owners create, edit, enable or disable, run and delete (members get 403).
 *
 * The builder (`…/new`, `…/<name>/edit`) writes the configuration API v2 takes and the service
 * validates (builder.form.ts); the JSON view edits the same configuration as text. Its buttons:
 * Save, Dry run (the unsaved configuration over the last 7 days, nothing acts), Edit as JSON / Back to
 * the builder. It works without script for a flat list of conditions; the island
 * (assets/automation-builder.js) adds nested groups and rows.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AutomationView } from '../../../domain/automation.ts';
import type { ProjectAccess } from '../../kit/access.ts';
import { assertCanConfigure, projectAccess } from '../../kit/access.ts';
import type { WebOptions, WebServices } from '../../kit/context.ts';
import { field, formErrorsOf, formStatusOf, pageNumber } from '../../kit/input.ts';
import { sendPage } from '../../kit/layout.tsx';
import { AutomationPage, DryRunPage } from './automation.view.tsx';
import {
  EMPTY_FORM,
  configurationOf,
  formOfAutomation,
  jsonViewAsked,
  prettyJson,
  readBuilderPost,
  type BuilderState,
} from './builder.form.ts';
import { BuilderPage, type Choices } from './builder.view.tsx';
import { ExecutionPage } from './execution.view.tsx';
import { automationUrl, automationsUrl, doneOf } from './labels.ts';
import { AutomationsList } from './list.view.tsx';
import { templateForm, templateOf, type TemplateKey } from './templates.ts';

type Params = { org: string; project: string; automation: string };

/** The list shows them all on one page (a project has a few). */
const LIST_SIZE = 100;
const EXECUTIONS_PAGE_SIZE = 20;

/** What the builder offers to pick (two reads: the project's notifications, the organization's members). */
async function choicesOf(services: WebServices, access: ProjectAccess): Promise<Choices> {
  const orgId = access.membership.organizationId;
  const { items } = await services.notifications.list(orgId, access.project.name, { page: 1, pageSize: 100 });
  const members = await services.members.list(orgId, { page: 1, pageSize: 100 });
  return {
    notifications: items.map((n) => n.name),
    members: members.items.filter((m) => m.date_joined && m.user_id).map((m) => m.email),
  };
}

export const projectAutomationsRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const { automations } = services;
  const orgIdOf = (a: ProjectAccess) => a.membership.organizationId;

  app.get('/org/:org/projects/:project/automations', async (request, reply) => {
    const access = await projectAccess(services, request);
    const { items } = await automations.listWithLatestExecution(orgIdOf(access), access.project.name, {
      page: 1,
      pageSize: LIST_SIZE,
    });
    return sendPage(
      reply,
      <AutomationsList ctx={request.page} access={access} items={items} done={doneOf(request.query)} />,
    );
  });

  /** The builder page, with what it offers to pick (read here unless given). */
  async function sendBuilder(
    request: FastifyRequest,
    reply: FastifyReply,
    access: ProjectAccess,
    state: BuilderState,
    options: {
      status?: number;
      editing?: string | undefined;
      template?: TemplateKey;
      choices?: Choices;
    } = {},
  ) {
    const choices = options.choices ?? (await choicesOf(services, access));
    return sendPage(
      reply,
      <BuilderPage
        ctx={request.page}
        access={access}
        choices={choices}
        state={state}
        editing={options.editing}
        template={options.template}
      />,
      options.status,
    );
  }

  app.get('/org/:org/projects/:project/automations/new', async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const template = templateOf(request.query);
    const choices = await choicesOf(services, access);
    const form = template
      ? templateForm(template, choices.notifications[0] ?? '', request.page.user?.email ?? '')
      : EMPTY_FORM;
    const json = jsonViewAsked(request.query) ? prettyJson(configurationOf(form)) : undefined;
    return sendBuilder(request, reply, access, { form, json }, { choices, template });
  });

  app.get<{ Params: Params }>(
    '/org/:org/projects/:project/automations/:automation/edit',
    async (request, reply) => {
      const access = await projectAccess(services, request);
      assertCanConfigure(access);
      const a = await automations.get(orgIdOf(access), access.project.name, request.params.automation);
      const json = jsonViewAsked(request.query) ? prettyJson(a.configuration) : undefined;
      return sendBuilder(request, reply, access, { form: formOfAutomation(a), json }, { editing: a.name });
    },
  );

  /** A POST of the builder or the JSON view: switch views, dry run, or save (then 303 to the automation). */
  async function postBuilder(
    request: FastifyRequest,
    reply: FastifyReply,
    access: ProjectAccess,
    editing?: AutomationView,
  ) {
    const post = readBuilderPost(request.body);
    const shown = { editing: editing?.name };
    if ('show' in post)
      return sendBuilder(request, reply, access, post.show, { ...shown, status: post.status });
    const { intent, state, input } = post;
    const org = orgIdOf(access);
    try {
      if (intent === 'dry-run') {
        const dryRun = await automations.dryRun(org, access.project.name, input);
        return await sendBuilder(request, reply, access, { ...state, dryRun }, shown);
      }
      const saved = editing
        ? await automations.update(org, access.project.name, editing.name, input, access.actor)
        : await automations.create(org, access.project.name, input, access.actor);
      return reply.redirect(
        `${automationUrl(access, saved.name)}?done=${editing ? 'saved' : 'created'}`,
        303,
      );
    } catch (err) {
      const errors = formErrorsOf(err);
      return sendBuilder(
        request,
        reply,
        access,
        { ...state, errors },
        { ...shown, status: formStatusOf(err, reply) },
      );
    }
  }

  app.post('/org/:org/projects/:project/automations/new', async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    return postBuilder(request, reply, access);
  });

  app.post<{ Params: Params }>(
    '/org/:org/projects/:project/automations/:automation/edit',
    async (request, reply) => {
      const access = await projectAccess(services, request);
      assertCanConfigure(access);
      const a = await automations.get(orgIdOf(access), access.project.name, request.params.automation);
      return postBuilder(request, reply, access, a);
    },
  );

  /**
   * An automation's page with a page of its executions. A page past the last is a 404, as on every
   * numbered list (domain/paging.ts): one read, no second try at page 1.
   */
  async function sendAutomationPage(
    request: FastifyRequest,
    reply: FastifyReply,
    access: ProjectAccess,
    a: AutomationView,
    { done, error, status = 200 }: { done?: string | undefined; error?: string; status?: number } = {},
  ) {
    const page = pageNumber(request.query);
    const executions = await automations.listExecutions(orgIdOf(access), access.project.name, a.name, {
      page,
      pageSize: EXECUTIONS_PAGE_SIZE,
    });
    return sendPage(
      reply,
      <AutomationPage
        ctx={request.page}
        access={access}
        automation={a}
        executions={executions}
        page={page}
        pageSize={EXECUTIONS_PAGE_SIZE}
        done={done}
        error={error}
      />,
      status,
    );
  }

  app.get<{ Params: Params }>(
    '/org/:org/projects/:project/automations/:automation',
    async (request, reply) => {
      const access = await projectAccess(services, request);
      const a = await automations.get(orgIdOf(access), access.project.name, request.params.automation);
      return sendAutomationPage(request, reply, access, a, { done: doneOf(request.query) });
    },
  );

  app.get<{ Params: Params }>(
    '/org/:org/projects/:project/automations/:automation/dry-run',
    async (request, reply) => {
      const access = await projectAccess(services, request);
      const a = await automations.get(orgIdOf(access), access.project.name, request.params.automation);
      const run = await automations.dryRunSaved(orgIdOf(access), access.project.name, a.name);
      return sendPage(reply, <DryRunPage ctx={request.page} access={access} automation={a} run={run} />);
    },
  );

  app.post<{ Params: Params }>(
    '/org/:org/projects/:project/automations/:automation/enabled',
    async (request, reply) => {
      const access = await projectAccess(services, request);
      assertCanConfigure(access);
      const enabled = field(request.body, 'enabled') === 'true';
      const a = await automations.update(
        orgIdOf(access),
        access.project.name,
        request.params.automation,
        { is_enabled: enabled },
        access.actor,
      );
      return reply.redirect(`${automationUrl(access, a.name)}?done=${enabled ? 'enabled' : 'disabled'}`, 303);
    },
  );

  app.post<{ Params: Params }>(
    '/org/:org/projects/:project/automations/:automation/delete',
    async (request, reply) => {
      const access = await projectAccess(services, request);
      assertCanConfigure(access);
      await automations.delete(orgIdOf(access), access.project.name, request.params.automation, access.actor);
      return reply.redirect(`${automationsUrl(access)}?done=deleted`, 303);
    },
  );

  app.post<{ Params: Params }>(
    '/org/:org/projects/:project/automations/:automation/run',
    async (request, reply) => {
      const access = await projectAccess(services, request);
      assertCanConfigure(access);
      const a = await automations.get(orgIdOf(access), access.project.name, request.params.automation);
      if (a.trigger_type !== 'report')
        return sendAutomationPage(request, reply, access, a, {
          error:
            'Only report automations run on demand: an alert automation runs when a change fires one of its triggers.',
          status: 400,
        });
      const execution = await automations.run(orgIdOf(access), access.project.name, a.name);
      return reply.redirect(`${automationUrl(access, a.name, `executions/${execution.id}`)}?done=ran`, 303);
    },
  );

  app.get<{ Params: Params & { execution: string } }>(
    '/org/:org/projects/:project/automations/:automation/executions/:execution',
    async (request, reply) => {
      const access = await projectAccess(services, request);
      const a = await automations.get(orgIdOf(access), access.project.name, request.params.automation);
      const e = await automations.getExecution(
        orgIdOf(access),
        access.project.name,
        a.name,
        request.params.execution,
      );
      return sendPage(
        reply,
        <ExecutionPage
          ctx={request.page}
          access={access}
          automation={a}
          execution={e}
          done={doneOf(request.query)}
        />,
      );
    },
  );
};
