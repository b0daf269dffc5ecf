/**
 * `GET /organizations/<org>/projects/<project>/cves/<cve_id>/match`: why a CVE is (or is not) in the
 * project (`ProjectMatchService`, the same answer as the web UI's). Any catalog CVE may be asked about:
 * one outside the project answers 200 with why not; a CVE the catalog does not list is a 404. Scope
 * `tracker:read`.
 */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.ts';
import { authOf } from './auth.ts';
import { ProjectParams } from './params.ts';
import { projectMatchItem, ProjectMatchItem } from './project-match.presenter.ts';
import { commonErrors } from './schemas.ts';
import { CVE_ID_RULE } from '../validation-messages.ts';

export const projectMatchRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'projectMatch'>;
}> = async (app, { services }) => {
  app.get(
    '/organizations/:org/projects/:project/cves/:cve_id/match',
    {
      config: { auth: { scope: 'tracker:read', write: false } },
      schema: {
        tags: ['tracker'],
        summary: 'Why a CVE is (or is not) in the project',
        description:
          'Which subscribed vendor or product key matched, which provider’s statement gave the CVE that key ' +
          '(a CPE, or the CNA’s own vendor and product text), and when the CVE entered the project; for a ' +
          'CVE outside the project, why not, its keys and the nearest subscribed keys.',
        params: Type.Object({
          ...ProjectParams.properties,
          cve_id: Type.String({ pattern: CVE_ID_RULE, maxLength: 30 }),
        }),
        response: { 200: ProjectMatchItem, ...commonErrors },
      },
    },
    async (request) => {
      const { project, cve_id } = request.params;
      return projectMatchItem(
        await services.projectMatch.explain(authOf(request).organizationId, project, cve_id),
      );
    },
  );
};
