/**
 * The vendors and products a CVE names, each with a link to its CVE list and, for the current
 * organization's projects, a subscribe control; a vendor with many products folds them (loaded when
 * opened, or on their own page).
 */
import type { ComponentChildren } from 'preact';
import { splitVendorKey } from '../../../domain/cpe.ts';
import type { CvePage } from '../../../services/catalog.service.ts';
import type { ProjectSubscriptionState } from '../../../services/project.service.ts';
import { FormProblems } from '../../kit/fields.tsx';
import type { FormErrors } from '../../kit/input.ts';
import { formatCount } from '../../kit/format.ts';
import { Layout } from '../../kit/layout.tsx';
import type { PageContext } from '../../kit/context.ts';
import { SubscribeControls } from '../../shared/subscribe.tsx';
import { cvePath, vendorPath } from './cve-url.ts';

function ProductItem({
  ctx,
  cveId,
  states,
  vendor,
  product,
}: {
  ctx: PageContext;
  cveId: string;
  states: ProjectSubscriptionState[] | undefined;
  vendor: string;
  product: string;
}) {
  return (
    <li class="product-item">
      <span>
        <strong>{product}</strong>{' '}
        <a
          class="small"
          href={`/cves?vendor=${encodeURIComponent(vendor)}&product=${encodeURIComponent(product)}`}
        >
          CVE list
        </a>
      </span>
      {states && (
        <SubscribeControls
          ctx={ctx}
          action={`${cvePath(cveId)}/subscriptions`}
          states={states}
          vendor={vendor}
          product={product}
        />
      )}
    </li>
  );
}

/** The products of one vendor named by a CVE, with their subscribe controls (a fragment, or a page). */
export function VendorProducts({
  ctx,
  cveId,
  vendor,
  products,
  states,
}: {
  ctx: PageContext;
  cveId: string;
  vendor: string;
  products: string[];
  states: ProjectSubscriptionState[] | undefined;
}) {
  const controls = states && states.length > 0 ? states : undefined;
  return (
    <ul class="product-list">
      {products.map((product) => (
        <ProductItem ctx={ctx} cveId={cveId} states={controls} vendor={vendor} product={product} />
      ))}
    </ul>
  );
}

/** More products than this under one vendor: folded in a <details>. */
const PRODUCTS_SHOWN = 6;

/** The vendors and products section of a CVE's page. */
export function Vendors({
  ctx,
  page,
  states,
  errors,
}: {
  ctx: PageContext;
  page: CvePage;
  states: ProjectSubscriptionState[] | undefined;
  errors: FormErrors | undefined;
}) {
  const byVendor = new Map<string, string[]>();
  for (const key of page.cve.vendors) {
    const { vendor, product } = splitVendorKey(key);
    const products = byVendor.get(vendor) ?? [];
    if (product !== undefined) products.push(product);
    byVendor.set(vendor, products);
  }
  const org = ctx.currentOrg;
  const controls = org && states && states.length > 0;
  const cveId = page.cve.cve_id;
  const productItem = (vendor: string, product: string) => (
    <ProductItem
      ctx={ctx}
      cveId={cveId}
      states={controls ? states : undefined}
      vendor={vendor}
      product={product}
    />
  );
  return (
    <section id="vendors" aria-labelledby="vendors-title">
      <h2 id="vendors-title">Vendors and products</h2>
      <FormProblems errors={errors} />
      {byVendor.size === 0 ? (
        <p class="muted">No vendor or product is named for this CVE yet.</p>
      ) : (
        <>
          {org && states && (
            <p class="muted small">
              {states.length === 0
                ? `${org.name} has no project yet: a project subscribes to vendors and products and lists their CVEs.`
                : `The buttons are the projects of ${org.name}: pressed (✓) when the project subscribes to that vendor or product; press one to subscribe or unsubscribe it.`}
            </p>
          )}
          <ul class="vendor-list">
            {[...byVendor].map(([vendor, products]) => (
              <li class="card vendor-item">
                <div class="vendor-head">
                  <span>
                    <a href={`/vendors/${encodeURIComponent(vendor)}`}>
                      <strong>{vendor}</strong>
                    </a>{' '}
                    <span class="muted small">vendor</span>{' '}
                    <a class="small" href={`/cves?vendor=${encodeURIComponent(vendor)}`}>
                      CVE list
                    </a>
                  </span>
                  {controls && (
                    <SubscribeControls
                      ctx={ctx}
                      action={`${cvePath(cveId)}/subscriptions`}
                      states={states}
                      vendor={vendor}
                      product={undefined}
                    />
                  )}
                </div>
                {products.length > 0 && products.length <= PRODUCTS_SHOWN && (
                  <ul class="product-list">{products.map((product) => productItem(vendor, product))}</ul>
                )}
                {products.length > PRODUCTS_SHOWN && (
                  // Many products (Log4Shell names 94 of cisco's): their controls load when opened
                  // (htmx), or on their own page without JavaScript, so the page stays light.
                  <details
                    class="vendor-products"
                    hx-get={vendorPath(cveId, vendor)}
                    hx-trigger="toggle once"
                    hx-target="find .products-slot"
                    hx-swap="innerHTML"
                  >
                    <summary>
                      {formatCount(products.length)} products of {vendor}
                    </summary>
                    <div class="products-slot">
                      <p class="small">{products.join(', ')}</p>
                      <p class="small">
                        <a href={vendorPath(cveId, vendor)}>
                          {controls ? `Subscribe to products of ${vendor}` : `The products of ${vendor}`}
                        </a>
                      </p>
                    </div>
                  </details>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** The page of one vendor's products a CVE names, without JavaScript (`list` is VendorProducts). */
export function VendorProductsPage({
  ctx,
  cveId,
  vendor,
  withProjects,
  list,
}: {
  ctx: PageContext;
  cveId: string;
  vendor: string;
  withProjects: boolean;
  list: ComponentChildren;
}) {
  const org = ctx.currentOrg;
  return (
    <Layout ctx={ctx} title={`${cveId}: products of ${vendor}`} section="cves">
      <div class="crumbs">
        <a href="/cves">CVEs</a> / <a href={cvePath(cveId)}>{cveId}</a> /{' '}
        <a href={`${cvePath(cveId)}#vendors`}>Vendors</a>
      </div>
      <h1>
        {cveId}: products of {vendor}
      </h1>
      <p class="muted small">
        The products of <a href={`/vendors/${encodeURIComponent(vendor)}`}>{vendor}</a> this CVE names
        {org && withProjects ? `, with the projects of ${org.name}.` : '.'}
      </p>
      {list}
    </Layout>
  );
}
