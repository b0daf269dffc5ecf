/**
 * A project's dashboard: the headline counts, what changed since the user's last visit, the
 * sections of sections.view.tsx, and the user's own Atom feed URL.
 */
import { ChangedDefinition } from '../../shared/changed.tsx';
import { eventLabel, FEED_DAYS, cveSummary, type FeedCve } from '../../../domain/dashboard.ts';
import type { ProjectDashboard } from '../../../services/dashboard.service.ts';
import { CopyField, Time } from '../../kit/fields.tsx';
import { Csrf } from '../../kit/layout.tsx';
import type { PageContext } from '../../kit/context.ts';
import { ProjectPage } from '../project-page.tsx';
import { projectPath } from '../../kit/paths.ts';
import type { ProjectAccess } from '../../kit/access.ts';
import { SeverityBadge } from '../../kit/severity.tsx';
import {
  AssigneesSection,
  CountsSection,
  KevSection,
  projectCvePath,
  ReportsSection,
  SubscriptionsSection,
} from './sections.view.tsx';

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
      <ChangedDefinition />
      {feed.cves.length > 0 && (
        <FeedTable cves={feed.cves} ctx={ctx} cvePage={(id) => projectCvePath(access, id)} />
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

/** A project's dashboard page. */
export function DashboardPage({
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
