/**
 * Vendors, their products, and weaknesses: search as you type (htmx replaces the rows; the same URL
 * without JavaScript is the whole page), keyset "Load more" (htmx appends the next rows; without
 * JavaScript a link to the next page), CVE counts, and links into the filtered CVE list.
 *
 * Counts come from indexes or kept counts, never a scan of the catalog: a vendor's or product's CVEs
 * are one range of `cve_vendor`'s primary key, a weakness's count is kept by triggers (migration 0020).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ComponentChildren, VNode } from 'preact';
import { vendorKey } from '../../domain/cpe.ts';
import { AppError } from '../../domain/errors.ts';
import { FormProblems, Notice } from '../kit/fields.tsx';
import { formErrorsOf, formStatusOf, type FormErrors, queryText, doneText } from '../kit/input.ts';
import { formatCount } from '../kit/format.ts';
import { isHtmx, Layout, sendFragment, sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';
import {
  showsSubscribeControls,
  SubscribeControls,
  subscriptionOrg,
  toggleSubscription,
} from '../shared/subscribe.tsx';

const PAGE = 50;

/** Fixed texts of `?done=<code>` after a subscribe control (never text from the request). */
const SUBSCRIBE_DONE: Record<string, string> = {
  subscribed: 'Subscribed: the project now lists the CVEs of this vendor or product.',
  unsubscribed: 'Unsubscribed: the project no longer follows this vendor or product.',
};

const cveLink = (params: Record<string, string>) => `/cves?${new URLSearchParams(params).toString()}`;

/** The search box: htmx swaps the table body as the user types; the form works as a plain GET. */
function SearchBox({
  action,
  value,
  label,
  target,
}: {
  action: string;
  value: string;
  label: string;
  target: string;
}) {
  return (
    <form method="get" action={action} class="filters" role="search">
      <div class="field">
        <label for="f-search">{label}</label>
        <input
          id="f-search"
          type="search"
          name="search"
          value={value}
          maxLength={200}
          autocomplete="off"
          hx-get={action}
          hx-trigger="input changed delay:250ms, search"
          hx-target={target}
          hx-select={target}
          hx-swap="outerHTML"
          hx-push-url="true"
        />
      </div>
      <div class="field">
        <button type="submit">Search</button>
      </div>
    </form>
  );
}

/** "Load more": htmx appends the next rows in place of this row; without JS a link to the next page. */
function LoadMore({ href, columns }: { href: string | undefined; columns: number }) {
  if (!href) return null;
  return (
    <tr class="load-more">
      <td colSpan={columns}>
        <a href={href} hx-get={href} hx-target="closest tr" hx-swap="outerHTML" hx-select="tbody > tr">
          Load more
        </a>
      </td>
    </tr>
  );
}

