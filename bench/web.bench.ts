/**
 * The web UI benchmark: server time of the main pages on the API benchmark's 300,000-CVE PostgreSQL
 * catalog (the same cached database), signed in as a person, one request at a time after a warm-up,
 * and each page's weight (HTML raw and compressed, and the JavaScript it loads). Writes
 * bench/RESULTS-web.md (full runs; --size runs write under bench/.work).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { parseArgs } from 'node:util';
import { runChild } from './lib/child.ts';
import { loadAverage, machineInfo } from './lib/machine.ts';
import { fixed, int, table } from './lib/markdown.ts';
import { DEFAULT_SERVER_URL } from './lib/pg-admin.ts';
import { benchDir, projectRoot, workDir } from './lib/paths.ts';
import { freePort, Server, serverEnv } from './api/server.ts';
import type { PhaseSpec } from './api/phase.ts';
import type { CatalogInfo, EndpointParams } from './api/types.ts';
import { prepareProjectBench, projectPages } from './web-projects.ts';

const CATALOG_ROWS = 300_000;
const TARGET_P95_MS = 150;
const USERNAME = 'api-bench';
const PASSWORD = 'api-bench-password';
const ORG = 'api-bench';

const USAGE = `usage: npm run bench -- web [--size N] [--requests N]

  --size N       CVEs in the catalog (default ${int(CATALOG_ROWS)}; shared with \`npm run bench -- api\`)
  --requests N   measured requests per page, one at a time (default 100, after 10 of warm-up)

env: BENCH_DATABASE_URL (PostgreSQL server; default ${DEFAULT_SERVER_URL}), VULNTRACK_BENCH_DATA (CVE 5 .jsonl.gz)`;

/** The pages measured, from the catalog's own vendor, query and newest CVE. */
function pages(params: EndpointParams): { name: string; url: string }[] {
  const vendorPrefix = params.vendor.slice(0, Math.max(3, Math.min(5, params.vendor.length)));
  return [
    { name: 'CVE list (default: newest first)', url: '/cves' },
    { name: `CVE list, q = ${params.q}`, url: `/cves?q=${encodeURIComponent(params.q)}` },
    {
      name: 'CVE list, q = kev=true AND cvss31>=9',
      url: `/cves?q=${encodeURIComponent('kev=true AND cvss31>=9')}`,
    },
    { name: `CVE list, vendor = ${params.vendor}`, url: `/cves?vendor=${encodeURIComponent(params.vendor)}` },
    { name: 'CVE list, cvss = critical, newest published', url: '/cves?cvss=critical&ordering=-created_at' },
    { name: 'CVE list, weakness = CWE-79', url: '/cves?weakness=CWE-79' },
    { name: 'CVE list, highest CVSS first', url: '/cves?ordering=-cvss' },
    { name: 'CVE list, highest EPSS first', url: '/cves?ordering=-epss' },
    {
      name: `CVE list, vendor = ${params.vendor}, highest CVSS first`,
      url: `/cves?vendor=${encodeURIComponent(params.vendor)}&ordering=-cvss`,
    },
    { name: 'CVE list, kev = true, highest EPSS first', url: '/cves?kev=true&ordering=-epss' },
    { name: 'CVE list, search = log4j', url: '/cves?search=log4j' },
    { name: `CVE detail (${params.cveId}, the newest)`, url: `/cves/${params.cveId}` },
    { name: 'vendors, first page', url: '/vendors' },
    { name: `vendor search "${vendorPrefix}"`, url: `/vendors?search=${encodeURIComponent(vendorPrefix)}` },
    {
      name: `a vendor with its products (${params.vendor})`,
      url: `/vendors/${encodeURIComponent(params.vendor)}`,
    },
    { name: 'weaknesses', url: '/weaknesses' },
    {
      name: `search suggestions "${vendorPrefix}"`,
      url: `/search/suggest?q=${encodeURIComponent(vendorPrefix)}`,
    },
    { name: 'statistics', url: '/statistics' },
  ];
}

