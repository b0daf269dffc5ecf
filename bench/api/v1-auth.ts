/**
 * API v1's Basic authentication under sequential calls: N calls with `Authorization: Basic` against
 * the same route with an organization token (`Bearer`), one at a time, on a small real catalog (the
 * test fixtures) served by `vulntrack serve` with API_V1_SHAPE=paged. The first Basic call pays the
 * password hash (scrypt); the cache makes the rest cost about what a token costs.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../lib/paths.ts';
import { createDatabase, dropDatabase, withDatabase } from '../lib/pg-admin.ts';
import { createToken, freePort, Server } from './server.ts';

const cli = path.join(projectRoot, 'bin', 'vulntrack.js');
const PASSWORD = 'bench password, not a secret';

export interface LatencySummary {
  calls: number;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface V1AuthResult {
  target: 'embedded' | 'postgres';
  route: string;
  /** The first Basic call: a full password verification. */
  firstBasicMs: number;
  basic: LatencySummary;
  token: LatencySummary;
  /** p99 of Basic over p99 of token. */
  p99Ratio: number;
}

function summarize(times: number[]): LatencySummary {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    calls: times.length,
    meanMs: round(times.reduce((a, b) => a + b, 0) / times.length),
    p50Ms: round(at(0.5)),
    p90Ms: round(at(0.9)),
    p99Ms: round(at(0.99)),
    maxMs: round(sorted.at(-1)!),
  };
}

async function sequential(url: string, authorization: string, calls: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    const res = await fetch(url, { headers: { authorization } });
    await res.arrayBuffer();
    times.push(performance.now() - start);
    if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}`);
  }
  return times;
}

/** Builds the catalog and accounts with the CLI, starts the server, measures, cleans up. */
export async function runV1Auth(options: {
  target: 'embedded' | 'postgres';
  serverUrl: string;
  calls: number;
  route: string;
}): Promise<V1AuthResult> {
  const run = promisify(execFile);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-bench-v1-'));
  const database = `vt_bench_v1_${process.pid}`;
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^(DATABASE_URL|VULNTRACK_|PORT$|HOST$|LOG_LEVEL$|RATE_LIMIT|API_V1_)/.test(key)) env[key] = value;
  Object.assign(env, {
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    VULNTRACK_LOAD_SAMPLE: 'false',
    RATE_LIMIT_PER_MINUTE: '1000000',
    API_V1_SHAPE: 'paged',
    VULNTRACK_DATA_DIR: dataDir,
  });
  if (options.target === 'postgres') {
    await createDatabase(options.serverUrl, database);
    env.DATABASE_URL = withDatabase(options.serverUrl, database);
    env.VULNTRACK_SECRET = 'vulntrack-api-v1-benchmark-secret';
  }
  const vulntrack = (args: string[]) => run(process.execPath, [cli, ...args], { env, cwd: projectRoot });
  let server: Server | undefined;
  try {
    const fixtures = path.join(projectRoot, 'test', 'fixtures');
    await vulntrack(['import', 'cve5', path.join(fixtures, 'cve5', 'cves')]);
    await vulntrack(['import', 'nvd', path.join(fixtures, 'nvd')]);
    await vulntrack([
      'user',
      'create',
      '--username',
      'bench',
      '--email',
      'bench@example.com',
      '--password',
      PASSWORD,
    ]);
    await vulntrack(['org', 'create', 'bench', '--owner', 'bench']);
    const token = await createToken(env, 'bench', 'v1-bench');
    server = await Server.start(env);
    const url = `${server.baseUrl}${options.route}`;
    const basic = `Basic ${Buffer.from(`bench:${PASSWORD}`).toString('base64')}`;
    const bearer = `Bearer ${token}`;
    const [firstBasicMs] = await sequential(url, basic, 1);
    await sequential(url, bearer, 20); // warm-up of the token path (JIT, pool)
    const basicTimes = await sequential(url, basic, options.calls);
    const tokenTimes = await sequential(url, bearer, options.calls);
    const b = summarize(basicTimes);
    const t = summarize(tokenTimes);
    return {
      target: options.target,
      route: options.route,
      firstBasicMs: Math.round(firstBasicMs! * 100) / 100,
      basic: b,
      token: t,
      p99Ratio: Math.round((b.p99Ms / t.p99Ms) * 100) / 100,
    };
  } finally {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (options.target === 'postgres') await dropDatabase(options.serverUrl, database);
  }
}

export function v1AuthMarkdown(results: V1AuthResult[], machine: string): string {
  const row = (r: V1AuthResult, kind: 'basic' | 'token') => {
    const s = r[kind];
    return `| ${r.target} | ${kind === 'basic' ? 'Basic (cached)' : 'Bearer token'} | ${s.calls} | ${s.meanMs} | ${s.p50Ms} | ${s.p90Ms} | ${s.p99Ms} | ${s.maxMs} |`;
  };
  return [
    '## API v1',
    '',
    `\`npm run bench -- api-v1\`: ${results[0]?.basic.calls ?? 0} sequential calls of \`GET ${results[0]?.route ?? ''}\` ` +
      'with HTTP Basic, then as many with an organization token, one at a time, against `vulntrack serve` ' +
      '(API_V1_SHAPE=paged) over the test fixtures. Target: Basic p99 within 2× the token p99. ' +
      machine,
    '',
    '| database | credential | calls | mean ms | p50 ms | p90 ms | p99 ms | max ms |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...results.flatMap((r) => [row(r, 'basic'), row(r, 'token')]),
    '',
    ...results.map(
      (r) =>
        `- ${r.target}: first Basic call (full scrypt verification) ${r.firstBasicMs} ms; ` +
        `p99 Basic / token = ${r.p99Ratio} (${r.p99Ratio <= 2 ? 'within' : 'NOT within'} 2×).`,
    ),
    '',
  ].join('\n');
}
