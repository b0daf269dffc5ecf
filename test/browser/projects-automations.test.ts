/**
 * The automations builder in a real browser against a real server (the bundled sample catalog, its
 * CVEs recorded as they were loaded): an owner builds an automation with a nested OR group with the
 * builder's buttons, dry-runs the unsaved configuration and sees the CVEs it would have matched,
 * saves it (API v2 reads back the same tree), dry-runs the saved one, runs a report automation now
 * and reads its execution; then an axe-core pass of the automations pages, light and dark.
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

const chromium = chromiumPath();
if (!chromium)
  console.warn('browser journeys SKIPPED: Chromium is not installed (apt-get install -y chromium)');

const LOG4J = 'CVE-2021-44228';

describe.skipIf(!chromium)('browser: project automations', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let token: string;
  let base: string;

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${server.baseUrl}/api/v2/organizations/acme${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    base = `${server.baseUrl}/org/acme/projects/web/automations`;
    await createFirstAdmin(page, server);
    // A project subscribed to apache, with a webhook notification, through API v2.
    await page.goto(`${server.baseUrl}/org/acme/tokens`);
    await page.getByLabel('Name').fill('setup');
    await page.getByLabel('Mode').selectOption('write');
    await page.getByRole('button', { name: 'Create token' }).click();
    token = await page.locator('#new-token').inputValue();
    expect((await api('POST', '/projects', { name: 'web' })).status).toBe(201);
    expect((await api('PUT', '/projects/web/subscriptions', { vendors: ['apache'] })).status).toBe(200);
    const hook = await api('POST', '/projects/web/notifications', {
      name: 'hook',
      type: 'webhook',
      configuration: { url: 'https://hooks.example.org/in' },
    });
    expect(hook.status).toBe(201);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const rows = (p: Page) => p.locator('.ab-dry-run tbody tr td:first-child a').allTextContents();

  it('builds an automation with a nested OR group, dry-runs it unsaved, and saves it', async () => {
    await page.goto(`${base}/new`);
    await page.getByLabel('Name').fill('critical apache');
    // The plain form's spare rows are gone: the island's buttons add rows.
    await expect(page.locator('.ab-root [data-leaf]').count()).resolves.toBe(0);
    await page.locator('.ab-root > .ab-tools button[data-add="leaf"]').click();
    await page.locator('select[name="cond.0.type"]').selectOption('vendor_equals');
    await expect(page.locator('select[name="cond.0.version"]').isVisible()).resolves.toBe(false);
    await page.locator('input[name="cond.0.value"]').fill('apache');
    await page.locator('.ab-root > .ab-tools button[data-add="group"]').click();
    await expect(page.locator('select[name="cond.1.op"]').inputValue()).resolves.toBe('OR');
    await page.locator('select[name="cond.1.0.type"]').selectOption('cvss_gte');
    await page.locator('select[name="cond.1.0.version"]').selectOption('3.1');
    await page.locator('input[name="cond.1.0.value"]').fill('9');
    const group = page.locator('.ab-root > [data-children] > .ab-group');
    await group.locator(':scope > .ab-tools button[data-add="leaf"]').click();
    await page.locator('select[name="cond.1.1.type"]').selectOption('kev_present');
    // KEV, a status and a notification are picked from lists, not typed.
    await expect(page.locator('input[name="cond.1.1.value"]').isVisible()).resolves.toBe(false);
    await page.locator('select[name="cond.1.1.value"][data-kind="kev"]').selectOption('yes');
    await page.locator('.ab-actions button[data-add="action"]').click();
    await page.locator('select[name="act.0.type"]').selectOption('send_notification');
    await expect(page.locator('input[name="act.0.value"]').isVisible()).resolves.toBe(false);
    await expect(
      page.locator('select[name="act.0.value"][data-kind="notification"] option').allTextContents(),
    ).resolves.toEqual(['Choose…', 'hook']);
    await page.locator('select[name="act.0.value"][data-kind="notification"]').selectOption('hook');

    await page.getByRole('button', { name: 'Dry run (last 7 days)' }).click();
    await page.waitForLoadState();
    const summary = (await page.locator('.ab-dry-run [role=status]').textContent()) ?? '';
    const n = Number(/would have matched (\d+) CVE/.exec(summary)?.[1]);
    expect(n).toBeGreaterThan(0);
    expect(await rows(page)).toContain(LOG4J);
    // Nothing was saved, and the builder still holds the nested group.
    expect((await api('GET', '/projects/web/automations')).body.count).toBe(0);
    await expect(page.locator('select[name="cond.1.op"]').inputValue()).resolves.toBe('OR');
    await page.screenshot({ path: '/tmp/h19e-builder-dry-run-light.png', fullPage: true });

    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.waitForURL(/\/automations\/critical%20apache\?done=created$/);
    await expect(page.locator('main').textContent()).resolves.toContain('The automation was created.');
    const saved = await api('GET', '/projects/web/automations/critical%20apache');
    expect(saved.body.configuration).toEqual({
      triggers: ['cve_enters_project'],
      conditions: {
        operator: 'AND',
        children: [
          { type: 'vendor_equals', value: 'apache' },
          {
            operator: 'OR',
            children: [{ type: 'cvss_gte', value: { version: '3.1', value: 9 } }, { type: 'kev_present' }],
          },
        ],
      },
      actions: [{ type: 'send_notification', value: 'hook' }],
    });

    // The saved automation's dry run: the same CVEs.
    await page.getByRole('link', { name: 'Dry run' }).click();
    await page.waitForURL(/\/dry-run$/);
    await expect(page.locator('.ab-dry-run [role=status]').textContent()).resolves.toContain(
      `would have matched ${n} CVE`,
    );
    expect(await rows(page)).toContain(LOG4J);
  });

  it('edits it back in the builder and removes the group', async () => {
    await page.goto(`${base}/critical%20apache/edit`);
    await expect(page.locator('select[name="cond.1.1.type"]').inputValue()).resolves.toBe('kev_present');
    await page.locator('.ab-root > [data-children] > .ab-group > .ab-tools button[data-remove]').click();
    await expect(page.locator('select[name="cond.1.op"]').count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\?done=saved$/);
    const saved = await api('GET', '/projects/web/automations/critical%20apache');
    expect((saved.body.configuration as { conditions: unknown }).conditions).toEqual({
      operator: 'AND',
      children: [{ type: 'vendor_equals', value: 'apache' }],
    });
  });

  it('runs a report automation made from the weekly template, and shows its execution', async () => {
    await page.goto(`${base}/new?template=weekly`);
    await expect(page.locator('.ab-triggers').isVisible()).resolves.toBe(false);
    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.waitForURL(/\/automations\/Weekly%20summary\?done=created$/);
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.waitForURL(/\/executions\/[0-9a-f-]{36}\?done=ran$/);
    const results = await page.locator('table.ab-results tbody tr').allTextContents();
    expect(results[0]).toMatch(/Report generated\s*success/);
    // The period runs from the project's creation, after the sample was loaded: nothing changed since.
    expect(results[1]).toMatch(/Notification sent\s*skipped\s*reason: no changes in the period/);
  });

  it('has no serious accessibility violations on the automations pages, light and dark', async () => {
    const context = await browser.newContext({
      bypassCSP: true,
      storageState: await page.context().storageState(),
    });
    const tab = await context.newPage();
    const execution = page.url().replace(server.baseUrl, '').split('?')[0]!;
    const pages = [
      '/org/acme/projects/web/automations',
      '/org/acme/projects/web/automations/new?template=critical',
      '/org/acme/projects/web/automations/critical%20apache',
      '/org/acme/projects/web/automations/critical%20apache/edit?view=json',
      '/org/acme/projects/web/automations/critical%20apache/dry-run',
      execution,
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
});
