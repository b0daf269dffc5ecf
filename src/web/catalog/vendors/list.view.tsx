/**
 * The parts of the vendors, products and weaknesses lists: the search box (htmx swaps the rows as
 * the user types), the table, "Load more" (htmx appends the next rows) and the page frame.
 */
import type { ComponentChildren } from 'preact';
import { Layout } from '../../kit/layout.tsx';
import type { PageContext } from '../../kit/context.ts';

/** A link into the CVE list filtered by `params`. */
export const cveLink = (params: Record<string, string>) => `/cves?${new URLSearchParams(params).toString()}`;

/** The URL of the rows after `after` (none when there are no more). */
export const next = (base: string, search: string, after: string | undefined) =>
  after === undefined
    ? undefined
    : `${base}?${new URLSearchParams({ ...(search ? { search } : {}), after }).toString()}`;

/** The search box: htmx swaps the table body as the user types; the form works as a plain GET. */
export function SearchBox({
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
export function LoadMore({ href, columns }: { href: string | undefined; columns: number }) {
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

/** A list's table: its head, then the rows (`id` is what htmx swaps). */
export function ListTable({
  id,
  head,
  children,
}: {
  id: string;
  head: string[];
  children: ComponentChildren;
}) {
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

/** The row of an empty list (or of a search that found nothing). */
export function NoRows({ columns, search }: { columns: number; search: string }) {
  return (
    <tr>
      <td colSpan={columns} class="muted">
        {search ? `Nothing matches "${search}".` : 'Nothing here yet.'}
      </td>
    </tr>
  );
}

/** The page frame of a list. */
export function Head({
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
