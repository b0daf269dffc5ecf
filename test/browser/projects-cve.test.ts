/**
 * One CVE in a project, in a real browser against a real server: a comment written in Markdown,
 * rendered, edited; the "why" panel naming the subscribed key that matched, on the project's page
 * of the CVE and on the catalog CVE page; no serious accessibility violation, light and dark.
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
  acmeApi,
} from '../helpers/browser.ts';

const chromium = chromiumPath();
if (!chromium)
  console.warn('browser journeys SKIPPED: Chromium is not installed (apt-get install -y chromium)');

/** Where screenshots go when SCREENSHOTS_DIR is set (to look at the pages). */
const shots = process.env.SCREENSHOTS_DIR;

describe.skipIf(!chromium)('browser: a CVE in a project', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const cvePage = () => `${server.baseUrl}/org/acme/projects/web/cves/CVE-2021-44228`;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await createFirstAdmin(page, server);
    // The project, through API v2 with a token made on the tokens page.
    const call = await acmeApi(page, server);
    expect((await call('POST', '/projects', { name: 'web' })).status).toBe(201);
    expect(
      (await call('PUT', '/projects/web/subscriptions', { vendors: ['apache'], products: {} })).status,
    ).toBe(200);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('adds a comment in Markdown and shows it rendered', async () => {
    await page.goto(cvePage());
    await page
      .getByLabel('Add a comment')
      .fill('**Patched** in `2.17.1` <b>not bold</b>\n\n- upgrade the jars');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.waitForURL(/done=commented/);
    const comment = page.locator('li.comment').first();
    await expect(comment.locator('.comment-body strong').textContent()).resolves.toBe('Patched');
    await expect(comment.locator('.comment-body code').textContent()).resolves.toBe('2.17.1');
    await expect(comment.locator('.comment-body li').textContent()).resolves.toBe('upgrade the jars');
    await expect(comment.locator('.comment-body b').count()).resolves.toBe(0);
    await expect(comment.locator('.comment-body').textContent()).resolves.toContain('<b>not bold</b>');
  });

  it('edits the comment in place, marked edited', async () => {
    const comment = page.locator('li.comment').first();
    await comment.getByText('Edit', { exact: true }).click();
    await comment.getByLabel('Comment').fill('Patched in **2.17.1**; all hosts done.');
    await comment.getByRole('button', { name: 'Save comment' }).click();
    await page.waitForURL(/done=edited/);
    const edited = page.locator('li.comment').first();
    await expect(edited.locator('.comment-body strong').textContent()).resolves.toBe('2.17.1');
    await expect(edited.locator('.comment-head').textContent()).resolves.toContain('edited');
  });

  it('names the subscribed key that matched, on the project page and the catalog page', async () => {
    await page.goto(cvePage());
    const why = page.locator('#why');
    await expect(why.locator('h2').textContent()).resolves.toBe('Why this CVE is in this project');
    await expect(why.locator('table.match-keys').first().textContent()).resolves.toMatch(
      /apache\s*\(vendor\)/,
    );
    await page.goto(`${server.baseUrl}/cves/CVE-2021-44228`);
    const panel = page.locator('#projects');
    await expect(panel.textContent()).resolves.toMatch(/web\s*in the project/);
    await expect(panel.textContent()).resolves.toMatch(/Matched apache \(vendor\)/);
    await panel.getByRole('link', { name: 'web', exact: true }).click();
    await page.waitForURL(/\/org\/acme\/projects\/web\/cves\/CVE-2021-44228$/);
  });

  it('has no serious accessibility violations, light and dark', async () => {
    const context = await browser.newContext({
      bypassCSP: true,
      storageState: await page.context().storageState(),
      viewport: { width: 1280, height: 900 },
    });
    const tab = await context.newPage();
    const pages = {
      'project-cve': '/org/acme/projects/web/cves/CVE-2021-44228',
      'project-cve-not-in': '/org/acme/projects/web/cves/CVE-2024-3094',
      'catalog-cve': '/cves/CVE-2021-44228#projects',
    };
    const found: Record<string, unknown> = {};
    for (const colorScheme of ['light', 'dark'] as const) {
      await tab.emulateMedia({ colorScheme });
      for (const [name, url] of Object.entries(pages)) {
        await tab.goto(`${server.baseUrl}${url}`);
        if (shots) {
          await tab.screenshot({ path: `${shots}/${name}-${colorScheme}.png`, fullPage: true });
          if (name === 'catalog-cve')
            await tab
              .locator('#projects')
              .screenshot({ path: `${shots}/catalog-projects-${colorScheme}.png` });
        }
        const violations = await seriousAxeViolations(tab);
        if (violations.length) found[`${colorScheme} ${url}`] = violations;
      }
    }
    await context.close();
    expect(found).toEqual({});
  });
});
