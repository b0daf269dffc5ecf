/**
 * `/org/<org>/reports[?week=YYYY-Www]`: the organization's weekly report across its active projects
 * (ISO weeks, Monday to Monday UTC; the current week so far by default, so day one is not all zeros): per project the CVEs that
 * entered it or changed, by severity and triage status, and the KEV additions. Every member reads;
 * it prints cleanly like a project's report (docs/web-ui.md).
 */
import type { FastifyPluginAsync } from 'fastify';
import {
  addWeeks,
  formatIsoWeek,
  isoWeekOf,
  parseIsoWeek,
  weekPeriod,
  type IsoWeek,
} from '../../domain/iso-week.ts';
import { TRIAGE_STATUSES, NO_STATUS } from '../../domain/triage.ts';
import type { OrganizationWeek, WeekProject } from '../../services/report.service.ts';
import { Time } from '../kit/fields.tsx';
import { formatCount, formatDay, statusLabel } from '../kit/format.ts';
import { sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';
import { OrgPage } from './org-page.tsx';
import { orgPath, projectPath } from '../kit/paths.ts';
import { field } from '../kit/input.ts';
import { orgAccess, type OrgAccess } from '../kit/access.ts';
import { SeverityBadge } from '../kit/severity.tsx';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'none'] as const;
const STATUSES = [...TRIAGE_STATUSES, NO_STATUS];
/** CVEs listed per project; the project's tracker has them all. */
const LISTED = 50;

function Counts({ counts, kind }: { counts: Record<string, number>; kind: 'severity' | 'status' }) {
  const keys = kind === 'severity' ? SEVERITIES : STATUSES;
  const shown = keys.filter((k) => (counts[k] ?? 0) > 0);
  if (!shown.length) return <span class="muted">–</span>;
  return (
    <span class="severity-counts">
      {shown.map((k) => (
        <span class={kind === 'severity' ? `badge sev-${k}` : 'chip'}>
          {counts[k]} {kind === 'severity' ? k : statusLabel(k).toLowerCase()}
        </span>
      ))}
    </span>
  );
}

