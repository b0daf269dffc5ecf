/**
 * Benchmark runner: `npm run bench -- <name> [options]`. Each benchmark is its own module, loaded
 * only when asked for, so adding `api` or `jobs` later means one more line in the table below.
 */
interface Benchmark {
  /** One line for `npm run bench` without arguments. */
  summary: string;
  load: () => Promise<{ run(args: string[]): Promise<void> }>;
}

const benchmarks: Record<string, Benchmark> = {
  import: {
    summary: 'CVE 5 import throughput on PostgreSQL and embedded PGlite (--quick, --profile, --phases)',
    load: () => import('./import.bench.ts'),
  },
  sync: {
    summary:
      'cve5 history stream (199 commits), one NVD window of 2,000 records, and the import rate they are held to (--no-reference)',
    load: () => import('./sync.bench.ts'),
  },
  api: {
    summary: 'API v2 req/s and latency under autocannon on a 300k-CVE catalog (--quick, --targets)',
    load: () => import('./api.bench.ts'),
  },
  'api-v1': {
    summary: 'API v1: 1,000 sequential HTTP Basic calls (credential cache) vs an organization token',
    load: () => import('./api-v1.bench.ts'),
  },
  jobs: {
    summary: 'job queue throughput: empty jobs with 1 and 3 worker processes (--quick)',
    load: () => import('./jobs.bench.ts'),
  },
  cli: {
    summary: 'command start-up: --help against node -e 0, token create handed to a running server (--quick)',
    load: () => import('./cli.bench.ts'),
  },
  notifications: {
    summary: 'fan-out of 800 changed CVEs to 10,000 projects, then webhook deliveries/s (--quick, --profile)',
    load: () => import('./notifications.bench.ts'),
  },
  web: {
    summary: 'web UI: server time (p50/p95) and weight of the main pages on the 300k-CVE catalog (--size)',
    load: () => import('./web.bench.ts'),
  },
  'index-cost': {
    summary:
      'what some indexes of cve cost a first import on PostgreSQL: time and WAL, with and without (--indexes, --rounds)',
    load: () => import('./index-cost.bench.ts'),
  },
  match: {
    summary:
      'inventory matching: POST /api/v2/match with 1,000 components on a 300k-CVE catalog (--size, --runs, --keep)',
    load: () => import('./match.bench.ts'),
  },
  inventory: {
    summary:
      'project inventories: a 5,000-component SBOM upload, then 200 projects × 2,000 components through sync rounds of 1,000 changed CVEs (--reuse, --keep)',
    load: () => import('./inventory.bench.ts'),
  },
  'vendor-mapping': {
    summary: 'CNA vendor/product text → CPE keys: precision and recall against CISA-ADP CPEs (--cut DATE)',
    load: () => import('./vendor-mapping.bench.ts'),
  },
};

const [name, ...args] = process.argv.slice(2);
const benchmark = name ? benchmarks[name] : undefined;
if (!benchmark) {
  console.error('usage: npm run bench -- <benchmark> [options]\n');
  for (const [key, b] of Object.entries(benchmarks)) console.error(`  ${key.padEnd(13)} ${b.summary}`);
  process.exit(name ? 2 : 0);
}
try {
  await (await benchmark.load()).run(args);
} catch (err) {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exitCode = 1;
}
