/**
 * `npm run screenshots [-- --all --out DIR]`: the pages of a fresh install (the bundled sample
 * catalog, a first administrator, an invitation, a token) in Debian's Chromium, light and dark.
 * Without `--all`, the main pages, written to docs/screenshots/ for the README; with `--all`, every
 * page of the web UI (for review), to `--out` (default bench/.work/screenshots). Needs
 * `apt-get install -y chromium`.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launchBrowser, startServer } from '../test/helpers/browser.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { all: { type: 'boolean' }, out: { type: 'string' } } });
const out = values.out
  ? path.resolve(values.out)
  : values.all
    ? path.join(root, 'bench', '.work', 'screenshots')
    : path.join(root, 'docs', 'screenshots');

interface Shot {
  name: string;
  url: string;
  /** Seen signed out. */
  anonymous?: boolean;
  /** Only with --all. */
  review?: boolean;
}

const PAGES: Shot[] = [
  { name: 'cve-list', url: '/cves?search=log4j' },
  { name: 'cve-detail', url: '/cves/CVE-2021-44228' },
  { name: 'vendors', url: '/vendors?search=apache' },
  { name: 'statistics', url: '/statistics' },
  { name: 'members', url: '/org/acme/members' },
  { name: 'tokens', url: '/org/acme/tokens' },
  { name: 'audit-log', url: '/org/acme/audit' },
  { name: 'sign-in', url: '/login', anonymous: true },
  { name: 'cve-list-default', url: '/cves', review: true },
  { name: 'cve-list-bad-query', url: '/cves?q=cvss31%3E%3D9%20AND%20(kev%3Dtrue', review: true },
  { name: 'cve-views', url: '/cves/views', review: true },
  { name: 'cve-detail-history', url: '/cves/CVE-2024-3094#history', review: true },
  { name: 'vendor', url: '/vendors/apache', review: true },
  { name: 'weaknesses', url: '/weaknesses', review: true },
  { name: 'org-general', url: '/org/acme', review: true },
  { name: 'org-new', url: '/org/new', review: true },
  { name: 'account', url: '/account', review: true },
  { name: 'account-security', url: '/account/security', review: true },
  { name: 'not-found', url: '/cves/CVE-1999-99999', review: true },
  { name: 'password-reset', url: '/password-reset', anonymous: true, review: true },
];

async function waitForStatistics(tab: Page): Promise<void> {
  // The statistics of the sample are computed once it has loaded.
  for (let i = 0; i < 30 && (await tab.content()).includes('Nothing to show yet'); i++) {
    await new Promise((r) => setTimeout(r, 1000));
    await tab.reload();
  }
}

const server = await startServer();
const browser = await launchBrowser();
try {
  const viewport = { width: 1280, height: 860 };
  const anonymous = await (await browser.newContext({ viewport })).newPage();
  const shoot = async (tab: Page, name: string, scheme: 'light' | 'dark') => {
    const file = path.join(out, `${name}-${scheme}.png`);
    await tab.screenshot({ path: file, fullPage: !!values.all });
    console.error(`wrote ${path.relative(root, file)}`);
  };
  if (values.all) {
    await anonymous.goto(server.setupLink);
    for (const scheme of ['light', 'dark'] as const) {
      await anonymous.emulateMedia({ colorScheme: scheme });
      await shoot(anonymous, 'setup', scheme);
    }
  }
  const page = await (await browser.newContext({ viewport })).newPage();
  await page.goto(server.setupLink);
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Email').fill('alice@example.com');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByLabel('Organization').fill('acme');
  await page.getByRole('button', { name: 'Create and sign in' }).click();
  await page.waitForURL(/\/cves/);
  // A pending invitation and a token, so the members, tokens and audit pages have rows.
  await page.goto(`${server.baseUrl}/org/acme/members`);
  await page.getByLabel('Email').fill('bob@example.com');
  await page.getByRole('button', { name: 'Invite' }).click();
  await page.goto(`${server.baseUrl}/org/acme/tokens`);
  await page.getByLabel('Name').fill('ci-scanner');
  await page.getByRole('button', { name: 'Create token' }).click();
  if (values.all) {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await shoot(page, 'token-created', scheme);
    }
    const link = /https?:\/\/\S+\/invitations\/[A-Za-z0-9_-]+/.exec(
      server.smtp.messages[0]?.mail.text ?? '',
    )?.[0];
    if (link) {
      await anonymous.goto(link);
      for (const scheme of ['light', 'dark'] as const) {
        await anonymous.emulateMedia({ colorScheme: scheme });
        await shoot(anonymous, 'invitation', scheme);
      }
    }
  }
  for (const scheme of ['light', 'dark'] as const) {
    for (const p of PAGES.filter((s) => values.all || !s.review)) {
      const tab = p.anonymous ? anonymous : page;
      await tab.emulateMedia({ colorScheme: scheme });
      await tab.goto(`${server.baseUrl}${p.url}`);
      if (p.name === 'statistics') await waitForStatistics(tab);
      await shoot(tab, p.name, scheme);
    }
  }
} finally {
  await browser.close();
  await server.stop();
}
