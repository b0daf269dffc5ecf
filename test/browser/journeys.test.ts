/**
 * What a new team does in its first hour, in a real browser against a real server: the first
 * administrator from the printed link, signing in, finding Log4Shell.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  chromiumPath,
  launchBrowser,
  seriousAxeViolations,
  startServer,
  type TestServer,
} from '../helpers/browser.ts';

const chromium = chromiumPath();
if (!chromium)
  console.warn('browser journeys SKIPPED: Chromium is not installed (apt-get install -y chromium)');

describe.skipIf(!chromium)('browser journeys', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('creates the first administrator from the link serve printed, then signs out and in again', async () => {
    await page.goto(server.setupLink);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Email').fill('alice@example.com');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByLabel('Organization').fill('acme');
    await page.getByRole('button', { name: 'Create and sign in' }).click();
    await page.waitForURL(/\/cves/);
    await expect(page.locator('summary[aria-label=Account]').textContent()).resolves.toBe('alice');

    await page.locator('summary[aria-label=Account]').click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login/);
    await page.getByLabel('Username or email').fill('alice@example.com');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/cves/);
  });

  it('has no serious accessibility violations on the sign-in page, light and dark', async () => {
    const context = await browser.newContext({ bypassCSP: true });
    const anonymous = await context.newPage();
    for (const colorScheme of ['light', 'dark'] as const) {
      await anonymous.emulateMedia({ colorScheme });
      await anonymous.goto(`${server.baseUrl}/login`);
      expect(await seriousAxeViolations(anonymous)).toEqual([]);
    }
    await context.close();
  });
});
