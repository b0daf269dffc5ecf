/** The API benchmark's measurements as tables, target verdicts and RESULTS-api.md. */
import type { MachineInfo } from '../lib/machine.ts';
import type { ProfileSummary } from '../lib/cpuprofile.ts';
import { fence, fixed, int, table } from '../lib/markdown.ts';
import { DRAIN_MS, type LoadResult } from './load.ts';
import { renderServerProfile } from './profile.ts';
import type { CatalogInfo, ExplainedStatement, TargetKind } from './types.ts';

export const TARGETS = {
  catalogRows: 300_000,
  connections: 50,
  postgres: { p99Ms: 50, rps: 1_000 },
  embedded: { p99Ms: 150 },
} as const;

export interface EndpointCheck {
  status: number;
  /** The answer's `count` (lists only). */
  count?: number | undefined;
  expected?: number | undefined;
  ok: boolean;
  note: string;
}

export interface EndpointRun {
  key: string;
  label: string;
  path: string;
  check: EndpointCheck;
  load?: LoadResult;
}

export interface ProfileRun {
  key: string;
  label: string;
  file: string;
  summary: ProfileSummary;
}

/**
 * The server's response cache during a run: `off` (API_RESPONSE_CACHE_MB=0: every request reads the
 * database, what a first request costs) or `on` (the default: every request after the first of an
 * endpoint is a hit, since the catalog does not change during the run).
 */
export type CacheMode = 'off' | 'on';
export const CACHE_MODES: readonly CacheMode[] = ['off', 'on'];

export interface TargetRun {
  kind: TargetKind;
  /** Absent in runs saved before the response cache existed (they had none: `off`). */
  cache?: CacheMode;
  catalog: CatalogInfo;
  endpoints: EndpointRun[];
  /** Endpoints after whose load the server was restarted (still busy DRAIN_MS later). */
  restartedAfter?: string[];
  explain?: ExplainedStatement[];
  profiles: ProfileRun[];
}

export interface ApiBenchRun {
  command: string;
  /** A complete, full-size, default run: its report is bench/RESULTS-api.md. */
  canonical: boolean;
  date: Date;
  quick: boolean;
  machine: MachineInfo;
  postgres: { version: string; settings: string };
  autocannon: string;
  corpus: string;
  options: { size: number; connections: number; seconds: number; warmupSeconds: number };
  /** 1-minute load average before and after: other work on the machine skews the numbers. */
  load: { start: number; end: number };
  targets: TargetRun[];
  /** Problems that stopped a target part-way (reported, and the run exits non-zero). */
  failures: string[];
  /** Remarks on the run added afterwards (in the saved measurements), shown under the header. */
  notes?: string[];
}

const TARGET_NAMES: Record<TargetKind, string> = { postgres: 'PostgreSQL', embedded: 'Embedded PGlite' };
const CACHE_NAMES: Record<CacheMode, string> = {
  off: 'response cache off (every request reads the database)',
  on: 'response cache on (repeated requests: hits)',
};
/** A run's name: the database and, when the run says, the response cache. */
export const runName = (t: TargetRun) =>
  t.cache ? `${TARGET_NAMES[t.kind]}, ${CACHE_NAMES[t.cache]}` : TARGET_NAMES[t.kind];
const ms = (v: number | undefined) => (v === undefined ? '' : v < 10 ? fixed(v, 1) : int(v));
const cpu = (v: number | undefined) => (v === undefined ? '' : fixed(v, 2));

function cpuTotal(l: LoadResult): number {
  const c = l.cpuPerRequest;
  return (c.server ?? 0) + (c.database ?? 0) + c.loadGenerator;
}

/** Requests per second the machine's cores could serve at this CPU cost per request, all else idle. */
export const cpuCeiling = (l: LoadResult, cores: number) => (cores * 1000) / Math.max(cpuTotal(l), 1e-9);

/** The p99 autocannon measures covers answered requests only: none answered (all timed out) misses. */
export const p99Of = (l: LoadResult) => (l.requests > 0 ? l.p99 : Infinity);

function meets(kind: TargetKind, l: LoadResult): { p99: boolean; rps: boolean | undefined } {
  if (kind === 'postgres')
    return { p99: p99Of(l) <= TARGETS.postgres.p99Ms, rps: l.rps >= TARGETS.postgres.rps };
  return { p99: p99Of(l) <= TARGETS.embedded.p99Ms, rps: undefined };
}