function ProjectWeek({ org, p }: { org: string; p: WeekProject }) {
  return (
    <section class="card report-cve">
      <h3 id={`project-${p.name}`}>
        <a href={projectPath(org, p.name)}>{p.name}</a>
      </h3>
      {p.cves.length === 0 ? (
        <p class="muted">No CVE entered or changed this week.</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <caption class="skip-link">CVEs of {p.name} this week</caption>
            <thead>
              <tr>
                <th scope="col">CVE</th>
                <th scope="col">Highest CVSS</th>
                <th scope="col">This week</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {p.cves.slice(0, LISTED).map((c) => (
                <tr>
                  <td>
                    <a class="mono" href={projectPath(org, p.name, `cves/${c.cve_id}`)}>
                      {c.cve_id}
                    </a>
                    {c.title && <div class="small">{c.title}</div>}
                  </td>
                  <td>
                    <SeverityBadge score={c.highest_cvss} named />
                  </td>
                  <td>
                    {c.entered ? (
                      <span class="badge ok">new</span>
                    ) : (
                      <span class="badge neutral">changed</span>
                    )}{' '}
                    {c.kev_added && <span class="badge kev">added to KEV</span>}
                  </td>
                  <td>{statusLabel(c.status)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {p.cves.length > LISTED && (
        <p class="small">
          …and {formatCount(p.cves.length - LISTED)} more:{' '}
          <a href={projectPath(org, p.name, 'cves')}>the tracker</a> has them all.
        </p>
      )}
    </section>
  );
}

function WeeklyReport({
  ctx,
  access,
  week,
  report,
  error,
  typed,
}: {
  ctx: PageContext;
  access: OrgAccess;
  week: IsoWeek;
  report: OrganizationWeek;
  error?: string | undefined;
  typed?: string | undefined;
}) {
  const org = access.membership.name;
  const { start, end } = report.period;
  const last = new Date(end.getTime() - 1);
  const utc = { timeZone: 'UTC', dateFormat: ctx.dateStyle.dateFormat };
  const link = (w: IsoWeek) => `${orgPath(org, 'reports')}?week=${formatIsoWeek(w)}`;
  const current = isoWeekOf(new Date());
  const next = addWeeks(week, 1);
  const isCurrentWeek = weekPeriod(next).start.getTime() > weekPeriod(current).start.getTime();
  return (
    <OrgPage ctx={ctx} access={access} tab="reports" title={`Weekly report ${formatIsoWeek(week)}`}>
      <article class="report-doc">
        <header>
          <h2>
            Weekly report, {formatIsoWeek(week)}: {formatDay(start, utc)} to {formatDay(last, utc)} (UTC)
            {isCurrentWeek ? ', so far' : ''}
          </h2>
          <nav class="pager no-print" aria-label="Weeks">
            <a href={link(addWeeks(week, -1))}>← {formatIsoWeek(addWeeks(week, -1))}</a>
            <form
              method="get"
              action={orgPath(org, 'reports')}
              class={error ? 'inline-form has-error' : 'inline-form'}
            >
              <label for="f-week">Week</label>{' '}
              <input
                id="f-week"
                type="week"
                name="week"
                value={typed ?? formatIsoWeek(week)}
                aria-invalid={error ? 'true' : undefined}
                aria-describedby={error ? 'f-week-error' : undefined}
              />{' '}
              <button type="submit" class="btn-small">
                Show
              </button>
              {error && (
                <div class="error" id="f-week-error">
                  {error}
                </div>
              )}
            </form>
            {isCurrentWeek ? <span /> : <a href={link(next)}>{formatIsoWeek(next)} →</a>}
          </nav>
          {weekPeriod(week).end.getTime() > Date.now() && (
            <p class="muted small">This week is not over: the report grows until Monday 00:00 UTC.</p>
          )}
        </header>
        <div class="grid report-stats">
          <div class="card">
            <div class="muted small">CVEs (each counted once)</div>
            <div class="stat">{formatCount(report.totals.cves)}</div>
          </div>
          <div class="card">
            <div class="muted small">New in a project</div>
            <div class="stat">{formatCount(report.totals.entered)}</div>
          </div>
          <div class="card">
            <div class="muted small">Added to KEV</div>
            <div class="stat">{formatCount(report.totals.kev_added)}</div>
          </div>
          {SEVERITIES.slice(0, 3).map((s) => (
            <div class="card">
              <div class={`small sev-${s}`}>{s}</div>
              <div class="stat">{formatCount(report.totals.severity_counts[s])}</div>
            </div>
          ))}
        </div>
        {report.projects.length === 0 ? (
          <p class="muted">This organization has no active project.</p>
        ) : (
          <>
            <div class="table-wrap">
              <table class="data">
                <caption class="skip-link">Projects this week</caption>
                <thead>
                  <tr>
                    <th scope="col">Project</th>
                    <th scope="col">New</th>
                    <th scope="col">Changed</th>
                    <th scope="col">Added to KEV</th>
                    <th scope="col">By severity</th>
                    <th scope="col">By status</th>
                  </tr>
                </thead>
                <tbody>
                  {report.projects.map((p) => (
                    <tr>
                      <td>
                        <a href={`#project-${p.name}`}>{p.name}</a>
                      </td>
                      <td>{formatCount(p.entered)}</td>
                      <td>{formatCount(p.changed)}</td>
                      <td>{p.kev_added ? <span class="badge kev">{p.kev_added}</span> : '0'}</td>
                      <td>
                        <Counts counts={p.severity_counts} kind="severity" />
                      </td>
                      <td>
                        <Counts counts={p.status_counts} kind="status" />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {report.projects.map((p) => (
              <ProjectWeek org={org} p={p} />
            ))}
          </>
        )}
        <p class="small muted">
          Made <Time date={new Date()} style={ctx.dateStyle} />, from the changes recorded in the week, as a
          project's reports are: a CVE counts for a project when it carries one of the project's subscribed
          keys now.
        </p>
      </article>
    </OrgPage>
  );
}

export const orgReportRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  app.get('/org/:org/reports', async (request, reply) => {
    const access = await orgAccess(services, request);
    const typed = field(request.query, 'week').trim();
    const thisWeek = isoWeekOf(new Date());
    const parsed = typed ? parseIsoWeek(typed) : thisWeek;
    const future = parsed && weekPeriod(parsed).start.getTime() > Date.now();
    const error = !parsed
      ? 'Give a week as YYYY-Www, e.g. 2026-W07 (weeks 01 to 52, or 53 in a year that has one).'
      : future
        ? 'That week has not started yet.'
        : undefined;
    const week = error ? thisWeek : parsed!;
    const report = await services.reports.organizationWeek(
      access.membership.organizationId,
      weekPeriod(week),
    );
    return sendPage(
      reply,
      <WeeklyReport
        ctx={request.page}
        access={access}
        week={week}
        report={report}
        error={error}
        typed={error ? typed : undefined}
      />,
      error ? 400 : 200,
    );
  });
};
