/** One import of a file into a database, exactly as the CLI does it (ImportService + cve5 source). */
import type { Kysely } from 'kysely';
import { openDatabase } from '../../src/db/client.ts';
import type { DB } from '../../src/db/schema.ts';
import { ImportService } from '../../src/services/import.service.ts';
import { VendorAliasService } from '../../src/services/vendor-alias.service.ts';
import { sources } from '../../src/sources/index.ts';
import { peakRssMiB } from '../lib/child.ts';
import { timeQueries } from '../lib/pg-query-timing.ts';
import { backendCpuReader } from '../lib/pg-server-cpu.ts';
import { profiled } from '../lib/profiler.ts';
import type { DbTarget, ImportResult } from './types.ts';

type Measured = Omit<ImportResult, 'openMs' | 'closeMs' | 'peakRssMiB'>;

async function importOnce(db: Kysely<DB>, spec: ImportSpec): Promise<Measured> {
  const cpu = process.cpuUsage();
  const report = await new ImportService(db).importInputs(sources.cve5, [spec.file], {
    ...(spec.batchSize ? { batchSize: spec.batchSize } : {}),
    // Progress on stderr shows a long phase is alive; every 10 s keeps the log short.
    progressEveryMs: 10_000,
    onProgress: (p) =>
      console.error(
        `  [${spec.label}] ${p.records.toLocaleString('en-US')} records, ${(p.elapsedMs / 1000).toFixed(0)} s`,
      ),
  });
  const used = process.cpuUsage(cpu);
  const { counts } = report;
  return {
    records: counts.imported + counts.updated + counts.unchanged + counts.skipped + counts.pending,
    ms: report.durationMs,
    cpuMs: (used.user + used.system) / 1000,
    status: report.status,
    counts,
    changes: report.changes,
  };
}

/**
 * Stores the alias table a new install starts with (the shipped one, learned from the bundled
 * sample), as the first start does: imports map CNA text with it as they merge (docs/catalog.md),
 * part of what is measured. Storing it is not.
 */
async function storeFirstStartTable(db: Kysely<DB>): Promise<void> {
  await new VendorAliasService(db).installShipped();
}

export interface ImportSpec {
  file: string;
  target: DbTarget;
  label: string;
  /** Write a .cpuprofile of the import (not of opening or closing the database) here. */
  profile?: string | undefined;
  batchSize?: number | undefined;
}

export async function importPhase(spec: ImportSpec): Promise<ImportResult> {
  const dbName = 'url' in spec.target ? new URL(spec.target.url).pathname.slice(1) : undefined;
  // Per-statement timings explain the profile's idle time; only worth their overhead when profiling.
  const timing = spec.profile ? timeQueries(dbName ? { database: dbName } : { embedded: true }) : undefined;
  const opening = performance.now();
  const database = await openDatabase(spec.target);
  const openMs = performance.now() - opening;
  await storeFirstStartTable(database.db);
  timing?.reset();
  // Read before closing: a backend's CPU time is gone with its connection.
  const serverCpu = dbName ? backendCpuReader(dbName) : () => undefined;
  const serverBefore = serverCpu() ?? 0;
  let measured: Measured;
  let serverCpuMs: number | undefined;
  try {
    measured = await profiled(spec.profile, () => importOnce(database.db, spec));
    const serverAfter = serverCpu();
    serverCpuMs = serverAfter === undefined ? undefined : serverAfter - serverBefore;
  } catch (err) {
    await database.close();
    throw err;
  }
  // Closing is part of the phase's cost: PGlite flushes its data dir here.
  const closing = performance.now();
  await database.close();
  const closeMs = performance.now() - closing;
  return {
    ...measured,
    openMs,
    closeMs,
    peakRssMiB: peakRssMiB(),
    ...(serverCpuMs === undefined ? {} : { serverCpuMs }),
    ...(timing ? { queries: timing.results() } : {}),
  };
}