/** A signed-in browser's cookies: the sign-in form's CSRF cookie and token, then the session. */
async function signIn(baseUrl: string): Promise<string> {
  const form = await fetch(`${baseUrl}/login`);
  const csrfCookie = form.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (!token) throw new Error('no CSRF token on the sign-in page');
  const done = await fetch(`${baseUrl}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie },
    body: new URLSearchParams({ login: USERNAME, password: PASSWORD, _csrf: token, next: '/' }).toString(),
  });
  if (done.status !== 303) throw new Error(`sign-in answered ${done.status}`);
  const session = done.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c?.startsWith('vt_session='));
  if (!session) throw new Error('sign-in set no session cookie');
  return session;
}

interface PageRun {
  name: string;
  url: string;
  status: number;
  /** The first request: before the page's capped count is cached for the catalog's version. */
  first: number;
  p50: number;
  p95: number;
  max: number;
  htmlBytes: number;
  htmlBrotli: number;
  jsBytes: number;
  jsBrotli: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function measure(
  baseUrl: string,
  cookie: string,
  page: { name: string; url: string },
  requests: number,
): Promise<PageRun> {
  const get = () =>
    fetch(`${baseUrl}${page.url}`, {
      headers: { cookie, 'accept-encoding': 'identity' },
      redirect: 'manual',
    });
  let status = 0;
  let html = '';
  let first = 0;
  for (let i = 0; i < 10; i++) {
    const started = performance.now();
    const r = await get();
    status = r.status;
    html = await r.text();
    if (i === 0) first = performance.now() - started;
  }
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    const r = await get();
    await r.arrayBuffer();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  let jsBytes = 0;
  let jsBrotli = 0;
  for (const [, src] of html.matchAll(/<script src="([^"]+)"/g)) {
    const body = Buffer.from(
      await (await fetch(`${baseUrl}${src}`, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer(),
    );
    jsBytes += body.length;
    jsBrotli += zlib.brotliCompressSync(body).length;
  }
  return {
    ...page,
    status,
    first,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    max: times[times.length - 1]!,
    htmlBytes: Buffer.byteLength(html),
    htmlBrotli: zlib.brotliCompressSync(Buffer.from(html)).length,
    jsBytes,
    jsBrotli,
  };
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { size: { type: 'string' }, requests: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const size = values.size ? Number(values.size) : CATALOG_ROWS;
  const requests = values.requests ? Number(values.requests) : 100;
  const serverUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL;
  const corpus = process.env.VULNTRACK_BENCH_DATA
    ? path.resolve(process.env.VULNTRACK_BENCH_DATA)
    : path.resolve(projectRoot, '../shared/data/cve5/vulnrichment-2024-10-24.jsonl.gz');
  const target = {
    kind: 'postgres' as const,
    serverUrl,
    database: size === CATALOG_ROWS ? 'vt_bench_api' : `vt_bench_api_${size}`,
  };
  console.error(`catalog of ${int(size)} CVEs (built once, shared with the API benchmark)…`);
  const catalog = await runChild<CatalogInfo>(path.join(benchDir, 'api', 'phase.ts'), {
    kind: 'catalog',
    target,
    size,
    corpus,
    rebuild: false,
    username: USERNAME,
    org: ORG,
  } satisfies PhaseSpec);
  console.error('project of the 20 busiest vendors, 3 bulk edits of 1,000 CVEs…');
  const project = await prepareProjectBench(serverUrl, target.database, ORG, USERNAME);
  console.error(
    `  ${int(project.cves)} CVEs; bulk edits ${project.bulkMs.map((ms) => fixed(ms)).join(', ')} ms`,
  );
  const env = { ...serverEnv(target, await freePort()), API_RESPONSE_CACHE_MB: '0' };
  const server = await Server.start(env);
  const runs: PageRun[] = [];
  try {
    const cookie = await signIn(server.baseUrl);
    for (const page of [...pages(catalog.params), ...projectPages(ORG, project)]) {
      const result = await measure(server.baseUrl, cookie, page, requests);
      console.error(`${page.name}: ${result.status}, p95 ${fixed(result.p95)} ms`);
      runs.push(result);
    }
  } finally {
    await server.stop();
  }
  const machine = machineInfo();
  const markdown = [
    '# Web UI: server time and page weight',
    '',
    `Command: \`npm run bench -- web${args.length ? ' ' + args.join(' ') : ''}\`. Machine: ${machine.cpuModel}, ${machine.cores} cores, ` +
      `${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}; commit ${machine.commit}${machine.srcDirty ? ' (src/ modified)' : ''}; ` +
      `load average at the end ${loadAverage()}.`,
    '',
    `Catalog: ${int(catalog.rows)} CVEs on PostgreSQL (the API benchmark's database), the response cache off. ` +
      `Each page: 10 requests of warm-up, then ${requests} one at a time, signed in, over loopback HTTP ` +
      `(the time is the server's plus a loopback round trip). Target: p95 under ${TARGET_P95_MS} ms. ` +
      'Weights: the HTML as sent uncompressed and brotli-compressed, and every script the page loads.',
    '',
    table(
      [
        'page',
        'status',
        'first ms',
        'p50 ms',
        'p95 ms',
        'max ms',
        'target',
        'HTML KB',
        'HTML br KB',
        'JS KB',
        'JS br KB',
      ],
      runs.map((r) => [
        `${r.name} (\`${r.url}\`)`,
        String(r.status),
        fixed(r.first),
        fixed(r.p50),
        fixed(r.p95),
        fixed(r.max),
        r.status === 200 && r.p95 < TARGET_P95_MS ? 'met' : 'NOT met',
        fixed(r.htmlBytes / 1024),
        fixed(r.htmlBrotli / 1024),
        fixed(r.jsBytes / 1024),
        fixed(r.jsBrotli / 1024),
      ]),
      ['left', 'right', 'right', 'right', 'right', 'right', 'left', 'right', 'right', 'right', 'right'],
    ),
    '',
    `Project pages: \`${project.project}\`, subscribed to the ${project.vendors.length} vendors with the most CVEs ` +
      `(${project.vendors.join(', ')}): ${int(project.cves)} CVEs, 3,000 of them triaged. ` +
      `Bulk edit of 1,000 CVEs (status and assignee, one audited action, \`TrackerService.bulkUpdate\`): ` +
      `${project.bulkMs.map((ms) => `${fixed(ms)} ms`).join(', ')}; target under 2,000 ms: ` +
      `${Math.max(...project.bulkMs) < 2000 ? 'met' : 'NOT met'}. ` +
      'The dashboard\'s "first ms" is its first view at this catalog version: what depends on the catalog ' +
      'alone (counts by score and KEV over every CVE of the project, the 7-day feed) is computed then and kept ' +
      'for the version, so the first view after each import batch pays it (docs/decisions.md, dashboard).',
    '',
  ].join('\n');
  const file =
    size === CATALOG_ROWS
      ? path.join(benchDir, 'RESULTS-web.md')
      : path.join(workDir, `RESULTS-web-${size}.md`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, markdown);
  console.error(`wrote ${path.relative(projectRoot, file)}`);
}
