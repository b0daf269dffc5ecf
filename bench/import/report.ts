/** Turns the import benchmark's measurements into the results table, the target verdicts and RESULTS.md. */
import type { MachineInfo } from '../lib/machine.ts';
import { fence, fixed, int, table } from '../lib/markdown.ts';
import type { ExplainResult, GenerateResult, ImportResult, ParseResult, PhaseMeasure } from './types.ts';

export interface CatalogRun {
  generate: GenerateResult;
  import: ImportResult;
  explain: ExplainResult;
}

export interface ProfileReport {
  phase: string;
  file: string;
  markdown: string;
}

export interface BenchRun {
  command: string;
  date: Date;
  quick: boolean;
  input: { file: string; records: number };
  machine: MachineInfo;
  postgres: { version: string; settings: string };
  /** 1-minute load average before and after: other work on the machine skews the numbers. */
  load: { start: number; end: number };
  floor?: ParseResult;
  normalize?: ParseResult;
  pgFirst?: ImportResult;
  pgReimport?: ImportResult;
  embeddedFirst?: ImportResult;
  embeddedReimport?: ImportResult;
  catalog?: CatalogRun;
  profiles: ProfileReport[];
}

export const TARGETS = {
  pgFirstPerSec: 5_000,
  pgFirstFloorRatio: 5,
  pgReimportPerSec: 15_000,
  embeddedPerSec: 2_000,
  peakRssMiB: 1024,
  catalogRecords: 300_000,
  catalogSeconds: 120,
  lookupIndexes: ['cve_vendors_idx', 'cve_updated_idx'],
  countIndexes: ['cve_vendors_idx'],
} as const;

const perSec = (m: PhaseMeasure) => (m.records / m.ms) * 1000;
/** How many times the parse floor's time the same records took. */
const floorRatio = (run: BenchRun, m: PhaseMeasure) =>
  run.floor ? perSec(run.floor) / perSec(m) : undefined;
const wallMs = (r: ImportResult) => r.openMs + r.ms + r.closeMs;

interface Row {
  phase: string;
  measure: PhaseMeasure;
  /** Only import phases are compared with the floor. */
  compare: boolean;
}

function rows(run: BenchRun): Row[] {
  const out: Row[] = [];
  const add = (phase: string, measure: PhaseMeasure | undefined, compare = true) => {
    if (measure) out.push({ phase, measure, compare });
  };
  add('Parse floor: gunzip + lines + JSON.parse', run.floor, false);
  add('+ parseCve5Record normalization', run.normalize);
  add('PostgreSQL: first import', run.pgFirst);
  add('PostgreSQL: re-import (unchanged)', run.pgReimport);
  add('Embedded PGlite: first import', run.embeddedFirst);
  add('Embedded PGlite: re-import (unchanged)', run.embeddedReimport);
  if (run.catalog) {
    add(
      `Synthetic catalog: generate ${int(run.catalog.generate.records)} records (setup)`,
      run.catalog.generate,
      false,
    );
    add(`PostgreSQL: ${int(run.catalog.import.records)}-record catalog, first import`, run.catalog.import);
  }
  return out;
}

/** Where the other benchmarks record theirs: this file is the one the issues name. */
const OTHER_RESULTS =
  'The other benchmarks record their results beside this file: notification fan-out and deliveries in ' +
  '[RESULTS-notifications.md](RESULTS-notifications.md), API v2 and v1 in [RESULTS-api.md](RESULTS-api.md), ' +
  'sync in [RESULTS-sync.md](RESULTS-sync.md), the job queue in [RESULTS-jobs.md](RESULTS-jobs.md).';

