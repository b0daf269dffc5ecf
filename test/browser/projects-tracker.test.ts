/**
 * The project tracker in a real browser against a real server (the bundled sample catalog): keyboard
 * triage (j/k/x, s, Escape), an inline status change swapped by htmx, a bulk edit that assigns 20 CVEs
 * and sets their status in one action and shows up as one audit entry listing them, and an axe pass of
 * the tracker in light and dark. The tests run in order and build on each other.
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
  console.warn('browser tracker journey SKIPPED: Chromium is not installed (apt-get install -y chromium)');

describe.skipIf(!chromium)('browser: the project tracker', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let tracker: string;

  const rowIds = () => page.locator('table.tracker tbody tr[data-row] a[data-open]').allTextContents();
  const currentId = () => page.locator('table.tracker tbody tr.current a[data-open]').textContent();
  /** Waits until htmx has swapped and settled what it was answered (a key pressed before acts on the old row). */
  const settled = () =>
    page.waitForFunction(() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling'));

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('sets up an organization with a project subscribed to two vendors of the sample', async () => {
    await createFirstAdmin(page, server);
    // The project through API v2 (its onboarding pages are another area's).
    const call = await acmeApi(page, server);
    // The sample loads in the background: wait until its vendors are known.
    await expect
      .poll(async () => (await call('POST', '/projects', { name: 'triage' })).status, { timeout: 90_000 })
      .toBe(201);
    await expect
      .poll(
        async () =>
          (await call('PUT', '/projects/triage/subscriptions', { vendors: ['microsoft', 'fortinet'] }))
            .status,
        { timeout: 90_000, interval: 1_000 },
      )
      .toBe(200);
    tracker = `${server.baseUrl}/org/acme/projects/triage/cves`;
  }, 200_000);

  it('moves with j and k, selects with x, focuses the status with s and goes back with Escape', async () => {
    await page.goto(`${tracker}?ordering=cve_id`);
    const ids = await rowIds();
    expect(ids.length).toBe(25);
    await page.keyboard.press('j');
    await expect(currentId()).resolves.toBe(ids[0]);
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await expect(currentId()).resolves.toBe(ids[2]);
    await page.keyboard.press('k');
    await expect(currentId()).resolves.toBe(ids[1]);
    await page.keyboard.press('x');
    await expect(page.locator(`tr#row-${ids[1]} input[data-select]`).isChecked()).resolves.toBe(true);
    await expect(page.locator('[data-selected-count]').textContent()).resolves.toBe('1');
    await page.keyboard.press('x');
    await expect(page.locator('[data-selected-count]').textContent()).resolves.toBe('0');
    await page.keyboard.press('s');
    await expect(page.evaluate(() => document.activeElement?.getAttribute('data-triage'))).resolves.toBe(
      'status',
    );
    await page.keyboard.press('Escape');
    await page.keyboard.press('a');
    await expect(page.evaluate(() => document.activeElement?.getAttribute('data-triage'))).resolves.toBe(
      'assignee',
    );
    await page.keyboard.press('Escape');
    await page.keyboard.press('?');
    await expect(page.locator('dialog#shortcuts').textContent()).resolves.toContain('Next CVE');
    await page.keyboard.press('Escape');
  });

  it('saves a status chosen with the keyboard once: arrows only choose, Enter saves, a digit saves at once, Escape undoes', async () => {
    await page.goto(`${tracker}?ordering=cve_id`);
    const ids = await rowIds();
    const moves: string[] = [];
    const count = (r: { url(): string; method(): string }) => {
      if (r.method() === 'POST' && r.url().endsWith('/move')) moves.push(r.url());
    };
    page.on('request', count);
    try {
      const status = (id: string) => page.locator(`tr#row-${id} select[data-triage=status]`);
      // Row 4: five arrow presses write nothing; Enter writes once.
      for (let i = 0; i < 4; i++) await page.keyboard.press('j');
      await expect(currentId()).resolves.toBe(ids[3]);
      await page.keyboard.press('s');
      for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowDown');
      const chosen = await status(ids[3]!).inputValue();
      expect(chosen).not.toBe('');
      await page.waitForTimeout(300);
      expect(moves).toEqual([]);
      const saved = page.waitForResponse((r) => r.url().endsWith(`/cves/${ids[3]}/move`));
      await page.keyboard.press('Enter');
      expect((await saved).status()).toBe(200);
      await settled();
      expect(moves.length).toBe(1);

      // Row 5: a digit picks that choice and saves at once.
      await page.keyboard.press('Escape');
      await page.keyboard.press('j');
      await expect(currentId()).resolves.toBe(ids[4]);
      await page.keyboard.press('s');
      const digit = page.waitForResponse((r) => r.url().endsWith(`/cves/${ids[4]}/move`));
      await page.keyboard.press('2');
      expect((await digit).status()).toBe(200);
      await settled();
      expect(moves.length).toBe(2);
      const second = await page
        .locator(`tr#row-${ids[4]} select[data-triage=status] option`)
        .nth(2)
        .getAttribute('value');

      // Row 6: arrows then Escape undo the choice; leaving the row saves nothing.
      await page.keyboard.press('Escape');
      await page.keyboard.press('j');
      await page.keyboard.press('s');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Escape');
      await page.keyboard.press('j');
      await page.waitForTimeout(300);
      expect(moves.length).toBe(2);

      await page.reload();
      await expect(status(ids[3]!).inputValue()).resolves.toBe(chosen);
      await expect(status(ids[4]!).inputValue()).resolves.toBe(second);
      await expect(status(ids[5]!).inputValue()).resolves.toBe('');
    } finally {
      page.off('request', count);
    }
  });

  it('changes one status inline: htmx swaps the row, the change is kept', async () => {
    await page.goto(`${tracker}?ordering=cve_id`);
    const [first] = await rowIds();
    const swapped = page.waitForResponse((r) => r.url().endsWith(`/cves/${first}/move`));
    await page.locator(`tr#row-${first} select[data-triage=status]`).selectOption('to_evaluate');
    expect((await swapped).status()).toBe(200);
    await page.reload();
    await expect(page.locator(`tr#row-${first} select[data-triage=status]`).inputValue()).resolves.toBe(
      'to_evaluate',
    );
  });

  it('assigns 20 CVEs and sets their status in one action, and the audit log shows one entry listing them', async () => {
    await page.goto(`${tracker}?ordering=cve_id`);
    await page.locator('input[data-select-all]').check();
    await expect(page.locator('[data-selected-count]').textContent()).resolves.toBe('25');
    const ids = await rowIds();
    for (const id of ids.slice(20)) await page.locator(`tr#row-${id} input[data-select]`).uncheck();
    await expect(page.locator('[data-selected-count]').textContent()).resolves.toBe('20');
    const chosen = ids.slice(0, 20);
    await page.locator('#f-set_status').selectOption('analysis_in_progress');
    await page.locator('#f-set_assignee').selectOption('alice@example.com');
    await page.getByRole('button', { name: 'Apply to the CVEs' }).click();
    await page.waitForURL(/done=bulk/);
    await expect(
      page.locator('.notice:not([data-freshness-banner])').first().textContent(),
    ).resolves.toContain('The CVEs are updated.');
    for (const id of chosen)
      await expect(page.locator(`tr#row-${id} select[data-triage=status]`).inputValue()).resolves.toBe(
        'analysis_in_progress',
      );
    for (const id of ids.slice(20))
      await expect(page.locator(`tr#row-${id} select[data-triage=assignee]`).inputValue()).resolves.toBe('');
    await page.screenshot({ path: '/tmp/h19b-tracker-after-bulk.png', fullPage: false });

    await page.goto(`${server.baseUrl}/org/acme/audit`);
    const entries = page.locator('table tbody tr', { hasText: 'tracker_entry.bulk_update' });
    await expect(entries.count()).resolves.toBe(1);
    const text = (await entries.first().textContent()) ?? '';
    for (const id of chosen) expect(text).toContain(id);
    for (const id of ids.slice(20)) expect(text).not.toContain(id);
    expect(text).toContain('Analysis in progress'); // statuses in words, not their keys
    expect(text).not.toContain('analysis_in_progress');
    expect(text).toContain('alice@example.com');
    await page.screenshot({ path: '/tmp/h19b-audit.png', fullPage: false });
  });

  it('has no serious accessibility violations on the tracker, light and dark', async () => {
    const context = await browser.newContext({
      bypassCSP: true,
      storageState: await page.context().storageState(),
      viewport: { width: 1366, height: 900 },
    });
    const tab = await context.newPage();
    const found: Record<string, unknown> = {};
    for (const colorScheme of ['light', 'dark'] as const) {
      await tab.emulateMedia({ colorScheme });
      for (const url of ['?ordering=cve_id', '?status=fixed', '?status=analysis_in_progress']) {
        await tab.goto(`${tracker}${url}`);
        const violations = await seriousAxeViolations(tab);
        if (violations.length) found[`${colorScheme} ${url}`] = violations;
      }
    }
    await context.close();
    expect(found).toEqual({});
  });
});
