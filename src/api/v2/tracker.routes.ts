/**
 * `/organizations/<org>/projects/<project>/cves`: the project's CVEs (the catalog CVEs matching its
 * subscriptions, REJECTED ones excepted) with their triage, single and bulk moves, and comments.
 * Scopes `tracker:read` / `tracker:write`.
 */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.ts';
import { COMMENT_MAX_LENGTH, MAX_BULK_CVES, NO_STATUS, TRIAGE_STATUSES } from '../../domain/triage.ts';
import { csvStream, sendCsv } from '../../http/csv.ts';
import { jsonOrCsv } from '../csv-query.ts';
import { pageEnvelope } from '../pagination.ts';
import { PROJECT_CVE_CSV_COLUMNS, PROJECT_CVE_CSV_DESCRIPTION } from '../../http/cve-csv.ts';
import { CveListQuery, countKeyOf, cveFiltersOf } from './cve-list-params.ts';
import { ProjectParams } from './params.ts';
import { commonErrors, PageQuery, pageOf, Paginated, Uuid } from './schemas.ts';
import {
  commentItem,
  CommentItem,
  projectCveItem,
  ProjectCveItem,
  TriageStatus,
} from './tracker.presenter.ts';
import { authOf } from './auth.ts';
import { mayNameProjects } from './response-cache.ts';
import { CHOICE, CVE_ID_RULE } from '../validation-messages.ts';

const read = { auth: { scope: 'tracker:read', write: false } } as const;
const write = { auth: { scope: 'tracker:write', write: true } } as const;
const tags = ['tracker'];

const CveId = Type.String({ pattern: CVE_ID_RULE, maxLength: 30 });
const CveParams = Type.Object({ ...ProjectParams.properties, cve_id: CveId });
const CommentParams = Type.Object({ ...CveParams.properties, comment_id: Uuid });
const CommentBody = Type.Object(
  { body: Type.String({ minLength: 1, maxLength: COMMENT_MAX_LENGTH }) },
  { additionalProperties: false },
);

const Move = {
  status: Type.Optional(
    Type.Union([TriageStatus, Type.Null()], { ...CHOICE, description: 'The new status; null clears it.' }),
  ),
  assignee: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 320 }), Type.Null()], {
      description: 'The email of a joined member of the organization; null clears it.',
    }),
  ),
};

const ProjectCveQuery = Type.Object({
  ...CveListQuery.properties,
  status: Type.Optional(
    Type.Union(
      [...TRIAGE_STATUSES, NO_STATUS].map((s) => Type.Literal(s)),
      { description: `A triage status, or \`${NO_STATUS}\` for CVEs without one.` },
    ),
  ),
  assignee: Type.Optional(
    Type.String({ minLength: 1, maxLength: 320, description: "The assignee's email." }),
  ),
});

