/**
 * `/statistics`: the catalog's statistics as the `statistics.compute` job last stored them (hourly;
 * never counted per request), drawn as inline SVG bar charts, each with its table.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { CatalogStatistics, SeverityBand, StoredStatistics } from '../../domain/statistics.ts';
import { BarList, ChartFigure, ColumnChart, type Bar } from './charts.tsx';
import { Notice, Time } from '../kit/fields.tsx';
import { formatCount } from '../kit/format.ts';
import { Layout, sendPage } from '../kit/layout.tsx';
import { FreshnessLine } from '../kit/freshness.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';

const SEVERITY_LABELS: Record<SeverityBand, string> = {
  critical: 'Critical (9.0–10.0)',
  high: 'High (7.0–8.9)',
  medium: 'Medium (4.0–6.9)',
  low: 'Low (0.1–3.9)',
  none: 'None (0.0)',
  unscored: 'No CVSS score',
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** `2024-03` → `Mar 2024`. */
const monthLabel = (key: string) =>
  `${MONTHS[Number(key.slice(5, 7)) - 1] ?? key.slice(5, 7)} ${key.slice(0, 4)}`;

function Charts({ s }: { s: CatalogStatistics }) {
  const years: Bar[] = s.byYear.map((r) => ({ label: String(r.key), value: r.count }));
  const months: Bar[] = s.byMonth.map((r) => ({ label: monthLabel(r.key), value: r.count }));
  const severity: Bar[] = s.bySeverity.map((r) => ({
    label: SEVERITY_LABELS[r.key] ?? r.key,
    value: r.count,
    tone: r.key === 'unscored' ? 'sev-none' : `sev-${r.key}`,
  }));
  const kev: Bar[] = s.kevByMonth.map((r) => ({ label: monthLabel(r.key), value: r.count }));
  const vendors: Bar[] = s.topVendors.map((r) => ({
    label: r.key,
    value: r.count,
    href: `/cves?vendor=${encodeURIComponent(r.key)}`,
  }));
  return (
    <>
      <ChartFigure
        id="by-year"
        caption="CVEs published per year"
        chart={<ColumnChart id="by-year-chart" title="CVEs published per year" bars={years} />}
        bars={years}
        labelHeading="Year"
        valueHeading="CVEs"
      />
      <ChartFigure
        id="by-month"
        caption="CVEs published per month, last 24 months"
        chart={
          <ColumnChart id="by-month-chart" title="CVEs published per month, last 24 months" bars={months} />
        }
        bars={months}
        labelHeading="Month"
        valueHeading="CVEs"
      />
      <ChartFigure
        id="by-severity"
        caption="CVEs by severity"
        note="By the best CVSS score of each CVE: v4.0, else v3.1, v3.0, v2.0."
        chart={<BarList id="by-severity-chart" title="CVEs by severity" bars={severity} />}
        bars={severity}
        labelHeading="Severity"
        valueHeading="CVEs"
      />
      <ChartFigure
        id="kev-by-month"
        caption="Known exploited (KEV) additions per month, last 24 months"
        note={`${formatCount(s.kev)} CVEs of the catalog are in CISA's Known Exploited Vulnerabilities catalog.`}
        chart={
          <ColumnChart id="kev-by-month-chart" title="KEV additions per month, last 24 months" bars={kev} />
        }
        bars={kev}
        labelHeading="Month"
        valueHeading="Added to KEV"
      />
      <ChartFigure
        id="top-vendors"
        caption={`Top ${vendors.length} vendors`}
        note="Vendors with the most CVEs; each leads to its CVE list."
        chart={<BarList id="top-vendors-chart" title="Vendors with the most CVEs" bars={vendors} />}
        bars={vendors}
        labelHeading="Vendor"
        valueHeading="CVEs"
      />
    </>
  );
}

function StatisticsPage({ ctx, stored }: { ctx: PageContext; stored: StoredStatistics | undefined }) {
  return (
    <Layout ctx={ctx} title="Statistics" section="statistics">
      <div class="page-head">
        <h1>Statistics</h1>
        {stored && (
          <p class="muted small">
            Computed <Time date={stored.computedAt} style={ctx.dateStyle} /> (every hour)
          </p>
        )}
      </div>
      <FreshnessLine ctx={ctx} />
      {!stored ? (
        <Notice kind="warn">
          The statistics are being computed. They are counted in the background once the catalog is loaded,
          then every hour; reload this page in a minute.
        </Notice>
      ) : (
        <>
          <div class="grid stats-totals">
            <div class="card">
              <div class="muted small">Published CVEs</div>
              <div class="stat">{formatCount(stored.statistics.published)}</div>
            </div>
            <div class="card">
              <div class="muted small">Rejected CVEs</div>
              <div class="stat">{formatCount(stored.statistics.rejected)}</div>
            </div>
            <div class="card">
              <div class="muted small">Known exploited (KEV)</div>
              <div class="stat">{formatCount(stored.statistics.kev)}</div>
            </div>
          </div>
          <Charts s={stored.statistics} />
        </>
      )}
    </Layout>
  );
}

export const statisticsRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  app.get('/statistics', async (request, reply) => {
    const stored = await services.statistics.latest();
    return sendPage(reply, <StatisticsPage ctx={request.page} stored={stored} />);
  });
};
