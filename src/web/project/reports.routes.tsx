/**
 * `/org/<org>/projects/<project>/reports`: the project's reports by period (daily, weekly), a report
 * page that reads well on screen and prints cleanly to PDF from the browser (app.css' print rules),
 * its CSV, and for owners "Generate now" of each report automation beside its schedule. Every member
 * reads (docs/web-ui.md).
 */
import { vendorKeyLabel } from '../../domain/cpe.ts';
import { eventLabel } from '../../domain/dashboard.ts';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { csvStream, sendCsv } from '../../http/csv.ts';
import { WEB_REPORT_CSV_COLUMNS } from '../../http/report-csv.ts';
import { WEEKDAYS } from '../../domain/automation-execution.ts';
import type { AutomationView } from '../../domain/automation.ts';
import type { ChangeEntry } from '../../domain/cve-change.ts';
import { AppError } from '../../domain/errors.ts';
import {
  REPORT_PERIOD_TYPES,
  reportPeriodType,
  type ReportPeriodType,
  type ReportRow,
} from '../../domain/report.ts';
import type { ReportCve, ReportDetail, ReportSend } from '../../services/report.service.ts';
import { Time } from '../kit/fields.tsx';
import { doneText, field, pageNumber } from '../kit/input.ts';
import { ChangedDefinition } from '../shared/changed.tsx';
import { ChangeEntryView } from '../shared/cve/changes.tsx';
import { formatCount } from '../kit/format.ts';
import { Csrf, sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';
import { Pager } from '../kit/paging.tsx';
import { ProjectPage } from './project-page.tsx';
import { projectPath } from '../kit/paths.ts';
import { assertCanConfigure, projectAccess, type ProjectAccess } from '../kit/access.ts';
import { SeverityBadge } from '../kit/severity.tsx';

const PAGE_SIZE = 25;
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'none'] as const;

const DONE: Record<string, string> = {
  generated: 'The report was generated. “Sent through” below says what became of each notification.',
  nothing: 'No report was made: the period since the last one is empty or was just reported.',
};

const doneOf = (request: FastifyRequest) => doneText(DONE, request.query);

const reportsPath = (access: ProjectAccess, rest = '') =>
  projectPath(access.membership.name, access.project.name, `reports${rest}`);

const periodLabel = (r: ReportRow) =>
  reportPeriodType(r.period_start, r.period_end) === 'weekly' ? 'Weekly' : 'Daily';

function SeverityCounts({ counts }: { counts: Record<(typeof SEVERITIES)[number], number> }) {
  return (
    <span class="severity-counts">
      {SEVERITIES.filter((s) => counts[s] > 0).map((s) => (
        <span class={`badge sev-${s}`}>
          {counts[s]} {s}
        </span>
      ))}
      {SEVERITIES.every((s) => counts[s] === 0) && <span class="muted">–</span>}
    </span>
  );
}

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

function Schedule({ a }: { a: AutomationView }) {
  const time = a.schedule_time ?? '08:00';
  const zone = a.schedule_timezone ?? 'UTC';
  if (a.frequency === 'weekly')
    return (
      <>
        Weekly, {capitalized(WEEKDAYS[a.schedule_weekday ?? 1] ?? 'monday')} at {time} ({zone})
      </>
    );
  return (
    <>
      Daily at {time} ({zone})
    </>
  );
}

