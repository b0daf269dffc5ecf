/**
 * The notifications fan-out benchmark (the notifications issue): 10,000 projects with 5–50
 * subscriptions each over the real CVE 5 corpus, one batch of 800 changed CVEs (the busiest real
 * day). Measures (1) the time from the import's end to every delivery job queued (the event
 * processor), split into its steps, and (2) webhook deliveries per second to a local receiver with
 * the real job runtime, in-process and in worker processes. See bench/README.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadAverage, machineInfo } from './lib/machine.ts';
import { fixed, int, table } from './lib/markdown.ts';
import { DEFAULT_SERVER_URL, dropDatabase, serverInfo } from './lib/pg-admin.ts';
import { projectRoot, workDir } from './lib/paths.ts';
import { corpusFile } from './import/corpus.ts';
import { writeChangeBatch } from './notifications/changes.ts';
import { measureDeliveries, type DeliveryRun } from './notifications/deliveries.ts';
import { measureFanout, type FanoutResult } from './notifications/fanout.ts';
import { startReceiver } from './notifications/receiver.ts';
import { prepare, TRIGGERS, type SetupSpec } from './notifications/setup.ts';

const TARGET_FANOUT_SECONDS = 5;
const TARGET_DELIVERIES_PER_SECOND = 500;
const BASE_DB = 'vt_bench_notifications_base';
const RUN_DB = 'vt_bench_notifications';

const USAGE = `usage: npm run bench -- notifications [options]

  --quick            1,000 projects, 100 changes, one in-process run at concurrency 16 (smoke test)
  --projects N       projects (default 10,000, in 100 organizations)
  --changes N        changed CVEs in the batch (default 800)
  --concurrency L    WORKER_CONCURRENCY values of the in-process runs (default 16,32,64)
  --workers L        worker process counts, each at the first concurrency (default 1,3; "" for none)
  --no-deliveries    the fan-out only
  --profile          CPU profile of the event processor: bench/.work/profiles/notifications-fanout.cpuprofile
  --rebuild          rebuild the cached template database (catalog + projects)
  --drop             drop the cached template database at the end
  --port N           the webhook receiver's port (default 18_765; part of the cached setup)
  --keyword-every N  one project in N watches 3 keywords (default 5; 0: none, the run before keyword watches)

env: BENCH_DATABASE_URL (PostgreSQL server; default ${DEFAULT_SERVER_URL}), VULNTRACK_BENCH_DATA (corpus)`;

const list = (value: string) =>
  value
    .split(',')
    .filter((v) => v.trim())
    .map((v) => Number(v.trim()));

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      quick: { type: 'boolean', default: false },
      projects: { type: 'string' },
      changes: { type: 'string' },
      concurrency: { type: 'string' },
      workers: { type: 'string' },
      'no-deliveries': { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      rebuild: { type: 'boolean', default: false },
      drop: { type: 'boolean', default: false },
      port: { type: 'string' },
      'keyword-every': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const quick = values.quick === true;
  const spec: SetupSpec = {
    corpus: corpusFile(),
    organizations: 100,
    projects: Number(values.projects ?? (quick ? 1_000 : 10_000)),
    minSubscriptions: 5,
    maxSubscriptions: 50,
    receiverPort: Number(values.port ?? 18_765),
    keywordEvery: Number(values['keyword-every'] ?? 5),
    keywordsPerProject: 3,
  };
  const changes = Number(values.changes ?? (quick ? 100 : 800));
  const concurrencies = list(values.concurrency ?? (quick ? '16' : '16,32,64'));
  const workerCounts = list(values.workers ?? (quick ? '' : '1,3'));
  const server = process.env.BENCH_DATABASE_URL || DEFAULT_SERVER_URL;
  const log = (line: string) => console.error(line);

  const machine = machineInfo();
  const pg = await serverInfo(server);
  const loadBefore = loadAverage();
  const receiver = await startReceiver(spec.receiverPort);
  let fanout: FanoutResult;
  const runs: DeliveryRun[] = [];
  let setupInfo;
  let batch;
  const loads: string[] = [];
  try {
    const prepared = await prepare(server, BASE_DB, RUN_DB, spec, { rebuild: values.rebuild === true, log });
    setupInfo = prepared.info;
    log(
      `setup: ${int(setupInfo.cves)} CVEs, ${int(spec.projects)} projects, ${int(setupInfo.subscriptions)} subscriptions`,
    );
    batch = await writeChangeBatch(spec.corpus, path.join(workDir, 'notifications-batch.jsonl.gz'), changes);
    loads.push(`fan-out: ${loadAverage()}`);
    log(`fan-out: ${int(changes)} changed CVEs…`);
    fanout = await measureFanout(prepared.url, batch.file, {
      database: RUN_DB,
      ...(values.profile
        ? { profile: path.join(workDir, 'profiles', 'notifications-fanout.cpuprofile') }
        : {}),
    });
    log(
      `  ${fixed(fanout.seconds, 2)} s: ${int(fanout.pairs)} (project, change) pairs, ${int(fanout.processReport.deliveries)} deliveries queued`,
    );
    if (!values['no-deliveries']) {
      const plan = [
        ...concurrencies.map((c) => ({ mode: 'in-process' as const, processes: 1, concurrency: c })),
        ...workerCounts.map((w) => ({
          mode: 'workers' as const,
          processes: w,
          concurrency: concurrencies[0]!,
        })),
      ];
      for (const p of plan) {
        loads.push(`${p.mode} ${p.processes}×${p.concurrency}: ${loadAverage()}`);
        log(`deliveries: ${p.mode}, ${p.processes} process(es) at concurrency ${p.concurrency}…`);
        const profile =
          values.profile && p.mode === 'in-process'
            ? path.join(workDir, 'profiles', `notifications-deliveries-${p.concurrency}.cpuprofile`)
            : undefined;
        const r = await measureDeliveries(prepared.url, RUN_DB, receiver, p, profile);
        log(
          `  ${int(r.perSecond)} deliveries/s (${fixed(r.seconds, 2)} s)${r.problems.length ? ` ${r.problems.join('; ')}` : ''}`,
        );
        runs.push(r);
      }
    }
  } finally {
    await receiver.stop();
    await dropDatabase(server, RUN_DB);
    if (values.drop) await dropDatabase(server, BASE_DB);
  }
  const loadAfter = loadAverage();

  const best = Math.max(0, ...runs.map((r) => r.perSecond));
  const problems = [
    ...runs.flatMap((r) => r.problems.map((p) => `${r.mode} ${r.processes}×${r.concurrency}: ${p}`)),
    ...(fanout.changes !== changes
      ? [`the batch recorded ${fanout.changes} changes, expected ${changes}`]
      : []),
    ...(fanout.deliveryJobs !== fanout.processReport.deliveries
      ? [`${fanout.deliveryJobs} delivery jobs for ${fanout.processReport.deliveries} deliveries`]
      : []),
  ];
  const verdict = (ok: boolean) => (ok ? '**met**' : '**MISSED**');
  const command = `npm run bench -- notifications${args.length ? ` ${args.join(' ')}` : ''}`;
  const sqlMs = fanout.steps.reduce((s, t) => s + t.ms, 0);
  const markdown = [
    '# Notifications fan-out benchmark',
    '',
    `Command: \`${command}\` (${new Date().toISOString().slice(0, 16)}Z)`,
    '',
    `Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}; ` +
      `PostgreSQL ${pg.version} on the same machine (${pg.settings}); commit ${machine.commit}${machine.srcDirty ? ' (src/ had uncommitted changes)' : ''}. ` +
      `Load average (1/5/15 min) before: ${loadBefore}, after: ${loadAfter}; at each step: ${loads.join('; ')}.`,
    '',
    '## Setup (not measured)',
    '',
    `- Catalog: \`${path.relative(projectRoot, spec.corpus)}\` imported with the cve5 source: ${int(setupInfo.cves)} CVEs` +
      (setupInfo.reused
        ? ' (cached template database reused).'
        : ` (${fixed(setupInfo.importSeconds, 1)} s; whole setup ${fixed(setupInfo.buildSeconds, 1)} s).`),
    `- ${int(spec.projects)} projects in ${spec.organizations} organizations, ${spec.minSubscriptions}–${spec.maxSubscriptions} subscriptions each ` +
      `(${int(setupInfo.subscriptions)} in all, ${int(setupInfo.distinctKeys)} distinct keys of the catalog's ${int(setupInfo.candidateKeys)}), drawn from the ` +
      'real vendor and product keys, two in three vendor keys, with probability ∝ (CVEs of the key)^0.75: popular vendors land in many projects.',
    spec.keywordEvery > 0
      ? `- Keyword watches: one project in ${spec.keywordEvery} (${int(setupInfo.keywords.projects)}) watches ${spec.keywordsPerProject} keywords ` +
        `(${int(setupInfo.keywords.watches)} in all, ${int(setupInfo.keywords.distinct)} distinct), product names of the catalog as people type them ` +
        `(the key's product part, underscores as blanks), drawn ∝ (CVEs)^0.75; matched over the catalog at setup: ${int(setupInfo.keywords.matches)} ` +
        `(keyword, CVE) matches. Most watched: ${setupInfo.keywords.examples.map((k) => `\`${k}\``).join(', ')}.`
      : '- Keyword watches: none (`--keyword-every 0`).',
    `- Each project: one webhook notification to the receiver on 127.0.0.1:${spec.receiverPort} (URL, headers and signing secret sealed with SecretBox), ` +
      `one alert automation (triggers ${TRIGGERS.join(', ')}; no conditions; action send_notification).`,
    '',
    'Most subscribed keys:',
    '',
    table(
      ['key', 'projects', 'share of projects', 'CVEs in the catalog'],
      setupInfo.popular.map((p) => [
        `\`${p.key}\``,
        int(p.projects),
        `${fixed((100 * p.projects) / spec.projects, 1)} %`,
        int(p.cves),
      ]),
      ['left', 'right', 'right', 'right'],
    ),
    '',
    `Batch: the ${int(changes)} published records of the corpus most recently updated upstream (dateUpdated ${batch.updatedFrom.slice(0, 10)} … ${batch.updatedTo.slice(0, 10)}), ` +
      `each edited as upstream does every day (a sentence added to the description, a new reference; ${batch.kev} also get CISA's KEV flag), imported with the cve5 source ` +
      `in ${fixed(fanout.importSeconds, 2)} s: ${int(fanout.changes)} changes recorded.`,
    '',
    '## Fan-out: import end → every delivery job queued',
    '',
    table(
      ['measure', 'value'],
      [
        ['changes processed', int(fanout.processReport.items)],
        ['projects matched', int(fanout.projectsMatched)],
        ['(project, change) pairs matched', int(fanout.pairs)],
        ['executions recorded', int(fanout.processReport.executions)],
        [
          'deliveries queued (= jobs)',
          `${int(fanout.processReport.deliveries)} (${int(fanout.deliveryJobs)} jobs)`,
        ],
        [
          'delivery payloads (JSON text as sent / stored)',
          `${fixed(fanout.payloadTextMiB, 0)} MiB / ${fixed(fanout.payloadMiB, 0)} MiB, largest ${fixed(fanout.payloadMaxKiB, 0)} KiB`,
        ],
        [
          'distinct CVE entries stored, shared by the payloads (JSON text / stored)',
          `${int(fanout.entriesStored)} (${fixed(fanout.entriesTextMiB, 1)} MiB / ${fixed(fanout.entriesMiB, 1)} MiB)`,
        ],
        ['**time**', `**${fixed(fanout.seconds, 2)} s**`],
        [
          'Node CPU / PostgreSQL backend CPU',
          `${fixed(fanout.nodeCpuMs / 1000, 2)} s / ${fanout.pgCpuMs === undefined ? '?' : fixed(fanout.pgCpuMs / 1000, 2)} s`,
        ],
      ],
      ['left', 'right'],
    ),
    '',
    'Where the time goes (each statement timed from call to result; the processor runs them one after another in one transaction per chunk of 1,000 changes):',
    '',
    table(
      ['step', 'statements', 'ms', 'share'],
      [
        ...fanout.steps.map((t) => [
          t.step,
          int(t.statements),
          int(t.ms),
          `${fixed((100 * t.ms) / (fanout.seconds * 1000), 1)} %`,
        ]),
        [
          'JavaScript between statements (automation evaluation, payloads, JSON)',
          '',
          int(fanout.jsMs),
          `${fixed((100 * fanout.jsMs) / (fanout.seconds * 1000), 1)} %`,
        ],
        ['total', int(fanout.steps.reduce((s, t) => s + t.statements, 0)), int(sqlMs + fanout.jsMs), '100 %'],
      ],
      ['left', 'right', 'right', 'right'],
    ),
    '',
    `Target (all matched and queued in ≤ ${TARGET_FANOUT_SECONDS} s on PostgreSQL): ${verdict(fanout.seconds <= TARGET_FANOUT_SECONDS)}, ${fixed(fanout.seconds, 2)} s.`,
    '',
    '## Deliveries per second',
    '',
    runs.length
      ? table(
          [
            'runtime',
            'processes',
            'WORKER_CONCURRENCY',
            'deliveries',
            'seconds',
            'deliveries/s',
            'attempt p50 / p95 ms',
            'Node CPU s',
            'PG CPU s',
            'receiver connections',
            'checks',
          ],
          runs.map((r) => [
            r.mode,
            String(r.processes),
            String(r.concurrency),
            int(r.deliveries),
            fixed(r.seconds, 2),
            int(r.perSecond),
            `${fixed(r.p50Ms, 0)} / ${fixed(r.p95Ms, 0)}`,
            fixed(r.nodeCpuMs / 1000, 1),
            r.pgCpuMs === undefined ? '?' : fixed(r.pgCpuMs / 1000, 1),
            r.connections === undefined ? '?' : int(r.connections),
            r.problems.length ? r.problems.join('; ') : 'ok',
          ]),
          ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
        )
      : 'not run',
    '',
    'Each run: the deliveries queued by the fan-out (set back to pending with their jobs before each run) sent by the real job ' +
      'runtime (claim → DeliveryService.attempt: read delivery + notification + entry ids, entries from memory, open the sealed secrets, sign, ' +
      'SSRF-checked POST on a connection kept alive per host, record the attempt) to a node:http receiver in its own process answering 200. deliveries/s = deliveries ÷ (last attempt ' +
      'recorded − first attempt started); every delivery is checked to have succeeded at its first attempt and the receiver to have got each once.',
    '',
    `Target (≥ ${int(TARGET_DELIVERIES_PER_SECOND)} webhook deliveries/s): ${runs.length ? `${verdict(best >= TARGET_DELIVERIES_PER_SECOND)}, best ${int(best)}/s` : 'not run'}.`,
    '',
    ...(problems.length ? ['Problems:', '', ...problems.map((p) => `- ${p}`), ''] : []),
  ].join('\n');
  console.log(`\n${markdown}`);
  const file = path.join(workDir, quick ? 'RESULTS-notifications-quick.md' : 'RESULTS-notifications.md');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, markdown);
  console.error(`written to ${path.relative(projectRoot, file)}`);
  if (problems.length) process.exitCode = 1;
}
