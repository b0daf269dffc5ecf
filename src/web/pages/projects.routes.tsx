/**
 * Projects: `/projects` (the current organization's projects), `/org/<org>/projects` (the list) and
 * `/org/<org>/projects/<project>` (the project's dashboard), and the plugins of the project's other
 * pages (tracker, one CVE, subscriptions, notifications, automations, reports).
 */
import type { FastifyPluginAsync } from 'fastify';
import { Time } from '../components.tsx';
import { Layout, sendPage } from '../page.tsx';
import type { WebOptions } from '../web.plugin.ts';
import { orgAccess, orgPath } from './org-shared.tsx';
import { projectPath } from './project-shared.tsx';
import { projectDashboardRoutes } from './project-dashboard.routes.tsx';
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

  app.get('/org/:org/projects', async (request, reply) => {
    const access = await orgAccess(services, request);
    const org = access.membership.name;
    const { items } = await services.projects.list(access.membership.organizationId, {
      page: 1,
      pageSize: 100,
    });
    const ctx = request.page;
    return sendPage(
      reply,
      <Layout ctx={ctx} title={`Projects · ${org}`} section="projects">
        <div class="page-head">
          <div>
            <div class="crumbs">{org}</div>
            <h1>Projects</h1>
          </div>
          <a class="btn" href={orgPath(org, 'overview')}>
            Overview of all projects
          </a>
        </div>
        {items.length === 0 ? (
          <p class="muted">This organization has no project yet.</p>
        ) : (
          <div class="table-wrap">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">Project</th>
                  <th scope="col">Subscriptions</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {items.map((p) => (
                  <tr>
                    <td>
                      <a href={projectPath(org, p.name)}>{p.name}</a>
                      {!p.active && <span class="badge neutral">inactive</span>}
                    </td>
                    <td>{p.subscriptions_count}</td>
                    <td>
                      <Time date={p.created_at} style={ctx.dateStyle} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Layout>,
    );
  });

  await app.register(projectDashboardRoutes, { services });
  await app.register(projectTrackerRoutes, { services });
  await app.register(projectCveRoutes, { services });
  await app.register(projectSubscriptionsRoutes, { services });
  await app.register(projectNotificationsRoutes, { services });
  await app.register(projectAutomationsRoutes, { services });
  await app.register(projectReportsRoutes, { services });
};