/** A latency cell: empty when not run, "—" when no request was answered. */
const latency = (l: LoadResult | undefined, v: number | undefined) =>
  l === undefined ? '' : l.requests === 0 ? '—' : ms(v);

function verdictCell(kind: TargetKind, e: EndpointRun): string {
  if (!e.check.ok) return '**WRONG ANSWER**';
  if (!e.load) return 'not run';
  if (e.load.non2xx || e.load.errors) return '**ERRORS**';
  const m = meets(kind, e.load);
  const missed = [!m.p99 && 'p99', m.rps === false && 'req/s'].filter(Boolean);
  return missed.length ? `**missed** (${missed.join(', ')})` : 'met';
}

export function resultsTable(t: TargetRun): string {
  return table(
    [
      'Endpoint',
      'count (API)',
      'count (SQL)',
      'req/s',
      'p50 ms',
      'p90 ms',
      'p99 ms',
      'max ms',
      'non-2xx',
      'errors',
      'Verdict',
    ],
    t.endpoints.map((e) => [
      e.label,
      e.check.count === undefined ? e.check.note : int(e.check.count),
      e.check.expected === undefined ? '' : int(e.check.expected),
      e.load ? int(e.load.rps) : '',
      latency(e.load, e.load?.p50),
      latency(e.load, e.load?.p90),
      latency(e.load, e.load?.p99),
      latency(e.load, e.load?.maxMs),
      e.load ? int(e.load.non2xx) : '',
      e.load ? int(e.load.errors) : '',
      verdictCell(t.kind, e),
    ]),
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
  );
}

