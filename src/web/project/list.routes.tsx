/**
 * Projects: `/projects` (the current organization's projects), `/org/<org>/projects` (the list) and
 * `/org/<org>/projects/<project>` (the project's dashboard), and the plugins of the project's other
 * pages (tracker, one CVE, subscriptions, notifications, automations, reports).
 */
import type { FastifyPluginAsync } from 'fastify';
import { sendPage } from '../kit/layout.tsx';
import type { WebOptions } from '../kit/context.ts';
import { orgPath } from '../kit/paths.ts';
import { pageNumber } from '../kit/input.ts';
import { orgAccess } from '../kit/access.ts';
import { ProjectList, PROJECTS_PAGE, projectsDone } from './project-list.tsx';

export const projectListRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
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
};
