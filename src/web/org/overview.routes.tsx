/**
 * `/org/<org>/overview`, the organization's home (where `/` and sign-in land, and a member who just
 * joined): the open CVEs assigned to the member looking, every active project of the organization side
 * by side (CVEs published this week, open CVEs by severity, KEV CVEs not yet fixed, each project one
 * click away) and the members holding the most open CVEs, for every member. Grouped queries whatever
 * the number of projects (DashboardService).
 */
import type { FastifyPluginAsync } from 'fastify';
import { CVSS_LEVELS, type CvssLevel } from '../../domain/cvss.ts';
import type { OrganizationOverview } from '../../services/dashboard.service.ts';
import { Notice, Time } from '../kit/fields.tsx';
import { Layout, sendPage } from '../kit/layout.tsx';
import { FreshnessLine } from '../kit/freshness.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';
import { orgPath, projectPath } from '../kit/paths.ts';
import { orgAccess, type OrgAccess } from '../kit/access.ts';
import { CVSS_LEVEL_LABELS, SeverityBadge } from '../kit/severity.tsx';
import { statusLabel } from '../kit/format.ts';
import { doneNotice } from './org-page.tsx';

/** Severity columns, critical first; "no score" last. */
const LEVELS: CvssLevel[] = [...CVSS_LEVELS].reverse();
const num = (n: number) => n.toLocaleString('en');

