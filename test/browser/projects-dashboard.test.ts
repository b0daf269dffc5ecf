/**
 * The project dashboard in a real browser against a real server: a project subscribed to
 * atlassian, then the real upstream commit that adds CVE-2021-41309 imported through the command
 * line (handed to the running server): the CVE appears in the dashboard's feed as having entered
 * the project, and in the user's Atom feed; the feed URL is made, copied and replaced; the
 * organization overview; axe-core on both pages in light and dark. Screenshots go to the system's
 * temporary folder for a person to look at.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { runCli } from '../helpers/cli.ts';
import { cveIdOf, loadHistory } from '../helpers/cve5-history.ts';
import {
  chromiumPath,
  launchBrowser,
  seriousAxeViolations,
  startServer,
  type TestServer,
  createFirstAdmin,
} from '../helpers/browser.ts';

const chromium = chromiumPath();
if (!chromium)
  console.warn('dashboard journey SKIPPED: Chromium is not installed (apt-get install -y chromium)');

describe.skipIf(!chromium)('browser: the project dashboard', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let dataDir: string;
  let shots: string;
  const env = () => ({ VULNTRACK_DATA_DIR: dataDir, DATABASE_URL: '' });
  const dashboard = () => `${server.baseUrl}/org/acme/projects/jira`;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'vulntrack-dashboard-journey-'));
    shots = await fs.mkdtemp(path.join(os.tmpdir(), 'vulntrack-dashboard-shots-'));
    [server, browser] = await Promise.all([startServer({ VULNTRACK_DATA_DIR: dataDir }), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await createFirstAdmin(page, server);
    const created = await runCli(['project', 'create', 'acme', 'jira', '--vendor', 'atlassian'], env());
    expect(created.code, created.stderr).toBe(0);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  const feedIds = async () => page.locator('.dash-feed tbody tr td:first-child a').allTextContents();

  it('shows the new CVE in the feed after the real upstream commit that adds it is imported', async () => {
    await page.goto(dashboard());
    await expect(page.locator('#feed-title').textContent()).resolves.toBe('Changed in the last 7 days');
    expect(await feedIds()).not.toContain('CVE-2021-41309');

    const { commits } = await loadHistory();
    const line = commits.flatMap((c) => c.lines).find((l) => cveIdOf(l.record) === 'CVE-2021-41309')!;
    expect(line.change).toBe('A');
    const file = path.join(dataDir, '..', `${path.basename(dataDir)}-CVE-2021-41309.json`);
    await fs.writeFile(file, JSON.stringify(line.record));
    try {
      const imported = await runCli(['import', 'cve5', file], env());
      expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    } finally {
      await fs.rm(file, { force: true });
    }

    await page.reload();
    expect(await feedIds()).toContain('CVE-2021-41309');
    const row = page.locator('.dash-feed tbody tr', { hasText: 'CVE-2021-41309' });
    await expect(row.locator('.dash-events').textContent()).resolves.toContain('entered the project');
    await page.screenshot({ path: path.join(shots, 'dashboard-full.png'), fullPage: true });
    await row.getByRole('link', { name: 'CVE-2021-41309' }).click();
    await page.waitForURL(/\/cves\/CVE-2021-41309$/);
  });

  it('makes the Atom feed URL, copies it, and a new URL replaces it', async () => {
    await page.goto(dashboard());
    await page.getByRole('button', { name: 'Make my feed URL' }).click();
    await page.waitForURL(/\?done=feed#feed$/);
    await expect(page.locator('.notice.ok').textContent()).resolves.toContain('Your feed URL is ready');
    const url = await page.locator('#atom-url').inputValue();
    expect(url).toMatch(/\/feeds\/[A-Za-z0-9_-]{43}\.atom$/);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    await page.locator('button[data-copy=atom-url]').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(url);

    const feed = await fetch(url);
    expect(feed.status).toBe(200);
    expect(feed.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    expect(await feed.text()).toContain('<title type="text">CVE-2021-41309: entered the project');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'New URL' }).click();
    await page.waitForURL(/\?done=feed#feed$/);
    const fresh = await page.locator('#atom-url').inputValue();
    expect(fresh).not.toBe(url);
    expect((await fetch(url)).status).toBe(404);
    expect((await fetch(fresh)).status).toBe(200);
  });

  it('opens the organization overview from the projects list', async () => {
    await page.goto(`${server.baseUrl}/org/acme/projects`);
    await page.getByRole('link', { name: 'Overview of all projects' }).click();
    await page.waitForURL(/\/org\/acme\/overview$/);
    await expect(page.locator('.dash-overview tbody th a').allTextContents()).resolves.toEqual(['jira']);
  });

  it('has no serious accessibility violations on the dashboard and the overview, light and dark', async () => {
    const context = await browser.newContext({
      bypassCSP: true,
      storageState: await page.context().storageState(),
      viewport: { width: 1280, height: 900 },
    });
    const tab = await context.newPage();
    const found: Record<string, unknown> = {};
    for (const colorScheme of ['light', 'dark'] as const) {
      await tab.emulateMedia({ colorScheme });
      for (const url of ['/org/acme/projects/jira', '/org/acme/overview']) {
        await tab.goto(`${server.baseUrl}${url}`);
        const violations = await seriousAxeViolations(tab);
        if (violations.length) found[`${colorScheme} ${url}`] = violations;
      }
      await tab.goto(`${server.baseUrl}/org/acme/projects/jira`);
      await tab.screenshot({ path: path.join(shots, `dashboard-${colorScheme}.png`) });
      await tab.goto(`${server.baseUrl}/org/acme/overview`);
      await tab.screenshot({ path: path.join(shots, `overview-${colorScheme}.png`) });
    }
    await context.close();
    console.info(`dashboard screenshots: ${shots}`);
    expect(found).toEqual({});
  });
});
