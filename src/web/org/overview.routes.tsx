/**
 * `/org/<org>/overview`: every active project of the organization side by side (CVEs published this
 * week, open CVEs by severity, KEV CVEs not yet fixed) and the members holding the most open CVEs,
 * for every member. Two grouped queries whatever the number of projects (DashboardService).
 */
import type { FastifyPluginAsync } from 'fastify';
import { CVSS_LEVELS, type CvssLevel } from '../../domain/cvss.ts';
import type { OrganizationOverview } from '../../services/dashboard.service.ts';
import { Time } from '../kit/fields.tsx';
import { Layout, sendPage } from '../kit/layout.tsx';
import { FreshnessLine } from '../kit/freshness.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';
import { orgPath, projectPath } from '../kit/paths.ts';
import { orgAccess, type OrgAccess } from '../kit/access.ts';
import { CVSS_LEVEL_LABELS } from '../kit/severity.tsx';

/** Severity columns, critical first; "no score" last. */
const LEVELS: CvssLevel[] = [...CVSS_LEVELS].reverse();
const num = (n: number) => n.toLocaleString('en');

function OverviewPage({
  ctx,
  access,
  overview,
}: {
  ctx: PageContext;
  access: OrgAccess;
  overview: OrganizationOverview;
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
          <h1>Overview</h1>
          <p class="muted">
            Every project of {org}; open means without a status, or with one other than resolved, not
            applicable or risk accepted.
          </p>
          <FreshnessLine ctx={ctx} />
        </div>
      </div>
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
        Severity columns count open CVEs by CVSS 3.1 score. New this week: published since{' '}
        <Time date={overview.weekStart} style={ctx.dateStyle} />. A CVE in several projects counts in each.
      </p>
      {projects.length === 0 ? (
        <p class="muted">This organization has no active project yet.</p>
      ) : (
        <div class="table-wrap dash-overview-wrap">
          <table class="data dash-overview">
            <caption class="visually-hidden">Open CVEs of each project of {org}</caption>
            <thead>
              <tr>
                <th scope="col">Project</th>
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
    const overview = await services.dashboards.organizationOverview(access.membership.organizationId);
    return sendPage(reply, <OverviewPage ctx={request.page} access={access} overview={overview} />);
  });
};
