/**
 * The command line's start-up (issue 16: "a CLI that answers at once"): in one run, interleaved so
 * the machine's load weighs on both alike, `node -e 0` against `node bin/vulntrack.js --help`
 * (target: the median within 5× of node's), the same help run from the sources through tsx (what
 * every call cost before dist/), and `vulntrack token create` handed to a running server on an
 * embedded data dir (target: under 0.5 s). Writes bench/RESULTS-cli.md (--quick: bench/.work/).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { compiledEntry } from '../bin/compiled.js';
import { loadAverage, machineInfo } from './lib/machine.ts';
import { fixed, table } from './lib/markdown.ts';
import { benchDir, projectRoot, workDir } from './lib/paths.ts';

const HELP_RATIO_TARGET = 5;
const TOKEN_CREATE_TARGET_S = 0.5;

const USAGE = `usage: npm run bench -- cli [--quick] [--runs N]

  --quick    5 runs of each (smoke test; writes bench/.work/RESULTS-cli-quick.md)
  --runs N   runs of each command (default 30)`;

const bin = path.join(projectRoot, 'bin/vulntrack.js');

interface Sample {
  label: string;
  command: string;
  seconds: number[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const ms = (s: number) => `${fixed(s * 1000, 0)} ms`;

/** Runs a command to its end and returns its wall time in seconds; throws on a non-zero exit. */
function timed(args: string[], env: NodeJS.ProcessEnv = process.env): number {
  const start = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: projectRoot, env, encoding: 'utf8' });
  const seconds = (performance.now() - start) / 1000;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return seconds;
}

/** Starts `vulntrack serve` on `dataDir` and resolves once it listens (and its control socket is up). */
async function startServer(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [bin, 'serve'], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`serve did not start in 120 s:\n${output}`));
    }, 120_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      if (/vulntrack listening on/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`serve exited ${code}:\n${output}`)));
  });
  return child;
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { quick: { type: 'boolean' }, runs: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const runs = values.quick ? 5 : Number(values.runs ?? 30);

  if (!compiledEntry()) {
    console.error('dist/ is missing or older than src/: building it first (npm run build)');
    const build = spawnSync(process.execPath, ['scripts/build.js'], { cwd: projectRoot, stdio: 'inherit' });
    if (build.status !== 0 || !compiledEntry()) throw new Error('the build failed');
  }

  const machine = machineInfo();
  const loadBefore = loadAverage();

  // 1. Start-up, interleaved: one of each per round.
  const startup: Sample[] = [
    { label: 'node -e 0', command: 'node -e 0', seconds: [] },
    { label: '--help (dist/)', command: 'node bin/vulntrack.js --help', seconds: [] },
    {
      label: '--help from the sources (tsx)',
      command: 'node --import tsx src/cli/main.ts --help',
      seconds: [],
    },
  ];
  const argsOf = [
    ['-e', '0'],
    [bin, '--help'],
    ['--import', 'tsx', 'src/cli/main.ts', '--help'],
  ];
  for (let i = 0; i < 2; i++) argsOf.forEach((args) => timed(args)); // warm the file cache (and tsx's)
  for (let i = 0; i < runs; i++) {
    startup.forEach((sample, j) => sample.seconds.push(timed(argsOf[j]!)));
    process.stderr.write(`\rstart-up: ${i + 1}/${runs}`);
  }
  process.stderr.write('\n');
  const loadAfterStartup = loadAverage();

  // 2. token create handed to a running server.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-bench-cli-'));
  const env = {
    ...process.env,
    VULNTRACK_DATA_DIR: dataDir,
    DATABASE_URL: '',
    VULNTRACK_LOAD_SAMPLE: 'false',
    SYNC_SOURCES: 'none',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info', // the 'listening' line the benchmark waits for
  };
  const server = await startServer(env);
  const token: Sample = {
    label: 'token create, handed to the running server',
    command: 'node bin/vulntrack.js token create --org bench --name tN',
    seconds: [],
  };
  try {
    timed(
      [
        bin,
        'user',
        'create',
        '--username',
        'bench',
        '--email',
        'bench@example.com',
        '--password',
        'a long bench passphrase',
      ],
      env,
    );
    timed([bin, 'org', 'create', 'bench', '--owner', 'bench'], env);
    timed([bin, 'token', 'create', '--org', 'bench', '--name', 'warm-up'], env);
    for (let i = 0; i < runs; i++) {
      token.seconds.push(timed([bin, 'token', 'create', '--org', 'bench', '--name', `t${i}`], env));
      process.stderr.write(`\rtoken create: ${i + 1}/${runs}`);
    }
    process.stderr.write('\n');
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const loadAfter = loadAverage();

  const node = median(startup[0]!.seconds);
  const help = median(startup[1]!.seconds);
  const tsx = median(startup[2]!.seconds);
  const tokenMedian = median(token.seconds);
  const rows = [...startup, token].map((s) => [
    s.label,
    `\`${s.command}\``,
    ms(median(s.seconds)),
    ms(Math.min(...s.seconds)),
    ms(Math.max(...s.seconds)),
    `${fixed(median(s.seconds) / node, 1)}×`,
  ]);
  const helpMet = help / node <= HELP_RATIO_TARGET;
  const tokenMet = tokenMedian < TOKEN_CREATE_TARGET_S;
  const report = [
    '# CLI start-up benchmark',
    '',
    `\`npm run bench -- cli${values.quick ? ' --quick' : ''}${values.runs ? ` --runs ${values.runs}` : ''}\` on ${new Date().toISOString()}; ${JSON.stringify(machine)}.`,
    `Load average (1/5/15 min) before: ${loadBefore}, after the start-up runs: ${loadAfterStartup}, after: ${loadAfter}.`,
    '',
    `${runs} runs of each; the start-up commands interleaved (one of each per round, after 2 warm-up rounds).`,
    '',
    table(['what', 'command', 'median', 'min', 'max', 'vs node -e 0'], rows, [
      'left',
      'left',
      'right',
      'right',
      'right',
      'right',
    ]),
    '',
    `- \`--help\` within ${HELP_RATIO_TARGET}× of \`node -e 0\`: **${fixed(help / node, 2)}×, ${helpMet ? 'met' : 'missed'}** ` +
      `(from the sources through tsx: ${fixed(tsx / node, 1)}×).`,
    `- \`token create\` handed to a running server under ${TOKEN_CREATE_TARGET_S} s: **${ms(tokenMedian)} median, ` +
      `${ms(Math.max(...token.seconds))} at worst, ${tokenMet ? 'met' : 'missed'}**.`,
    '',
  ].join('\n');
  const file = values.quick
    ? path.join(workDir, 'RESULTS-cli-quick.md')
    : path.join(benchDir, 'RESULTS-cli.md');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, report);
  console.log(report);
  console.log(`written to ${path.relative(projectRoot, file)}`);
}
