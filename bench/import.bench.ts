/**
 * The import benchmark: parse floor, PostgreSQL and embedded imports (first and unchanged re-import)
 * and a 300,000-record catalog on PostgreSQL, each phase in its own child process. Prints the
 * results and writes bench/RESULTS.md (full default runs only; other runs write under bench/.work).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { killChildren } from './lib/child.ts';
import { runPhase } from './import/run-phase.ts';
import { machineInfo } from './lib/machine.ts';
import { fixed, int, table } from './lib/markdown.ts';
import { createDatabase, DEFAULT_SERVER_URL, dropDatabase, serverInfo } from './lib/pg-admin.ts';
import { benchDir, projectRoot, workDir } from './lib/paths.ts';
import { corpusFile, writePrefix } from './import/corpus.ts';
import { renderImportProfile, summarizeImportProfile } from './import/profile.ts';
import {
  renderMarkdown,
  resultsTable,
  sanityProblems,
  TARGETS,
  verdicts,
  verdictTable,
  type BenchRun,
  type ProfileReport,
} from './import/report.ts';
import type { DbTarget, ImportResult } from './import/types.ts';

const PHASES = ['parse', 'pg', 'embedded', 'catalog'] as const;
type PhaseGroup = (typeof PHASES)[number];
const QUICK_RECORDS = 5_000;
const LOOKUP_VENDOR = 'microsoft';

const USAGE = `usage: npm run bench -- import [--quick] [--profile] [--phases ${PHASES.join(',')}] [--catalog-size N] [--batch-size N]

  --quick          first ${int(QUICK_RECORDS)} records only, no catalog phase (smoke test)
  --profile        CPU-profile every import phase (slower; results go to bench/.work, not RESULTS.md)
  --phases LIST    run only these phase groups (default: all)
  --catalog-size N records in the synthetic PostgreSQL catalog (default ${int(TARGETS.catalogRecords)})
  --batch-size N   the importer's batch size (default: the importer's own)

env: BENCH_DATABASE_URL (PostgreSQL server; default ${DEFAULT_SERVER_URL}), VULNTRACK_BENCH_DATA (input .jsonl.gz)`;

interface Options {
  quick: boolean;
  profile: boolean;
  phases: Set<PhaseGroup>;
  catalogSize: number;
  /** Passed to importInputs; undefined keeps the importer's default. */
  batchSize: number | undefined;
  /** Only a complete, unprofiled, full-size run may replace bench/RESULTS.md. */
  canonical: boolean;
}

