/**
 * `/organizations/<org>/projects/<project>/keywords` (docs/api-v2.md, "Keyword watches"): read with
 * `projects:read`, replace the whole list with `subscriptions:write`. The PUT answers with the list
 * as stored (normalized, sorted).
 */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.ts';
import { KEYWORD_MAX_LENGTH, KEYWORD_MIN_LENGTH, MAX_KEYWORDS } from '../../domain/keywords.ts';
import { ProjectParams } from './params.ts';
import { commonErrors } from './schemas.ts';
import { authOf } from './auth.ts';

const read = { auth: { scope: 'projects:read', write: false } } as const;
const write = { auth: { scope: 'subscriptions:write', write: true } } as const;
const tags = ['subscriptions'];

const Keywords = Type.Object({
  keywords: Type.Array(Type.String(), {
    description: 'The keywords as stored: trimmed, blanks collapsed, lower case; sorted.',
  }),
});

export const keywordRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'projectKeywords'>;
}> = async (app, { services }) => {
  const { projectKeywords } = services;
  const path = '/organizations/:org/projects/:project/keywords';

  app.get(
    path,
    {
      config: read,
      schema: {
        tags,
        summary: "The project's keyword watches",
        params: ProjectParams,
        response: { 200: Keywords, ...commonErrors },
      },
    },
    async (request) => ({
      keywords: await projectKeywords.get(authOf(request).organizationId, request.params.project),
    }),
  );

  app.put(
    path,
    {
      config: write,
      schema: {
        tags,
        summary: 'Replace the keyword watches',
        description:
          `After success the keywords are exactly the body's, normalized (trimmed, blanks collapsed, lower ` +
          `case; duplicates in any case once): at most ${MAX_KEYWORDS}, each ${KEYWORD_MIN_LENGTH}–` +
          `${KEYWORD_MAX_LENGTH} characters with a letter or digit. A keyword matches, in any case and as ` +
          'whole words, the CNA and ADP affected vendor and product names, the title and the description ' +
          'of a CVE; a matching CVE is in the project. Refused keywords give 400 with one message each ' +
          'under `details.keywords`, and nothing changes.',
        params: ProjectParams,
        body: Type.Object(
          {
            keywords: Type.Array(Type.String({ maxLength: 1000 }), {
              maxItems: 1000,
              description: `The keywords (at most ${MAX_KEYWORDS} once normalized).`,
            }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Keywords, ...commonErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      const keywords = await projectKeywords.replace(
        auth.organizationId,
        request.params.project,
        request.body.keywords,
        auth.actor,
      );
      return { keywords };
    },
  );
};
