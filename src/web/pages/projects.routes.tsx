/**
 * Projects: `/projects` (the current organization's projects), `/org/<org>/projects` (the list) and
 * `/org/<org>/projects/<project>` (the project's dashboard), and the plugins of the project's other
 * pages (tracker, one CVE, subscriptions, notifications, automations, reports).
 */
import type { FastifyPluginAsync } from 'fastify';
import { sendPage } from '../page.tsx';
import type { WebOptions } from '../web.plugin.ts';
import { orgAccess, orgPath, pageNumber } from './org-shared.tsx';
import { projectAccess, ProjectPage } from './project-shared.tsx';
import { ProjectList, PROJECTS_PAGE, projectsDone } from './project-list.tsx';
import { projectOnboardingRoutes } from './project-onboarding.routes.tsx';
import { projectSettingsRoutes } from './project-settings.routes.tsx';
import { projectTrackerRoutes } from './project-tracker.routes.tsx';
import { projectCveRoutes } from './project-cve.routes.tsx';
import { projectSubscriptionsRoutes } from './project-subscriptions.routes.tsx';
import { projectNotificationsRoutes } from './project-notifications.routes.tsx';
import { projectAutomationsRoutes } from './project-automations.routes.tsx';
import { projectReportsRoutes } from './project-reports.routes.tsx';

export const projectRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  app.get('/projects', async (request, reply) => {
    const org = request.page.currentOrg;
    return reply.redirect(org ? orgPath(org.name, 'projects') : '/org/new', 303);
  });

  /**
   * The organization's projects with their subscriptions, CVEs (capped) and open triage; an owner of
   * an organization without a project is sent to the onboarding.
   */
  app.get('/org/:org/projects', async (request, reply) => {
    const access = await orgAccess(services, request);
    const org = access.membership.name;
    const page = pageNumber(request.query);
    const { count, items } = await services.projects.listWithCounts(access.membership.organizationId, {
      page,
      pageSize: PROJECTS_PAGE,
    });
    const done = projectsDone(request.query);
    if (count === 0 && access.isOwner && !done) return reply.redirect(orgPath(org, 'new-project'), 303);
    const ctx = request.page;
    return sendPage(
      reply,
      <ProjectList
        ctx={ctx}
        org={org}
        isOwner={access.isOwner}
        items={items}
        page={page}
        count={count}
        done={done}
      />,
    );
  });

  app.get('/org/:org/projects/:project', async (request, reply) => {
    const access = await projectAccess(services, request);
    return sendPage(
      reply,
      <ProjectPage
        ctx={request.page}
        access={access}
        tab="dashboard"
        title="Dashboard"
        done={projectsDone(request.query)}
      >
        <p>{access.project.subscriptions_count} subscriptions.</p>
      </ProjectPage>,
    );
  });

  await app.register(projectOnboardingRoutes, { services });
  await app.register(projectSettingsRoutes, { services });
  await app.register(projectTrackerRoutes, { services });
  await app.register(projectCveRoutes, { services });
  await app.register(projectSubscriptionsRoutes, { services });
  await app.register(projectNotificationsRoutes, { services });
  await app.register(projectAutomationsRoutes, { services });
  await app.register(projectReportsRoutes, { services });
};