export function cpuTable(t: TargetRun, cores: number): string {
  const withLoad = t.endpoints.filter((e) => e.load);
  return table(
    [
      'Endpoint',
      'server',
      'PostgreSQL backends',
      'autocannon',
      'total',
      'rest of machine',
      `${cores}-core ceiling req/s`,
      'measured req/s',
      'cores busy',
    ],
    withLoad.map((e) => {
      const l = e.load!;
      if (l.requests === 0)
        return [
          e.label,
          '—',
          '—',
          '—',
          '—',
          '—',
          '—',
          int(l.rps),
          `${fixed(l.cpuShare * cores, 2)} of ${cores}`,
        ];
      return [
        e.label,
        cpu(l.cpuPerRequest.server),
        t.kind === 'embedded' ? '(in server)' : cpu(l.cpuPerRequest.database),
        cpu(l.cpuPerRequest.loadGenerator),
        cpu(cpuTotal(l)),
        cpu(l.cpuPerRequest.other),
        int(cpuCeiling(l, cores)),
        int(l.rps),
        `${fixed(l.cpuShare * cores, 2)} of ${cores}`,
      ];
    }),
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
}

export interface Verdict {
  target: string;
  measured: string;
  met: boolean;
}

export function verdicts(run: ApiBenchRun): Verdict[] {
  const out: Verdict[] = [];
  for (const t of run.targets) {
    const name = runName(t);
    const loaded = t.endpoints.filter((e) => e.load);
    const checked = t.endpoints.filter((e) => e.check.expected !== undefined);
    out.push({
      target: `${name}: every answer right (list counts = SQL count(*); detail and token answer 200)`,
      measured: `${t.endpoints.filter((e) => e.check.ok).length} of ${t.endpoints.length} right (${checked.length} counts compared)`,
      met: t.endpoints.every((e) => e.check.ok),
    });
    const bad = loaded.filter((e) => e.load!.non2xx || e.load!.errors);
    out.push({
      target: `${name}: no non-2xx answers or errors under load`,
      measured: bad.length
        ? bad
            .map(
              (e) =>
                `${e.label}: ${e.load!.non2xx} non-2xx, ${e.load!.errors} errors (${e.load!.timeouts} timeouts)`,
            )
            .join('; ')
        : 'none',
      met: bad.length === 0 && loaded.length === t.endpoints.length,
    });
    const worstP99 = [...loaded].sort((a, b) => p99Of(b.load!) - p99Of(a.load!))[0];
    const p99Target = t.kind === 'postgres' ? TARGETS.postgres.p99Ms : TARGETS.embedded.p99Ms;
    const p99Met = loaded.filter((e) => meets(t.kind, e.load!).p99).length;
    out.push({
      target: `${name}: every endpoint p99 ≤ ${p99Target} ms at ${run.options.connections} connections`,
      measured: `${p99Met} of ${loaded.length} met${worstP99 ? `; worst ${worstP99.label}: ${worstP99.load!.requests ? `${ms(worstP99.load!.p99)} ms` : 'no answer within the 10 s timeout'}` : ''}`,
      met: loaded.length === t.endpoints.length && p99Met === loaded.length,
    });
    if (t.kind === 'postgres') {
      const rpsMet = loaded.filter((e) => meets(t.kind, e.load!).rps).length;
      const slowest = [...loaded].sort((a, b) => a.load!.rps - b.load!.rps)[0];
      out.push({
        target: `${name}: every endpoint ≥ ${int(TARGETS.postgres.rps)} req/s`,
        measured: `${rpsMet} of ${loaded.length} met${slowest ? `; lowest ${slowest.label}: ${int(slowest.load!.rps)} req/s` : ''}`,
        met: loaded.length === t.endpoints.length && rpsMet === loaded.length,
      });
    }
  }
  return out;
}

export function verdictTable(run: ApiBenchRun): string {
  return table(
    ['Target', 'Measured', 'Verdict'],
    verdicts(run).map((v) => [v.target, v.measured, v.met ? '**met**' : '**MISSED**']),
  );
}

function catalogLine(t: TargetRun): string {
  const c = t.catalog;
  const how = c.reused
    ? 'reused from an earlier run (same migrations, catalog code, corpus and size)'
    : c.build
      ? `built in ${fixed((c.build.importMs + c.build.replicateMs + c.build.vacuumMs) / 1000, 0)} s: ` +
        `${int(c.build.imported)} records imported (${fixed(c.build.importMs / 1000, 0)} s), ` +
        `replicated in SQL (${fixed(c.build.replicateMs / 1000, 0)} s), VACUUM ANALYZE (${fixed(c.build.vacuumMs / 1000, 0)} s)`
      : '';
  return `${int(c.rows)} CVEs, ${int(c.databaseMiB)} MiB database; ${how}.`;
}

function explainSection(statements: ExplainedStatement[]): string[] {
  const slowest = [...statements].sort((a, b) => b.ms - a.ms);
  const parts = [
    table(
      ['Endpoint', 'Statement', 'ms (median of 5)', 'EXPLAIN ANALYZE ms', 'Indexes used'],
      slowest.map((s) => [
        s.endpoint,
        s.role,
        fixed(s.ms, 2),
        fixed(s.explainMs, 2),
        s.indexes.join(', ') || '(none: sequential scan)',
      ]),
      ['left', 'left', 'right', 'right', 'left'],
    ),
  ];
  for (const s of slowest.slice(0, 4)) {
    parts.push(
      '',
      `**${s.endpoint} — ${s.role}** (${fixed(s.ms, 1)} ms; ${fixed(s.explainMs, 1)} ms under EXPLAIN ANALYZE), parameters \`${JSON.stringify(s.parameters)}\`:`,
      '',
      fence(s.sql.replace(/\s+/g, ' ').trim(), 'sql'),
      '',
      fence(s.plan),
    );
  }
  return parts;
}

export function renderMarkdown(run: ApiBenchRun): string {
  const m = run.machine;
  const o = run.options;
  const header = table(
    ['', ''],
    [
      ['Command', `\`${run.command}\``],
      ['Date', run.date.toISOString().replace(/\.\d+Z$/, 'Z')],
      ['Commit', `${m.commit}${m.srcDirty ? ' (with uncommitted changes in src/)' : ''}`],
      ['CPU', `${m.cpuModel}, ${m.cores} cores`],
      ['Memory', `${fixed(m.memoryGiB, 1)} GiB`],
      ['OS', m.os],
      ['Node', m.node],
      ['PostgreSQL', `${run.postgres.version} on the same machine (${run.postgres.settings})`],
      ['PGlite', m.pglite],
      ['Load generator', `autocannon ${run.autocannon}, in the benchmark process, on loopback`],
      [
        'Load',
        `${o.connections} connections, ${o.warmupSeconds} s warm-up (dropped) then ${o.seconds} s measured, per endpoint`,
      ],
      ['Corpus', `\`${run.corpus}\``],
      ['Load average (1 min), start / end', `${fixed(run.load.start, 2)} / ${fixed(run.load.end, 2)}`],
    ],
  );
  const parts: string[] = [
    '# API v2 benchmark results',
    '',
    'Generated by `npm run bench -- api`; see [api/README.md](api/README.md) for what is measured and how.',
    '',
    header,
    '',
  ];
  if (run.quick)
    parts.push(
      `**Quick run**: a ${int(o.size)}-CVE catalog and ${o.seconds} s per endpoint, PostgreSQL only; a smoke test, not the benchmark.`,
      '',
    );
  if (run.load.start > m.cores || run.load.end > m.cores)
    parts.push(
      `**The machine was busy** (load average above its ${m.cores} cores): other processes competed for the CPU, so these numbers understate what the server can do.`,
      '',
    );
  if (run.failures.length) parts.push('**Failures:**', '', ...run.failures.map((f) => `- ${f}`), '');
  if (run.notes?.length) parts.push('**Notes:**', '', ...run.notes.map((n) => `- ${n}`), '');
  parts.push('## Targets', '', verdictTable(run), '');
  for (const t of run.targets) {
    const name = runName(t);
    parts.push(`## ${name}`, '', catalogLine(t), '', resultsTable(t), '');
    if (t.cache === 'on')
      parts.push(
        'With the response cache on, autocannon repeats one URL at one catalog version, so every request after ' +
          "the first is a hit: the token lookup (which also reads the catalog version) and the kept answer's bytes. " +
          'That is what a client repeating a request gets, not what a first request or a request after an import ' +
          'costs: those are the numbers with the cache off.',
        '',
      );
    const backlog = t.endpoints.filter((e) => e.load?.idleBefore === false).map((e) => e.label);
    if (backlog.length)
      parts.push(
        `Measured while requests of the warm-up were still queued in the server (still busy ${DRAIN_MS / 1000} s after the warm-up): ${backlog.join(', ')}.`,
        '',
      );
    if (t.restartedAfter?.length)
      parts.push(
        `The server was still working through requests left behind by the load of ${t.restartedAfter.join(', ')} ` +
          `(in flight when autocannon stopped, or timed out) ${DRAIN_MS / 1000} s after it, so it was restarted before the next endpoint: ` +
          'the server does not cancel a request whose client is gone.',
        '',
      );
    parts.push(
      "req/s is autocannon's mean of per-second counts; latencies are those of the answered requests, as autocannon sees them. " +
        'A request unanswered after 10 s (autocannon\'s timeout) counts as an error, not in the latencies; "—": none answered. ' +
        '"count (SQL)" is `SELECT count(*)` with the same condition written by hand:',
      '',
      fence(
        Object.entries(t.catalog.expectedSql)
          .map(([k, v]) => `-- ${k}\n${v};`)
          .join('\n'),
        'sql',
      ),
      '',
      `The project's ${t.catalog.params.subscriptionKeys.length} subscriptions: ${t.catalog.params.subscriptions.vendors.length} vendors (the most frequent), ` +
        `${t.catalog.params.subscriptionKeys.length - t.catalog.params.subscriptions.vendors.length} products of other vendors. ` +
        'The token check endpoint is `GET /organizations/<org>`: the token lookup (one join on `api_token`) plus one primary-key read of the organization with two small counts.',
      '',
      '### Where the CPU goes',
      '',
      cpuTable(t, m.cores),
      '',
      'CPU ms per answered request, from /proc around the measured run: the server process (all threads), the PostgreSQL backends of the benchmark database, this process (autocannon), and their total. ' +
        `All three share the same ${m.cores} cores, so ${m.cores} × 1000 / total is the most the machine can serve at that cost per request, whatever the concurrency (the ceiling). ` +
        '"Rest of machine" is the busy time nobody above accounts for: PostgreSQL parallel workers (short-lived, not counted as backends) and any other process; on a quiet machine it is mostly the former.',
      '',
    );
    if (t.explain?.length) {
      parts.push(
        '### SQL: `EXPLAIN (ANALYZE, BUFFERS)`',
        '',
        "Every statement each endpoint runs, compiled by the server's own services (Kysely log hook); each run five times alone (median, round trip included) and once under EXPLAIN, slowest first:",
        '',
        ...explainSection(t.explain),
        '',
      );
    }
    for (const p of t.profiles) {
      parts.push(
        `### Server CPU profile: ${p.label}`,
        '',
        `\`node --cpu-prof\` of the server, cut to the measured load (\`${p.file}\`).`,
        '',
        renderServerProfile(p.summary),
        '',
      );
    }
  }
  return parts.join('\n');
}
