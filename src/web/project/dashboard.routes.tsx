/**
 * `/org/<org>/projects/<project>`: the project's dashboard, for every member of its organization.
 * What changed for the project since the user's last visit (the visit is recorded by the view),
 * counts by triage status and by severity and the top assignees (each a link into the filtered
 * tracker), KEV CVEs not yet fixed, the last reports, the subscriptions, and the user's own Atom
 * feed URL of the project (`POST …/feed` makes it, or replaces it: the old URL stops working).
 */
import { statusLabel } from '../kit/format.ts';
import type { FastifyPluginAsync } from 'fastify';
import { cveSummary, eventLabel, FEED_DAYS, type FeedCve } from '../../domain/dashboard.ts';
import type { ProjectDashboard } from '../../services/dashboard.service.ts';
import { CopyField, Time } from '../kit/fields.tsx';
import { doneText } from '../kit/input.ts';
import { Csrf, sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';
import { ProjectPage } from './project-page.tsx';
import { projectPath } from '../kit/paths.ts';
import { projectAccess, type ProjectAccess } from '../kit/access.ts';
import { projectsDone } from './project-list.tsx';
import { CVSS_LEVEL_LABELS, SeverityBadge } from '../kit/severity.tsx';

/** Fixed texts of `?done=<code>` (never text from the request). */
const DONE: Record<string, string> = {
  feed: 'Your feed URL is ready. Any earlier URL of yours for this project no longer works.',
};

/** A CVE's page in this project: its triage, comments and why it is here. */
const projectCvePath = (access: ProjectAccess, id: string) =>
  projectPath(access.membership.name, access.project.name, `cves/${id}`);

function FeedTable({
  cves,
  ctx,
  cvePage,
}: {
  cves: FeedCve[];
  ctx: PageContext;
  cvePage: (id: string) => string;
}) {
  return (
    <div class="table-wrap">
      <table class="data dash-feed">
        <thead>
          <tr>
            <th scope="col">CVE</th>
            <th scope="col">What changed</th>
            <th scope="col">CVSS</th>
            <th scope="col">When</th>
          </tr>
        </thead>
        <tbody>
          {cves.map((cve) => (
            <tr>
              <td class="nowrap">
                <a href={cvePage(cve.cve_id)}>{cve.cve_id}</a>
                {cve.kev && (
                  <>
                    {' '}
                    <span class="badge kev">KEV</span>
                  </>
                )}
              </td>
              <td>
                <div class="dash-events">
                  {cve.events.length ? (
                    cve.events.map((e) => <span class={`chip ev-${e}`}>{eventLabel(e)}</span>)
                  ) : (
                    <span class="chip">updated</span>
                  )}
                  {cve.changes > 1 && <span class="muted small">{cve.changes} changes</span>}
                </div>
                <div class="small">{cveSummary(cve)}</div>
              </td>
              <td>
                <SeverityBadge score={cve.highest_cvss} title="Highest CVSS base score" />
              </td>
              <td class="nowrap small">
                <Time date={cve.changed_at} style={ctx.dateStyle} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function FeedSection({
  ctx,
  access,
  dash,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  dash: ProjectDashboard;
}) {
  const { feed } = dash;
  return (
    <section class="card" aria-labelledby="feed-title">
      <h2 id="feed-title">
        {feed.firstVisit ? `Changed in the last ${FEED_DAYS} days` : 'Since your last visit'}
      </h2>
      <p class="muted small">
        {feed.total === 0
          ? 'No CVE of this project changed since '
          : `${feed.total} CVE${feed.total === 1 ? '' : 's'} changed since `}
        <Time date={feed.since} style={ctx.dateStyle} />
        {feed.total > feed.cves.length && `; the ${feed.cves.length} latest are listed`}
        {feed.truncated && ' (a very busy period: only its latest changes were read)'}.
      </p>
      {feed.cves.length > 0 && (
        <FeedTable cves={feed.cves} ctx={ctx} cvePage={(id) => projectCvePath(access, id)} />
      )}
    </section>
  );
}

function CountsSection({ access, dash }: { access: ProjectAccess; dash: ProjectDashboard }) {
  const org = access.membership.name;
  const tracker = (query: string) => `${projectPath(org, access.project.name, 'cves')}?${query}`;
  const { counts } = dash;
  return (
    <>
      <section class="card" aria-labelledby="status-title">
        <h2 id="status-title">By status</h2>
        <table class="data dash-counts">
          <tbody>
            {counts.byStatus.map((s) => (
              <tr>
                <th scope="row">
                  <a href={tracker(`status=${s.status}`)}>{statusLabel(s.status)}</a>
                </th>
                <td class="num">{s.count.toLocaleString('en')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section class="card" aria-labelledby="severity-title">
        <h2 id="severity-title">By severity</h2>
        <p class="muted small">CVSS 3.1 base score, as the tracker's filter.</p>
        <table class="data dash-counts">
          <tbody>
            {counts.bySeverity.map((s) => (
              <tr>
                <th scope="row">
                  <a href={tracker(`cvss=${s.level}`)}>
                    <span
                      class={`dash-dot sev-${s.level === 'empty' ? 'none' : s.level}`}
                      aria-hidden="true"
                    />
                    {CVSS_LEVEL_LABELS[s.level]}
                  </a>
                </th>
                <td class="num">{s.count.toLocaleString('en')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}

function AssigneesSection({ access, dash }: { access: ProjectAccess; dash: ProjectDashboard }) {
  const org = access.membership.name;
  return (
    <section class="card" aria-labelledby="assignees-title">
      <h2 id="assignees-title">Top assignees</h2>
      {dash.assignees.length === 0 ? (
        <p class="muted small">Nobody is assigned an open CVE of this project.</p>
      ) : (
        <table class="data dash-counts">
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col" class="num">
                Open
              </th>
            </tr>
          </thead>
          <tbody>
            {dash.assignees.map((a) => (
              <tr>
                <th scope="row">
                  <a
                    href={`${projectPath(org, access.project.name, 'cves')}?assignee=${encodeURIComponent(a.email)}`}
                  >
                    {a.username}
                  </a>
                  <div class="muted small">{a.email}</div>
                </th>
                <td class="num">{a.open.toLocaleString('en')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function KevSection({ access, dash }: { access: ProjectAccess; dash: ProjectDashboard }) {
  const org = access.membership.name;
  const { kevOpen } = dash.counts;
  return (
    <section class="card" aria-labelledby="kev-title">
      <h2 id="kev-title">
        KEV CVEs not yet fixed <span class="dash-count">{kevOpen.toLocaleString('en')}</span>
      </h2>
      {kevOpen === 0 ? (
        <p class="muted small">
          No CVE of this project in CISA's Known Exploited Vulnerabilities is open (without a status, or with
          one other than resolved, not applicable or risk accepted).
        </p>
      ) : (
        <>
          <div class="table-wrap">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">CVE</th>
                  <th scope="col">CVSS</th>
                  <th scope="col">Status</th>
                  <th scope="col">Assignee</th>
                </tr>
              </thead>
              <tbody>
                {dash.openKev.map((cve) => (
                  <tr>
                    <td>
                      <a href={projectCvePath(access, cve.cve_id)}>{cve.cve_id}</a>
                      <div class="small">{cveSummary(cve)}</div>
                    </td>
                    <td>
                      <SeverityBadge score={cve.highest_cvss} title="Highest CVSS base score" />
                    </td>
                    <td class="nowrap">{statusLabel(cve.status)}</td>
                    <td>{cve.assignee ?? <span class="muted">nobody</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {kevOpen > dash.openKev.length && (
            <p class="small">
              <a href={`${projectPath(org, access.project.name, 'cves')}?kev=true`}>
                All KEV CVEs of the project
              </a>
            </p>
          )}
        </>
      )}
    </section>
  );
}

function ReportsSection({
  ctx,
  access,
  dash,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  dash: ProjectDashboard;
}) {
  const org = access.membership.name;
  const project = access.project.name;
  return (
    <section class="card" aria-labelledby="reports-title">
      <h2 id="reports-title">Last reports</h2>
      {dash.reports.length === 0 ? (
        <p class="muted small">No report yet: a report automation makes one each day or week.</p>
      ) : (
        <ul class="dash-list">
          {dash.reports.map((r) => (
            <li>
              <a href={projectPath(org, project, `reports/${r.id}`)}>
                <Time date={r.period_start} style={ctx.dateStyle} withTime={false} /> –{' '}
                <Time date={r.period_end} style={ctx.dateStyle} withTime={false} />
              </a>{' '}
              <span class="muted small">
                {r.summary.cves_count} CVE{r.summary.cves_count === 1 ? '' : 's'}
              </span>
            </li>
          ))}
        </ul>
      )}
      <p class="small">
        <a href={projectPath(org, project, 'reports')}>All reports</a>
      </p>
    </section>
  );
}

function SubscriptionsSection({ access, dash }: { access: ProjectAccess; dash: ProjectDashboard }) {
  const { vendors, products } = dash.subscriptions;
  const productCount = Object.values(products).reduce((n, p) => n + p.length, 0);
  const path = projectPath(access.membership.name, access.project.name, 'subscriptions');
  return (
    <section class="card" aria-labelledby="subscriptions-title">
      <h2 id="subscriptions-title">Subscriptions</h2>
      {vendors.length + productCount === 0 ? (
        <p class="muted small">
          This project subscribes to nothing yet, so it has no CVEs.{' '}
          <a href={path}>Add vendors or products</a>.
        </p>
      ) : (
        <>
          <div class="dash-keys">
            {vendors.map((v) => (
              <a class="chip" href={`/vendors/${encodeURIComponent(v)}`}>
                {v}
              </a>
            ))}
            {Object.entries(products).flatMap(([vendor, names]) =>
              names.map((p) => (
                <a
                  class="chip"
                  href={`/cves?vendor=${encodeURIComponent(vendor)}&product=${encodeURIComponent(p)}`}
                >
                  {vendor} {p}
                </a>
              )),
            )}
          </div>
          <p class="small">
            <a href={path}>
              {vendors.length} vendor{vendors.length === 1 ? '' : 's'}, {productCount} product
              {productCount === 1 ? '' : 's'}
            </a>
          </p>
        </>
      )}
    </section>
  );
}

function AtomSection({
  ctx,
  access,
  dash,
  base,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  dash: ProjectDashboard;
  base: string;
}) {
  const action = projectPath(access.membership.name, access.project.name, 'feed');
  return (
    <section class="card" aria-labelledby="atom-title" id="feed">
      <h2 id="atom-title">Atom feed</h2>
      <p class="small">
        This project's changes of the last {FEED_DAYS} days in a feed reader. The URL is yours alone and needs
        no sign-in: keep it private.
      </p>
      {dash.atom ? (
        <>
          <CopyField id="atom-url" label="Your feed URL" value={`${base}/feeds/${dash.atom.secret}.atom`} />
          <p class="muted small">
            Made <Time date={dash.atom.created_at} style={ctx.dateStyle} />.
          </p>
          <form
            method="post"
            action={action}
            class="inline-form"
            data-confirm="Make a new feed URL? The current one stops working."
          >
            <Csrf ctx={ctx} />
            <button type="submit" class="btn-small">
              New URL
            </button>
          </form>
        </>
      ) : (
        <form method="post" action={action} class="inline-form">
          <Csrf ctx={ctx} />
          <button type="submit" class="btn-small">
            Make my feed URL
          </button>
        </form>
      )}
    </section>
  );
}

function DashboardPage({
  ctx,
  access,
  dash,
  base,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  dash: ProjectDashboard;
  base: string;
  done: string | undefined;
}) {
  const org = access.membership.name;
  const project = access.project.name;
  const { counts } = dash;
  const open = Object.values(counts.openBySeverity).reduce((a, b) => a + b, 0);
  const tracker = projectPath(org, project, 'cves');
  return (
    <ProjectPage
      ctx={ctx}
      access={access}
      tab="dashboard"
      title="Dashboard"
      done={done}
      actions={
        <a class="btn" href={tracker}>
          Open the tracker
        </a>
      }
    >
      <div class="grid dash-stats">
        <a class="card dash-stat" href={tracker}>
          <span class="stat">{counts.total.toLocaleString('en')}</span>
          <span class="muted">CVEs</span>
        </a>
        <div class="card dash-stat">
          <span class="stat">{open.toLocaleString('en')}</span>
          <span class="muted">open</span>
        </div>
        <a class="card dash-stat" href={`${tracker}?cvss=critical`}>
          <span class="stat sev-critical">{counts.openBySeverity.critical.toLocaleString('en')}</span>
          <span class="muted">open critical</span>
        </a>
        <a class="card dash-stat" href={`${tracker}?kev=true`}>
          <span class="stat">{counts.kevOpen.toLocaleString('en')}</span>
          <span class="muted">open KEV</span>
        </a>
        <a class="card dash-stat" href="#feed-title">
          <span class="stat">{dash.feed.total.toLocaleString('en')}</span>
          <span class="muted">
            {dash.feed.firstVisit ? `changed in ${FEED_DAYS} days` : 'changed since your visit'}
          </span>
        </a>
      </div>
      <div class="two-col">
        <div>
          <KevSection access={access} dash={dash} />
          <FeedSection ctx={ctx} access={access} dash={dash} />
        </div>
        <div>
          <CountsSection access={access} dash={dash} />
          <AssigneesSection access={access} dash={dash} />
          <ReportsSection ctx={ctx} access={access} dash={dash} />
          <SubscriptionsSection access={access} dash={dash} />
          <AtomSection ctx={ctx} access={access} dash={dash} base={base} />
        </div>
      </div>
    </ProjectPage>
  );
}

export const projectDashboardRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const baseUrl = services.config.baseUrl;

  app.get('/org/:org/projects/:project', async (request, reply) => {
    const access = await projectAccess(services, request);
    const dash = await services.dashboards.projectDashboard(
      access.membership.organizationId,
      access.project.name,
      request.page.user!.id,
    );
    return sendPage(
      reply,
      <DashboardPage
        ctx={request.page}
        access={access}
        dash={dash}
        base={baseUrl ?? `${request.protocol}://${request.host}`}
        done={doneText(DONE, request.query) ?? projectsDone(request.query)}
      />,
    );
  });

  app.post('/org/:org/projects/:project/feed', async (request, reply) => {
    const access = await projectAccess(services, request);
    await services.dashboards.rotateFeed(
      access.membership.organizationId,
      access.project.name,
      request.page.user!.id,
    );
    return reply.redirect(`${projectPath(access.membership.name, access.project.name)}?done=feed#feed`, 303);
  });
};
