import type { QueryTiming } from '../lib/pg-query-timing.ts';

/** The phases the import benchmark runs in child processes, and what each reports back. */

/** Where an import phase writes: a PostgreSQL URL or an embedded data dir. */
export type DbTarget = { url: string } | { dataDir: string };

export type PhaseSpec =
  | { kind: 'parse'; file: string; normalize: boolean }
  | {
      kind: 'import';
      file: string;
      target: DbTarget;
      label: string;
      profile?: string | undefined;
      batchSize?: number | undefined;
    }
  | { kind: 'generate'; source: string; out: string; records: number }
  | { kind: 'explain'; url: string; vendor: string };

/** Common to every phase. */
export interface PhaseMeasure {
  records: number;
  /** Time of the measured work, in ms. */
  ms: number;
  /** CPU time (user + system) of the Node process during the measured work, in ms. */
  cpuMs: number;
  peakRssMiB: number;
}

export interface ParseResult extends PhaseMeasure {
  skipped: number;
  /** Provider statements produced by normalization (0 when not normalizing). */
  statements: number;
}

export interface ImportResult extends PhaseMeasure {
  status: string;
  counts: { imported: number; updated: number; unchanged: number; skipped: number; pending: number };
  changes: number;
  /** Open + migrate before the import, close after it: the phase's wall time is ms + openMs + closeMs. */
  openMs: number;
  closeMs: number;
  /**
   * PostgreSQL on this machine only: CPU time of the database's backends during the import (not the
   * server's shared WAL writer, checkpointer and background writer).
   */
  serverCpuMs?: number;
  /** Profiling runs only: time per SQL statement of the import. */
  queries?: QueryTiming[];
}

export interface GenerateResult extends PhaseMeasure {
  bytes: number;
}

export interface ExplainedQuery {
  sql: string;
  plan: string;
  indexes: string[];
  ms: number;
}

export interface ExplainResult {
  peakRssMiB: number;
  rows: number;
  databaseMiB: number;
  analyzeMs: number;
  lookup: ExplainedQuery;
  count: ExplainedQuery & { value: number };
}

/** What each kind of phase answers. */
export interface PhaseResults {
  parse: ParseResult;
  import: ImportResult;
  generate: GenerateResult;
  explain: ExplainResult;
}

export type PhaseResult = PhaseResults[PhaseSpec['kind']];
