/** What each upstream sync implements, and what a sync round reports. */
import type { ImportCounts, ImportProgress, ImportReport } from '../domain/import-report.ts';
import type { InputFile } from '../sources/input.ts';
import { isUnreadableRest } from '../sources/source.ts';

export interface SyncContext {
  /** The cursor kept for this source (`{}` before its first sync). */
  cursor: Record<string, unknown>;
  /** Moves the cursor; call it only after everything up to the new cursor was imported. */
  saveCursor(cursor: Record<string, unknown>): Promise<void>;
  /** Imports one round's inputs (paths or URLs) with this source's parser. */
  importInputs(targets: string[]): Promise<ImportReport>;
  /**
   * Imports input files (from memory, say) with this source's parser. With `cursor`, the import is
   * one transaction that also moves the cursor there: both are kept or neither is (for bounded
   * inputs: the catalog write lock is held until the end). `changedInputs`: every record differs
   * from the one last imported for its CVE (ImportOptions).
   */
  importFiles(
    files: AsyncIterable<InputFile>,
    options?: { cursor?: Record<string, unknown>; changedInputs?: boolean },
  ): Promise<ImportReport>;
  /** A human-readable line of progress (stderr of `vulntrack sync`, logs of the worker). */
  progress(line: string): void;
  onImportProgress?: (progress: ImportProgress) => void;
}

export interface SourceSync {
  /** Brings the catalog up to date from the cursor. Throws when the upstream could not be read completely. */
  run(context: SyncContext): Promise<SyncOutcome>;
}

export interface SyncOutcome {
  /** Imports this round ran (one per span of commits, NVD page, download…). */
  imports: number;
  counts: ImportCounts;
  changes: number;
  /** What happened, in a few words each (`pulled 3 commits`, `unchanged since last download`). */
  notes: string[];
  cursor: Record<string, unknown>;
}

/** Accumulates import reports into an outcome. */
export class OutcomeBuilder {
  private readonly outcome: SyncOutcome;

  constructor(cursor: Record<string, unknown>) {
    this.outcome = {
      imports: 0,
      counts: { imported: 0, updated: 0, unchanged: 0, skipped: 0, pending: 0 },
      changes: 0,
      notes: [],
      cursor,
    };
  }

  add(report: ImportReport): void {
    this.outcome.imports++;
    for (const key of Object.keys(this.outcome.counts) as (keyof ImportCounts)[])
      this.outcome.counts[key] += report.counts[key];
    this.outcome.changes += report.changes;
    // A truncated or corrupt download is a failure of the round, not a malformed record.
    const unreadable = report.problems.find((p) => isUnreadableRest(p.reason));
    if (unreadable) throw new SyncError(`${unreadable.position}: ${unreadable.reason}`);
  }

  note(text: string): void {
    this.outcome.notes.push(text);
  }

  cursor(cursor: Record<string, unknown>): void {
    this.outcome.cursor = cursor;
  }

  get(): SyncOutcome {
    return this.outcome;
  }
}

/** An upstream that could not be read (after retries): the round fails and is retried later. */
export class SyncError extends Error {
  override name = 'SyncError';
}
