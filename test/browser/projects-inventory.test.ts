/**
 * The Inventory tab in a real browser against a real server (the sample catalog): upload an SBOM file,
 * see the findings, open one, triage it on the project's CVE page, download the VEX and find the
 * triage in it, see the CVEs it brought on the dashboard; no serious accessibility violation, light
 * and dark.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  acmeApi,
  chromiumPath,
  createFirstAdmin,
  launchBrowser,
  seriousAxeViolations,
  startServer,
  type TestServer,
} from '../helpers/browser.ts';
import { fixture } from '../helpers/catalog.ts';

const chromium = chromiumPath();
if (!chromium)
  console.warn('browser journeys SKIPPED: Chromium is not installed (apt-get install -y chromium)');

const shots = process.env.SCREENSHOTS_DIR;

describe.skipIf(!chromium)('browser: a project inventory', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let call: Awaited<ReturnType<typeof acmeApi>>;
  const tab = () => `${server.baseUrl}/org/acme/projects/web/inventories`;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    // bypassCSP: axe is injected (a test-only context; the pages keep their CSP otherwise).
    page = await browser.newPage({
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
      bypassCSP: true,
    });
    await createFirstAdmin(page, server);
    call = await acmeApi(page, server);
    expect((await call('POST', '/projects', { name: 'web' })).status).toBe(201);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('uploads an SBOM file from the Inventory tab and shows what it found', async () => {
    await page.goto(`${server.baseUrl}/org/acme/projects/web`);
    await page.getByRole('link', { name: 'Inventory', exact: true }).click();
    await page.waitForURL(/\/inventories$/);
    await expect(page.getByText('No inventory yet.').count()).resolves.toBe(1);
    await page.getByLabel('Name').fill('backend');
    await page.getByLabel('SBOM file').setInputFiles(fixture('sbom', 'cyclonedx-1.6-vulnerable.json'));
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.waitForURL(/\/inventories\/backend$/);
    const result = await page.locator('.upload-result').textContent();
    expect(result).toContain('CVE-2021-44228');
    expect(result).toContain('CVE-2024-3094');
    if (shots) await page.screenshot({ path: `${shots}/inventory.png`, fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it("opens a component's findings and triages one on the project's CVE page", async () => {
    await page.getByRole('link', { name: 'log4j-core', exact: true }).first().click();
    await page.waitForURL(/\/components\/\d+$/);
    const finding = page.locator('.finding', { hasText: 'CVE-2021-44228' });
    await expect(finding.locator('.rules').textContent()).resolves.toContain(
      'The CNA (Apache Software Foundation · Apache Log4j2): affected from 2.13.0 up to before 2.15.0',
    );
    if (shots) await page.screenshot({ path: `${shots}/inventory-component.png`, fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await finding.getByRole('link', { name: 'CVE-2021-44228' }).click();
    await page.waitForURL(/\/cves\/CVE-2021-44228$/);
    await expect(page.locator('#why').textContent()).resolves.toContain(
      'log4j-core 2.14.1 of the inventory backend',
    );
    if (shots) await page.screenshot({ path: `${shots}/inventory-cve.png`, fullPage: true });
    await page.locator('form.triage-form select[name=status]').selectOption('not_applicable');
    await page.getByRole('button', { name: 'Save triage' }).click();
    await page.waitForURL(/done=/);
    await page.getByLabel('Add a comment').fill('The JNDI lookup class is removed from our build.');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.waitForURL(/done=commented/);
  });

  it('downloads the VEX with that triage', async () => {
    await page.goto(`${tab()}/backend`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'VEX (OpenVEX)' }).click(),
    ]);
    const vex = JSON.parse(await readFile((await download.path())!, 'utf8')) as {
      statements: { vulnerability: { name: string }; status: string }[];
    };
    const log4shell = vex.statements.find((s) => s.vulnerability.name === 'CVE-2021-44228')!;
    expect(log4shell.status).toBe('not_affected');
  });

  it("shows on the project's dashboard what the inventory brought in", async () => {
    await page.goto(`${server.baseUrl}/org/acme/projects/web`);
    const row = page.locator('tr', { has: page.getByRole('link', { name: 'CVE-2021-44228', exact: true }) });
    await expect(row.locator('.dash-events').textContent()).resolves.toMatch(
      /entered the project.*affects an inventory component/,
    );
    // No subscription, yet CVEs: the card says where they come from.
    await expect(page.locator('#subscriptions-title + p').textContent()).resolves.toContain(
      'its CVEs come from its keywords and inventories',
    );
    if (shots) await page.screenshot({ path: `${shots}/inventory-dashboard.png`, fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it("lists the inventory's CVEs in a report, by component", async () => {
    const slack = await call('POST', '/projects/web/notifications', {
      name: 'team',
      type: 'slack',
      configuration: { webhook_url: 'https://hooks.slack.com/services/T1/B2/xyzsecret' },
    });
    expect(slack.status).toBe(201);
    const created = await call('POST', '/projects/web/automations', {
      name: 'daily',
      trigger_type: 'report',
      frequency: 'daily',
      configuration: { actions: [{ type: 'send_notification', value: 'team' }] },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const run = await call('POST', '/projects/web/automations/daily/run', {});
    expect(run.status, await run.clone().text()).toBe(200);
    await page.goto(`${server.baseUrl}/org/acme/projects/web/reports`);
    await page.locator('main table a').first().click();
    const row = page.locator('table.report-cves tr', { hasText: 'CVE-2021-44228' });
    const text = await row.textContent();
    expect(text).toContain('log4j-core 2.14.1 (inventory backend)');
    expect(text).toContain('affects an inventory component');
    // No catalog change in the period: no "Changes" heading over nothing.
    await expect(page.getByRole('heading', { name: 'Changes' }).count()).resolves.toBe(0);
    if (shots) await page.screenshot({ path: `${shots}/inventory-report.png`, fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('reads well in dark mode', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    for (const [url, name] of [
      [tab(), 'inventories-dark'],
      [`${tab()}/backend`, 'inventory-dark'],
      [`${server.baseUrl}/org/acme/projects/web/cves/CVE-2021-44228`, 'inventory-cve-dark'],
      [`${server.baseUrl}/org/acme/projects/web`, 'inventory-dashboard-dark'],
      [page.url(), 'inventory-report-dark'],
    ] as const) {
      await page.goto(url);
      if (shots) await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
      expect(await seriousAxeViolations(page)).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });
});
