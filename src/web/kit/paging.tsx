/** Numbered paging links under a list. */

/** Numbered paging links, keeping the rest of the query. */
export function Pager({
  path,
  query,
  page,
  pageSize,
  count,
}: {
  path: string;
  query: Record<string, string>;
  page: number;
  pageSize: number;
  count: number;
}) {
  const pages = Math.max(1, Math.ceil(count / pageSize));
  if (pages <= 1) return null;
  const href = (p: number) => {
    const params = new URLSearchParams({ ...query, page: String(p) });
    for (const [k, v] of [...params]) if (!v) params.delete(k);
    return `${path}?${params.toString()}`;
  };
  return (
    <nav class="pager" aria-label="Pages">
      {page > 1 ? <a href={href(page - 1)}>← Newer</a> : <span />}
      <span class="muted small">
        Page {page} of {pages}
      </span>
      {page < pages ? <a href={href(page + 1)}>Older →</a> : <span />}
    </nav>
  );
}
