/**
 * The tracker shows the work, and no page scrolls sideways on a phone (issue 31, item 5), in a real
 * browser against a real server with the bundled sample catalog: at 1440×900 a fresh project's
 * tracker shows at least 12 CVE rows above the fold; the bulk edit bar is hidden until a row is
 * selected; at 390×844 the main pages are no wider than the screen, the header is one short line and
 * its menu opens on the navigation. Screenshots go to the system's temporary folder.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  chromiumPath,
  launchBrowser,
  seriousAxeViolations,
  startServer,
  type TestServer,
  createFirstAdmin,
  acmeApi,
} from '../helpers/browser.ts';

const chromium = chromiumPath();
if (!chromium)
  console.warn('browser tracker layout SKIPPED: Chromium is not installed (apt-get install -y chromium)');

describe.skipIf(!chromium)('browser: the tracker layout and narrow screens', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let tracker: string;
  let shots: string;

  beforeAll(async () => {
    shots = await fs.mkdtemp(path.join(os.tmpdir(), 'vulntrack-layout-shots-'));
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await createFirstAdmin(page, server);
    // A project of two busy vendors of the sample, made through API v2.
    const call = await acmeApi(page, server);
    expect((await call('POST', '/projects', { name: 'triage' })).status).toBe(201);
    expect(
      (await call('PUT', '/projects/triage/subscriptions', { vendors: ['microsoft', 'fortinet'] })).status,
    ).toBe(200);
    // A few CVEs assigned, so the overview and the dashboard list them.
    const listed = (await (await call('GET', '/projects/triage/cves?page_size=6')).json()) as {
      results: { cve_id: string }[];
    };
    const assigned = await call('PATCH', '/projects/triage/cves', {
      cve_ids: listed.results.map((r) => r.cve_id),
      status: 'analysis_in_progress',
      assignee: 'alice@example.com',
    });
    expect(assigned.status).toBe(200);
    tracker = `${server.baseUrl}/org/acme/projects/triage/cves`;
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** How many tracker rows start inside the window's height. */
  const rowsAboveTheFold = () =>
    page.evaluate(
      () =>
        Array.from(document.querySelectorAll('table.tracker tbody tr[data-row]')).filter((row) => {
          const top = row.getBoundingClientRect().top;
          return top >= 0 && top < window.innerHeight;
        }).length,
    );

  it('shows at least 12 CVE rows above the fold at 1440×900, light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      // The first page as it opens, and the oldest CVEs first (most without a title: two lines of
      // their description each).
      for (const query of ['', '?ordering=cve_id']) {
        await page.goto(`${tracker}${query}`);
        expect(await page.locator('table.tracker tbody tr[data-row]').count()).toBe(25);
        const above = await rowsAboveTheFold();
        await page.screenshot({
          path: path.join(shots, `tracker-1440${query ? '-oldest' : ''}-${colorScheme}.png`),
        });
        expect(above, `rows above the fold (${colorScheme}, ${query})`).toBeGreaterThanOrEqual(12);
      }
    }
    // The filters are one line: the query, the triage filters, Apply and the disclosure share a row.
    const middles = await page.evaluate(() =>
      [
        '#f-q',
        '#f-status',
        '#f-assignee',
        '#f-tag',
        '#f-ordering',
        '#f-size',
        '.filter-buttons button',
        '.more-filters > summary',
      ].map((id) => {
        const box = document.querySelector(id)!.getBoundingClientRect();
        return box.top + box.height / 2;
      }),
    );
    expect(Math.max(...middles) - Math.min(...middles)).toBeLessThan(8);
    // The query help is behind a disclosure, with the catalog's filters.
    await expect(page.locator('#f-q-hint').isVisible()).resolves.toBe(false);
    await expect(page.locator('#f-vendor').isVisible()).resolves.toBe(false);
    await page.locator('.more-filters > summary').click();
    await expect(page.locator('#f-vendor').isVisible()).resolves.toBe(true);
    await expect(page.locator('#f-q-hint').isVisible()).resolves.toBe(true);
  });

  it('hides the bulk edit bar until a row is selected, and hides it again when none is', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${tracker}?ordering=cve_id`);
    await expect(page.locator('#bulk-bar').isVisible()).resolves.toBe(false);
    await expect(page.locator('#f-set_status').isVisible()).resolves.toBe(false);
    const first = page.locator('table.tracker tbody tr[data-row] input[data-select]').first();
    await first.check();
    await expect(page.locator('#bulk-bar').isVisible()).resolves.toBe(true);
    await expect(page.locator('#f-set_status').isVisible()).resolves.toBe(true);
    await expect(page.locator('[data-selected-count]').textContent()).resolves.toBe('1');
    // Stuck to the bottom of the window, over the rows, not pushing them down.
    const box = await page.locator('#bulk-bar').boundingBox();
    expect(box!.y + box!.height).toBeLessThanOrEqual(900);
    expect(await rowsAboveTheFold()).toBeGreaterThanOrEqual(12);
    await page.screenshot({ path: path.join(shots, 'tracker-1440-selected.png') });
    await first.uncheck();
    await expect(page.locator('#bulk-bar').isVisible()).resolves.toBe(false);
  });

  it('keeps the bulk edit one click away without JavaScript', async () => {
    const context = await browser.newContext({
      javaScriptEnabled: false,
      storageState: await page.context().storageState(),
      viewport: { width: 1440, height: 900 },
    });
    const tab = await context.newPage();
    await tab.goto(`${tracker}?ordering=cve_id`);
    await expect(tab.locator('#bulk-bar > summary').isVisible()).resolves.toBe(true);
    await expect(tab.locator('#f-set_status').isVisible()).resolves.toBe(false);
    await tab.locator('#bulk-bar > summary').click();
    await expect(tab.locator('#f-set_status').isVisible()).resolves.toBe(true);
    await context.close();
  });

  it('has no page wider than a 390 px phone, a header of one short line and a menu with the navigation', async () => {
    const context = await browser.newContext({
      bypassCSP: true,
      storageState: await page.context().storageState(),
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const phone = await context.newPage();
    await phone.goto(`${tracker}?ordering=cve_id`);
    const cve = (await phone.locator('table.tracker tbody tr[data-row] a[data-open]').first().textContent())!;
    const pages = [
      '/cves',
      '/cves/CVE-2021-44228',
      '/vendors',
      '/statistics',
      '/org/acme/overview',
      '/org/acme',
      '/org/acme/members',
      '/org/acme/projects',
      '/org/acme/projects/triage',
      '/org/acme/projects/triage/cves',
      `/org/acme/projects/triage/cves/${cve}`,
      '/org/acme/projects/triage/subscriptions',
      '/org/acme/projects/triage/notifications',
      '/org/acme/projects/triage/automations',
      '/org/acme/projects/triage/reports',
      '/account',
      '/account/security',
    ];
    const wide: Record<string, number> = {};
    const tall: Record<string, number> = {};
    for (const url of pages) {
      await phone.goto(`${server.baseUrl}${url}`);
      const { width, header } = await phone.evaluate(() => ({
        width: document.documentElement.scrollWidth,
        header: document.querySelector('header.topbar')!.getBoundingClientRect().height,
      }));
      if (width > 390) wide[url] = width;
      if (header > 80) tall[url] = header;
    }
    expect(wide).toEqual({});
    expect(tall).toEqual({});

    // The menu opens on the navigation links.
    await phone.goto(`${tracker}?ordering=cve_id`);
    for (const colorScheme of ['light', 'dark'] as const) {
      await phone.emulateMedia({ colorScheme });
      await phone.screenshot({ path: path.join(shots, `tracker-390-${colorScheme}.png`), fullPage: true });
    }
    await expect(phone.getByRole('link', { name: 'Vendors', exact: true }).isVisible()).resolves.toBe(false);
    await phone.locator('#nav-menu').click();
    for (const name of ['Projects', 'CVEs', 'Vendors', 'Weaknesses', 'Statistics'])
      await expect(phone.getByRole('link', { name, exact: true }).isVisible()).resolves.toBe(true);
    await phone.screenshot({ path: path.join(shots, 'menu-390-dark.png') });
    // The phone's tracker in both themes passes axe, the menu open.
    const found: Record<string, unknown> = {};
    for (const colorScheme of ['light', 'dark'] as const) {
      await phone.emulateMedia({ colorScheme });
      const violations = await seriousAxeViolations(phone);
      if (violations.length) found[colorScheme] = violations;
    }
    await context.close();
    expect(found).toEqual({});
    console.info(`tracker layout screenshots: ${shots}`);
  });
});
