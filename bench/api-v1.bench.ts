/**
 * The API v1 authentication benchmark (`npm run bench -- api-v1`): sequential HTTP Basic calls (the
 * credential cache) against the same route with an organization token. See bench/api/v1-auth.ts.
 * `--record` replaces the "API v1" section of bench/RESULTS-api.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { machineInfo } from './lib/machine.ts';
import { benchDir, workDir } from './lib/paths.ts';
import { DEFAULT_SERVER_URL } from './lib/pg-admin.ts';
import { runV1Auth, v1AuthMarkdown, type V1AuthResult } from './api/v1-auth.ts';

const USAGE = `usage: npm run bench -- api-v1 [--targets embedded,postgres] [--calls N] [--route PATH] [--record]

  --targets  embedded, postgres or both (default embedded)
  --calls    sequential calls per credential (default 1000)
  --route    the v1 route called (default /api/cve)
  --record   write the results into the "API v1" section of bench/RESULTS-api.md

env: BENCH_DATABASE_URL (PostgreSQL server; default ${DEFAULT_SERVER_URL})`;

export async function run(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        targets: { type: 'string', default: 'embedded' },
        calls: { type: 'string', default: '1000' },
        route: { type: 'string', default: '/api/cve' },
        record: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (values.help) return console.log(USAGE);
  const targets = values.targets.split(',');
  const calls = Number(values.calls);
  if (!targets.every((t) => t === 'embedded' || t === 'postgres') || !Number.isInteger(calls) || calls < 1) {
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  const results: V1AuthResult[] = [];
  for (const target of targets as ('embedded' | 'postgres')[]) {
    console.error(`api-v1: ${target}: ${calls} Basic calls, then ${calls} token calls of ${values.route}…`);
    results.push(
      await runV1Auth({
        target,
        serverUrl: process.env.BENCH_DATABASE_URL || DEFAULT_SERVER_URL,
        calls,
        route: values.route,
      }),
    );
  }
  const m = machineInfo();
  const machine = `Measured on ${m.cpuModel} (${m.cores} cores, shared), Node ${m.node}, commit ${m.commit}.`;
  const markdown = v1AuthMarkdown(results, machine);
  console.log(markdown);
  fs.mkdirSync(workDir, { recursive: true });
  fs.writeFileSync(path.join(workDir, 'RESULTS-api-v1.json'), JSON.stringify(results, null, 2));
  if (values.record) {
    const file = path.join(benchDir, 'RESULTS-api.md');
    const text = fs.readFileSync(file, 'utf8');
    const start = text.indexOf('\n## API v1\n');
    const rest = start < 0 ? -1 : text.indexOf('\n## ', start + 1);
    const next =
      start < 0
        ? `${text.trimEnd()}\n\n${markdown}`
        : text.slice(0, start + 1) + markdown + (rest < 0 ? '' : text.slice(rest));
    fs.writeFileSync(file, next.endsWith('\n') ? next : `${next}\n`);
  }
  if (results.some((r) => r.p99Ratio > 2)) process.exitCode = 1;
}
