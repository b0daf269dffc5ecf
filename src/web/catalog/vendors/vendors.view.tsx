/**
 * The vendors list, a vendor's page (its products, with subscribe controls for the current
 * organization's projects) and the weaknesses list; each in two parts: the rows (what htmx swaps or
 * appends) and the whole page around them.
 */
import type { ComponentChildren } from 'preact';
import type { ProjectSubscriptionState } from '../../../services/project.service.ts';
import { FormProblems, Notice } from '../../kit/fields.tsx';
import type { FormErrors } from '../../kit/input.ts';
import { formatCount } from '../../kit/format.ts';
import type { PageContext } from '../../kit/context.ts';
import { SubscribeControls } from '../../shared/subscribe.tsx';
import { cveLink, Head, ListTable, LoadMore, next, NoRows, SearchBox } from './list.view.tsx';

/** One page of a list: the rows shown, whether more follow, and the search and position it was read at. */
interface ListPage<Row> {
  shown: Row[];
  more: boolean;
  search: string;
  after: unknown;
}

/** The rows of the vendors list. */
export function VendorRows({
  shown,
  more,
  search,
  after,
}: ListPage<{ name: string; product_count: number; cve_count: number }>) {
  return (
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
}

/** The vendors page around its rows. */
export function VendorsPage({
  ctx,
  search,
  after,
  table,
}: {
  ctx: PageContext;
  search: string;
  after: string | undefined;
  table: ComponentChildren;
}) {
  return (
    <Head ctx={ctx} title="Vendors" section="vendors">
      <h1>Vendors</h1>
      <SearchBox action="/vendors" value={search} label="Find a vendor" target="#vendor-rows" />
      {after && (
        <p>
          <a href={search ? `/vendors?search=${encodeURIComponent(search)}` : '/vendors'}>← From the start</a>
        </p>
      )}
      {table}
    </Head>
  );
}

/** The path of a vendor's page. */
export const vendorPagePath = (vendor: string) => `/vendors/${encodeURIComponent(vendor)}`;

/** The rows of a vendor's products, with a subscribe control per product when `controls` are given. */
export function ProductRows({
  ctx,
  vendor,
  path,
  controls,
  shown,
  more,
  search,
  after,
}: ListPage<{ name: string; cve_count: number }> & {
  ctx: PageContext;
  vendor: string;
  /** The page's path as it was asked for (the search and "Load more" stay on it). */
  path: string;
  controls: ProjectSubscriptionState[] | undefined;
}) {
  const action = `${vendorPagePath(vendor)}/subscriptions`;
  const columns = controls ? 3 : 2;
  return (
    <ListTable id="product-rows" head={controls ? ['Name', 'CVEs', 'Projects'] : ['Name', 'CVEs']}>
      {shown.length === 0 && !after && <NoRows columns={columns} search={search} />}
      {shown.map((p) => (
        <tr>
          <td>{p.name}</td>
          <td class="num">
            <a href={cveLink({ vendor, product: p.name })}>{formatCount(p.cve_count)}</a>
          </td>
          {controls && (
            <td>
              <SubscribeControls
                ctx={ctx}
                action={action}
                states={controls}
                vendor={vendor}
                product={p.name}
              />
            </td>
          )}
        </tr>
      ))}
      <LoadMore
        href={more ? next(path, search, shown[shown.length - 1]!.name) : undefined}
        columns={columns}
      />
    </ListTable>
  );
}

/** A vendor's page around its product rows: its CVE count, a notice or problems, the vendor's subscribe controls. */
export function VendorPage({
  ctx,
  vendor,
  path,
  cveCount,
  controls,
  search,
  done,
  errors,
  table,
}: {
  ctx: PageContext;
  vendor: string;
  /** The page's path as it was asked for (the search stays on it). */
  path: string;
  cveCount: number;
  controls: ProjectSubscriptionState[] | undefined;
  search: string;
  done: string | undefined;
  errors: FormErrors | undefined;
  table: ComponentChildren;
}) {
  const org = ctx.currentOrg;
  return (
    <Head ctx={ctx} title={vendor} section="vendors">
      <p class="crumbs">
        <a href="/vendors">Vendors</a> ›
      </p>
      <div class="page-head">
        <h1>{vendor}</h1>
        <a href={cveLink({ vendor })} id="vendor-cves">
          {formatCount(cveCount)} CVEs
        </a>
      </div>
      {done && <Notice>{done}</Notice>}
      <FormProblems errors={errors} />
      {org && controls && (
        <section class="card subscribe-vendor" id="subscribe">
          <h2>Subscribe a project</h2>
          <p class="muted small">
            The buttons are the projects of {org.name}: pressed (✓) when the project follows all of {vendor};
            press one to subscribe or unsubscribe it. Each product below has its own.
          </p>
          <SubscribeControls
            ctx={ctx}
            action={`${vendorPagePath(vendor)}/subscriptions`}
            states={controls}
            vendor={vendor}
            product={undefined}
          />
        </section>
      )}
      <h2>Products</h2>
      <SearchBox action={path} value={search} label="Find a product" target="#product-rows" />
      {table}
    </Head>
  );
}

/** The rows of the weaknesses list. */
export function WeaknessRows({
  shown,
  more,
  search,
  after,
}: ListPage<{ cwe_id: string; name: string | null; cve_count: number }>) {
  const last = shown[shown.length - 1];
  return (
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
}

/** The weaknesses page around its rows. */
export function WeaknessesPage({
  ctx,
  search,
  table,
}: {
  ctx: PageContext;
  search: string;
  table: ComponentChildren;
}) {
  return (
    <Head ctx={ctx} title="Weaknesses" section="weaknesses">
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
}
