/**
 * What a snapshot may retire. A snapshot source's input is a provider's whole list as of a date (the
 * KEV catalog, Source.snapshotOf): a statement of that provider the input does not list was removed
 * upstream, unless the statement says something newer than the snapshot. Another source may state
 * the same fact for the provider (the OpenCVE KB's copy of a KEV entry): a KB that saw an entry added
 * after the catalog file was released must not have it retired by that file, or each import would
 * undo the other's, for ever. The rule is the metric's, whichever source wrote the statement.
 */
import type { SourceDocument, SourceMetrics } from './cve.ts';
import { toIsoUtc } from './timestamps.ts';

/** The metrics whose data says since when the fact holds, and the field that says it. */
const METRIC_SINCE: Partial<Record<keyof SourceMetrics, string>> = { kev: 'dateAdded' };

/** The latest date (ISO, UTC) since which a fact of `doc` holds; undefined when none is dated. */
export function statedSince(doc: SourceDocument): string | undefined {
  let latest: string | undefined;
  for (const [metric, field] of Object.entries(METRIC_SINCE)) {
    const data = doc.metrics[metric as keyof SourceMetrics] as Record<string, unknown> | undefined;
    const since = toIsoUtc(data?.[field]);
    if (since && (!latest || since > latest)) latest = since;
  }
  return latest;
}

/**
 * Whether a snapshot taken at `takenAt` (ISO, UTC) that does not list `doc`'s CVE retires it: not
 * when a fact of it is dated on the snapshot's day or later. Days, not instants: a KEV entry is
 * dated by its day, and one added on the day a catalog was released may have come after it.
 */
export function retiredBySnapshot(doc: SourceDocument, takenAt: string): boolean {
  const since = statedSince(doc);
  return since === undefined || since.slice(0, 10) < takenAt.slice(0, 10);
}
