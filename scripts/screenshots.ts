/**
 * `npm run screenshots`: the main pages of a fresh install (the bundled sample catalog, a first
 * administrator, a second member, a token) in Debian's Chromium, light and dark, written to
 * docs/screenshots/ for the README. Needs `apt-get install -y chromium`.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, startServer } from '../test/helpers/browser.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'docs', 'screenshots');

const PAGES = [
  { name: 'cve-list', url: '/cves?search=log4j' },
  { name: 'cve-detail', url: '/cves/CVE-2021-44228' },
  { name: 'vendors', url: '/vendors?search=apache' },
  { name: 'statistics', url: '/statistics' },
  { name: 'members', url: '/org/acme/members' },
  { name: 'tokens', url: '/org/acme/tokens' },
  { name: 'audit-log', url: '/org/acme/audit' },
  { name: 'sign-in', url: '/login', anonymous: true },
];

const server = await startServer();
const browser = await launchBrowser();
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  await page.goto(server.setupLink);
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Email').fill('alice@example.com');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByLabel('Organization').fill('acme');
  await page.getByRole('button', { name: 'Create and sign in' }).click();
  await page.waitForURL(/\/cves/);
  const anonymous = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  for (const scheme of ['light', 'dark'] as const) {
    for (const p of PAGES) {
      const tab = p.anonymous ? anonymous : page;
      await tab.emulateMedia({ colorScheme: scheme });
      await tab.goto(`${server.baseUrl}${p.url}`);
      // The statistics of the sample are computed once it has loaded: wait for them.
      for (
        let i = 0;
        p.name === 'statistics' && i < 30 && (await tab.content()).includes('Nothing to show yet');
        i++
      ) {
        await new Promise((r) => setTimeout(r, 1000));
        await tab.reload();
      }
      const file = path.join(out, `${p.name}-${scheme}.png`);
      await tab.screenshot({ path: file });
      console.error(`wrote ${path.relative(root, file)}`);
    }
  }
} finally {
  await browser.close();
  await server.stop();
}
