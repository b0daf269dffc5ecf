/**
 * The start page (`/`: the organization's home for a member of one, else the catalog), and the global
 * search box: a CVE id opens the CVE, a vendor's exact name the
 * vendor, `vendor$PRODUCT$product` or "vendor product" the product's CVEs; anything else searches the
 * CVE list. As you type, htmx asks `/search/suggest` for a few matching CVE ids, vendors and products.
 */
import type { FastifyPluginAsync } from 'fastify';
import { sendFragment } from '../kit/layout.tsx';
import type { WebOptions } from '../kit/context.ts';
import { queryText } from '../kit/input.ts';
import { orgPath } from '../kit/paths.ts';

export const searchRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  // Home: the organization's (last visited, else the first), where the morning starts; else the catalog.
  app.get('/', async (request, reply) => {
    const org = request.page.currentOrg;
    return reply.redirect(org ? orgPath(org.name, 'overview') : '/cves');
  });

  app.get('/search', async (request, reply) => {
    const text = queryText(request.query, 'q', 200);
    if (!text) return reply.redirect('/cves');
    const target = await services.catalog.searchTarget(text);
    switch (target.kind) {
      case 'cve':
        return reply.redirect(`/cves/${target.cveId}`);
      case 'vendor':
        return reply.redirect(`/vendors/${encodeURIComponent(target.vendor)}`);
      case 'product':
        return reply.redirect(
          `/cves?vendor=${encodeURIComponent(target.vendor)}&product=${encodeURIComponent(target.product)}`,
        );
      case 'search':
        return reply.redirect(`/cves?search=${encodeURIComponent(target.text)}`);
    }
  });

  app.get('/search/suggest', async (request, reply) => {
    const { cves, vendors, products } = await services.catalog.suggest(queryText(request.query, 'q', 200));
    const empty = cves.length + vendors.length + products.length === 0;
    return sendFragment(
      reply,
      <ul class="suggestions" role="listbox" aria-label="Suggestions">
        {empty ? null : (
          <>
            {cves.map((id) => (
              <li role="option">
                <a href={`/cves/${id}`}>{id}</a>
              </li>
            ))}
            {vendors.map((vendor) => (
              <li role="option">
                <a href={`/vendors/${encodeURIComponent(vendor)}`}>
                  {vendor} <span class="muted small">vendor</span>
                </a>
              </li>
            ))}
            {products.map((p) => (
              <li role="option">
                <a
                  href={`/cves?vendor=${encodeURIComponent(p.vendor)}&product=${encodeURIComponent(p.product)}`}
                >
                  {p.product} <span class="muted small">{p.vendor}</span>
                </a>
              </li>
            ))}
          </>
        )}
      </ul>,
    );
  });
};