function ReportsList({
  ctx,
  access,
  reports,
  count,
  page,
  period,
  automations,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  reports: ReportRow[];
  count: number;
  page: number;
  period: ReportPeriodType | undefined;
  automations: AutomationView[];
  done: string | undefined;
}) {
  const filters: { key: ReportPeriodType | undefined; label: string }[] = [
    { key: undefined, label: 'All' },
    { key: 'daily', label: 'Daily' },
    { key: 'weekly', label: 'Weekly' },
  ];
  return (
    <ProjectPage ctx={ctx} access={access} tab="reports" title="Reports" done={done}>
      <div class="two-col">
        <div>
          <nav class="tabs report-periods" aria-label="Period">
            {filters.map((f) => (
              <a
                href={f.key ? `${reportsPath(access)}?period=${f.key}` : reportsPath(access)}
                aria-current={f.key === period ? 'page' : undefined}
              >
                {f.label}
              </a>
            ))}
          </nav>
          <div class="table-wrap">
            <table class="data">
              <caption class="skip-link">Reports of {access.project.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Period</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Automation</th>
                  <th scope="col">CVEs</th>
                  <th scope="col">Highest CVSS</th>
                  <th scope="col">By severity</th>
                </tr>
              </thead>
              <tbody>
                {reports.length === 0 && (
                  <tr>
                    <td colSpan={6} class="muted">
                      No report yet. A report automation makes one each period.
                    </td>
                  </tr>
                )}
                {reports.map((r) => (
                  <tr>
                    <td class="nowrap">
                      <a href={reportsPath(access, `/${r.id}`)}>
                        <Time date={r.period_start} style={ctx.dateStyle} /> →{' '}
                        <Time date={r.period_end} style={ctx.dateStyle} />
                      </a>
                    </td>
                    <td>{periodLabel(r)}</td>
                    <td>{r.automation_name ?? <span class="muted">deleted</span>}</td>
                    <td>{formatCount(r.summary.cves_count)}</td>
                    <td>
                      <SeverityBadge score={r.summary.highest_cvss} named />
                    </td>
                    <td>
                      <SeverityCounts counts={r.summary.severity_counts} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            path={reportsPath(access)}
            query={period ? { period } : {}}
            page={page}
            pageSize={PAGE_SIZE}
            count={count}
          />
        </div>
        <aside class="card">
          <h2>Schedules</h2>
          {automations.length === 0 ? (
            <p class="muted">
              No report automation yet.{' '}
              <a href={projectPath(access.membership.name, access.project.name, 'automations')}>
                Create one in Automations
              </a>
              .
            </p>
          ) : (
            <ul class="report-schedules">
              {automations.map((a) => (
                <li>
                  <strong>{a.name}</strong> {!a.is_enabled && <span class="badge neutral">disabled</span>}
                  <div class="small">
                    <Schedule a={a} />
                  </div>
                  <div class="small muted">
                    Last run:{' '}
                    {a.last_execution_at ? (
                      <Time date={a.last_execution_at} style={ctx.dateStyle} />
                    ) : (
                      'never'
                    )}
                  </div>
                  {access.isOwner && (
                    <form method="post" action={reportsPath(access, '/generate')} class="inline-form">
                      <Csrf ctx={ctx} />
                      <input type="hidden" name="automation" value={a.name} />
                      <button type="submit" class="btn-small">
                        Generate now
                      </button>
                    </form>
                  )}
                </li>
              ))}
            </ul>
          )}
          <p class="small muted">
            Generate now makes the report from the end of the last one to now, and sends it through the
            automation's notifications.
          </p>
        </aside>
      </div>
    </ProjectPage>
  );
}

const SEND_STATUS: Record<ReportSend['status'], { label: string; class: string }> = {
  sent: { label: 'Sent', class: 'badge ok' },
  queued: { label: 'Queued', class: 'badge' },
  failed: { label: 'Failed', class: 'badge danger' },
  not_sent: { label: 'Not sent', class: 'badge warn' },
};

/** What became of each notification the report went to: sent, queued, failed or not sent, and why. */
function ReportSends({ sends }: { sends: ReportSend[] }) {
  if (!sends.length) return null;
  return (
    <section class="no-print report-sends" aria-labelledby="report-sends-title">
      <h3 id="report-sends-title">Sent through</h3>
      <ul>
        {sends.map((s) => (
          <li>
            <strong>{s.notification}</strong>:{' '}
            <span class={SEND_STATUS[s.status].class} data-send-status={s.status}>
              {SEND_STATUS[s.status].label}
            </span>
            {s.reason && <span class="muted"> — {s.reason}</span>}
            {s.status === 'queued' && (
              <span class="muted small"> (sending in the background: reload to see)</span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function ReportPage({
  ctx,
  access,
  detail,
  sends,
  origin,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  detail: ReportDetail;
  sends: ReportSend[];
  /** Links are absolute, so that a printed report names where each goes. */
  origin: string;
  done: string | undefined;
}) {
  const r = detail.report;
  const title = `${periodLabel(r)} report`;
  return (
    <ProjectPage
      ctx={ctx}
      access={access}
      tab="reports"
      title={title}
      done={done}
      actions={
        <a class="btn" href={reportsPath(access, `/${r.id}/csv`)} download>
          Download CSV
        </a>
      }
    >
      <article class="report-doc">
        <header>
          <div class="crumbs no-print">
            <a href={reportsPath(access)}>Reports</a>
          </div>
          <h2>
            {title} of {access.project.name}
          </h2>
          <p>
            <Time date={r.period_start} style={ctx.dateStyle} /> →{' '}
            <Time date={r.period_end} style={ctx.dateStyle} />{' '}
            <span class="muted">
              ({ctx.dateStyle.timeZone}) ·{' '}
              {r.automation_name ? `automation ${r.automation_name}` : 'automation deleted'} · report {r.link}
            </span>
          </p>
          <p class="no-print small muted">
            To keep it as a PDF, print this page (Ctrl+P or ⌘P): menus and buttons are left out.
          </p>
          <ChangedDefinition report />
          <ReportSends sends={sends} />
        </header>
        <div class="grid report-stats">
          <div class="card">
            <div class="muted small">CVEs</div>
            <div class="stat">{formatCount(r.summary.cves_count)}</div>
          </div>
          <div class="card">
            <div class="muted small">Highest CVSS</div>
            <div class="stat">{r.summary.highest_cvss ?? '–'}</div>
          </div>
          {SEVERITIES.map((s) => (
            <div class="card">
              <div class={`small sev-${s}`}>{s}</div>
              <div class="stat">{r.summary.severity_counts[s]}</div>
            </div>
          ))}
        </div>
        {detail.cves.length === 0 ? (
          <p class="muted">No CVE of the project changed in this period.</p>
        ) : (
          <>
            <h3>CVEs</h3>
            <div class="table-wrap">
              <table class="data report-cves">
                <thead>
                  <tr>
                    <th scope="col">CVE</th>
                    <th scope="col">Highest CVSS</th>
                    <th scope="col">KEV</th>
                    <th scope="col">EPSS</th>
                    <th scope="col">Matched</th>
                    <th scope="col">Events</th>
                  </tr>
                </thead>
                <tbody>
                  {detail.cves.map((c) => (
                    <tr>
                      <td>
                        <a href={`${origin}/cves/${c.cve_id}`} class="mono">
                          {c.cve_id}
                        </a>
                        {c.title && <div class="small">{c.title}</div>}
                      </td>
                      <td>
                        <SeverityBadge score={c.highest_cvss} named />
                      </td>
                      <td>{c.kev ? <span class="badge kev">KEV</span> : <span class="muted">no</span>}</td>
                      <td class="nowrap">{c.epss !== null ? `${(c.epss * 100).toFixed(2)} %` : '–'}</td>
                      <td class="small">{matchedBy(c).join(', ')}</td>
                      <td class="small">{c.event_types.map(eventLabel).join(', ')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {/* An inventory's CVE enters with no catalog change: no heading over nothing. */}
            {detail.cves.some((c) => c.changes.length > 0) && <h3>Changes</h3>}
            {detail.cves
              .filter((c) => c.changes.length > 0)
              .map((c) => (
                <section class="card report-cve">
                  <h4>
                    <a href={`${origin}/cves/${c.cve_id}`} class="mono">
                      {c.cve_id}
                    </a>{' '}
                    {c.title}
                  </h4>
                  {c.description && <p class="small">{c.description}</p>}
                  {c.changes.map((ch) => (
                    <div class="change">
                      <div class="small muted">
                        <Time date={ch.created_at} style={ctx.dateStyle} /> · {ch.types.join(', ')}
                      </div>
                      {(ch.data as ChangeEntry[]).map((entry) => (
                        <ChangeEntryView entry={entry} />
                      ))}
                    </div>
                  ))}
                </section>
              ))}
          </>
        )}
      </article>
    </ProjectPage>
  );
}

export const projectReportsRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const { reports, automations } = services;
  type Params = { org: string; project: string; report: string };
  const base = '/org/:org/projects/:project/reports';
  const orgId = (access: ProjectAccess) => access.membership.organizationId;
  const originOf = (request: FastifyRequest) =>
    services.config.baseUrl ?? `${request.protocol}://${request.host}`;

  /** Every report automation of the project (a project has a handful). */
  async function reportAutomations(access: ProjectAccess): Promise<AutomationView[]> {
    const { items } = await automations.list(orgId(access), access.project.name, { page: 1, pageSize: 100 });
    return items.filter((a) => a.trigger_type === 'report');
  }

  app.get(base, async (request, reply) => {
    const access = await projectAccess(services, request);
    const asked = field(request.query, 'period');
    const period = REPORT_PERIOD_TYPES.find((p) => p === asked);
    let page = pageNumber(request.query);
    const list = async () =>
      reports.list(orgId(access), access.project.name, { page, pageSize: PAGE_SIZE }, period);
    const { count, items } = await list().catch(async (err: unknown) => {
      // A page past the end shows the first.
      if (err instanceof AppError && err.code === 'not_found' && page > 1) {
        page = 1;
        return list();
      }
      throw err;
    });
    return sendPage(
      reply,
      <ReportsList
        ctx={request.page}
        access={access}
        reports={items}
        count={count}
        page={page}
        period={period}
        automations={await reportAutomations(access)}
        done={doneOf(request)}
      />,
    );
  });

  app.post(`${base}/generate`, async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const name = field(request.body, 'automation');
    const automation = (await reportAutomations(access)).find((a) => a.name === name);
    if (!automation)
      throw new AppError('validation_error', 'Choose one of the report automations of this project.');
    const execution = await automations.run(orgId(access), access.project.name, automation.name);
    return reply.redirect(
      execution.report_id
        ? `${reportsPath(access, `/${execution.report_id}`)}?done=generated`
        : `${reportsPath(access)}?done=nothing`,
      303,
    );
  });

  app.get<{ Params: Params }>(`${base}/:report`, async (request, reply) => {
    const access = await projectAccess(services, request);
    const detail = await reports.get(orgId(access), access.project.name, request.params.report);
    const sends = await reports.sends(detail.report);
    return sendPage(
      reply,
      <ReportPage
        ctx={request.page}
        access={access}
        detail={detail}
        sends={sends}
        origin={originOf(request)}
        done={doneOf(request)}
      />,
    );
  });

  app.get<{ Params: Params }>(`${base}/:report/csv`, async (request, reply) => {
    const access = await projectAccess(services, request);
    const detail = await reports.get(orgId(access), access.project.name, request.params.report);
    return sendCsv(
      reply,
      `report-${access.project.name}-${detail.report.link}.csv`,
      csvStream(WEB_REPORT_CSV_COLUMNS, detail.cves),
    );
  });
};

/**
 * What brought a report's CVE to the project: its subscribed keys, and the inventory components its
 * `cve_affects_component` events name (an inventory's CVE has no subscribed key).
 */
function matchedBy(c: ReportCve): string[] {
  const components = c.events.flatMap((e) => {
    if (e.type !== 'cve_affects_component') return [];
    const d = e.details as { inventory?: string; component?: { name?: string; version?: string | null } };
    const version = d.component?.version ?? 'version unknown';
    return [`${d.component?.name ?? 'a component'} ${version} (inventory ${d.inventory ?? '?'})`];
  });
  return [...c.matched_keys.map(vendorKeyLabel), ...new Set(components)];
}
