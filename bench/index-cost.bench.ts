/**
 * What some indexes of `cve` cost a first import: the CVE 5 corpus imported by the CLI into a new
 * PostgreSQL database with every migration, and again with the named indexes dropped, alternating
 * for several rounds (a busy machine drifts; alternation spreads the drift over both). Reports the
 * wall time and the WAL written by each import (the bytes PostgreSQL had to write: steadier than time
 * on a loaded machine) and the indexes' size. Writes bench/.work/RESULTS-index-cost.md.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadAverage, machineInfo } from './lib/machine.ts';
import { fixed, int, table } from './lib/markdown.ts';
import { createDatabase, DEFAULT_SERVER_URL, dropDatabase } from './lib/pg-admin.ts';
import { projectRoot, workDir } from './lib/paths.ts';

const USAGE = `usage: npm run bench -- index-cost [--indexes a,b] [--rounds N]

  --indexes LIST  indexes of the migrations to leave out in the "without" imports
                  (default cve_best_cvss_idx,cve_epss_idx: the CVE lists' score orderings)
  --rounds N      with/without pairs (default 2)

env: BENCH_DATABASE_URL (PostgreSQL server; default ${DEFAULT_SERVER_URL}), VULNTRACK_BENCH_DATA (CVE 5 .jsonl.gz)`;

const SECRET = 'index-cost-benchmark-secret-0123456789';

function cli(args: string[], databaseUrl: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(projectRoot, 'bin', 'vulntrack.js'), ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl, VULNTRACK_SECRET: SECRET, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`vulntrack ${args[0]} exited ${code}: ${stderr.slice(-500)}`)),
    );
  });
}

async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

interface Run {
  round: number;
  variant: 'with' | 'without';
  seconds: number;
  walMiB: number;
  indexMiB: number;
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { indexes: { type: 'string' }, rounds: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const indexes = (values.indexes ?? 'cve_best_cvss_idx,cve_epss_idx').split(',').filter(Boolean);
  if (!indexes.every((i) => /^[a-z0-9_]+$/.test(i))) throw new Error('--indexes: index names only');
  const rounds = Number(values.rounds ?? 2);
  const serverUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL;
  const corpus = process.env.VULNTRACK_BENCH_DATA
    ? path.resolve(process.env.VULNTRACK_BENCH_DATA)
    : path.resolve(projectRoot, '../shared/data/cve5/vulnrichment-2024-10-24.jsonl.gz');
  const runs: Run[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const variant of ['with', 'without'] as const) {
      const name = `vt_bench_index_cost_${variant}`;
      const url = await createDatabase(serverUrl, name);
      await cli(['migrate'], url);
      if (variant === 'without')
        for (const index of indexes) await query(url, `DROP INDEX IF EXISTS ${index}`);
      const [{ lsn }] = (await query<{ lsn: string }>(url, 'SELECT pg_current_wal_lsn()::text AS lsn')) as [
        { lsn: string },
      ];
      const started = performance.now();
      await cli(['import', 'cve5', corpus], url);
      const seconds = (performance.now() - started) / 1000;
      const [{ wal, size }] = (await query<{ wal: string; size: string }>(
        url,
        `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::text AS wal,
                coalesce(sum(pg_relation_size(c.oid)), 0)::text AS size
         FROM pg_class c WHERE c.relname = ANY($2::text[])`,
        [lsn, indexes],
      )) as [{ wal: string; size: string }];
      const result = {
        round,
        variant,
        seconds,
        walMiB: Number(wal) / 2 ** 20,
        indexMiB: Number(size) / 2 ** 20,
      };
      console.error(
        `round ${round}, ${variant}: ${fixed(seconds)} s, WAL ${fixed(result.walMiB)} MiB, indexes ${fixed(result.indexMiB)} MiB`,
      );
      runs.push(result);
      await dropDatabase(serverUrl, name);
    }
  }
  const mean = (variant: Run['variant'], pick: (r: Run) => number) => {
    const xs = runs.filter((r) => r.variant === variant).map(pick);
    return xs.reduce((a, b) => a + b, 0) / xs.length;
  };
  const machine = machineInfo();
  const markdown = [
    '# What indexes of `cve` cost a first import',
    '',
    `Command: \`npm run bench -- index-cost${args.length ? ' ' + args.join(' ') : ''}\`. Machine: ${machine.cpuModel}, ` +
      `${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}; commit ${machine.commit}; ` +
      `load average at the end ${loadAverage()}.`,
    '',
    `Corpus: \`${path.basename(corpus)}\`, imported by the CLI into a new PostgreSQL database; "without" drops ` +
      `${indexes.map((i) => `\`${i}\``).join(', ')} after the migrations.`,
    '',
    table(
      ['round', 'variant', 'seconds', 'WAL MiB', 'index MiB'],
      runs.map((r) => [String(r.round), r.variant, fixed(r.seconds), fixed(r.walMiB), fixed(r.indexMiB)]),
      ['right', 'left', 'right', 'right', 'right'],
    ),
    '',
    `Mean: with ${fixed(mean('with', (r) => r.seconds))} s and ${fixed(mean('with', (r) => r.walMiB))} MiB of WAL; ` +
      `without ${fixed(mean('without', (r) => r.seconds))} s and ${fixed(mean('without', (r) => r.walMiB))} MiB ` +
      `(${int(rounds)} rounds).`,
    '',
  ].join('\n');
  const file = path.join(workDir, 'RESULTS-index-cost.md');
  fs.mkdirSync(workDir, { recursive: true });
  fs.writeFileSync(file, markdown);
  console.error(`wrote ${path.relative(projectRoot, file)}`);
}
