/**
 * `npm run screenshots [-- --all | --only NAME,… --out DIR]` (`-- --help`): the pages of a fresh install (the bundled sample
 * catalog, a first administrator, an invitation, a token) in Debian's Chromium, light and dark.
 * Without `--all`, the main pages, written to docs/screenshots/ for the README; with `--all`, every
 * page of the web UI (for review), to `--out` (default bench/.work/screenshots). Needs
 * `apt-get install -y chromium`.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { createFirstAdmin, launchBrowser, startServer } from '../test/helpers/browser.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = `npm run screenshots [-- --all] [--only NAME,NAME] [--out DIR]
  (none)      the README's pages, to docs/screenshots/
  --all       every page of the web UI, full height, for review (default out: bench/.work/screenshots)
  --only      just these shots (names as in scripts/screenshots.ts, e.g. cve-detail,two-factor-setup)
  --out DIR   where the PNG files go
  --viewport WxH  the window's size (default 1280x860); another size adds "-W" to the file names,
              e.g. --viewport 390x844 for a phone`;
const { values } = parseArgs({
  options: {
    all: { type: 'boolean' },
    only: { type: 'string' },
    out: { type: 'string' },
    viewport: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const size = /^(\d+)x(\d+)$/.exec(values.viewport ?? '1280x860');
if (!size) {
  console.error(`--viewport takes WIDTHxHEIGHT, e.g. 390x844\n${USAGE}`);
  process.exit(2);
}
const viewport = { width: Number(size[1]), height: Number(size[2]) };
const suffix = values.viewport ? `-${viewport.width}` : '';
const only = values.only ? new Set(values.only.split(',').map((n) => n.trim())) : undefined;
/** Whether a shot is taken: named by --only, or a README page, or any page with --all. */
const wanted = (name: string, review = true) => (only ? only.has(name) : values.all || !review);
const out = values.out
  ? path.resolve(values.out)
  : values.all || only
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
  { name: 'project-dashboard', url: '/org/acme/projects/web-apps' },
  { name: 'tracker', url: '/org/acme/projects/web-apps/cves' },
  { name: 'project-cve', url: '/org/acme/projects/web-apps/cves/CVE-2021-44228' },
  { name: 'sign-in', url: '/login', anonymous: true },
  { name: 'cve-list-default', url: '/cves', review: true },
  { name: 'cve-list-no-match', url: '/cves?search=log4shell', review: true },
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
  { name: 'projects', url: '/org/acme/projects', review: true },
  { name: 'org-overview', url: '/org/acme/overview', review: true },
  { name: 'org-weekly-report', url: '/org/acme/reports', review: true },
  { name: 'new-project', url: '/org/acme/new-project', review: true },
  { name: 'subscriptions', url: '/org/acme/projects/web-apps/subscriptions', review: true },
  {
    name: 'tracker-in-progress',
    url: '/org/acme/projects/web-apps/cves?status=analysis_in_progress',
    review: true,
  },
  { name: 'notifications', url: '/org/acme/projects/web-apps/notifications', review: true },
  { name: 'automations', url: '/org/acme/projects/web-apps/automations', review: true },
  {
    name: 'automation-builder',
    url: '/org/acme/projects/web-apps/automations/new-critical-or-kev-cve/edit',
    review: true,
  },
  {
    name: 'automation',
    url: '/org/acme/projects/web-apps/automations/new-critical-or-kev-cve',
    review: true,
  },
  {
    name: 'automation-dry-run',
    url: '/org/acme/projects/web-apps/automations/new-critical-or-kev-cve/dry-run',
    review: true,
  },
  { name: 'reports', url: '/org/acme/projects/web-apps/reports', review: true },
  { name: 'project-settings', url: '/org/acme/projects/web-apps/settings', review: true },
  { name: 'admin-users', url: '/admin/users', review: true },
  {
    name: 'email-link-unsubscribe',
    url: '/notifications/unsubscribe?token=example',
    anonymous: true,
    review: true,
  },
  { name: 'project-cve-not-in', url: '/org/acme/projects/web-apps/cves/CVE-2024-3094', review: true },
  // In the project through a keyword (the CVE 5 record names only Red Hat's products).
  { name: 'project-cve-keyword', url: '/org/acme/projects/web-apps/cves/CVE-2024-6387', review: true },
  // A record that names no vendor: its key comes from the CNA's own name (`@microsoft`).
  {
    name: 'project-cve-cna-vendor',
    url: '/org/acme/projects/web-apps/cves/CVE-2006-4692',
    review: true,
  },
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
  const anonymous = await (await browser.newContext({ viewport })).newPage();
  const shoot = async (tab: Page, name: string, scheme: 'light' | 'dark') => {
    const file = path.join(out, `${name}${suffix}-${scheme}.png`);
    await tab.screenshot({ path: file, fullPage: !!(values.all || only) });
    console.error(`wrote ${path.relative(root, file)}`);
  };
  if (wanted('setup')) {
    await anonymous.goto(server.setupLink);
    for (const scheme of ['light', 'dark'] as const) {
      await anonymous.emulateMedia({ colorScheme: scheme });
      await shoot(anonymous, 'setup', scheme);
    }
  }
  const page = await (await browser.newContext({ viewport })).newPage();
  await createFirstAdmin(page, server);
  // A pending invitation and a token, so the members, tokens and audit pages have rows.
  await page.goto(`${server.baseUrl}/org/acme/members`);
  await page.getByLabel('Email').fill('bob@example.com');
  await page.getByRole('button', { name: 'Invite' }).click();
  await page.goto(`${server.baseUrl}/org/acme/tokens`);
  await page.getByLabel('Name').fill('ci-scanner');
  await page.getByLabel('Mode').selectOption('write');
  await page.getByRole('button', { name: 'Create token' }).click();
  const token = await page.locator('#new-token').inputValue();
  // A project made through the onboarding (apache and atlassian, an email alert, a weekly report),
  // some of its CVEs triaged and a comment through API v2, so the project pages have content.
  await page.goto(`${server.baseUrl}/org/acme/new-project`);
  await page.getByLabel('Name', { exact: true }).fill('web-apps');
  await page.getByLabel('Description (optional)').fill('Our public web applications');
  await page.getByRole('button', { name: 'Next: vendors and products' }).click();
  for (const [vendor, label] of [
    ['apache', 'Apache'],
    ['atlassian', 'Atlassian'],
  ]) {
    await page.goto(`${server.baseUrl}/org/acme/new-project/vendors?search=${vendor}`);
    await page.getByRole('button', { name: `Add ${label}`, exact: true }).click();
    await page.getByRole('button', { name: `Remove ${label}`, exact: true }).waitFor();
  }
  // Keywords for what the catalog names no key for (issue 30): regreSSHion's record names only Red Hat.
  await page.getByLabel('Keywords, one per line').fill('openssh\nregreSSHion');
  await page.getByRole('button', { name: 'Save keywords' }).click();
  await page.getByRole('link', { name: 'Next: alerts and report' }).click();
  await page.getByRole('radio', { name: 'Email' }).check();
  await page.getByLabel('Email address or webhook URL').fill('alice@example.com');
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.waitForURL(/\/org\/acme\/projects\/web-apps/);
  const api = async (method: string, url: string, body: unknown) => {
    const response = await fetch(`${server.baseUrl}/api/v2/organizations/acme/projects/web-apps${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  };
  const listed = (await (
    await fetch(`${server.baseUrl}/api/v2/organizations/acme/projects/web-apps/cves?page_size=40`, {
      headers: { authorization: `Bearer ${token}` },
    })
  ).json()) as { results: { cve_id: string }[] };
  const ids = listed.results.map((r) => r.cve_id);
  await api('PATCH', '/cves', {
    cve_ids: ids.slice(0, 8),
    status: 'analysis_in_progress',
    assignee: 'alice@example.com',
  });
  await api('PATCH', '/cves', { cve_ids: ids.slice(8, 12), status: 'resolved' });
  await api('PATCH', '/cves', {
    cve_ids: ['CVE-2021-44228'],
    status: 'remediation_in_progress',
    assignee: 'alice@example.com',
  });
  await api('POST', '/cves/CVE-2021-44228/comments', {
    body: 'Patched on the **public** gateways; the internal wiki still runs `log4j-core 2.14.1`.\n\n- upgrade to 2.17.1\n- see <https://logging.apache.org/log4j/2.x/security.html>',
  });
  if (values.all && !only) {
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
    for (const p of PAGES.filter((s) => wanted(s.name, s.review ?? false))) {
      const tab = p.anonymous ? anonymous : page;
      await tab.emulateMedia({ colorScheme: scheme });
      await tab.goto(`${server.baseUrl}${p.url}`);
      if (p.name === 'statistics') await waitForStatistics(tab);
      await shoot(tab, p.name, scheme);
    }
  }
  if (wanted('two-factor-setup')) {
    // Last: it leaves the account with a two-factor setup pending.
    await page.goto(`${server.baseUrl}/account/security`);
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await shoot(page, 'two-factor-setup', scheme);
    }
  }
} finally {
  await browser.close();
  await server.stop();
}
