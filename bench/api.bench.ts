/**
 * The API v2 benchmark: a 300,000-CVE catalog (the real corpus imported, then replicated in SQL), the
 * server started as in production (`node bin/vulntrack.js serve`), and autocannon at 50 connections on
 * nine endpoints, on PostgreSQL and on the embedded database. Each answer is checked against SQL
 * before the load; the slowest endpoints are then explained (EXPLAIN ANALYZE) and CPU-profiled.
 * Writes bench/RESULTS-api.md (full default runs only; other runs write under bench/.work).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { killChildren, runChild } from './lib/child.ts';
import { machineInfo } from './lib/machine.ts';
import { fixed, int } from './lib/markdown.ts';
import { DEFAULT_SERVER_URL, dropDatabase, serverInfo, withDatabase } from './lib/pg-admin.ts';
import { benchDir, projectRoot, workDir } from './lib/paths.ts';
import { backendCpuReader } from './lib/pg-server-cpu.ts';
import { endpoints, type Endpoint } from './api/endpoints.ts';
import { runLoad, type LoadOptions } from './api/load.ts';
import type { PhaseSpec } from './api/phase.ts';
import { cutProfile, summarizeServerProfile } from './api/profile.ts';
import {
  CACHE_MODES,
  cpuTable,
  p99Of,
  runName,
  renderMarkdown,
  resultsTable,
  TARGETS,
  verdicts,
  verdictTable,
  type ApiBenchRun,
  type CacheMode,
  type EndpointCheck,
  type EndpointRun,
  type TargetRun,
} from './api/report.ts';
import { createToken, freePort, Server, serverEnv } from './api/server.ts';
import type { ApiTarget, CatalogInfo, EndpointParams, ExplainedStatement, TargetKind } from './api/types.ts';

const KINDS = ['postgres', 'embedded'] as const;
const QUICK_SIZE = 50_000;
const ORG = 'api-bench';
const USERNAME = 'api-bench';
/** How many of the slowest endpoints (fewest req/s) get a server CPU profile. */
const PROFILED = { postgres: 3, embedded: 1 } as const;

const USAGE = `usage: npm run bench -- api [--quick] [--targets postgres,embedded] [--cache off,on] [--size N]
                             [--seconds S] [--warmup S] [--connections N] [--only KEYS] [--rebuild]
                             [--no-profile] [--drop]
       npm run bench -- api --render FILE

  --quick        ${int(QUICK_SIZE)}-CVE catalog, 5 s per endpoint (1 s warm-up), PostgreSQL only (smoke test)
  --targets      postgres, embedded or both (default both; --quick: postgres)
  --cache        the server's response cache: off (API_RESPONSE_CACHE_MB=0), on (the default setting), or
                 both, each a run of its own (default off,on; off is explained and profiled)
  --size N       CVEs in the catalog (default ${int(TARGETS.catalogRows)})
  --seconds S    measured seconds per endpoint (default 10)
  --warmup S     warm-up seconds per endpoint, not measured (default 2)
  --connections  concurrent connections (default ${TARGETS.connections})
  --only KEYS    only these endpoints: list,deep,search,log4j,micro,words,words2,vendor,critical,q,
                 detail,project,token
  --rebuild      rebuild the cached PostgreSQL catalog even when it fits
  --no-profile   no EXPLAIN ANALYZE, no server CPU profile
  --drop         drop the cached PostgreSQL catalog at the end
  --render FILE  write the results again from a run's saved measurements (bench/.work/RESULTS-api-*.json)

env: BENCH_DATABASE_URL (PostgreSQL server; default ${DEFAULT_SERVER_URL}), VULNTRACK_BENCH_DATA (CVE 5 .jsonl.gz)`;

interface Options {
  /** Only re-render this saved measurements file. */
  render?: string;
  quick: boolean;
  kinds: TargetKind[];
  caches: CacheMode[];
  size: number;
  load: LoadOptions;
  only: Set<string> | undefined;
  rebuild: boolean;
  profile: boolean;
  drop: boolean;
  /** Only a complete, full-size, default run may replace bench/RESULTS-api.md. */
  canonical: boolean;
}

function positive(name: string, value: string | undefined, dflt: number, allowZero = false): number {
  const n = Number(value ?? dflt);
  if (!Number.isInteger(n) || n < 0 || (n === 0 && !allowZero))
    throw new Error(`--${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer`);
  return n;
}