export function resultsTable(run: BenchRun): string {
  return table(
    [
      'Phase',
      'Records',
      'Time (s)',
      'Records/s',
      '× floor time',
      'Peak RSS (MiB)',
      'Node CPU (s)',
      'PG CPU (s)',
    ],
    rows(run).map(({ phase, measure, compare }) => {
      const ratio = compare ? floorRatio(run, measure) : undefined;
      return [
        phase,
        int(measure.records),
        fixed(measure.ms / 1000, 2),
        int(perSec(measure)),
        ratio === undefined ? '' : `${fixed(ratio, 1)}×`,
        int(measure.peakRssMiB),
        fixed(measure.cpuMs / 1000, 1),
        'serverCpuMs' in measure && typeof measure.serverCpuMs === 'number'
          ? fixed(measure.serverCpuMs / 1000, 1)
          : '',
      ];
    }),
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
}

export interface Verdict {
  target: string;
  measured: string;
  /** undefined: the phase did not run. */
  met: boolean | undefined;
}

export function verdicts(run: BenchRun): Verdict[] {
  const out: Verdict[] = [];
  const rate = (target: string, r: ImportResult | undefined, min: number) =>
    out.push({
      target,
      measured: r ? `${int(perSec(r))} records/s` : 'not run',
      met: r ? perSec(r) >= min : undefined,
    });
  rate(
    `PostgreSQL first import ≥ ${int(TARGETS.pgFirstPerSec)} records/s`,
    run.pgFirst,
    TARGETS.pgFirstPerSec,
  );
  const ratio = run.pgFirst && floorRatio(run, run.pgFirst);
  out.push({
    target: `PostgreSQL first import within ${TARGETS.pgFirstFloorRatio}× of the parse floor`,
    measured: ratio === undefined ? 'not run' : `${fixed(ratio, 1)}× the floor's time`,
    met: ratio === undefined ? undefined : ratio <= TARGETS.pgFirstFloorRatio,
  });
  rate(
    `PostgreSQL re-import ≥ ${int(TARGETS.pgReimportPerSec)} records/s`,
    run.pgReimport,
    TARGETS.pgReimportPerSec,
  );
  rate(
    `Embedded first import ≥ ${int(TARGETS.embeddedPerSec)} records/s`,
    run.embeddedFirst,
    TARGETS.embeddedPerSec,
  );
  rate(
    `Embedded re-import ≥ ${int(TARGETS.embeddedPerSec)} records/s`,
    run.embeddedReimport,
    TARGETS.embeddedPerSec,
  );

  const imports = rows(run).filter((r) => r.compare && 'counts' in r.measure);
  const worst = imports.sort((a, b) => b.measure.peakRssMiB - a.measure.peakRssMiB)[0];
  out.push({
    target: 'Peak RSS under 1 GiB (1,024 MiB) in every import phase',
    measured: worst ? `max ${int(worst.measure.peakRssMiB)} MiB (${worst.phase})` : 'not run',
    met: worst ? worst.measure.peakRssMiB < TARGETS.peakRssMiB : undefined,
  });

  const c = run.catalog;
  out.push({
    target: `${int(TARGETS.catalogRecords)} records on PostgreSQL in ≤ ${TARGETS.catalogSeconds} s (open to close)`,
    measured: c ? `${int(c.import.records)} records in ${fixed(wallMs(c.import) / 1000, 1)} s` : 'not run',
    met: c
      ? c.import.records >= TARGETS.catalogRecords && wallMs(c.import) <= TARGETS.catalogSeconds * 1000
      : undefined,
  });
  out.push({
    target: `Vendor lookup uses ${TARGETS.lookupIndexes.join(' or ')}; vendor count uses ${TARGETS.countIndexes[0]}`,
    measured: c
      ? `lookup: ${c.explain.lookup.indexes.join(', ') || 'none'}; count: ${c.explain.count.indexes.join(', ') || 'none'}`
      : 'not run',
    met: c
      ? c.explain.lookup.indexes.some((i) => (TARGETS.lookupIndexes as readonly string[]).includes(i)) &&
        c.explain.count.indexes.some((i) => (TARGETS.countIndexes as readonly string[]).includes(i))
      : undefined,
  });
  return out;
}

/** Results that would make the throughput numbers meaningless (an import that did not import). */
export function sanityProblems(run: BenchRun): string[] {
  const problems: string[] = [];
  const first = (name: string, r: ImportResult | undefined, records: number) => {
    if (r && (r.counts.imported !== records || r.counts.skipped || r.status !== 'completed'))
      problems.push(`${name}: expected ${records} imported, got ${JSON.stringify(r.counts)} (${r.status})`);
  };
  const again = (name: string, r: ImportResult | undefined, records: number) => {
    if (r && (r.counts.unchanged !== records || r.changes !== 0))
      problems.push(
        `${name}: expected ${records} unchanged and no change, got ${JSON.stringify(r.counts)}, ${r.changes} changes`,
      );
  };
  first('PostgreSQL first import', run.pgFirst, run.input.records);
  again('PostgreSQL re-import', run.pgReimport, run.input.records);
  first('Embedded first import', run.embeddedFirst, run.input.records);
  again('Embedded re-import', run.embeddedReimport, run.input.records);
  if (run.catalog) first('Catalog import', run.catalog.import, run.catalog.generate.records);
  return problems;
}

const mark = (met: boolean | undefined) => (met === undefined ? 'not run' : met ? '**met**' : '**MISSED**');

export function verdictTable(run: BenchRun): string {
  return table(
    ['Target', 'Measured', 'Verdict'],
    verdicts(run).map((v) => [v.target, v.measured, mark(v.met)]),
  );
}

function countsTable(run: BenchRun): string {
  const phases: [string, ImportResult | undefined][] = [
    ['PostgreSQL: first import', run.pgFirst],
    ['PostgreSQL: re-import', run.pgReimport],
    ['Embedded: first import', run.embeddedFirst],
    ['Embedded: re-import', run.embeddedReimport],
    ['PostgreSQL: catalog', run.catalog?.import],
  ];
  return table(
    ['Import', 'imported', 'updated', 'unchanged', 'skipped', 'pending', 'changes', 'open (s)', 'close (s)'],
    phases
      .filter((p): p is [string, ImportResult] => !!p[1])
      .map(([name, r]) => [
        name,
        int(r.counts.imported),
        int(r.counts.updated),
        int(r.counts.unchanged),
        int(r.counts.skipped),
        int(r.counts.pending),
        int(r.changes),
        fixed(r.openMs / 1000, 2),
        fixed(r.closeMs / 1000, 2),
      ]),
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
}

function catalogSection(c: CatalogRun): string {
  const e = c.explain;
  return [
    `## ${int(c.import.records)}-record catalog on PostgreSQL`,
    '',
    `The corpus replayed under synthetic ids (\`CVE-9000-00001\` …, one year per copy), written to a temporary ` +
      `.jsonl.gz in ${fixed(c.generate.ms / 1000, 1)} s (${fixed(c.generate.bytes / 2 ** 20, 0)} MiB; setup, not ` +
      `counted) and imported into an empty database with the normal cve5 source: ` +
      `**${fixed(c.import.ms / 1000, 1)} s** import, ${fixed(wallMs(c.import) / 1000, 1)} s open to close, ` +
      `${int(perSec(c.import))} records/s. Database size afterwards: ${int(e.databaseMiB)} MiB, ${int(e.rows)} CVE rows.`,
    '',
    `Plans after \`ANALYZE cve\` (${fixed(e.analyzeMs / 1000, 1)} s): the steady state, where autovacuum ` +
      `(if on; see the server settings above) would have analyzed the table within a minute of the import.`,
    '',
    `Lookup, ${fixed(e.lookup.ms, 1)} ms, indexes: ${e.lookup.indexes.join(', ') || 'none'}:`,
    '',
    fence(e.lookup.sql, 'sql'),
    '',
    fence(e.lookup.plan),
    '',
    `Count (${int(e.count.value)} CVEs), ${fixed(e.count.ms, 1)} ms, indexes: ${e.count.indexes.join(', ') || 'none'}:`,
    '',
    fence(e.count.sql, 'sql'),
    '',
    fence(e.count.plan),
  ].join('\n');
}

export function renderMarkdown(run: BenchRun): string {
  const m = run.machine;
  const setup = table(
    ['Setting', 'Value'],
    [
      ['Command', `\`${run.command}\``],
      ['Date', run.date.toISOString().replace(/\.\d+Z$/, 'Z')],
      ['Commit', `${m.commit}${m.srcDirty ? ' (src/ had uncommitted changes)' : ''}`],
      ['CPU', `${m.cpuModel}, ${m.cores} cores`],
      ['Memory', `${fixed(m.memoryGiB, 1)} GiB`],
      ['OS', m.os],
      ['Node', m.node],
      ['PostgreSQL', `${run.postgres.version} (server on the same machine; ${run.postgres.settings})`],
      ['PGlite', m.pglite],
      [
        'Input',
        `\`${run.input.file}\`, ${int(run.input.records)} records${run.quick ? ' (quick mode)' : ''}`,
      ],
      ['Load average (1 min), start / end', `${fixed(run.load.start, 2)} / ${fixed(run.load.end, 2)}`],
    ],
  );
  const problems = sanityProblems(run);
  return [
    '# Import benchmark results',
    '',
    `Generated by \`${run.command}\`; see [README.md](README.md) for what each phase measures.` +
      (run.quick ? ' **Quick mode: 5,000 records, not representative.**' : ''),
    '',
    OTHER_RESULTS,
    '',
    setup,
    '',
    '## Results',
    '',
    resultsTable(run),
    '',
    'Records/s = records ÷ time of the measured work; "× floor time" = how many times longer than the parse floor ' +
      'the same records took. Import times are ImportService.importInputs from start to report; opening (connect + ' +
      'migrate) and closing the database are listed below. Peak RSS is the phase’s own Node process ' +
      '(`process.resourceUsage().maxRSS`); it includes PGlite for embedded phases, but not the PostgreSQL server. ' +
      'Node CPU is user + system time of that process during the measured work (for embedded phases it includes ' +
      'PGlite); PG CPU is that of the PostgreSQL backends serving the import (from /proc; the shared WAL writer ' +
      'and checkpointer are not counted). Wall time well above Node CPU + PG CPU means waiting: on fsync, on disk, ' +
      'or on other processes competing for the cores (see the load average).',
    '',
    '## Targets',
    '',
    verdictTable(run),
    '',
    ...(problems.length ? ['**Sanity checks failed:**', '', ...problems.map((p) => `- ${p}`), ''] : []),
    '## Import counts',
    '',
    countsTable(run),
    '',
    ...(run.catalog ? [catalogSection(run.catalog), ''] : []),
    ...run.profiles.flatMap((p) => [
      `## Profile: ${p.phase}`,
      '',
      `Profiled run (inspector sampling; its times include the profiler's overhead). Profile: \`${p.file}\`.`,
      '',
      p.markdown,
      '',
    ]),
  ].join('\n');
}
