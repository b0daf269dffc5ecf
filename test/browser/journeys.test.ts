/**
 * What a new team does in its first hour, in a real browser against a real server: the first
 * administrator from the printed link, signing in, finding Log4Shell, inviting a colleague who joins
 * from the emailed link, a read-only token seen once, used and revoked, and the audit log of it all.
 * The tests run in order and build on each other, as the team's hour does.
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
    await page.waitForURL(/\/org\/acme\/overview$/);
    await expect(page.locator('#account-menu .menu-name').textContent()).resolves.toBe('alice');

    await page.locator('#account-menu').click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login/);
    await page.getByLabel('Username or email').fill('alice@example.com');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Signing in lands on the organization's home, not the whole catalog.
    await page.waitForURL(/\/org\/acme\/overview$/);
    await expect(page.locator('h1').textContent()).resolves.toBe('acme');
    await expect(page.locator('#org-assigned').textContent()).resolves.toBe('Assigned to you');
  });

  it('shows the statistics of the sample, computed once it has loaded', async () => {
    await expect
      .poll(
        async () => {
          await page.goto(`${server.baseUrl}/statistics`);
          const text = (await page.locator('main').textContent()) ?? '';
          return Number(/Published CVEs\s*([\d,]+)/.exec(text)?.[1]?.replace(/,/g, '') ?? 0);
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toBeGreaterThan(6_000);
  });

  it("finds Log4Shell: / focuses the search box, log4j opens Apache's Log4j product list, the CVE page opens", async () => {
    // On the CVE list, / focuses its query box: the page's one search box.
    await page.goto(`${server.baseUrl}/cves`);
    await page.keyboard.press('/');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('f-q');
    // From the home, the header's box.
    await page.goto(`${server.baseUrl}/`);
    await page.keyboard.press('/');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('global-search');
    await page.keyboard.type('log4j');
    await page.keyboard.press('Enter');
    // The CNA names the product "Log4j" (a key minted from its words): one vendor has it, so the box opens it.
    await page.waitForURL(/\/cves\?vendor=apache&product=log4j$/);
    await page.getByRole('link', { name: 'CVE-2021-44228', exact: true }).first().click();
    await page.waitForURL(/\/cves\/CVE-2021-44228$/);
    await expect(page.locator('h1').first().textContent()).resolves.toContain('CVE-2021-44228');
    await expect(page.locator('main').textContent()).resolves.toMatch(/Log4j/);
  });

  it('carries at most 60 KB of JavaScript over sign-in, search and a CVE; the query builder loads when opened', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const fresh = await context.newPage();
    const scripts = new Map<string, number>();
    fresh.on('response', (response) => {
      if (response.request().resourceType() !== 'script') return;
      void response.body().then((body) => scripts.set(response.url(), body.length));
    });
    await fresh.goto(`${server.baseUrl}/login`);
    await fresh.getByLabel('Username or email').fill('alice');
    await fresh.getByLabel('Password').fill('correct horse battery');
    await fresh.getByRole('button', { name: 'Sign in' }).click();
    await fresh.waitForURL(/\/org\/acme\/overview$/);
    await fresh.locator('#global-search').fill('log4j');
    await fresh.keyboard.press('Enter');
    await fresh.waitForURL(/\/cves\?/);
    await fresh.getByRole('link', { name: 'CVE-2021-44228', exact: true }).first().click();
    await fresh.waitForURL(/\/cves\/CVE-2021-44228$/);
    await fresh.waitForLoadState('networkidle');
    const bytes = [...scripts.values()].reduce((a, b) => a + b, 0);
    expect(scripts.size).toBeGreaterThan(0);
    expect(bytes, [...scripts.keys()].join('\n')).toBeLessThanOrEqual(60 * 1024);
    expect([...scripts.keys()].some((url) => url.includes('query-builder'))).toBe(false);

    // The builder, opened on the list, loads and draws its controls.
    await fresh.goto(`${server.baseUrl}/cves`);
    await fresh.getByText('Build the query from lists').click();
    await expect
      .poll(() => fresh.locator('#query-builder').getByRole('button', { name: 'Add condition' }).count())
      .toBe(1);
    await context.close();
  });

  it('invites a colleague, who signs up from the emailed link and joins', async () => {
    await page.goto(`${server.baseUrl}/org/acme/members`);
    await page.getByLabel('Email').fill('bob@example.com');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.waitForLoadState();
    await expect.poll(() => server.smtp.messages.length, { timeout: 30_000 }).toBeGreaterThan(0);
    const mail = server.smtp.messages.find((m) => m.to.includes('bob@example.com'));
    expect(mail).toBeTruthy();
    const link = /https?:\/\/\S+\/invitations\/[A-Za-z0-9_-]+/.exec(mail!.mail.text ?? '')?.[0];
    expect(link).toBeTruthy();

    const bobContext = await browser.newContext();
    const bob = await bobContext.newPage();
    await bob.goto(link!);
    await bob.getByLabel('Username').fill('bob');
    await bob.getByLabel('Password').fill('another good password');
    await bob.getByRole('button', { name: 'Create my account and join' }).click();
    await bob.waitForLoadState();
    await expect(bob.locator('#account-menu .menu-name').textContent()).resolves.toBe('bob');
    await bob.goto(`${server.baseUrl}/org/acme/members`);
    expect(bob.url()).toMatch(/\/org\/acme\/members$/);
    await expect(bob.locator('main').textContent()).resolves.toContain('bob@example.com');
    await bobContext.close();
  });

  it('creates a read-only token, shows it once, and the token works against API v2 until revoked', async () => {
    await page.goto(`${server.baseUrl}/org/acme/tokens`);
    await page.getByLabel('Name').fill('dashboard');
    await page.getByLabel('Mode').selectOption('read');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = await page.locator('#new-token').inputValue();
    expect(token).toMatch(/^vtr_org\./);
    await expect(page.locator('#new-token-curl').inputValue()).resolves.toContain(token);

    const call = (method: string, url: string, body?: unknown) =>
      fetch(`${server.baseUrl}${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    expect((await call('GET', '/api/v2/organizations/acme')).status).toBe(200);
    const write = await call('POST', '/api/v2/organizations/acme/projects', { name: 'nope' });
    expect(write.status).toBe(403);

    // Shown once: the list never shows the secret again.
    await page.goto(`${server.baseUrl}/org/acme/tokens`);
    expect(await page.content()).not.toContain(token);
    page.once('dialog', (dialog) => void dialog.accept());
    await page
      .getByRole('row', { name: /dashboard/ })
      .getByRole('button', { name: 'Revoke' })
      .click();
    await page.waitForLoadState();
    await expect.poll(async () => (await call('GET', '/api/v2/organizations/acme')).status).toBe(401);
  });

  it('shows every step in the audit log', async () => {
    await page.goto(`${server.baseUrl}/org/acme/audit`);
    const text = (await page.locator('main').textContent()) ?? '';
    for (const action of [
      'organization.create',
      'member.create',
      'member.join',
      'token.create',
      'token.revoke',
    ]) {
      expect(text).toContain(action);
    }
  });

  it('has no serious accessibility violations on the main pages, light and dark', async () => {
    const context = await browser.newContext({
      bypassCSP: true,
      storageState: await page.context().storageState(),
    });
    const tab = await context.newPage();
    const pages = [
      '/cves?search=log4j',
      '/cves/CVE-2021-44228',
      '/vendors',
      '/weaknesses',
      '/statistics',
      '/org/acme',
      '/org/acme/members',
      '/org/acme/tokens',
      '/org/acme/audit',
      '/account',
      '/account/security',
    ];
    const found: Record<string, unknown> = {};
    for (const colorScheme of ['light', 'dark'] as const) {
      await tab.emulateMedia({ colorScheme });
      for (const url of pages) {
        await tab.goto(`${server.baseUrl}${url}`);
        const violations = await seriousAxeViolations(tab);
        if (violations.length) found[`${colorScheme} ${url}`] = violations;
      }
    }
    await context.close();
    expect(found).toEqual({});
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
