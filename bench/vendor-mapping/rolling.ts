/**
 * The rolling evaluation: the alias table rebuilt every day, as the scheduled job would, from what the
 * catalog could have known the day before. A record teaches from the day after its CPEs could have
 * been seen: the later of its publication and its last ADP update (conservative: an ADP container
 * updated again later, say for SSVC, teaches later than it could have).
 */
import {
  adpCpes,
  AliasLearner,
  cnaCpes,
  keysOfCpes,
  mapCnaKeys,
  type Cve5Containers,
  type MappedKeys,
  type Threshold,
} from '../../src/domain/vendor-aliases.ts';

export interface DatedRecord {
  cveMetadata?: { datePublished?: string };
  containers?: Cve5Containers;
}

function learnedOn(record: DatedRecord): string {
  let date = record.cveMetadata?.datePublished ?? '';
  const adp = record.containers?.adp;
  if (Array.isArray(adp) && adpCpes(record.containers).length > 0) {
    for (const container of adp as { providerMetadata?: { dateUpdated?: unknown } }[]) {
      const updated = container?.providerMetadata?.dateUpdated;
      if (typeof updated === 'string' && updated > date) date = updated;
    }
  }
  return date.slice(0, 10);
}

/**
 * Maps each record of `evaluation` (CNA container only) with the table learned, by the day before its
 * publication, from all `records`, plus the static `vocabulary` (NVD CPEs). Returns the keys in the
 * order of `evaluation`.
 */
export function rollingMap(
  records: DatedRecord[],
  evaluation: DatedRecord[],
  vocabulary: string[][],
  threshold: Threshold,
): MappedKeys[] {
  const learner = new AliasLearner(threshold);
  for (const cpes of vocabulary) learner.learnCpes(cpes);
  const table = learner.toJSON();
  // On one day, the day's evaluations ('A') come before what that day teaches ('B').
  type Event = { key: string; learn?: DatedRecord; evaluate?: number };
  const events: Event[] = [];
  for (const record of records) {
    // A record without CPEs teaches nothing (`learn` ignores it); skip it here to keep the sort short.
    if (
      record.cveMetadata?.datePublished &&
      keysOfCpes([...adpCpes(record.containers), ...cnaCpes(record.containers)]).vendors.size > 0
    ) {
      events.push({ key: `${learnedOn(record)}B`, learn: record });
    }
  }
  evaluation.forEach((record, i) =>
    events.push({ key: `${record.cveMetadata!.datePublished!.slice(0, 10)}A`, evaluate: i }),
  );
  events.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const out: MappedKeys[] = new Array<MappedKeys>(evaluation.length);
  for (const event of events) {
    if (event.learn) learner.learn(event.learn.containers);
    else if (event.evaluate !== undefined) {
      out[event.evaluate] = mapCnaKeys(table, { cna: evaluation[event.evaluate]!.containers?.cna });
    }
  }
  return out;
}
