/** The projects list, `/org/<org>/projects`: each project with its subscriptions, CVEs and open triage. */
import { formatCount } from '../kit/format.ts';
import { Notice, Time } from '../kit/fields.tsx';
import { doneText } from '../kit/input.ts';
import { Layout } from '../kit/layout.tsx';
import type { PageContext } from '../kit/context.ts';
import type { ProjectWithCounts } from '../../services/project.service.ts';
import { Pager } from '../kit/paging.tsx';
import { orgPath, projectPath } from '../kit/paths.ts';

export const PROJECTS_PAGE = 50;

/** Fixed texts of `?done=<code>` on the list and the new project's dashboard (never text from the request). */
const DONE: Record<string, string> = {
  created:
    'The project was created. Its CVEs are listed under Tracker; its alert and report under Automations.',
  deleted:
    'The project was deleted, with its subscriptions, tracker, notifications, automations and reports.',
};

export const projectsDone = (query: unknown): string | undefined => doneText(DONE, query);

export function ProjectList({
  ctx,
  org,
  isOwner,
  items,
  page,
  count,
  done,
}: {
  ctx: PageContext;
  org: string;
  isOwner: boolean;
  items: ProjectWithCounts[];
  page: number;
  count: number;
  done: string | undefined;
}) {
  return (
    <Layout ctx={ctx} title={`Projects · ${org}`} section="projects">
      <div class="page-head">
        <div>
          <div class="crumbs">{org}</div>
          <h1>Projects</h1>
        </div>
        <div class="head-actions">
          {items.length > 0 && (
            <a class="btn" href={orgPath(org, 'overview')}>
              Overview of all projects
            </a>
          )}
          {isOwner && (
            <a class="btn btn-primary" href={orgPath(org, 'new-project')}>
              New project
            </a>
          )}
        </div>
      </div>
      {done && <Notice>{done}</Notice>}
      {items.length === 0 ? (
        <section class="card">
          <p>{org} has no project yet.</p>
          <p class="muted">
            A project subscribes to vendors and products and tracks their CVEs. Only an owner of {org} can
            create one: ask one of them.
          </p>
        </section>
      ) : (
        <div class="table-wrap">
          <table class="data project-list">
            <caption class="visually-hidden">Projects of {org}</caption>
            <thead>
              <tr>
                <th scope="col">Project</th>
                <th scope="col" class="num">
                  Subscriptions
                </th>
                <th scope="col" class="num">
                  CVEs
                </th>
                <th scope="col" class="num">
                  Open triage
                </th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {items.map((p) => (
                <tr>
                  <td>
                    <a href={projectPath(org, p.name, p.active ? '' : 'settings')}>{p.name}</a>{' '}
                    {!p.active && <span class="badge neutral">inactive</span>}
                    {p.description && <div class="muted small project-description">{p.description}</div>}
                  </td>
                  <td class="num">
                    {p.active ? (
                      <a href={projectPath(org, p.name, 'subscriptions')}>
                        {formatCount(p.subscriptions_count)}
                      </a>
                    ) : (
                      formatCount(p.subscriptions_count)
                    )}
                  </td>
                  <td class="num">
                    {p.active ? (
                      <a
                        href={projectPath(org, p.name, 'cves')}
                        title={
                          p.capped ? 'At least this many: the list counts the first 1,000 only' : undefined
                        }
                      >
                        {formatCount(p.cves)}
                        {p.capped ? '+' : ''}
                      </a>
                    ) : (
                      `${formatCount(p.cves)}${p.capped ? '+' : ''}`
                    )}
                  </td>
                  <td class="num">{formatCount(p.open)}</td>
                  <td class="nowrap">
                    <Time date={p.created_at} style={ctx.dateStyle} withTime={false} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager path={orgPath(org, 'projects')} query={{}} page={page} pageSize={PROJECTS_PAGE} count={count} />
    </Layout>
  );
}
