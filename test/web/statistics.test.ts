import pino from 'pino';
import { storeTestAliases } from '../helpers/aliases.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobs } from '../../src/main.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { statisticsSchedule } from '../../src/jobs/scheduler.ts';
import { COMPUTE_STATISTICS_JOB } from '../../src/services/statistics.service.ts';
import { lastMonths } from '../../src/domain/statistics.ts';
import { sources } from '../../src/sources/index.ts';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { fixture } from '../helpers/catalog.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, type WebClient } from '../helpers/web.ts';

const PASSWORD = 'correct horse battery staple';

/** The numbers of a chart's table: label → count. */
function tableOf(page: Awaited<ReturnType<WebClient['get']>>, id: string): Record<string, number> {
  const rows = page.html.querySelectorAll(`#${id} table tbody tr`);
  return Object.fromEntries(
    rows.map((tr) => [
      tr.querySelector('th')!.text.trim(),
      Number(tr.querySelector('td')!.text.replace(/,/g, '')),
    ]),
  );
}

describeEachDatabase('web: statistics', (use) => {
  let api: TestApi;
  let browser: WebClient;

  beforeAll(async () => {
    api = await buildTestApi(use());
    const owner = await createOrganization(api.services, 'stats');
    browser = await signedIn(api, owner.user.username, PASSWORD);
  }, 60_000);
  afterAll(() => api.close());

  it('says the statistics are being computed on a fresh install', async () => {
    const page = await browser.get('/statistics');
    expect(page.status).toBe(200);
    expect(page.html.querySelector('h1')?.text).toBe('Statistics');
    expect(page.text).toContain('The statistics are being computed');
    expect(page.html.querySelectorAll('svg.chart')).toHaveLength(0);
    expect(page.html.querySelector('.mainnav a[aria-current=page]')?.text).toBe('Statistics');
  });

  it('computes them once at start when none are stored (the worker runs the job)', async () => {
    const runtime = await startJobs(api.services, pino({ level: 'silent' }));
    try {
      const deadline = Date.now() + 20_000;
      while (!(await api.services.statistics.latest()) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(await api.services.statistics.latest()).toMatchObject({ statistics: { published: 0, kev: 0 } });
    } finally {
      await runtime.stop();
    }
  }, 30_000);

  describe('over real records', () => {
    let page: Awaited<ReturnType<WebClient['get']>>;
    let computedAt: Date;

    beforeAll(async () => {
      const imports = api.services.imports;
      // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
      await storeTestAliases(api.services.database.db);
      await imports.importInputs(sources.cve5, [fixture('cve5', 'cves')]);
      await imports.importInputs(sources.kev, [
        fixture('kev', 'known_exploited_vulnerabilities-excerpt.json'),
      ]);
      // Imports do not count anything: the page still shows what the job stored before.
      const stale = await browser.get('/statistics');
      expect(stale.html.querySelector('#by-year table tbody tr')).toBeNull();
      // The scheduled job, through the registry the worker uses.
      const handler = jobHandlers({ statistics: api.services.statistics } as never)[COMPUTE_STATISTICS_JOB]!;
      await handler(
        {},
        {
          id: 1,
          name: COMPUTE_STATISTICS_JOB,
          attempt: 1,
          maxAttempts: 5,
          workerId: 'test',
          signal: new AbortController().signal,
        },
      );
      computedAt = (await api.services.statistics.latest())!.computedAt;
      page = await browser.get('/statistics');
    }, 120_000);

    it('says when they were computed', () => {
      expect(page.status).toBe(200);
      expect(page.html.querySelector('.page-head time')?.getAttribute('datetime')).toBe(
        computedAt.toISOString(),
      );
      expect(page.text).not.toContain('being computed');
    });

    it('counts published and rejected CVEs and KEV entries of the catalog', () => {
      const stats = page.html.querySelectorAll('.stats-totals .stat').map((e) => e.text);
      // test/fixtures/cve5/cves: 9 records, CVE-2019-25161 and CVE-2021-36593 REJECTED;
      // the KEV excerpt lists CVE-2024-4577, CVE-2011-0611 and CVE-2021-44228 of them (and Heartbleed, not in the catalog).
      expect(stats).toEqual(['7', '2', '3']);
    });

    it('draws CVEs per year with a table of the same numbers', () => {
      expect(tableOf(page, 'by-year')).toEqual({ '2011': 1, '2021': 1, '2023': 1, '2024': 4 });
      const svg = page.html.querySelector('#by-year svg.chart')!;
      expect(svg.getAttribute('role')).toBe('img');
      expect(svg.querySelector('title')?.text).toBe('CVEs published per year');
      const bars = svg.querySelectorAll('rect.bar');
      expect(bars).toHaveLength(4);
      // The tallest bar is 2024's; bar geometry is in SVG attributes, never a style attribute.
      const heights = bars.map((b) => Number(b.getAttribute('height')));
      expect(Math.max(...heights)).toBe(heights[3]);
      expect(bars[3]!.querySelector('title')?.text).toBe('2024: 4');
      expect(page.body).not.toMatch(/ style="/);
    });

    it('draws the last 24 months, empty months included', () => {
      const months = tableOf(page, 'by-month');
      expect(Object.keys(months)).toHaveLength(24);
      const last = lastMonths(new Date(), 24).at(-1)!;
      const label = new Date(`${last}-01T00:00:00Z`).toLocaleString('en-US', {
        month: 'short',
        year: 'numeric',
        timeZone: 'UTC',
      });
      expect(Object.keys(months).at(-1)).toBe(label);
      expect(page.html.querySelectorAll('#by-month rect.bar')).toHaveLength(24);
    });

    it('counts CVEs by severity of their best CVSS score', () => {
      const severity = tableOf(page, 'by-severity');
      expect(Object.keys(severity)).toEqual([
        'Critical (9.0–10.0)',
        'High (7.0–8.9)',
        'Medium (4.0–6.9)',
        'Low (0.1–3.9)',
        'None (0.0)',
        'No CVSS score',
      ]);
      expect(Object.values(severity).reduce((a, b) => a + b, 0)).toBe(7);
      expect(severity['Critical (9.0–10.0)']).toBeGreaterThanOrEqual(1); // Log4Shell, 10.0
      expect(page.html.querySelector('#by-severity rect.bar.sev-critical')).toBeTruthy();
    });

    it('counts KEV additions by month and the top vendors, linked to their CVE lists', () => {
      const kev = tableOf(page, 'kev-by-month');
      expect(Object.keys(kev)).toHaveLength(24);
      const vendors = tableOf(page, 'top-vendors');
      expect(vendors.apache).toBe(1);
      expect(page.html.querySelector('#top-vendors table a[href="/cves?vendor=apache"]')).toBeTruthy();
      expect(page.html.querySelector('#top-vendors svg a[href="/cves?vendor=apache"] rect.bar')).toBeTruthy();
    });
  });

  it('schedules the computation hourly, one job per tick', () => {
    const tick = new Date('2025-03-01T10:17:00Z');
    expect(statisticsSchedule.pattern).toBe('17 * * * *');
    expect(statisticsSchedule.job(tick)).toEqual({
      name: COMPUTE_STATISTICS_JOB,
      dedupeKey: `${COMPUTE_STATISTICS_JOB}:2025-03-01T10:17:00Z`,
    });
  });
});
