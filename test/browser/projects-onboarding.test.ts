/**
 * A new organization's first project, in a real browser against a real server (the bundled sample
 * catalog, which has Atlassian's CVEs): the owner lands on the onboarding from the projects list,
 * names the project, finds `atlassian` by typing (htmx), adds it, asks for a webhook alert (a real
 * receiver on loopback) and a weekly report, and lands on the project's dashboard; API v2 then lists
 * the project's subscription, notification and both automations. The project pages pass axe-core,
 * light and dark. The tests run in order and build on each other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  chromiumPath,
  launchBrowser,
  seriousAxeViolations,
  startServer,
  type TestServer,
  createFirstAdmin,
} from '../helpers/browser.ts';
import { startReceiver, type Receiver } from '../notifications/receivers.ts';

const chromium = chromiumPath();
if (!chromium)
  console.warn('browser journeys SKIPPED: Chromium is not installed (apt-get install -y chromium)');

/** Where the journey leaves screenshots of each page, light and dark, for a person to look at. */
const SHOTS = process.env.SCREENSHOT_DIR;

describe.skipIf(!chromium)('browser journey: a first project', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    [server, browser] = await Promise.all([startServer({ OUTBOUND_ALLOW_PRIVATE: 'true' }), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
  });

  it('sends the owner of a new organization from the projects list to the onboarding', async () => {
    await createFirstAdmin(page, server);
    await page.getByRole('link', { name: 'Projects', exact: true }).first().click();
    await page.waitForURL(/\/org\/acme\/new-project$/);
    await expect(page.locator('h1').textContent()).resolves.toBe('New project');
  });

  it('names the project, finds atlassian as it types and adds it', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Collaboration tools');
    await page.getByLabel('Description (optional)').fill('Jira and Confluence');
    await page.getByRole('button', { name: 'Next: vendors and products' }).click();
    await page.waitForURL(/\/new-project\/vendors$/);

    await page.getByLabel('Find a vendor or product').pressSequentially('atlass', { delay: 30 });
    // htmx swaps the candidates in without a page load, and puts the search in the address bar.
    const add = page.getByRole('button', { name: 'Add Atlassian', exact: true });
    await add.waitFor({ timeout: 15_000 });
    await expect(page.waitForURL(/search=atlass/, { timeout: 5_000 })).resolves.toBeUndefined();
    const row = page.locator('#candidates tbody tr', { has: add });
    const cves = Number(((await row.locator('td').nth(1).textContent()) ?? '').replace(/,/g, ''));
    expect(cves).toBeGreaterThan(10);
    await add.click();
    await page.waitForLoadState();
    await expect(page.getByRole('button', { name: 'Remove Atlassian', exact: true }).count()).resolves.toBe(
      1,
    );
    // A keyword for what the catalog names no key for (regreSSHion's record names only Red Hat).
    await page.getByLabel('Keywords, one per line').fill('OpenSSH\n');
    await page.getByRole('button', { name: 'Save keywords' }).click();
    await page.waitForURL(/\/new-project\/vendors#keywords$/);
    await expect(page.getByLabel('Keywords, one per line').inputValue()).resolves.toBe('openssh');
  });

  it('asks for a webhook alert and a weekly report, creates everything and shows the dashboard', async () => {
    await page.getByRole('link', { name: 'Next: alerts and report' }).click();
    await page.waitForURL(/\/new-project\/alerts$/);
    await page.getByRole('radio', { name: 'Webhook' }).check();
    await page.getByLabel('Email address or webhook URL').fill(`${receiver.base}/vulntrack`);
    await expect(page.getByLabel(/Make a report of the project/).isChecked()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(/\/org\/acme\/projects\/Collaboration%20tools\?done=created$/);
    await expect(page.locator('main').textContent()).resolves.toContain('The project was created');
  });

  it('made the subscription, the keyword, the notification and both automations that API v2 lists', async () => {
    await page.goto(`${server.baseUrl}/org/acme/tokens`);
    await page.getByLabel('Name').fill('journey');
    await page.getByLabel('Mode').selectOption('read');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = await page.locator('#new-token').inputValue();
    const get = async (url: string) => {
      const response = await fetch(
        `${server.baseUrl}/api/v2/organizations/acme/projects/Collaboration%20tools${url}`,
        {
          headers: { authorization: `Bearer ${token}` },
        },
      );
      expect(response.status, url).toBe(200);
      return (await response.json()) as Record<string, unknown>;
    };
    await expect(get('/subscriptions')).resolves.toMatchObject({ vendors: ['atlassian'] });
    await expect(get('/keywords')).resolves.toEqual({ keywords: ['openssh'] });
    const notifications = (await get('/notifications')) as { results: { name: string; type: string }[] };
    expect(notifications.results.map((n) => [n.name, n.type])).toEqual([['critical-or-kev', 'webhook']]);
    const automations = (await get('/automations')) as { results: { name: string; trigger_type: string }[] };
    expect(automations.results.map((a) => [a.name, a.trigger_type]).sort()).toEqual([
      ['new-critical-or-kev-cve', 'alert'],
      ['weekly-report', 'report'],
    ]);
  });

  it('has no serious accessibility violations on the project pages, light and dark', async () => {
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
    const tab = await context.newPage();
    await tab.goto(`${server.baseUrl}/login`);
    await tab.getByLabel('Username or email').fill('alice');
    await tab.getByLabel('Password').fill('correct horse battery');
    await tab.getByRole('button', { name: 'Sign in' }).click();
    await tab.waitForURL(/\/org\/acme\/overview$/);
    // A second draft, so that every step of the onboarding opens.
    await tab.goto(`${server.baseUrl}/org/acme/new-project`);
    await tab.getByLabel('Name', { exact: true }).fill('Second');
    await tab.getByRole('button', { name: 'Next: vendors and products' }).click();
    await tab.waitForURL(/\/new-project\/vendors$/);
    await tab.goto(`${server.baseUrl}/org/acme/new-project/vendors?search=atlassian`);
    await tab.getByRole('button', { name: 'Add Atlassian', exact: true }).click();
    await tab.waitForLoadState();
    const project = '/org/acme/projects/Collaboration%20tools';
    const pages = [
      '/org/acme/projects',
      '/org/acme/new-project',
      '/org/acme/new-project/vendors?search=atl',
      '/org/acme/new-project/alerts',
      `${project}/settings`,
      `${project}/subscriptions?search=conf`,
      '/vendors/atlassian',
    ];
    const found: Record<string, unknown> = {};
    for (const colorScheme of ['light', 'dark'] as const) {
      await tab.emulateMedia({ colorScheme });
      for (const url of pages) {
        await tab.goto(`${server.baseUrl}${url}`);
        const violations = await seriousAxeViolations(tab);
        if (violations.length) found[`${colorScheme} ${url}`] = violations;
        if (SHOTS)
          await tab.screenshot({
            path: `${SHOTS}/${colorScheme}-${url.replace(/[^a-z0-9]+/gi, '_')}.png`,
            fullPage: true,
          });
      }
    }
    await context.close();
    expect(found).toEqual({});
  });
});
