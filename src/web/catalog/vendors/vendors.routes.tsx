/**
 * Vendors, their products, and weaknesses: search as you type (htmx replaces the rows; the same URL
 * without JavaScript is the whole page), keyset "Load more" (htmx appends the next rows; without
 * JavaScript a link to the next page), CVE counts, and links into the filtered CVE list.
 *
 * Counts come from indexes or kept counts, never a scan of the catalog: a vendor's or product's CVEs
 * are one range of `cve_vendor`'s primary key, a weakness's count is kept by triggers (migration 0020).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import { vendorKey } from '../../../domain/cpe.ts';
import { AppError } from '../../../domain/errors.ts';
import { formErrorsOf, formStatusOf, type FormErrors, queryText, doneText } from '../../kit/input.ts';
import { isHtmx, sendFragment, sendPage } from '../../kit/layout.tsx';
import type { WebOptions } from '../../kit/context.ts';
import { showsSubscribeControls, subscriptionOrg, toggleSubscription } from '../../shared/subscribe.tsx';
import {
  ProductRows,
  VendorPage,
  vendorPagePath,
  VendorRows,
  VendorsPage,
  WeaknessesPage,
  WeaknessRows,
} from './vendors.view.tsx';

/** Rows of one page of a list. */
const PAGE = 50;

/** Fixed texts of `?done=<code>` after a subscribe control (never text from the request). */
const SUBSCRIBE_DONE: Record<string, string> = {
  subscribed: 'Subscribed: the project now lists the CVEs of this vendor or product.',
  unsubscribed: 'Unsubscribed: the project no longer follows this vendor or product.',
};

/**
 * Sends the whole page, or to htmx (search as you type, "Load more") only the table, from which it
 * selects what it swaps; a history restore (htmx's cache missed) gets the whole page.
 */
function send(request: FastifyRequest, reply: FastifyReply, page: VNode, table: VNode) {
  const fragment = isHtmx(request) && request.headers['hx-history-restore-request'] !== 'true';
  return fragment ? sendFragment(reply, table) : sendPage(reply, page);
}

export const vendorRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  app.get('/vendors', async (request, reply) => {
    const search = queryText(request.query, 'search', 200);
    const after = queryText(request.query, 'after', 200) || undefined;
    const rows = await services.catalog.browseVendors(search || undefined, after, PAGE + 1);
    const list = { shown: rows.slice(0, PAGE), more: rows.length > PAGE, search, after };
    const table = <VendorRows {...list} />;
    const page = <VendorsPage ctx={request.page} search={search} after={after} table={table} />;
    return send(request, reply, page, table);
  });

  /**
   * A vendor's page: its CVE count and products, and for the current organization one subscribe
   * control per project for the vendor and for each product shown (as on a CVE page).
   */
  const vendorPage = async (
    request: FastifyRequest<{ Params: { vendor: string } }>,
    extra: { done?: string | undefined; errors?: FormErrors } = {},
  ) => {
    const search = queryText(request.query, 'search', 200);
    const after = queryText(request.query, 'after', 200) || undefined;
    const { vendor, cveCount, products } = await services.catalog.browseProducts(
      request.params.vendor,
      search || undefined,
      after,
      PAGE + 1,
    );
    const list = { shown: products.slice(0, PAGE), more: products.length > PAGE, search, after };
    const ctx = request.page;
    const org = ctx.currentOrg;
    const states = showsSubscribeControls(org)
      ? await services.projects.subscriptionStates(org.organizationId, [
          vendorKey(vendor.name),
          ...list.shown.map((p) => vendorKey(vendor.name, p.name)),
        ])
      : undefined;
    const controls = states && states.length > 0 ? states : undefined;
    const path = vendorPagePath(request.params.vendor);
    const table = <ProductRows ctx={ctx} vendor={vendor.name} path={path} controls={controls} {...list} />;
    const page = (
      <VendorPage
        ctx={ctx}
        vendor={vendor.name}
        path={path}
        cveCount={cveCount}
        controls={controls}
        search={search}
        done={extra.done}
        errors={extra.errors}
        table={table}
      />
    );
    return { page, table };
  };

  app.get<{ Params: { vendor: string } }>('/vendors/:vendor', async (request, reply) => {
    const { page, table } = await vendorPage(request, { done: doneText(SUBSCRIBE_DONE, request.query) });
    return send(request, reply, page, table);
  });

  /** A subscribe control of the vendor page (toggleSubscription, as the CVE page's). */
  app.post<{ Params: { vendor: string } }>('/vendors/:vendor/subscriptions', async (request, reply) => {
    const vendor = await services.catalog.getVendor(request.params.vendor);
    const org = subscriptionOrg(request);
    let done: string;
    try {
      done = await toggleSubscription(services, request, org);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'validation_error') throw err;
      request.page.currentOrg = org;
      const { page } = await vendorPage(request, { errors: formErrorsOf(err) });
      return sendPage(reply, page, formStatusOf(err, reply));
    }
    return reply.redirect(`${vendorPagePath(vendor.name)}?done=${done}`, 303);
  });

  app.get('/weaknesses', async (request, reply) => {
    const search = queryText(request.query, 'search', 200);
    const afterText = queryText(request.query, 'after', 200);
    const m = /^(\d{1,9}):(CWE-\d{1,6})$/.exec(afterText);
    const after = m ? { count: Number(m[1]), cweId: m[2]! } : undefined;
    const rows = await services.catalog.browseWeaknesses(search || undefined, after, PAGE + 1);
    const table = (
      <WeaknessRows shown={rows.slice(0, PAGE)} more={rows.length > PAGE} search={search} after={after} />
    );
    const page = <WeaknessesPage ctx={request.page} search={search} table={table} />;
    return send(request, reply, page, table);
  });
};
