/**
 * `/org/<org>/projects/<project>`: the project's dashboard, for every member of its organization.
 * What changed for the project since the user's last visit (the visit is recorded by the view),
 * counts by triage status and by severity and the top assignees (each a link into the filtered
 * tracker), KEV CVEs not yet fixed, the last reports, the subscriptions, and the user's own Atom
 * feed URL of the project (`POST …/feed` makes it, or replaces it: the old URL stops working).
 */
import type { FastifyPluginAsync } from 'fastify';
import { doneText } from '../../kit/input.ts';
import { sendPage } from '../../kit/layout.tsx';
import type { WebOptions } from '../../kit/context.ts';
import { projectPath } from '../../kit/paths.ts';
import { projectAccess } from '../../kit/access.ts';
import { projectsDone } from '../project-list.tsx';
import { DashboardPage } from './dashboard.view.tsx';

/** Fixed texts of `?done=<code>` (never text from the request). */
const DONE: Record<string, string> = {
  feed: 'Your feed URL is ready. Any earlier URL of yours for this project no longer works.',
};

export const projectDashboardRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const baseUrl = services.config.baseUrl;

  app.get('/org/:org/projects/:project', async (request, reply) => {
    const access = await projectAccess(services, request);
    const dash = await services.dashboards.projectDashboard(
      access.membership.organizationId,
      access.project.name,
      request.page.user!.id,
    );
    return sendPage(
      reply,
      <DashboardPage
        ctx={request.page}
        access={access}
        dash={dash}
        base={baseUrl ?? `${request.protocol}://${request.host}`}
        done={doneText(DONE, request.query) ?? projectsDone(request.query)}
      />,
    );
  });

  app.post('/org/:org/projects/:project/feed', async (request, reply) => {
    const access = await projectAccess(services, request);
    await services.dashboards.rotateFeed(
      access.membership.organizationId,
      access.project.name,
      request.page.user!.id,
    );
    return reply.redirect(`${projectPath(access.membership.name, access.project.name)}?done=feed#feed`, 303);
  });
};
