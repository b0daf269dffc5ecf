/**
 * Browser journeys: a real `vulntrack serve` process (embedded database in a temporary data dir,
 * the bundled sample catalog, a real SMTP sink) driven by Debian's Chromium through playwright-core.
 * Playwright cannot download its own browsers here; `.ci/run` installs the `chromium` package.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startCli, waitForOutput } from './cli.ts';
import { startSink, type Sink } from '../notifications/smtp-sink.ts';

/** Debian's Chromium (CHROMIUM_PATH overrides), or undefined when it is not installed. */
export function chromiumPath(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p): p is string => !!p && fs.existsSync(p));
}

export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('Chromium is not installed (apt-get install -y chromium)');
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface TestServer {
  baseUrl: string;
  /** The first administrator's one-time link, as `serve` printed it. */
  setupLink: string;
  smtp: Sink;
  output: () => string;
  stop(): Promise<void>;
}

/** Starts `vulntrack serve` on a free port and waits until the sample catalog is loaded. */
export async function startServer(env: NodeJS.ProcessEnv = {}): Promise<TestServer> {
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'vulntrack-browser-'));
  // A test that must know the address before the server starts (an OIDC provider's redirect URI) gives PORT.
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const smtp = await startSink();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child: ChildProcess = startCli(['serve'], {
    PORT: String(port),
    HOST: '127.0.0.1',
    VULNTRACK_BASE_URL: baseUrl,
    VULNTRACK_DATA_DIR: dataDir,
    DATABASE_URL: '',
    SMTP_URL: smtp.url,
    SMTP_FROM: 'vulntrack <vulntrack@example.test>',
    ...env,
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await smtp.close();
    await fsp.rm(dataDir, { recursive: true, force: true });
  };
  try {
    const line = await waitForOutput(child, /\/setup\/[A-Za-z0-9_-]+/, 120_000);
    const setupLink = `${baseUrl}${line.slice(line.indexOf('/setup/'))}`;
    // The sample loads in the background: wait for it, so searches find Log4Shell.
    const deadline = Date.now() + 180_000;
    for (;;) {
      const ready = (await fetch(`${baseUrl}/readyz`).then((r) => r.json())) as {
        catalog?: { sample?: string };
      };
      if (ready.catalog?.sample === 'loaded') break;
      if (ready.catalog?.sample === 'failed') throw new Error(`the sample did not load:\n${output}`);
      if (Date.now() > deadline) throw new Error(`the sample took over 3 minutes:\n${output}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    return { baseUrl, setupLink, smtp, output: () => output, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core's violations of `serious` or `critical` impact on the page as it is now. The page's
 * Content-Security-Policy forbids injected scripts, so the page must come from a context created
 * with `bypassCSP: true` (a test-only context; the pages under test keep their CSP otherwise).
 */
export async function seriousAxeViolations(page: import('playwright-core').Page): Promise<AxeViolation[]> {
  const { createRequire } = await import('node:module');
  await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(): Promise<{
            violations: Array<{
              id: string;
              impact: string | null;
              help: string;
              nodes: Array<{ target: unknown[] }>;
            }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * The first administrator, `alice` of organization `acme`, made from the link `serve` printed: the
 * page is then signed in, on the organization's home.
 */
export async function createFirstAdmin(page: Page, server: TestServer): Promise<void> {
  await page.goto(server.setupLink);
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Email').fill('alice@example.com');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByLabel('Organization').fill('acme');
  await page.getByRole('button', { name: 'Create and sign in' }).click();
  await page.waitForURL(/\/org\/acme\/overview$/);
}

/**
 * A read-and-write token of `acme` made on its tokens page (by the signed-in page), and a caller of
 * API v2 under `/api/v2/organizations/acme` with it.
 */
export async function acmeApi(
  page: Page,
  server: TestServer,
): Promise<(method: string, url: string, body?: unknown) => Promise<Response>> {
  await page.goto(`${server.baseUrl}/org/acme/tokens`);
  await page.getByLabel('Name').fill('setup');
  await page.getByLabel('Mode').selectOption('write');
  await page.getByRole('button', { name: 'Create token' }).click();
  const token = await page.locator('#new-token').inputValue();
  return (method, url, body) =>
    fetch(`${server.baseUrl}/api/v2/organizations/acme${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
}
