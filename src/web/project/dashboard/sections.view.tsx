/**
 * The sections of a project's dashboard beside its feed: counts by status and by severity, top
 * assignees, open KEV CVEs, the last reports and the subscriptions (each a link into the tracker or
 * the page behind it).
 */
import { statusLabel } from '../../kit/format.ts';
import { cveSummary } from '../../../domain/dashboard.ts';
import type { ProjectDashboard } from '../../../services/dashboard.service.ts';
import { Time } from '../../kit/fields.tsx';
import type { PageContext } from '../../kit/context.ts';
import { projectPath } from '../../kit/paths.ts';
import type { ProjectAccess } from '../../kit/access.ts';
import { CVSS_LEVEL_LABELS, SeverityBadge } from '../../kit/severity.tsx';

/** A CVE's page in this project: its triage, comments and why it is here. */
export const projectCvePath = (access: ProjectAccess, id: string) =>
  projectPath(access.membership.name, access.project.name, `cves/${id}`);

/** The project's CVEs by triage status and by CVSS 3.1 severity, each a link into the filtered tracker. */
export function CountsSection({ access, dash }: { access: ProjectAccess; dash: ProjectDashboard }) {
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

/** The members with the most open CVEs of the project assigned, each a link into the tracker. */
export function AssigneesSection({ access, dash }: { access: ProjectAccess; dash: ProjectDashboard }) {
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

/** The project's CVEs in CISA's KEV that are not yet fixed. */
export function KevSection({ access, dash }: { access: ProjectAccess; dash: ProjectDashboard }) {
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

/** The project's last reports. */
export function ReportsSection({
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

/** The vendors and products the project subscribes to. */
export function SubscriptionsSection({ access, dash }: { access: ProjectAccess; dash: ProjectDashboard }) {
  const { vendors, products } = dash.subscriptions;
  const productCount = Object.values(products).reduce((n, p) => n + p.length, 0);
  const path = projectPath(access.membership.name, access.project.name, 'subscriptions');
  return (
    <section class="card" aria-labelledby="subscriptions-title">
      <h2 id="subscriptions-title">Subscriptions</h2>
      {vendors.length + productCount === 0 ? (
        <p class="muted small">
          {dash.counts.total
            ? 'This project subscribes to no vendor or product: its CVEs come from its keywords and inventories.'
            : 'This project subscribes to nothing yet, so it has no CVEs.'}{' '}
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
