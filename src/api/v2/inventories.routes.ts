/**
 * `/organizations/<org>/projects/<project>/inventories` (docs/inventories.md): a project's SBOMs.
 * Read with `projects:read`; upload (PUT, the document as the body, up to 50 MB) and delete with
 * `projects:write`. The body is taken as text by this plugin's own parsers (JSON, SPDX tag-value)
 * and read by the SBOM parser, whose first problem is a 400 naming where it is.
 */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.ts';
import { MAX_SBOM_BYTES } from '../../domain/inventory.ts';
import { AppError } from '../../domain/errors.ts';
import { assertPageInRange, offsetOf } from '../../domain/paging.ts';
import { pageEnvelope } from '../pagination.ts';
import { ProjectParams } from './params.ts';
import { commonErrors, PageQuery, pageOf, Paginated } from './schemas.ts';
import { authOf } from './auth.ts';
import {
  Component,
  ComponentFindings,
  componentFindings,
  componentItem,
  Inventory,
  inventoryItem,
  InventoryList,
  UploadAnswer,
  uploadAnswer,
} from './inventory.presenter.ts';

const read = { auth: { scope: 'projects:read', write: false } } as const;
const write = { auth: { scope: 'projects:write', write: true } } as const;
const tags = ['inventories'];

/** The media types an SBOM may be sent as. */
const SBOM_TYPES = [
  'application/json',
  'application/vnd.cyclonedx+json',
  'application/spdx+json',
  'text/spdx',
  'text/plain',
];

const InventoryParams = Type.Object({
  ...ProjectParams.properties,
  name: Type.String({ minLength: 1, maxLength: 200, description: 'The inventory name (e.g. `backend`).' }),
});

export const inventoryRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'inventories' | 'config'>;
}> = async (app, { services }) => {
  const { inventories } = services;
  const baseUrl = services.config.baseUrl;
  const path = '/organizations/:org/projects/:project/inventories';

  // The document as text, for the SBOM parser (JSON is parsed there, with pointers to its problems).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(SBOM_TYPES, { parseAs: 'string', bodyLimit: MAX_SBOM_BYTES }, (_req, body, done) =>
    done(null, body),
  );

  app.get(
    path,
    {
      config: read,
      schema: {
        tags,
        summary: "The project's inventories",
        params: ProjectParams,
        response: { 200: InventoryList, ...commonErrors },
      },
    },
    async (request) => ({
      results: (await inventories.list(authOf(request).organizationId, request.params.project)).map(
        inventoryItem,
      ),
    }),
  );

  app.get(
    `${path}/:name`,
    {
      config: read,
      schema: {
        tags,
        summary: 'One inventory and a page of its components',
        description: 'Components in document order; `search` keeps those whose name contains it (any case).',
        params: InventoryParams,
        querystring: Type.Object({
          ...PageQuery,
          search: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: {
          200: Type.Object({ inventory: Inventory, ...Paginated(Component).properties }),
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { inventory, count, components } = await inventories.get(
        authOf(request).organizationId,
        request.params.project,
        request.params.name,
        { limit: page.pageSize, offset: offsetOf(page), search: request.query.search },
      );
      assertPageInRange(page, count);
      return {
        inventory: inventoryItem(inventory),
        ...pageEnvelope(request, baseUrl, page, count, components.map(componentItem)),
      };
    },
  );

  app.get(
    `${path}/:name/components/:position`,
    {
      config: read,
      schema: {
        tags,
        summary: 'One component and the CVEs found for it',
        params: Type.Object({ ...InventoryParams.properties, position: Type.Integer({ minimum: 0 }) }),
        response: { 200: ComponentFindings, ...commonErrors },
      },
    },
    async (request) =>
      componentFindings(
        await inventories.component(
          authOf(request).organizationId,
          request.params.project,
          request.params.name,
          request.params.position,
        ),
      ),
  );

  app.put(
    `${path}/:name`,
    {
      config: write,
      bodyLimit: MAX_SBOM_BYTES,
      schema: {
        tags,
        summary: 'Upload an SBOM as the inventory (replacing it)',
        description:
          'The body is the SBOM: CycloneDX JSON, SPDX 2.x JSON (`application/json`, ' +
          '`application/vnd.cyclonedx+json`, `application/spdx+json`) or SPDX tag-value (`text/spdx`); ' +
          'at most 50 MB. The components are matched at once; CVEs new to the project enter it ' +
          '(alerts `cve_affects_component`), CVEs whose every finding is gone are resolved in the ' +
          'tracker. A document that cannot be read is a 400 whose `details` key is where its first ' +
          'problem is (a JSON pointer, or `line N`).',
        params: InventoryParams,
        response: { 200: UploadAnswer, ...commonErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      if (typeof request.body !== 'string' || !request.body.trim())
        throw new AppError('validation_error', 'The body must be an SBOM document.', {
          body: ['The body must be an SBOM document (CycloneDX or SPDX).'],
        });
      return uploadAnswer(
        await inventories.upload(
          auth.organizationId,
          request.params.project,
          request.params.name,
          request.body,
          request.headers['content-type'],
          auth.actor,
        ),
      );
    },
  );

  app.delete(
    `${path}/:name`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete an inventory',
        description: 'Its components and findings go; the tracker entries of its CVEs stay.',
        params: InventoryParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...commonErrors },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      await inventories.delete(auth.organizationId, request.params.project, request.params.name, auth.actor);
      return reply.status(204).send(null);
    },
  );

  app.get(
    `${path}/:name/vex`,
    {
      config: read,
      schema: {
        tags,
        summary: "The project's triage of the inventory's findings as VEX",
        description:
          '`format=cyclonedx` (default): a CycloneDX 1.5 BOM with `vulnerabilities[]`; `format=openvex`: ' +
          'an OpenVEX 0.2.0 document. Tracker statuses map to VEX states as docs/inventories.md says.',
        params: InventoryParams,
        querystring: Type.Object({
          format: Type.Optional(Type.Union([Type.Literal('cyclonedx'), Type.Literal('openvex')])),
        }),
        response: { 200: Type.Object({}, { additionalProperties: true }), ...commonErrors },
      },
    },
    async (request, reply) => {
      const format = request.query.format ?? 'cyclonedx';
      const doc = await inventories.vex(
        authOf(request).organizationId,
        request.params.project,
        request.params.name,
        format,
      );
      return reply
        .type(format === 'openvex' ? 'application/json' : 'application/vnd.cyclonedx+json')
        .send(JSON.stringify(doc));
    },
  );
};
