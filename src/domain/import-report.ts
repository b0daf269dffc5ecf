/**
 * What an import reports: its counts, the records it could not read, and its progress. Shared by the
 * import service, the sync rounds that drive it and the CLI that prints it.
 */
export interface ImportCounts {
  /** CVEs (or weaknesses) new to the catalog. */
  imported: number;
  /** CVEs (or weaknesses) whose catalog entry changed. */
  updated: number;
  /** Records that changed nothing. */
  unchanged: number;
  /** Malformed records, reported in `problems`. */
  skipped: number;
  /** Statements kept for CVEs the catalog does not list yet (an EPSS score before its record). */
  pending: number;
}

export interface ImportProblem {
  /** Where in the input (`file.jsonl:42`); '' for a problem of the input as a whole. */
  position: string;
  id?: string;
  reason: string;
}

export interface ImportReport {
  source: string;
  /** `cancelled`: stopped by its signal; the batches read until then are committed, the rest is not read. */
  status: 'completed' | 'partial' | 'cancelled';
  counts: ImportCounts;
  /** The first problems (at most MAX_PROBLEMS); `counts.skipped` has them all. */
  problems: ImportProblem[];
  changes: number;
  durationMs: number;
}

export interface ImportProgress {
  source: string;
  records: number;
  counts: ImportCounts;
  elapsedMs: number;
  /** Set once every record is read and a first import builds the search index (its last step). */
  step?: 'search-index';
}

/** How far a re-map of the catalog's vendor keys (`ImportService.remapVendorKeys`) has come. */
export interface RemapProgress {
  /** CVEs looked at so far, of `total` (those the run will look at, counted at its start). */
  examined: number;
  total: number;
  /** CVEs whose keys or provenance moved. */
  remapped: number;
  /** Changes recorded. */
  changes: number;
}

export interface RemapReport extends RemapProgress {
  /** The alias table revision the CVEs were mapped with. */
  revision: string;
  durationMs: number;
}
