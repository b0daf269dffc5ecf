/**
 * Notifications and reports in a real browser against a real server: an owner creates a webhook to a
 * receiver on loopback, copies its secret (shown once), clicks Try and reads the receiver's answer on
 * the page; a report is generated and opened; then axe-core checks these pages, light and dark, and
 * screenshots of them are written to the temporary directory for a person to look at.
 */
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
} from '../helpers/browser.ts';
import { startReceiver, type Receiver } from '../notifications/receivers.ts';

const chromium = chromiumPath();
if (!chromium)
  console.warn('browser journeys SKIPPED: Chromium is not installed (apt-get install -y chromium)');

describe.skipIf(!chromium)('browser: project notifications and reports', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let receiver: Receiver;
  let deliveryUrl = '';
  let reportUrl = '';
  const project = '/org/acme/projects/web';

  beforeAll(async () => {
    receiver = await startReceiver(() => ({
      status: 200,
      body: '{"hello":"from the receiver"}',
      headers: { 'content-type': 'application/json', 'x-receiver': 'loopback' },
    }));
    // The receiver is on loopback: this server may send there (OUTBOUND_ALLOW_PRIVATE, tests only).
    [server, browser] = await Promise.all([startServer({ OUTBOUND_ALLOW_PRIVATE: 'true' }), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await createFirstAdmin(page, server);
    // A project and a weekly report automation, through API v2 with a token made on its page.
    await page.goto(`${server.baseUrl}/org/acme/tokens`);
    await page.getByLabel('Name').fill('setup');
    await page.getByLabel('Mode').selectOption('write');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = await page.locator('#new-token').inputValue();
    const call = async (url: string, body: unknown) => {
      const res = await fetch(`${server.baseUrl}/api/v2/organizations/acme${url}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, await res.clone().text()).toBe(201);
    };
    await call('/projects', { name: 'web' });
    await call('/projects/web/automations', {
      name: 'weekly-summary',
      trigger_type: 'report',
      frequency: 'weekly',
      configuration: { actions: [{ type: 'generate_report' }] },
    });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
  });

  it('creates a webhook, shows its secret once, and Try shows the receiver’s response', async () => {
    await page.goto(`${server.baseUrl}${project}/notifications`);
    await page.getByRole('link', { name: 'New notification' }).click();
    await page.getByRole('link', { name: 'Webhook' }).click();
    await page.getByLabel('Name').fill('team-hook');
    await page.getByLabel('URL').fill(`${receiver.base}/hooks/vt-abc123`);
    await page.getByLabel('Extra headers (optional)').fill('Authorization: Bearer hunter2-token');
    await page.getByRole('button', { name: 'Create webhook notification' }).click();
    const secret = await page.locator('#signing-secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.screenshot({ path: path.join(os.tmpdir(), 'h19d-webhook-created.png'), fullPage: true });

    await page.getByRole('button', { name: 'Try: send a sample now' }).click();
    await page.waitForURL(/\/deliveries\/[0-9a-f-]{36}\?done=tried$/);
    deliveryUrl = page.url().replace(server.baseUrl, '').replace('?done=tried', '');
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.headers.authorization).toBe('Bearer hunter2-token');
    const main = (await page.locator('main').textContent()) ?? '';
    expect(main).toContain('HTTP 200');
    expect(main).toContain('"hello":"from the receiver"');
    expect(main).toContain('x-receiver');
    expect(main).toContain(`POST ${receiver.base}/***`);
    expect(await page.content()).not.toContain('hunter2-token');
    expect(await page.content()).not.toContain(secret);
    // The request body opens on demand.
    await page.getByText(/^Body \(/).click();
    await expect(page.locator('.exchange details pre').textContent()).resolves.toContain('"type": "test"');
    await page.screenshot({ path: path.join(os.tmpdir(), 'h19d-try.png'), fullPage: true });

    // Back on the notification: the secret is not shown again, the test is in the log.
    await page.goto(`${server.baseUrl}${project}/notifications/team-hook`);
    expect(await page.content()).not.toContain(secret);
    await expect(page.locator('table.deliveries tbody tr').first().textContent()).resolves.toContain(
      'succeeded',
    );
  });

  it('generates a report and opens it', async () => {
    await page.goto(`${server.baseUrl}${project}/reports`);
    await page.getByRole('button', { name: 'Generate now' }).click();
    await page.waitForURL(/\/reports\/[0-9a-f-]{36}\?done=generated$/);
    reportUrl = page.url().replace(server.baseUrl, '').replace('?done=generated', '');
    await expect(page.locator('.report-doc h2').textContent()).resolves.toBe('Weekly report of web');
    await page.emulateMedia({ media: 'print' });
    await expect(page.locator('nav.tabs').isVisible()).resolves.toBe(false);
    await expect(page.locator('header.topbar').isVisible()).resolves.toBe(false);
    await page.emulateMedia({ media: 'screen' });
  });

  it('has no serious accessibility violations on these pages, light and dark (screenshots in the temp dir)', async () => {
    const context = await browser.newContext({
      bypassCSP: true,
      storageState: await page.context().storageState(),
      viewport: { width: 1280, height: 900 },
    });
    const tab = await context.newPage();
    const pages = {
      list: `${project}/notifications`,
      new: `${project}/notifications/new?type=webhook`,
      detail: `${project}/notifications/team-hook`,
      deliveries: `${project}/notifications/team-hook/deliveries`,
      delivery: deliveryUrl,
      reports: `${project}/reports`,
      report: reportUrl,
      weekly: '/org/acme/reports',
    };
    const found: Record<string, unknown> = {};
    for (const colorScheme of ['light', 'dark'] as const) {
      await tab.emulateMedia({ colorScheme });
      for (const [name, url] of Object.entries(pages)) {
        await tab.goto(`${server.baseUrl}${url}`);
        await tab.screenshot({
          path: path.join(os.tmpdir(), `h19d-${name}-${colorScheme}.png`),
          fullPage: true,
        });
        const violations = await seriousAxeViolations(tab);
        if (violations.length) found[`${colorScheme} ${url}`] = violations;
      }
    }
    await context.close();
    expect(found).toEqual({});
  });
});