function parseOptions(args: string[]): Options | undefined {
  const { values } = parseArgs({
    args,
    options: {
      quick: { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      phases: { type: 'string' },
      'catalog-size': { type: 'string' },
      'batch-size': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return undefined;
  const phases = new Set<PhaseGroup>();
  for (const p of values.phases?.split(',') ?? PHASES) {
    if (!(PHASES as readonly string[]).includes(p)) throw new Error(`unknown phase ${p}`);
    if (p !== 'catalog' || !values.quick || values.phases) phases.add(p as PhaseGroup);
  }
  const catalogSize = Number(values['catalog-size'] ?? TARGETS.catalogRecords);
  if (!Number.isInteger(catalogSize) || catalogSize <= 0)
    throw new Error(`--catalog-size must be a positive integer`);
  const batchSize = values['batch-size'] === undefined ? undefined : Number(values['batch-size']);
  if (batchSize !== undefined && (!Number.isInteger(batchSize) || batchSize <= 0))
    throw new Error(`--batch-size must be a positive integer`);
  return {
    quick: values.quick,
    profile: values.profile,
    phases,
    catalogSize,
    batchSize,
    canonical:
      !values.quick &&
      !values.profile &&
      phases.size === PHASES.length &&
      catalogSize === TARGETS.catalogRecords &&
      batchSize === undefined,
  };
}

/** One line per finished phase, so a long run shows its progress. */
function logPhase(name: string, r: { records?: number; ms?: number; peakRssMiB: number }) {
  const rate = r.records && r.ms ? `, ${int((r.records / r.ms) * 1000)} records/s` : '';
  const time = r.ms ? `${fixed(r.ms / 1000, 2)} s` : 'done';
  console.error(`${name}: ${time}${rate}, peak RSS ${int(r.peakRssMiB)} MiB`);
}

/** Cleanups run in reverse order at the end, whether the run succeeded or not. */
type Cleanup = () => Promise<void> | void;

class ImportBench {
  readonly cleanups: Cleanup[] = [];
  readonly profiles: ProfileReport[] = [];
  readonly profileDir = path.join(workDir, 'profiles');

  constructor(
    readonly options: Options,
    readonly serverUrl: string,
  ) {}

  async importPhase(label: string, file: string, target: DbTarget, name: string): Promise<ImportResult> {
    const profile = this.options.profile ? path.join(this.profileDir, `${label}.cpuprofile`) : undefined;
    const { batchSize } = this.options;
    const result = await runPhase({ kind: 'import', file, target, label, profile, batchSize });
    logPhase(name, result);
    if (profile) this.profiles.push(profileReport(name, profile, result));
    return result;
  }

  /** A fresh database on the server, dropped at the end of the run. */
  async database(name: string): Promise<string> {
    const url = await createDatabase(this.serverUrl, name);
    this.cleanups.push(() => dropDatabase(this.serverUrl, name));
    return url;
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

function profileReport(phase: string, file: string, result: ImportResult): ProfileReport {
  const parts = [renderImportProfile(summarizeImportProfile(file))];
  if (result.queries?.length) {
    parts.push(
      '',
      '**Time per SQL statement** (call to result, as the driver sees it: on PostgreSQL the idle time above, ' +
        "on PGlite its WASM time; server CPU = the PostgreSQL backends' CPU time meanwhile):",
      '',
      table(
        ['statement', 'calls', 'ms', 'ms/call', 'server CPU ms'],
        result.queries.map((q) => [
          `\`${q.statement}\``,
          int(q.calls),
          int(q.ms),
          fixed(q.ms / q.calls, 1),
          q.serverCpuMs === undefined ? '' : int(q.serverCpuMs),
        ]),
        ['left', 'right', 'right', 'right', 'right'],
      ),
    );
  }
  return { phase, file: path.relative(projectRoot, file), markdown: parts.join('\n') };
}

async function runPhases(bench: ImportBench, run: BenchRun, input: string): Promise<void> {
  const { phases } = bench.options;
  if (phases.has('parse')) {
    run.floor = await runPhase({ kind: 'parse', file: input, normalize: false });
    logPhase('parse floor', run.floor);
    run.normalize = await runPhase({ kind: 'parse', file: input, normalize: true });
    logPhase('parse + normalize', run.normalize);
  }
  if (phases.has('pg')) {
    const url = await bench.database('vt_bench_import');
    run.pgFirst = await bench.importPhase('pg-first-import', input, { url }, 'PostgreSQL first import');
    run.pgReimport = await bench.importPhase('pg-reimport', input, { url }, 'PostgreSQL re-import');
  }
  if (phases.has('embedded')) {
    // A file-backed data dir, as in production: 'memory://' would skip the disk writes.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-bench-embedded-'));
    bench.cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    run.embeddedFirst = await bench.importPhase(
      'embedded-first-import',
      input,
      { dataDir },
      'Embedded first import',
    );
    run.embeddedReimport = await bench.importPhase(
      'embedded-reimport',
      input,
      { dataDir },
      'Embedded re-import',
    );
  }
  if (phases.has('catalog')) {
    const size = bench.options.catalogSize;
    const file = path.join(workDir, `catalog-${size}.jsonl.gz`);
    bench.cleanups.push(() => fs.rmSync(file, { force: true }));
    const generate = await runPhase({ kind: 'generate', source: corpusFile(), out: file, records: size });
    logPhase('catalog generation', generate);
    const url = await bench.database('vt_bench_import_catalog');
    const imported = await bench.importPhase(
      'pg-catalog-import',
      file,
      { url },
      `PostgreSQL ${int(size)}-record catalog`,
    );
    const explain = await runPhase({ kind: 'explain', url, vendor: LOOKUP_VENDOR });
    logPhase('catalog explain', explain);
    run.catalog = { generate, import: imported, explain };
  }
}

function resultsPath(options: Options): string {
  if (options.canonical) return path.join(benchDir, 'RESULTS.md');
  const kind = options.profile ? 'profile' : options.quick ? 'quick' : 'partial';
  return path.join(workDir, `RESULTS-${kind}.md`);
}

/** Formats with the project's prettier settings, so the generated file passes `npm run check`. */
async function formatMarkdown(text: string, file: string): Promise<string> {
  const prettier = await import('prettier');
  const config = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(text, { ...config, parser: 'markdown' });
}

export async function run(args: string[]): Promise<void> {
  let options: Options | undefined;
  try {
    options = parseOptions(args);
  } catch (err) {
    // A mistyped option deserves the usage, not a stack trace.
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (!options) {
    console.log(USAGE);
    return;
  }
  const serverUrl = process.env.BENCH_DATABASE_URL || DEFAULT_SERVER_URL;
  fs.mkdirSync(workDir, { recursive: true });
  const corpus = corpusFile();
  let input = corpus;
  if (options.quick) {
    input = path.join(workDir, `quick-${QUICK_RECORDS}.jsonl.gz`);
    await writePrefix(corpus, input, QUICK_RECORDS);
  }
  const run: BenchRun = {
    command: ['npm run bench -- import', ...args].join(' '),
    date: new Date(),
    quick: options.quick,
    input: { file: path.relative(projectRoot, corpus), records: 0 },
    machine: machineInfo(),
    postgres: await serverInfo(serverUrl),
    load: { start: os.loadavg()[0] ?? 0, end: 0 },
    profiles: [],
  };
  if (run.machine.srcDirty)
    console.error('note: src/ has uncommitted changes; the numbers describe that work in progress');

  const bench = new ImportBench(options, serverUrl);
  // Ctrl-C: stop the running phase, then let the finally below drop databases and temp files.
  const onSignal = () => killChildren();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await runPhases(bench, run, input);
  } finally {
    await bench.cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  run.load.end = os.loadavg()[0] ?? 0;
  run.input.records = run.floor?.records ?? run.pgFirst?.records ?? run.embeddedFirst?.records ?? 0;
  run.profiles = bench.profiles;

  console.log(`\n${resultsTable(run)}\n\n${verdictTable(run)}\n`);
  for (const p of run.profiles) console.log(`Profile of ${p.phase} (${p.file}):\n\n${p.markdown}\n`);
  const out = resultsPath(options);
  fs.writeFileSync(out, await formatMarkdown(renderMarkdown(run), out));
  console.log(`written: ${path.relative(process.cwd(), out)}`);

  const problems = sanityProblems(run);
  for (const p of problems) console.error(`SANITY CHECK FAILED: ${p}`);
  const indexCheck = verdicts(run).at(-1);
  if (problems.length || indexCheck?.met === false) process.exitCode = 1;
}
