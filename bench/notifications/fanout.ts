/**
 * The fan-out measurement: import the batch of changed CVEs, then time the event processor from the
 * import's end to its end (every change matched, every execution recorded, every delivery with its
 * payload entries and its job queued). Each SQL statement the processor sends is timed (the pg client's `query`
 * patched for the duration), and grouped into the steps of the processor, so the time splits into
 * SQL per step and the rest: the processor's own JavaScript (automation evaluation, payloads, JSON).
 */
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../src/db/client.ts';
import { servicesFor } from '../../src/main.ts';
import { sources } from '../../src/sources/index.ts';
import { profiled } from '../lib/profiler.ts';
import { backendCpuReader } from '../lib/pg-server-cpu.ts';
import { benchConfig, SECRET } from './setup.ts';

export interface StepTiming {
  step: string;
  statements: number;
  ms: number;
}

export interface FanoutResult {
  changes: number;
  importSeconds: number;
  /** importInputs end → processPending end. */
  seconds: number;
  processReport: { items: number; events: number; executions: number; deliveries: number };
  projectsMatched: number;
  pairs: number;
  deliveryJobs: number;
  /** Stored (compressed) size of the payloads, and as JSON text. */
  payloadMiB: number;
  payloadTextMiB: number;
  /** Of the payloads' text: the distinct CVE entries stored (delivery_entry), stored size and text. */
  entriesStored: number;
  entriesMiB: number;
  entriesTextMiB: number;
  payloadMaxKiB: number;
  steps: StepTiming[];
  /** Wall time not spent waiting on a statement: the processor's JavaScript. */
  jsMs: number;
  nodeCpuMs: number;
  pgCpuMs: number | undefined;
}

/** Which step of the processor a statement belongs to. */
const STEPS: [RegExp, string][] = [
  [/event_cursor/i, 'cursor (lock, advance)'],
  [/FROM cve_change ch JOIN cve/i, 'read the chunk (changes + CVEs)'],
  [/JOIN project_subscription/i, 'match changes to projects'],
  [/INSERT INTO delivery_entry/i, 'insert payload entries'],
  [/from "project_subscription"/i, 'read subscribed keys'],
  [/from "automation"/i, 'read automations'],
  [/JOIN tracker_entry/i, 'read tracker states'],
  [/from "project"/i, 'read projects + organizations'],
  [/from "notification"/i, 'read notifications'],
  [/insert into "?delivery"? /i, 'insert deliveries'],
  [/insert into "job"/i, 'enqueue delivery jobs'],
  [/insert into "automation_execution"/i, 'insert executions'],
  [/^\s*(BEGIN|COMMIT|ROLLBACK)/i, 'begin / commit'],
];

/**
 * Patches the pg client's `query` (before the database is opened: a connection may bind `query` when
 * it connects) and times the statements sent between `start()` and `stop()`.
 */
function timeStatements(): { start: () => void; stop: () => StepTiming[] } {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const steps = new Map<string, StepTiming>();
  let recording = false;
  proto.query = function (this: unknown, ...args: unknown[]) {
    if (!recording) return original.apply(this, args);
    const first = args[0] as string | { text?: string } | undefined;
    const text = typeof first === 'string' ? first : (first?.text ?? '');
    const started = performance.now();
    const result = original.apply(this, args);
    const done = () => {
      const step =
        STEPS.find(([re]) => re.test(text))?.[1] ?? `other: ${text.replace(/\s+/g, ' ').slice(0, 50)}`;
      const t = steps.get(step) ?? { step, statements: 0, ms: 0 };
      t.statements++;
      t.ms += performance.now() - started;
      steps.set(step, t);
    };
    if (result instanceof Promise) result.then(done, done);
    return result;
  };
  return {
    start: () => {
      recording = true;
    },
    stop: () => {
      recording = false;
      proto.query = original;
      return [...steps.values()].sort((a, b) => b.ms - a.ms);
    },
  };
}

export async function measureFanout(
  url: string,
  batchFile: string,
  options: { profile?: string; database: string },
): Promise<FanoutResult> {
  const timing = timeStatements();
  const database = await openDatabase({ url, migrate: false });
  const services = servicesFor(benchConfig(url), database, SECRET);
  const db = database.db;
  try {
    const importing = performance.now();
    const report = await services.imports.importInputs(sources.cve5, [batchFile]);
    const importSeconds = (performance.now() - importing) / 1000;

    const pgCpu = backendCpuReader(options.database);
    const cpuBefore = process.cpuUsage();
    const pgBefore = pgCpu();
    timing.start();
    const started = performance.now();
    let processReport;
    let steps: StepTiming[];
    try {
      processReport = await profiled(options.profile, () => services.events.processPending());
    } finally {
      steps = timing.stop();
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const pgAfter = pgCpu();
    const sqlMs = steps.reduce((s, t) => s + t.ms, 0);

    const [counts] = (
      await sql<{
        projects: number;
        jobs: number;
        mib: number;
        textmib: number;
        maxkib: number;
        entries: number;
        entriesmib: number;
        entriestextmib: number;
      }>`
        WITH sizes AS (
          SELECT d.id, octet_length(d.payload::text)
                 + coalesce((SELECT sum(octet_length(e.body) + 1) FROM unnest(d.entries) AS u(id)
                               JOIN delivery_entry e ON e.id = u.id), 0) AS text_bytes,
                 pg_column_size(d.payload) + coalesce(pg_column_size(d.entries), 0) AS stored_bytes
            FROM delivery d)
        SELECT (SELECT count(DISTINCT n.project_id)::int FROM delivery d JOIN notification n ON n.id = d.notification_id) AS projects,
               (SELECT count(*)::int FROM job WHERE name = 'notifications.deliver' AND status = 'pending') AS jobs,
               (SELECT coalesce(sum(stored_bytes), 0)::float8 / 1048576 FROM sizes)
                 + (SELECT coalesce(sum(pg_column_size(body)), 0)::float8 / 1048576 FROM delivery_entry) AS mib,
               (SELECT coalesce(sum(text_bytes), 0)::float8 / 1048576 FROM sizes) AS textmib,
               (SELECT coalesce(max(text_bytes), 0)::float8 / 1024 FROM sizes) AS maxkib,
               (SELECT count(*)::int FROM delivery_entry) AS entries,
               (SELECT coalesce(sum(pg_column_size(body)), 0)::float8 / 1048576 FROM delivery_entry) AS entriesmib,
               (SELECT coalesce(sum(octet_length(body)), 0)::float8 / 1048576 FROM delivery_entry) AS entriestextmib`.execute(
        db,
      )
    ).rows;
    return {
      changes: report.changes,
      importSeconds,
      seconds,
      processReport,
      projectsMatched: counts!.projects,
      pairs: processReport.events,
      deliveryJobs: counts!.jobs,
      payloadMiB: counts!.mib,
      payloadTextMiB: counts!.textmib,
      entriesStored: counts!.entries,
      entriesMiB: counts!.entriesmib,
      entriesTextMiB: counts!.entriestextmib,
      payloadMaxKiB: counts!.maxkib,
      steps,
      jsMs: seconds * 1000 - sqlMs,
      nodeCpuMs: (cpu.user + cpu.system) / 1000,
      pgCpuMs: pgBefore !== undefined && pgAfter !== undefined ? pgAfter - pgBefore : undefined,
    };
  } finally {
    await services.close();
  }
}
