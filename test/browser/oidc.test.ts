/**
 * Single sign-on in Chromium against a real OpenID Connect provider (oidc-provider on loopback): the
 * real redirects through the sign-in page's button, the provider's login and consent pages and back;
 * the account made at the first sign-in; the role its groups give, changed at the next sign-in;
 * signing out through the provider's end_session_endpoint (a form whose answer leaves the site: the
 * Content-Security-Policy allows the issuer in form-action); denied consent as one sentence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  chromiumPath,
  createFirstAdmin,
  launchBrowser,
  startServer,
  type TestServer,
} from '../helpers/browser.ts';
import { freePort, startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts';

const chromium = chromiumPath();
if (!chromium)
  console.warn('OIDC browser test SKIPPED: Chromium is not installed (apt-get install -y chromium)');

describe.skipIf(!chromium)('single sign-on in the browser', () => {
  let server: TestServer;
  let provider: TestProvider;
  let browser: Browser;
  let admin: Page;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    provider = await startOidcProvider(baseUrl, {
      'bob-sub': {
        email: 'bob@corp.example',
        email_verified: true,
        preferred_username: 'bob',
        groups: ['dev'],
      },
    });
    [server, browser] = await Promise.all([
      startServer({
        PORT: String(port),
        VULNTRACK_BASE_URL: baseUrl,
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        OIDC_GROUP_ROLES: 'secops=acme:owner,dev=acme:member',
        OIDC_BUTTON_LABEL: 'Sign in with Corp ID',
      }),
      launchBrowser(),
    ]);
    admin = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await createFirstAdmin(admin, server);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await provider?.stop();
  });

  /** From vulntrack's sign-in page through the provider's pages, signed in as `sub` there. */
  async function signInAtProvider(sub: string): Promise<void> {
    await page.goto(`${server.baseUrl}/login`);
    await page.getByRole('link', { name: 'Sign in with Corp ID' }).click();
    await page.waitForURL((url) => url.origin === provider.issuer);
    await page.locator('input[name=login]').fill(sub);
    await page.locator('input[name=password]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL((url) => url.origin === server.baseUrl && url.pathname !== '/auth/oidc/callback');
  }

  const roleOfBob = async () => {
    await admin.goto(`${server.baseUrl}/org/acme/members`);
    return admin.locator('tr', { hasText: 'bob@corp.example' }).locator('select[name=role]').inputValue();
  };

  it('signs a new person in through the provider and makes their account with the role of their group', async () => {
    await signInAtProvider('bob-sub');
    await page.waitForURL(/\/org\/acme\/overview$/);
    await expect(page.locator('#account-menu .menu-name').textContent()).resolves.toBe('bob');
    expect(await roleOfBob()).toBe('member');
  });

  it('signs out at the provider too, and the next sign-in carries the changed groups', async () => {
    await page.locator('#account-menu').click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    // The provider's own "sign out?" page (RP-initiated logout), then back to vulntrack's sign-in page.
    await page.waitForURL((url) => url.origin === provider.issuer);
    await page.getByRole('button', { name: /yes/i }).click();
    await page.waitForURL(`${server.baseUrl}/login`);

    provider.accounts.get('bob-sub')!.groups = ['secops'];
    await signInAtProvider('bob-sub');
    await page.waitForURL(/\/org\/acme\/overview$/);
    expect(await roleOfBob()).toBe('owner');
  });

  it('says in one sentence, on the sign-in page, that the sign-in was cancelled at the provider', async () => {
    const other = await browser.newPage();
    await other.goto(`${server.baseUrl}/login`);
    await other.getByRole('link', { name: 'Sign in with Corp ID' }).click();
    await other.waitForURL((url) => url.origin === provider.issuer);
    await other.getByRole('link', { name: '[ Cancel ]' }).click();
    await other.waitForURL((url) => url.pathname === '/auth/oidc/callback');
    await expect(other.locator('.notice.error').textContent()).resolves.toBe(
      'The sign-in was cancelled at your identity provider.',
    );
    await expect(other.getByRole('link', { name: 'Sign in with Corp ID' }).isVisible()).resolves.toBe(true);
    await other.close();
  });
});