function parseOptions(args: string[]): Options | undefined {
  const { values } = parseArgs({
    args,
    options: {
      quick: { type: 'boolean', default: false },
      targets: { type: 'string' },
      cache: { type: 'string' },
      size: { type: 'string' },
      seconds: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      only: { type: 'string' },
      rebuild: { type: 'boolean', default: false },
      'no-profile': { type: 'boolean', default: false },
      drop: { type: 'boolean', default: false },
      render: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return undefined;
  if (values.render) return { render: values.render } as Options;
  const quick = values.quick;
  const kinds = (values.targets?.split(',') ?? (quick ? ['postgres'] : [...KINDS])).map((k) => {
    if (!(KINDS as readonly string[]).includes(k)) throw new Error(`unknown target ${k}\n\n${USAGE}`);
    return k as TargetKind;
  });
  const caches = (values.cache?.split(',') ?? [...CACHE_MODES]).map((c) => {
    if (!(CACHE_MODES as readonly string[]).includes(c))
      throw new Error(`unknown cache mode ${c}\n\n${USAGE}`);
    return c as CacheMode;
  });
  const size = positive('size', values.size, quick ? QUICK_SIZE : TARGETS.catalogRows);
  const load: LoadOptions = {
    connections: positive('connections', values.connections, TARGETS.connections),
    seconds: positive('seconds', values.seconds, quick ? 5 : 10),
    warmupSeconds: positive('warmup', values.warmup, quick ? 1 : 2, true),
  };
  const only = values.only ? new Set(values.only.split(',')) : undefined;
  return {
    quick,
    kinds,
    caches,
    size,
    load,
    only,
    rebuild: values.rebuild,
    profile: !values['no-profile'],
    drop: values.drop,
    canonical:
      !quick &&
      kinds.length === KINDS.length &&
      caches.length === CACHE_MODES.length &&
      size === TARGETS.catalogRows &&
      load.connections === TARGETS.connections &&
      load.seconds === 10 &&
      load.warmupSeconds === 2 &&
      !only &&
      !values['no-profile'],
  };
}

function corpusFile(): string {
  const file = process.env.VULNTRACK_BENCH_DATA
    ? path.resolve(process.env.VULNTRACK_BENCH_DATA)
    : path.resolve(projectRoot, '../shared/data/cve5/vulnrichment-2024-10-24.jsonl.gz');
  if (!fs.existsSync(file)) throw new Error(`benchmark data not found: ${file} (set VULNTRACK_BENCH_DATA)`);
  return file;
}

const phaseScript = path.join(benchDir, 'api', 'phase.ts');
const runPhase = <T>(spec: PhaseSpec) => runChild<T>(phaseScript, spec);

async function api(
  server: Server,
  token: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${server.baseUrl}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

/** The project and its subscriptions, through the API as a client would set them up. */
async function setupProject(server: Server, token: string, p: EndpointParams): Promise<void> {
  const projects = `/api/v2/organizations/${encodeURIComponent(p.org)}/projects`;
  const project = `${projects}/${encodeURIComponent(p.project)}`;
  // A cached PostgreSQL catalog keeps the project of an earlier run.
  if ((await api(server, token, 'GET', project)).status === 404) {
    const created = await api(server, token, 'POST', projects, { name: p.project });
    if (created.status !== 201)
      throw new Error(`POST ${projects}: ${created.status} ${JSON.stringify(created.json)}`);
  }
  const subs = `${project}/subscriptions`;
  const put = await api(server, token, 'PUT', subs, p.subscriptions);
  if (put.status !== 200) throw new Error(`PUT ${subs}: ${put.status} ${JSON.stringify(put.json)}`);
}

/** One request per endpoint before the load: the status, and each list's count against SQL. */
async function check(
  server: Server,
  token: string,
  e: Endpoint,
  catalog: CatalogInfo,
): Promise<EndpointCheck> {
  const { status, json } = await api(server, token, 'GET', e.path);
  const body = json as { count?: number; results?: unknown[]; cve_id?: string; name?: string };
  if (status !== 200)
    return { status, ok: false, note: `HTTP ${status}: ${JSON.stringify(json).slice(0, 200)}` };
  if (e.list) {
    const expected = catalog.expected[e.key];
    const results = body.results?.length ?? -1;
    const ok = body.count === expected && results > 0;
    return {
      status,
      count: body.count,
      expected,
      ok,
      note: ok ? '' : `count ${body.count} ≠ ${expected} or ${results} results`,
    };
  }
  if (e.key === 'detail') {
    const ok = body.cve_id === catalog.params.cveId;
    return { status, ok, note: ok ? body.cve_id! : `answered ${body.cve_id}` };
  }
  const ok = body.name === catalog.params.org;
  return { status, ok, note: ok ? 'org ' + body.name : `answered ${JSON.stringify(json).slice(0, 100)}` };
}

/** The token endpoint: one pooled database read, so it waits behind whatever the pool still runs. */
const idleProbe = (server: Server, token: string, p: EndpointParams) => async () => {
  await api(server, token, 'GET', `/api/v2/organizations/${encodeURIComponent(p.org)}`);
};

function logLoad(label: string, e: EndpointRun): void {
  const l = e.load!;
  console.error(
    `[${label}] ${e.label}: ${int(l.rps)} req/s, p50 ${fixed(l.p50, 1)} ms, p99 ${fixed(l.p99, 1)} ms` +
      `${l.non2xx ? `, ${l.non2xx} non-2xx` : ''}${l.errors ? `, ${l.errors} errors` : ''}`,
  );
}

type Cleanup = () => Promise<void> | void;

/** Set by Ctrl-C: the run stops at the next endpoint, then cleans up. */
let interrupted = false;
function stopAll(): void {
  interrupted = true;
  killChildren();
  for (const server of Server.live) server.child.kill('SIGTERM');
}
function checkInterrupted(): void {
  if (interrupted) throw new Error('interrupted');
}

class ApiBench {
  readonly cleanups: Cleanup[] = [];
  readonly failures: string[] = [];
  readonly profileDir = path.join(workDir, 'api-profiles');

  constructor(
    readonly options: Options,
    readonly serverUrl: string,
    readonly corpus: string,
  ) {}

  target(kind: TargetKind): ApiTarget {
    if (kind === 'postgres') {
      const database =
        this.options.size === TARGETS.catalogRows ? 'vt_bench_api' : `vt_bench_api_${this.options.size}`;
      if (this.options.drop) this.cleanups.push(() => dropDatabase(this.serverUrl, database));
      return { kind, serverUrl: this.serverUrl, database };
    }
    // A file-backed data dir, as in production; built fresh each run and removed at the end.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-bench-api-'));
    this.cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    return { kind, dataDir };
  }

  /** One catalog, then a run of the endpoints per response-cache mode, each with its own server. */
  async runTarget(kind: TargetKind): Promise<TargetRun[]> {
    const target = this.target(kind);
    console.error(`[${kind}] catalog of ${int(this.options.size)} CVEs…`);
    const started = performance.now();
    const catalog = await runPhase<CatalogInfo>({
      kind: 'catalog',
      target,
      size: this.options.size,
      corpus: this.corpus,
      rebuild: this.options.rebuild,
      username: USERNAME,
      org: ORG,
    });
    console.error(
      `[${kind}] catalog: ${int(catalog.rows)} CVEs, ${catalog.reused ? 'reused' : 'built'} in ${fixed((performance.now() - started) / 1000, 0)} s`,
    );
    const baseEnv = serverEnv(target, await freePort());
    const token = await createToken(baseEnv, ORG, `api-bench-${Date.now()}`);
    const runs: TargetRun[] = [];
    for (const [i, cache] of this.options.caches.entries()) {
      checkInterrupted();
      // The cache off is an explicit 0; on is the default setting, as installed.
      const env = cache === 'off' ? { ...baseEnv, API_RESPONSE_CACHE_MB: '0' } : baseEnv;
      const run = await this.runEndpoints(target, cache, catalog, env, token, i === 0);
      runs.push(run);
      // Where the time goes: the run that reads the database (the first mode when off is not run).
      if (this.options.profile && (cache === 'off' || !this.options.caches.includes('off'))) {
        if (target.kind === 'postgres') {
          console.error(`[${kind}] EXPLAIN ANALYZE of every endpoint's SQL…`);
          run.explain = await runPhase<ExplainedStatement[]>({
            kind: 'explain',
            url: withDatabase(target.serverUrl, target.database),
            params: catalog.params,
          });
        }
        await this.profileTarget(run, env, token, this.probesOf(target));
      }
    }
    return runs;
  }

  probesOf(target: ApiTarget): (server: Server) => Parameters<typeof runLoad>[3] {
    const database = target.kind === 'postgres' ? target.database : undefined;
    return (server: Server) => ({
      server: () => server.cpuMs(),
      database: database ? backendCpuReader(database) : undefined,
    });
  }

  /** Every endpoint checked, then loaded, on a server started with `env`. */
  async runEndpoints(
    target: ApiTarget,
    cache: CacheMode,
    catalog: CatalogInfo,
    env: NodeJS.ProcessEnv,
    token: string,
    setup: boolean,
  ): Promise<TargetRun> {
    const all = endpoints(catalog.params).filter((e) => !this.options.only || this.options.only.has(e.key));
    const run: TargetRun = { kind: target.kind, cache, catalog, endpoints: [], profiles: [] };
    const headers = { authorization: `Bearer ${token}` };
    const probesOf = this.probesOf(target);
    const label = `${target.kind}, cache ${cache}`;
    console.error(`[${label}] ${runName(run)}`);
    let server = await Server.start(env);
    try {
      if (setup) await setupProject(server, token, catalog.params);
      for (const e of all) {
        const checked = await check(server, token, e, catalog);
        if (!checked.ok) this.failures.push(`${label} ${e.label}: ${checked.note}`);
        run.endpoints.push({ key: e.key, label: e.label, path: e.path, check: checked });
      }
      for (const e of run.endpoints) {
        checkInterrupted();
        e.load = await runLoad(
          `${server.baseUrl}${e.path}`,
          headers,
          this.options.load,
          probesOf(server),
          os.cpus().length,
          idleProbe(server, token, catalog.params),
        );
        logLoad(label, e);
        if (!e.load.idleAfter) {
          // The requests it left behind would still be running during the next endpoint's load.
          console.error(`[${label}] the server is still busy after ${e.label}: restarting it`);
          (run.restartedAfter ??= []).push(e.label);
          await server.stop();
          server = await Server.start(env);
        }
      }
    } finally {
      await server.stop();
    }
    console.error(`\n${resultsTable(run)}\n\n${cpuTable(run, os.cpus().length)}\n`);
    return run;
  }

  /** The slowest endpoints again, under a `--cpu-prof` server; one profile cut per endpoint's window. */
  async profileTarget(
    run: TargetRun,
    env: NodeJS.ProcessEnv,
    token: string,
    probesOf: (server: Server) => Parameters<typeof runLoad>[3],
  ): Promise<void> {
    const slowest = run.endpoints
      .filter((e) => e.load)
      // Fewest requests served first; endpoints that answered nothing (p99 unknown) count as slowest.
      .sort((a, b) => a.load!.rps - b.load!.rps || p99Of(b.load!) - p99Of(a.load!))
      .slice(0, PROFILED[run.kind]);
    if (!slowest.length) return;
    const dir = path.join(this.profileDir, `${run.kind}-${Date.now()}`);
    fs.mkdirSync(dir, { recursive: true });
    console.error(`[${run.kind}] CPU profile of the server under ${slowest.map((e) => e.label).join(', ')}…`);
    let server = await Server.start(env, { cpuProfileDir: dir });
    const headers = { authorization: `Bearer ${token}` };
    const windows: [EndpointRun, [number, number]][] = [];
    // One profile per server process: a restart (server still busy after a load) starts another.
    const profiles: string[] = [];
    const stop = async () => {
      const file = await server.stop();
      if (file) profiles.push(file);
    };
    try {
      for (const e of slowest) {
        checkInterrupted();
        const l = await runLoad(
          `${server.baseUrl}${e.path}`,
          headers,
          this.options.load,
          probesOf(server),
          os.cpus().length,
          idleProbe(server, token, run.catalog.params),
        );
        windows.push([e, l.windowUs]);
        if (!l.idleAfter) {
          await stop();
          server = await Server.start(env, { cpuProfileDir: dir });
        }
      }
    } finally {
      await stop();
    }
    for (const [e, window] of windows) {
      const out = path.join(this.profileDir, `${run.kind}-${e.key}.cpuprofile`);
      if (!profiles.some((file) => cutProfile(file, out, window) > 0)) {
        this.failures.push(`${run.kind}: no server profile covers the load of ${e.label}`);
        continue;
      }
      run.profiles.push({
        key: e.key,
        label: e.label,
        file: path.relative(projectRoot, out),
        summary: summarizeServerProfile(out),
      });
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }

  async cleanup(): Promise<void> {
    for (const fn of this.cleanups.reverse()) {
      try {
        await fn();
      } catch (err) {
        console.error(`cleanup failed: ${(err as Error).message}`);
      }
    }
  }
}

/** Formats with the project's prettier settings, so the generated file passes `npm run check`. */
async function formatMarkdown(text: string, file: string): Promise<string> {
  const prettier = await import('prettier');
  const config = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(text, { ...config, parser: 'markdown' });
}

function packageVersion(name: string): string {
  const file = path.join(projectRoot, 'node_modules', name, 'package.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}

export async function run(args: string[]): Promise<void> {
  const options = parseOptions(args);
  if (!options) {
    console.log(USAGE);
    return;
  }
  if (options.render) return render(options.render);
  const serverUrl = process.env.BENCH_DATABASE_URL || DEFAULT_SERVER_URL;
  fs.mkdirSync(workDir, { recursive: true });
  const corpus = corpusFile();
  const result: ApiBenchRun = {
    command: ['npm run bench -- api', ...args].join(' '),
    canonical: options.canonical,
    date: new Date(),
    quick: options.quick,
    machine: machineInfo(),
    postgres: await serverInfo(serverUrl),
    autocannon: packageVersion('autocannon'),
    corpus: path.relative(projectRoot, corpus),
    options: { size: options.size, ...options.load },
    load: { start: os.loadavg()[0] ?? 0, end: 0 },
    targets: [],
    failures: [],
  };
  if (result.machine.srcDirty)
    console.error('note: src/ has uncommitted changes; the numbers describe that work in progress');
  if (result.load.start > result.machine.cores)
    console.error(`note: load average ${fixed(result.load.start, 2)} on ${result.machine.cores} cores`);

  const bench = new ApiBench(options, serverUrl, corpus);
  const onSignal = () => stopAll();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    for (const kind of options.kinds) {
      if (interrupted) break;
      try {
        result.targets.push(...(await bench.runTarget(kind)));
      } catch (err) {
        const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
        console.error(`[${kind}] failed: ${message}`);
        const lines = (err instanceof Error ? err.message : String(err)).split('\n').filter(Boolean);
        bench.failures.push(`${kind}: ${lines.slice(0, 6).join(' ⏎ ')}`);
      }
    }
  } finally {
    await bench.cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  result.load.end = os.loadavg()[0] ?? 0;
  result.failures = bench.failures;

  const json = path.join(
    workDir,
    `RESULTS-api-${options.canonical ? 'full' : options.quick ? 'quick' : 'partial'}.json`,
  );
  fs.writeFileSync(json, JSON.stringify(result, null, 1));
  await writeResults(result);
  console.log(`measurements: ${path.relative(process.cwd(), json)} (npm run bench -- api --render <it>)`);
  if (result.failures.length || verdicts(result).some((v) => !v.met && /right|non-2xx/.test(v.target)))
    process.exitCode = 1;
}

async function writeResults(result: ApiBenchRun): Promise<void> {
  console.log(`\n${verdictTable(result)}\n`);
  const out = result.canonical
    ? path.join(benchDir, 'RESULTS-api.md')
    : path.join(workDir, `RESULTS-api-${result.quick ? 'quick' : 'partial'}.md`);
  // The API v1 section belongs to `npm run bench -- api-v1 --record`: kept as it is.
  const previous = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
  const v1 = previous.indexOf('\n## API v1\n');
  const v1End = v1 < 0 ? -1 : previous.indexOf('\n## ', v1 + 1);
  const v1Section = v1 < 0 ? '' : previous.slice(v1 + 1, v1End < 0 ? undefined : v1End + 1);
  const markdown = renderMarkdown(result).trimEnd() + (v1Section ? `\n\n${v1Section}` : '\n');
  fs.writeFileSync(out, await formatMarkdown(markdown, out));
  console.log(`written: ${path.relative(process.cwd(), out)}`);
}

/** Renders saved measurements again (after a change to the report, without measuring again). */
async function render(file: string): Promise<void> {
  const result = JSON.parse(fs.readFileSync(file, 'utf8')) as ApiBenchRun;
  result.date = new Date(result.date);
  await writeResults(result);
}