export const trackerRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'config' | 'projectCves' | 'tracker' | 'trackerComments'>;
}> = async (app, { services }) => {
  const { projectCves, tracker, trackerComments } = services;
  const baseUrl = services.config.baseUrl;
  const path = '/organizations/:org/projects/:project/cves';

  app.get(
    path,
    {
      config: read,
      schema: {
        tags,
        summary: "The project's CVEs with their triage",
        description:
          'The catalog CVEs carrying any subscribed vendor or product (REJECTED ones excepted), with the ' +
          '`/cves` filters and `status`, `assignee`; `format=csv` downloads them all.',
        params: ProjectParams,
        querystring: ProjectCveQuery,
        response: {
          200: jsonOrCsv(Paginated(ProjectCveItem), PROJECT_CVE_CSV_DESCRIPTION),
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const { query, params } = request;
      const { filters, ordering } = cveFiltersOf(query);
      const listQuery = {
        filters,
        q: query.q,
        ordering,
        status: query.status,
        assignee: query.assignee,
        countKey: countKeyOf('project', auth.organizationId, query),
      };
      if (query.format === 'csv') {
        const { rows } = await projectCves.exportCves(auth.organizationId, params.project, listQuery);
        const filename = `cves-${auth.organizationName}-${params.project}.csv`;
        return sendCsv(reply, filename, csvStream(PROJECT_CVE_CSV_COLUMNS, rows));
      }
      // The cached answer for the catalog version and the project's list version, else read.
      const cache = app.responseCache;
      const cacheable = !mayNameProjects(query.q);
      const project = await projectCves.listedProject(auth.organizationId, params.project);
      const scope = `${project.id}:${project.listVersion}`;
      if (cacheable) {
        const hit = cache.answered(request, reply, request.catalogVersion, scope);
        if (hit) return hit;
      }
      const page = pageOf(query);
      const { count, items, version } = await projectCves.listCves(
        auth.organizationId,
        params.project,
        listQuery,
        page,
        project,
      );
      if (cacheable) cache.remember(request, version, scope);
      return pageEnvelope(request, baseUrl, page, count, items.map(projectCveItem));
    },
  );

  app.patch(
    path,
    {
      config: write,
      schema: {
        tags,
        summary: 'Move several CVEs at once (all or nothing)',
        description:
          "Every CVE must be one of the project's, else 400 naming each under `details.cve_ids` and nothing " +
          'moves. One audit entry lists every CVE that moved with its old and new values. Answers with the ' +
          'CVEs in the order given.',
        params: ProjectParams,
        body: Type.Object(
          { cve_ids: Type.Array(CveId, { minItems: 1, maxItems: MAX_BULK_CVES }), ...Move },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            changed: Type.Integer({ description: 'How many of the CVEs moved.' }),
            results: Type.Array(ProjectCveItem),
          }),
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const auth = authOf(request);
      const { cve_ids, ...patch } = request.body;
      const { changed, results } = await tracker.bulkUpdate(
        auth.organizationId,
        request.params.project,
        cve_ids,
        patch,
        auth.actor,
      );
      return { changed, results: results.map(projectCveItem) };
    },
  );

  app.get(
    `${path}/:cve_id`,
    {
      config: read,
      schema: {
        tags,
        summary: 'One CVE of the project with its triage',
        params: CveParams,
        response: { 200: ProjectCveItem, ...commonErrors },
      },
    },
    async (request) => {
      const { project, cve_id } = request.params;
      return projectCveItem(await projectCves.getCve(authOf(request).organizationId, project, cve_id));
    },
  );

  app.patch(
    `${path}/:cve_id`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Set or clear the status and assignee of one CVE of the project',
        params: CveParams,
        body: Type.Object(Move, { additionalProperties: false }),
        response: { 200: ProjectCveItem, ...commonErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      const { project, cve_id } = request.params;
      return projectCveItem(
        await tracker.update(auth.organizationId, project, cve_id, request.body, auth.actor),
      );
    },
  );

  app.get(
    `${path}/:cve_id/comments`,
    {
      config: read,
      schema: {
        tags,
        summary: 'Comments on a CVE of the project, oldest first',
        params: CveParams,
        querystring: Type.Object(PageQuery),
        response: { 200: Paginated(CommentItem), ...commonErrors },
      },
    },
    async (request) => {
      const { project, cve_id } = request.params;
      const page = pageOf(request.query);
      const { count, items } = await trackerComments.listComments(
        authOf(request).organizationId,
        project,
        cve_id,
        page,
      );
      return pageEnvelope(request, baseUrl, page, count, items.map(commentItem));
    },
  );

  app.post(
    `${path}/:cve_id/comments`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Comment on a CVE of the project',
        params: CveParams,
        body: CommentBody,
        response: { 201: CommentItem, ...commonErrors },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const { project, cve_id } = request.params;
      const comment = await trackerComments.addComment(
        auth.organizationId,
        project,
        cve_id,
        request.body.body,
        auth.actor,
      );
      return reply.status(201).send(commentItem(comment));
    },
  );

  app.patch(
    `${path}/:cve_id/comments/:comment_id`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Edit a comment (its author only)',
        description:
          "Replaces the text. Only the comment's author may: the token that wrote it, or (in the web UI) the " +
          'user; anyone else gets 403. Audited `tracker_comment.update` with the old and new text.',
        params: CommentParams,
        body: CommentBody,
        response: { 200: CommentItem, ...commonErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      const { project, cve_id, comment_id } = request.params;
      return commentItem(
        await trackerComments.editComment(
          auth.organizationId,
          project,
          cve_id,
          comment_id,
          request.body.body,
          auth.actor,
        ),
      );
    },
  );

  app.delete(
    `${path}/:cve_id/comments/:comment_id`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete a comment (its author only, for a token)',
        description:
          'A token deletes the comments it wrote (403 for others); in the web UI an owner of the ' +
          'organization may delete any. Audited `tracker_comment.delete` with the text it had.',
        params: CommentParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...commonErrors },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const { project, cve_id, comment_id } = request.params;
      await trackerComments.deleteComment(auth.organizationId, project, cve_id, comment_id, auth.actor);
      return reply.status(204).send(null);
    },
  );
};