/** The open CVEs assigned to the member looking, most severe first, each a link to its tracker page. */
function AssignedToMe({ org, assigned }: { org: string; assigned: OrganizationOverview['assignedToMe'] }) {
  return (
    <section class="card" aria-labelledby="org-assigned">
      <h2 id="org-assigned">Assigned to you</h2>
      {assigned.total === 0 ? (
        <p class="muted small">No open CVE of this organization's projects is assigned to you.</p>
      ) : (
        <>
          <table class="data dash-assigned">
            <caption class="visually-hidden">Open CVEs assigned to you</caption>
            <thead>
              <tr>
                <th scope="col">CVE</th>
                <th scope="col">Project</th>
                <th scope="col">Severity</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {assigned.cves.map((c) => (
                <tr>
                  <td>
                    <a href={projectPath(org, c.project, `cves/${c.cveId}`)}>{c.cveId}</a>
                    {c.kev && (
                      <>
                        {' '}
                        <span class="badge kev">KEV</span>
                      </>
                    )}
                    {c.title && <div class="muted small">{c.title}</div>}
                  </td>
                  <td>
                    <a href={projectPath(org, c.project)}>{c.project}</a>
                  </td>
                  <td>
                    <SeverityBadge score={c.cvss31} version="3.1" />
                  </td>
                  <td>{statusLabel(c.status)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {assigned.total > assigned.cves.length && (
            <p class="muted small">
              The {assigned.cves.length} most severe of {num(assigned.total)}: each project's tracker lists
              them all (filter "assigned to me").
            </p>
          )}
        </>
      )}
    </section>
  );
}

function OverviewPage({
  ctx,
  access,
  overview,
  done,
}: {
  ctx: PageContext;
  access: OrgAccess;
  overview: OrganizationOverview;
  done?: string | undefined;
}) {
  const org = access.membership.name;
  const { projects, assignees } = overview;
  const sum = (f: (p: (typeof projects)[number]) => number) => projects.reduce((n, p) => n + f(p), 0);
  return (
    <Layout ctx={ctx} title={`Overview · ${org}`} section="projects">
      <div class="page-head">
        <div>
          <div class="crumbs">
            <a href={orgPath(org, 'projects')}>{org} projects</a>
          </div>
          <h1>{org}</h1>
          <p class="muted">
            Every project of {org}; open means without a status, or with one other than resolved, not
            applicable or risk accepted.
          </p>
          <FreshnessLine ctx={ctx} />
        </div>
      </div>
      {done && <Notice>{done}</Notice>}
      <AssignedToMe org={org} assigned={overview.assignedToMe} />
      <div class="grid dash-stats">
        <div class="card dash-stat">
          <span class="stat">{num(projects.length)}</span>
          <span class="muted">active projects</span>
        </div>
        <div class="card dash-stat">
          <span class="stat">{num(sum((p) => p.newThisWeek))}</span>
          <span class="muted">new this week</span>
        </div>
        <div class="card dash-stat">
          <span class="stat">{num(sum((p) => p.open))}</span>
          <span class="muted">open</span>
        </div>
        <div class="card dash-stat">
          <span class="stat sev-critical">{num(sum((p) => p.openBySeverity.critical))}</span>
          <span class="muted">open critical</span>
        </div>
        <div class="card dash-stat">
          <span class="stat">{num(sum((p) => p.kevOpen))}</span>
          <span class="muted">open KEV</span>
        </div>
      </div>
      <p class="muted small">
        Changed since your visit: CVEs that entered the project or changed since you last opened its
        dashboard, as its “Since your last visit” lists them. Severity columns count open CVEs by CVSS 3.1
        score. New this week: published since <Time date={overview.weekStart} style={ctx.dateStyle} />. A CVE
        in several projects counts in each.
      </p>
      {projects.length === 0 ? (
        <p class="muted">
          This organization has no active project yet.{' '}
          {access.isOwner ? (
            <a href={orgPath(org, 'new-project')}>Create the first project</a>
          ) : (
            'An owner of the organization creates them.'
          )}
        </p>
      ) : (
        <div class="table-wrap dash-overview-wrap">
          <table class="data dash-overview">
            <caption class="visually-hidden">Open CVEs of each project of {org}</caption>
            <thead>
              <tr>
                <th scope="col">Project</th>
                <th scope="col" class="num">
                  Changed since your visit
                </th>
                <th scope="col" class="num">
                  New this week
                </th>
                {LEVELS.map((l) => (
                  <th scope="col" class="num">
                    {l === 'empty' ? 'No score' : CVSS_LEVEL_LABELS[l]}
                  </th>
                ))}
                <th scope="col" class="num">
                  Open
                </th>
                <th scope="col" class="num">
                  Open KEV
                </th>
              </tr>
            </thead>
            <tbody>
              {projects.map((p) => {
                const tracker = projectPath(org, p.name, 'cves');
                return (
                  <tr>
                    <th scope="row">
                      <a href={projectPath(org, p.name)}>{p.name}</a>
                      {p.subscriptions === 0 && <div class="muted small">no subscriptions</div>}
                    </th>
                    <td class="num" data-since-visit>
                      <a href={projectPath(org, p.name)}>
                        {num(p.sinceVisit.count)}
                        {p.sinceVisit.more && '+'}
                      </a>
                      <div class="muted small">
                        {p.sinceVisit.visited ? (
                          <>
                            since <Time date={p.sinceVisit.since} style={ctx.dateStyle} />
                          </>
                        ) : (
                          'in 7 days (not opened yet)'
                        )}
                      </div>
                    </td>
                    <td class="num">{num(p.newThisWeek)}</td>
                    {LEVELS.map((l) => (
                      <td class={`num${p.openBySeverity[l] && l !== 'empty' ? ` sev-${l}` : ''}`}>
                        {num(p.openBySeverity[l])}
                      </td>
                    ))}
                    <td class="num">{num(p.open)}</td>
                    <td class="num">
                      {p.kevOpen ? <a href={`${tracker}?kev=true`}>{num(p.kevOpen)}</a> : '0'}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <section class="card" aria-labelledby="org-assignees">
        <h2 id="org-assignees">Who holds the most open CVEs</h2>
        {assignees.length === 0 ? (
          <p class="muted small">Nobody is assigned an open CVE in this organization's projects.</p>
        ) : (
          <table class="data dash-counts">
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col" class="num">
                  Open CVEs
                </th>
              </tr>
            </thead>
            <tbody>
              {assignees.map((a) => (
                <tr>
                  <th scope="row">
                    {a.username} <span class="muted small">{a.email}</span>
                  </th>
                  <td class="num">{num(a.open)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </Layout>
  );
}

export const orgOverviewRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  app.get('/org/:org/overview', async (request, reply) => {
    const access = await orgAccess(services, request);
    const overview = await services.dashboards.organizationOverview(
      access.membership.organizationId,
      request.page.user!.id,
    );
    return sendPage(
      reply,
      <OverviewPage
        ctx={request.page}
        access={access}
        overview={overview}
        done={doneNotice(request.query)}
      />,
    );
  });
};