function ListTable({ id, head, children }: { id: string; head: string[]; children: ComponentChildren }) {
  return (
    <div class="table-wrap" id={id}>
      <table class="data">
        <thead>
          <tr>
            {head.map((h, i) => (
              <th scope="col" class={i > 0 && h !== 'Name' && h !== 'Projects' ? 'num' : undefined}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/**
 * Sends the whole page, or to htmx (search as you type, "Load more") only the table, from which it
 * selects what it swaps; a history restore (htmx's cache missed) gets the whole page.
 */
function send(request: FastifyRequest, reply: FastifyReply, page: VNode, table: VNode) {
  const fragment = isHtmx(request) && request.headers['hx-history-restore-request'] !== 'true';
  return fragment ? sendFragment(reply, table) : sendPage(reply, page);
}

const next = (base: string, search: string, after: string | undefined) =>
  after === undefined
    ? undefined
    : `${base}?${new URLSearchParams({ ...(search ? { search } : {}), after }).toString()}`;

function NoRows({ columns, search }: { columns: number; search: string }) {
  return (
    <tr>
      <td colSpan={columns} class="muted">
        {search ? `Nothing matches "${search}".` : 'Nothing here yet.'}
      </td>
    </tr>
  );
}

function Head({
  ctx,
  title,
  section,
  children,
}: {
  ctx: PageContext;
  title: string;
  section: 'vendors' | 'weaknesses';
  children: ComponentChildren;
}) {
  return (
    <Layout ctx={ctx} title={title} section={section}>
      {children}
    </Layout>
  );
}

export const vendorRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  app.get('/vendors', async (request, reply) => {
    const search = queryText(request.query, 'search', 200);
    const after = queryText(request.query, 'after', 200) || undefined;
    const rows = await services.catalog.browseVendors(search || undefined, after, PAGE + 1);
    const more = rows.length > PAGE;
    const shown = rows.slice(0, PAGE);
    const table = (
      <ListTable id="vendor-rows" head={['Name', 'Products', 'CVEs']}>
        {shown.length === 0 && !after && <NoRows columns={3} search={search} />}
        {shown.map((v) => (
          <tr>
            <td>
              <a href={`/vendors/${encodeURIComponent(v.name)}`}>{v.name}</a>
            </td>
            <td class="num">{formatCount(v.product_count)}</td>
            <td class="num">
              <a href={cveLink({ vendor: v.name })}>{formatCount(v.cve_count)}</a>
            </td>
          </tr>
        ))}
        <LoadMore
          href={more ? next('/vendors', search, shown[shown.length - 1]!.name) : undefined}
          columns={3}
        />
      </ListTable>
    );
    const page = (
      <Head ctx={request.page} title="Vendors" section="vendors">
        <h1>Vendors</h1>
        <SearchBox action="/vendors" value={search} label="Find a vendor" target="#vendor-rows" />
        {after && (
          <p>
            <a href={search ? `/vendors?search=${encodeURIComponent(search)}` : '/vendors'}>
              ← From the start
            </a>
          </p>
        )}
        {table}
      </Head>
    );
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
    const base = `/vendors/${encodeURIComponent(request.params.vendor)}`;
    const { vendor, cveCount, products } = await services.catalog.browseProducts(
      request.params.vendor,
      search || undefined,
      after,
      PAGE + 1,
    );
    const more = products.length > PAGE;
    const shown = products.slice(0, PAGE);
    const ctx = request.page;
    const org = ctx.currentOrg;
    const states = showsSubscribeControls(org)
      ? await services.projects.subscriptionStates(org.organizationId, [
          vendorKey(vendor.name),
          ...shown.map((p) => vendorKey(vendor.name, p.name)),
        ])
      : undefined;
    const controls = states && states.length > 0 ? states : undefined;
    const action = `/vendors/${encodeURIComponent(vendor.name)}/subscriptions`;
    const columns = controls ? 3 : 2;
    const table = (
      <ListTable id="product-rows" head={controls ? ['Name', 'CVEs', 'Projects'] : ['Name', 'CVEs']}>
        {shown.length === 0 && !after && <NoRows columns={columns} search={search} />}
        {shown.map((p) => (
          <tr>
            <td>{p.name}</td>
            <td class="num">
              <a href={cveLink({ vendor: vendor.name, product: p.name })}>{formatCount(p.cve_count)}</a>
            </td>
            {controls && (
              <td>
                <SubscribeControls
                  ctx={ctx}
                  action={action}
                  states={controls}
                  vendor={vendor.name}
                  product={p.name}
                />
              </td>
            )}
          </tr>
        ))}
        <LoadMore
          href={more ? next(base, search, shown[shown.length - 1]!.name) : undefined}
          columns={columns}
        />
      </ListTable>
    );
    const page = (
      <Head ctx={ctx} title={vendor.name} section="vendors">
        <p class="crumbs">
          <a href="/vendors">Vendors</a> ›
        </p>
        <div class="page-head">
          <h1>{vendor.name}</h1>
          <a href={cveLink({ vendor: vendor.name })} id="vendor-cves">
            {formatCount(cveCount)} CVEs
          </a>
        </div>
        {extra.done && <Notice>{extra.done}</Notice>}
        <FormProblems errors={extra.errors} />
        {org && controls && (
          <section class="card subscribe-vendor" id="subscribe">
            <h2>Subscribe a project</h2>
            <p class="muted small">
              The buttons are the projects of {org.name}: pressed (✓) when the project follows all of{' '}
              {vendor.name}; press one to subscribe or unsubscribe it. Each product below has its own.
            </p>
            <SubscribeControls
              ctx={ctx}
              action={action}
              states={controls}
              vendor={vendor.name}
              product={undefined}
            />
          </section>
        )}
        <h2>Products</h2>
        <SearchBox action={base} value={search} label="Find a product" target="#product-rows" />
        {table}
      </Head>
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
      return sendPage(reply, page, formStatusOf(err));
    }
    return reply.redirect(`/vendors/${encodeURIComponent(vendor.name)}?done=${done}`, 303);
  });

  app.get('/weaknesses', async (request, reply) => {
    const search = queryText(request.query, 'search', 200);
    const afterText = queryText(request.query, 'after', 200);
    const m = /^(\d{1,9}):(CWE-\d{1,6})$/.exec(afterText);
    const after = m ? { count: Number(m[1]), cweId: m[2]! } : undefined;
    const rows = await services.catalog.browseWeaknesses(search || undefined, after, PAGE + 1);
    const more = rows.length > PAGE;
    const shown = rows.slice(0, PAGE);
    const last = shown[shown.length - 1];
    const table = (
      <ListTable id="weakness-rows" head={['Weakness', 'Name', 'CVEs']}>
        {shown.length === 0 && !after && <NoRows columns={3} search={search} />}
        {shown.map((w) => (
          <tr>
            <td class="nowrap">{w.cwe_id}</td>
            <td>{w.name ?? <span class="muted">–</span>}</td>
            <td class="num">
              <a href={cveLink({ weakness: w.cwe_id })}>{formatCount(w.cve_count)}</a>
            </td>
          </tr>
        ))}
        <LoadMore
          href={more && last ? next('/weaknesses', search, `${last.cve_count}:${last.cwe_id}`) : undefined}
          columns={3}
        />
      </ListTable>
    );
    const page = (
      <Head ctx={request.page} title="Weaknesses" section="weaknesses">
        <h1>Weaknesses</h1>
        <SearchBox
          action="/weaknesses"
          value={search}
          label="Find a weakness (CWE id or name)"
          target="#weakness-rows"
        />
        {table}
      </Head>
    );
    return send(request, reply, page, table);
  });
};
