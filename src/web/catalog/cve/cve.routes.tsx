/**
 * A CVE's page, `/cves/<CVE-ID>` (any case; the canonical URL is upper case): title and description,
 * a summary (best CVSS, EPSS, KEV, SSVC), every CVSS vector in named metrics, vendors and products
 * with a subscribe control per project of the current organization, weaknesses, references, NVD's
 * configurations, each provider's statement with its raw record (`/cves/<id>/sources/<provider>`,
 * also an htmx fragment) and the change history with word-level diffs (`?history=<page>`).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import { splitVendorKey, vendorKey } from '../../../domain/cpe.ts';
import { formErrorsOf, formStatusOf, type FormErrors, doneText } from '../../kit/input.ts';
import { isHtmx, sendFragment, sendPage } from '../../kit/layout.tsx';
import type { WebOptions } from '../../kit/context.ts';
import { showsSubscribeControls, subscriptionOrg, toggleSubscription } from '../../shared/subscribe.tsx';
import { cveIdOf, cvePath, HISTORY_PAGE_SIZE, historyPageOf } from './cve-url.ts';
import { CvePageView } from './cve.view.tsx';
import { VendorProducts, VendorProductsPage } from './vendors.view.tsx';
import { RawRecord, SourcePage } from './source.view.tsx';

/** Flash notices after a POST: fixed text by code, never what the request carried. */
const DONE: Record<string, string> = {
  subscribed: 'Subscribed: the project now lists the CVEs of this vendor or product.',
  unsubscribed: 'Unsubscribed: the project no longer follows this vendor or product.',
};

export const cveDetailRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  /**
   * The CVE's page, from three reads, one per part of it: the CVE with one page of its history
   * (catalog); for the current organization, whether each of its projects subscribes to the
   * vendors and products named (projects, only where the subscribe controls are shown); and why the
   * CVE is or is not in each of those projects (projectMatch).
   */
  const cvePage = async (
    request: FastifyRequest,
    id: string,
    historyPage: number,
    extra: { done?: string | undefined; errors?: FormErrors } = {},
  ) => {
    const org = request.page.currentOrg;
    const page = await services.catalog.cvePage(id, { page: historyPage, pageSize: HISTORY_PAGE_SIZE });
    const states = showsSubscribeControls(org)
      ? await services.projects.subscriptionStates(org.organizationId, page.cve.vendors)
      : undefined;
    const matches = org ? await services.projectMatch.explainAll(org.organizationId, id) : undefined;
    return (
      <CvePageView
        ctx={request.page}
        page={page}
        states={states}
        matches={matches}
        historyPage={historyPage}
        done={extra.done}
        errors={extra.errors}
      />
    );
  };

  app.get<{ Params: { cve_id: string } }>('/cves/:cve_id', async (request, reply) => {
    const id = cveIdOf(request.params.cve_id);
    if (id !== request.params.cve_id) {
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      return reply.redirect(`${cvePath(id)}${query}`, 301);
    }
    const view = await cvePage(request, id, historyPageOf(request.query), {
      done: doneText(DONE, request.query),
    }).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'not_found')
        throw new AppError(
          'not_found',
          `${id} is not in the catalog: not published yet, or its record not imported.`,
        );
      throw err;
    });
    return sendPage(reply, view);
  });

  app.get<{ Params: { cve_id: string; vendor: string } }>(
    '/cves/:cve_id/vendors/:vendor',
    async (request, reply) => {
      const id = cveIdOf(request.params.cve_id);
      const { vendor } = request.params;
      const cve = await services.catalog.getCve(id);
      const products = cve.vendors
        .map((key) => splitVendorKey(key))
        .filter((k) => k.vendor === vendor && k.product !== undefined)
        .map((k) => k.product!);
      if (!cve.vendors.includes(vendor)) throw new AppError('not_found');
      const org = request.page.currentOrg;
      const states = showsSubscribeControls(org)
        ? await services.projects.subscriptionStates(
            org.organizationId,
            products.map((p) => vendorKey(vendor, p)),
          )
        : undefined;
      const list = (
        <VendorProducts ctx={request.page} cveId={id} vendor={vendor} products={products} states={states} />
      );
      if (isHtmx(request)) return sendFragment(reply, list);
      return sendPage(
        reply,
        <VendorProductsPage
          ctx={request.page}
          cveId={id}
          vendor={vendor}
          withProjects={states !== undefined && states.length > 0}
          list={list}
        />,
      );
    },
  );

  app.get<{ Params: { cve_id: string; provider: string } }>(
    '/cves/:cve_id/sources/:provider',
    async (request, reply) => {
      const id = cveIdOf(request.params.cve_id);
      const record = await services.catalog.sourceRecord(id, request.params.provider);
      if (isHtmx(request)) return sendFragment(reply, <RawRecord record={record} />);
      return sendPage(reply, <SourcePage ctx={request.page} cveId={id} record={record} />);
    },
  );

  /**
   * Subscribes a project of one of the user's organizations to a vendor or product, or unsubscribes it
   * (ProjectService: validated, audited like API v2's subscription items). Only a member of the
   * organization: another organization's name answers 404, as the API does.
   */
  app.post<{ Params: { cve_id: string } }>('/cves/:cve_id/subscriptions', async (request, reply) => {
    const id = cveIdOf(request.params.cve_id);
    const org = subscriptionOrg(request);
    let done: string;
    try {
      done = await toggleSubscription(services, request, org);
    } catch (err) {
      // A project or subscription that is not there stays a 404 (as in the API); a bad form is shown on the page.
      if (!(err instanceof AppError) || err.code !== 'validation_error') throw err;
      request.page.currentOrg = org;
      const view = await cvePage(request, id, 1, { errors: formErrorsOf(err) });
      return sendPage(reply, view, formStatusOf(err, reply));
    }
    return reply.redirect(`${cvePath(id)}?done=${done}#vendors`, 303);
  });
};
