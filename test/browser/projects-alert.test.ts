/**
 * The alert path end to end, as issue 19 asks: a new organization's owner onboards a project
 * subscribed to `atlassian` with a webhook alert (a real receiver on loopback) and a weekly report,
 * widens the alert to every new CVE in the automations builder's JSON view, then the real upstream
 * commit that adds CVE-2021-41309 (a medium Jira CVE) is imported through the command line, handed to
 * the running server. The CVE appears in the dashboard's feed and in the tracker, the server's own job
 * worker posts the alert to the receiver, the delivery log shows it delivered, and the "why" panel
 * names the subscribed key that matched.
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
  startServer,
  type TestServer,
  createFirstAdmin,
} from '../helpers/browser.ts';
import { startReceiver, type Receiver } from '../notifications/receivers.ts';

const chromium = chromiumPath();
if (!chromium) console.warn('alert journey SKIPPED: Chromium is not installed (apt-get install -y chromium)');

const CVE = 'CVE-2021-41309';

describe.skipIf(!chromium)('browser journey: from onboarding to the alert of a new CVE', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let receiver: Receiver;
  let dataDir: string;
  const project = () => `${server.baseUrl}/org/acme/projects/jira`;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'vulntrack-alert-journey-'));
    receiver = await startReceiver();
    [server, browser] = await Promise.all([
      startServer({ VULNTRACK_DATA_DIR: dataDir, OUTBOUND_ALLOW_PRIVATE: 'true' }),
      launchBrowser(),
    ]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await createFirstAdmin(page, server);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('onboards a project subscribed to atlassian with a webhook alert and a weekly report', async () => {
    await page.goto(`${server.baseUrl}/org/acme/new-project`);
    await page.getByLabel('Name', { exact: true }).fill('jira');
    await page.getByRole('button', { name: 'Next: vendors and products' }).click();
    await page.waitForURL(/\/new-project\/vendors$/);
    await page.getByLabel('Find a vendor or product').pressSequentially('atlassian', { delay: 20 });
    const add = page.getByRole('button', { name: 'Add Atlassian', exact: true });
    await add.waitFor({ timeout: 15_000 });
    await add.click();
    await page.getByRole('button', { name: 'Remove Atlassian', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Next: alerts and report' }).click();
    await page.waitForURL(/\/new-project\/alerts$/);
    await page.getByRole('radio', { name: 'Webhook' }).check();
    await page.getByLabel('Email address or webhook URL').fill(`${receiver.base}/alerts`);
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(/\/org\/acme\/projects\/jira\?done=created$/);
  });

  it('widens the alert to every new CVE in the builder, as JSON', async () => {
    await page.goto(`${project()}/automations/new-critical-or-kev-cve/edit?view=json`);
    const text = page.locator('#f-configuration');
    const configuration = JSON.parse(await text.inputValue()) as Record<string, unknown>;
    expect(configuration.triggers).toBeTruthy();
    delete configuration.conditions;
    await text.fill(JSON.stringify(configuration, null, 2));
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/automations\/new-critical-or-kev-cve(\?|$)/);
    await page.goto(`${project()}/automations/new-critical-or-kev-cve/edit?view=json`);
    const saved = JSON.parse(await page.locator('#f-configuration').inputValue()) as {
      conditions?: unknown;
      triggers: string[];
    };
    // No condition left: every CVE the triggers fire for.
    const none = { operator: 'AND', children: [] };
    expect(saved.conditions ?? none).toEqual(none);
    expect(saved.triggers).toEqual(['cve_enters_project', 'kev_added', 'cvss_increased']);
  });

  it('imports the upstream commit that adds CVE-2021-41309: feed, tracker, alert, delivery log, why', async () => {
    const { commits } = await loadHistory();
    const line = commits.flatMap((c) => c.lines).find((l) => cveIdOf(l.record) === CVE)!;
    expect(line.change).toBe('A');
    const file = path.join(os.tmpdir(), `${path.basename(dataDir)}-${CVE}.json`);
    await fs.writeFile(file, JSON.stringify(line.record));
    try {
      const imported = await runCli(['import', 'cve5', file], {
        VULNTRACK_DATA_DIR: dataDir,
        DATABASE_URL: '',
      });
      expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    } finally {
      await fs.rm(file, { force: true });
    }

    // The dashboard's feed and the tracker list it.
    await page.goto(project());
    await expect(page.locator('.dash-feed').textContent()).resolves.toContain(CVE);
    await page.goto(`${project()}/cves`);
    await expect(page.getByRole('link', { name: CVE, exact: true }).count()).resolves.toBe(1);

    // The server's job worker matched it and posted the alert to the receiver.
    await expect
      .poll(() => receiver.requests.filter((r) => r.path === '/alerts' && r.body.includes(CVE)).length, {
        timeout: 90_000,
        interval: 500,
      })
      .toBeGreaterThan(0);
    const alert = receiver.requests.find((r) => r.path === '/alerts' && r.body.includes(CVE))!;
    expect(alert.headers['webhook-signature']).toMatch(/^v1,/);

    // The notification's delivery log shows it delivered (the receiver answered 200).
    await page.goto(`${project()}/notifications/critical-or-kev/deliveries`);
    await expect(page.locator('main table .badge.ok').first().textContent()).resolves.toMatch(/succeeded/i);

    // The why panel names the subscribed key that matched.
    await page.goto(`${project()}/cves/${CVE}`);
    const why = page.locator('#why');
    await expect(why.locator('h2').textContent()).resolves.toBe('Why this CVE is in this project');
    await expect(why.textContent()).resolves.toContain('atlassian');
  });
});
