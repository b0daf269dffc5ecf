/**
 * `/org/<org>/projects/<project>/inventories`: the Inventory tab (docs/inventories.md). Every member
 * reads the inventories, their components (searchable by name) and each component's findings, and
 * downloads the VEX; owners upload an SBOM file (multipart, the web plugin's parser with this page's
 * 50 MB limit) and delete, through InventoryService like API v2's PUT and DELETE. What an upload did
 * is kept in the session for the inventory's page it lands on, once.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import { changesText, MAX_SBOM_BYTES } from '../../../domain/inventory.ts';
import {
  doneText,
  formErrorsOf,
  formStatusOf,
  field,
  pageNumber,
  queryText,
  type FormErrors,
} from '../../kit/input.ts';
import { sendPage } from '../../kit/layout.tsx';
import type { WebOptions } from '../../kit/context.ts';
import { assertCanConfigure, projectAccess, type ProjectAccess } from '../../kit/access.ts';
import {
  COMPONENT_PAGE_SIZE,
  ComponentPage,
  InventoriesPage,
  InventoryPage,
  inventoriesPath,
  inventoryPath,
  type UploadNotice,
} from './inventory.view.tsx';

declare module 'fastify' {
  interface Session {
    /** What the last SBOM upload did, shown once on the inventory's page. */
    inventoryUpload?: UploadNotice;
  }
}

const DONE: Record<string, string> = {
  deleted: 'Inventory deleted. The CVEs only it brought have left the project’s list; their triage is kept.',
};

type InventoryParams = { org: string; project: string; name: string };

/** The uploaded file as text (UTF-8), or '' when the form has none. */
function uploadedText(body: unknown): string {
  const file = (body as Record<string, unknown> | undefined)?.sbom;
  if (Buffer.isBuffer(file)) return file.toString('utf8');
  return typeof file === 'string' ? file : '';
}

export const projectInventoryRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const base = '/org/:org/projects/:project/inventories';

  const listPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    access: ProjectAccess,
    form: { name?: string; errors?: FormErrors; status?: number } = {},
  ) => {
    const inventories = await services.inventories.list(
      access.membership.organizationId,
      access.project.name,
    );
    return sendPage(
      reply,
      <InventoriesPage
        ctx={request.page}
        access={access}
        inventories={inventories}
        typedName={form.name}
        errors={form.errors}
        done={form.errors ? undefined : doneText(DONE, request.query)}
      />,
      form.status,
    );
  };

  app.get(base, async (request, reply) => listPage(request, reply, await projectAccess(services, request)));

  app.post(
    base,
    { config: { multipartOptions: { limits: { files: 1, fileSize: MAX_SBOM_BYTES } } } },
    async (request, reply) => {
      const access = await projectAccess(services, request);
      assertCanConfigure(access);
      const name = field(request.body, 'name').trim();
      const text = uploadedText(request.body);
      if (!text.trim())
        return listPage(request, reply, access, {
          name,
          errors: { sbom: ['Choose an SBOM file to upload.'] },
          status: 400,
        });
      try {
        const summary = await services.inventories.upload(
          access.membership.organizationId,
          access.project.name,
          name,
          text,
          undefined,
          access.actor,
        );
        request.session.inventoryUpload = {
          project: access.project.id,
          inventory: summary.inventory.name,
          components: summary.components,
          versionUnknown: summary.versionUnknown,
          unmatchable: summary.unmatchable,
          cves: summary.cves,
          entered: summary.entered.slice(0, 50),
          resolved: summary.resolved
            .slice(0, 50)
            .map((r) => ({ cveId: r.cveId, text: changesText(r.changes) })),
        };
        return reply.redirect(inventoryPath(access, summary.inventory.name), 303);
      } catch (err) {
        const errors = formErrorsOf(err);
        // A document's problem is keyed by where it is (a JSON pointer, a line): shown above the file.
        const sbomProblems = Object.entries(errors)
          .filter(([key]) => key !== 'name' && key !== '_form')
          .map(([where, messages]) =>
            where === 'document' ? messages.join(' ') : `${where}: ${messages.join(' ')}`,
          );
        const shown: FormErrors = {
          ...(errors.name ? { name: errors.name } : {}),
          ...(errors._form && !sbomProblems.length ? { _form: errors._form } : {}),
          ...(sbomProblems.length ? { sbom: [`The SBOM cannot be read: ${sbomProblems.join(' ')}`] } : {}),
        };
        return listPage(request, reply, access, { name, errors: shown, status: formStatusOf(err, reply) });
      }
    },
  );

  app.get<{ Params: InventoryParams }>(`${base}/:name`, async (request, reply) => {
    const access = await projectAccess(services, request);
    const page = pageNumber(request.query);
    const search = queryText(request.query, 'search', 200);
    const affected = queryText(request.query, 'affected') === '1';
    const found = await services.inventories.get(
      access.membership.organizationId,
      access.project.name,
      request.params.name,
      { limit: COMPONENT_PAGE_SIZE, offset: (page - 1) * COMPONENT_PAGE_SIZE, search, affected },
    );
    const last = request.session.inventoryUpload;
    const notice =
      last && last.project === access.project.id && last.inventory === found.inventory.name
        ? last
        : undefined;
    if (notice) request.session.inventoryUpload = undefined;
    return sendPage(
      reply,
      <InventoryPage
        ctx={request.page}
        access={access}
        inventory={found.inventory}
        components={found.components}
        count={found.count}
        page={page}
        search={search}
        affected={affected}
        notice={notice}
      />,
    );
  });

  app.get<{ Params: InventoryParams & { position: string } }>(
    `${base}/:name/components/:position`,
    async (request, reply) => {
      const access = await projectAccess(services, request);
      const position = /^\d{1,7}$/.test(request.params.position) ? Number(request.params.position) : NaN;
      if (!Number.isInteger(position)) throw new AppError('not_found');
      const found = await services.inventories.componentFindings(
        access.membership.organizationId,
        access.project.name,
        request.params.name,
        position,
      );
      return sendPage(
        reply,
        <ComponentPage
          ctx={request.page}
          access={access}
          inventory={request.params.name}
          component={found.component}
          findings={found.findings}
        />,
      );
    },
  );

  app.get<{ Params: InventoryParams }>(`${base}/:name/vex`, async (request, reply) => {
    const access = await projectAccess(services, request);
    const format = queryText(request.query, 'format') || 'cyclonedx';
    if (format !== 'cyclonedx' && format !== 'openvex')
      throw new AppError('validation_error', 'A VEX is exported as format=cyclonedx or format=openvex.');
    const document = await services.inventories.vex(
      access.membership.organizationId,
      access.project.name,
      request.params.name,
      format,
    );
    const file = `${access.project.name}-${request.params.name}.${format === 'openvex' ? 'openvex' : 'cdx'}.json`;
    return reply
      .type(format === 'openvex' ? 'application/json' : 'application/vnd.cyclonedx+json')
      .header('content-disposition', `attachment; filename="${file.replace(/[^\w.-]/g, '_')}"`)
      .send(JSON.stringify(document, null, 2));
  });

  app.post<{ Params: InventoryParams }>(`${base}/:name/delete`, async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    await services.inventories.delete(
      access.membership.organizationId,
      access.project.name,
      request.params.name,
      access.actor,
    );
    return reply.redirect(`${inventoriesPath(access)}?done=deleted`, 303);
  });
};
