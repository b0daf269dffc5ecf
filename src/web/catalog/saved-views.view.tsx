/** The user's saved views of the CVE list: each a link to the list, and a delete button where allowed. */
import type { SavedView } from '../../services/saved-view.service.ts';
import { Time } from '../kit/fields.tsx';
import { Csrf, Layout } from '../kit/layout.tsx';
import type { PageContext } from '../kit/context.ts';

/** The saved views page. */
export function SavedViewsPage({
  ctx,
  views,
  done,
}: {
  ctx: PageContext;
  views: SavedView[];
  done: string | undefined;
}) {
  return (
    <Layout ctx={ctx} title="Saved views" section="cves">
      <p class="crumbs">
        <a href="/cves">CVEs</a> ›
      </p>
      <h1>Saved views</h1>
      {done && (
        <div class="notice ok" role="status">
          {done}
        </div>
      )}
      {views.length === 0 ? (
        <p>
          No saved views yet. Filter the <a href="/cves">CVE list</a>, then "Save this view".
        </p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Filters</th>
                <th scope="col">Visible to</th>
                <th scope="col">Saved</th>
                <th scope="col">
                  <span class="skip-link">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {views.map((v) => (
                <tr>
                  <td>
                    <a href={`/cves${v.query ? `?${v.query}` : ''}`}>{v.name}</a>
                  </td>
                  <td class="mono small">
                    {v.query ? decodeURIComponent(v.query.replace(/\+/g, ' ')) : 'all CVEs'}
                  </td>
                  <td>{v.organization ? `Members of ${v.organization}` : 'Only me'}</td>
                  <td>
                    <Time date={v.createdAt} style={ctx.dateStyle} withTime={false} />
                  </td>
                  <td>
                    {v.deletable && (
                      <form
                        method="post"
                        action={`/cves/views/${v.id}/delete`}
                        class="inline-form"
                        data-confirm={`Delete the view "${v.name}"?`}
                      >
                        <Csrf ctx={ctx} />
                        <button type="submit" class="btn-danger btn-small">
                          Delete
                        </button>
                      </form>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
}
