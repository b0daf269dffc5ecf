/**
 * `POST /match`: an inventory (CPE names, `{vendor, product, version}` objects, package URLs, SBOM
 * components `{purl, cpe, name, version, vendor}`; at most
 * 1,000) matched against the catalog, one answer per component in the order sent
 * (`InventoryMatchService`, docs/catalog.md "Matching an inventory"). Scope `catalog:read`; a read
 * token suffices, as nothing is written.
 */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MAX_INVENTORY } from '../../domain/inventory-match.ts';
import type { Services } from '../../services/services.ts';
import { matchAnswer, MatchAnswer } from './match.presenter.ts';
import { commonErrors } from './schemas.ts';

const MatchBody = Type.Object(
  {
    components: Type.Array(
      Type.Unknown({
        description:
          'A CPE 2.3 name (`cpe:2.3:a:apache:log4j:2.14.1:*:*:*:*:*:*:*`), an object ' +
          '`{"vendor": "apache", "product": "log4j", "version": "2.14.1"}`, a package URL ' +
          '(`pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1`; any type, `pkg:generic/…` by its name), or an ' +
          'SBOM component `{"name", "version", "purl", "cpe", "vendor"}` (purl and CPE read together). ' +
          'One that cannot be read gets its own `error`.',
      }),
      {
        minItems: 1,
        maxItems: MAX_INVENTORY,
        description: `The inventory: 1 to ${MAX_INVENTORY} components.`,
      },
    ),
  },
  { additionalProperties: false },
);

export const matchRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'inventoryMatch'>;
}> = async (app, { services }) => {
  app.post(
    '/match',
    {
      config: { auth: { scope: 'catalog:read', write: false } },
      schema: {
        tags: ['match'],
        summary: 'Match an inventory against the catalog',
        description:
          'For each component, in the order sent, the CVEs that affect its version and the rules that say so: ' +
          'NVD’s CPE configurations (version ranges, AND/OR nodes, `negate`; a platform condition the ' +
          'component cannot speak for is reported as `conditions: unknown`) and the CNA’s `affected[]` ' +
          'version ranges. A component without a version is listed with `verdict: version_unknown` CVEs.',
        body: MatchBody,
        response: { 200: MatchAnswer, ...commonErrors },
      },
    },
    // The answer (tens of MiB for a large inventory) is sent as the bytes of its JSON, encoded once:
    // as a string through the schema's serializer it was built, measured in UTF-8 for its length and
    // encoded again, a third of a warm call's time (the presenter gives exactly the schema's shape).
    async (request, reply) =>
      reply
        .type('application/json; charset=utf-8')
        .send(
          Buffer.from(
            JSON.stringify(matchAnswer(await services.inventoryMatch.match(request.body.components))),
          ),
        ),
  );
};
