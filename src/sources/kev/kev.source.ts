/** CISA Known Exploited Vulnerabilities catalog (JSON, or its CSV twin): the `cisa` statement. */
import { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import { chain } from '../input.ts';
import { isCveId, normalizeCweId } from '../../domain/cve-id.ts';
import { emptyDocument } from '../../domain/cve.ts';
import { toIsoUtc, toSecondsZ } from '../../domain/timestamps.ts';
import { isUnreadableRest, jsonArrayItems, unreadableRest, type ImportItem, type Source } from '../source.ts';

type Json = Record<string, unknown>;

/** A KEV date as the catalog keeps it (`2025-08-13T00:00:00Z`), whatever form the copy had. */
export function kevDate(value: unknown): string | undefined {
  const iso = toIsoUtc(value);
  return iso && toSecondsZ(iso);
}

export function kevItem(value: unknown, position: string): ImportItem {
  const v = (value && typeof value === 'object' ? value : {}) as Json;
  const cveId = v.cveID;
  if (!isCveId(cveId)) return { kind: 'skip', position, reason: `invalid CVE id ${JSON.stringify(cveId)}` };
  const dateAdded = toIsoUtc(v.dateAdded);
  if (!dateAdded) return { kind: 'skip', position, id: cveId, reason: 'missing or invalid dateAdded' };
  const doc = emptyDocument();
  const kev: Json = { dateAdded: toSecondsZ(dateAdded) };
  const due = toIsoUtc(v.dueDate);
  if (due) kev.dueDate = toSecondsZ(due);
  for (const k of ['vulnerabilityName', 'requiredAction', 'knownRansomwareCampaignUse'] as const) {
    if (typeof v[k] === 'string' && v[k]) kev[k] = v[k];
  }
  doc.metrics.kev = kev;
  // No dates: being listed enriches a CVE without publishing or modifying its record (docs/catalog.md).
  if (typeof v.vulnerabilityName === 'string' && v.vulnerabilityName) doc.title = v.vulnerabilityName;
  if (typeof v.shortDescription === 'string' && v.shortDescription) {
    doc.description = v.shortDescription;
    // CISA writes the catalog in English.
    doc.descriptionLang = 'en';
  }
  const cwes = Array.isArray(v.cwes) ? v.cwes : typeof v.cwes === 'string' ? v.cwes.split(/[,\s]+/) : [];
  doc.weaknesses = [...new Set(cwes.map(normalizeCweId).filter((c): c is string => !!c))].sort();
  return { kind: 'cve', cveId, position, records: [{ cveId, provider: 'cisa', doc }], replaces: ['cisa'] };
}

/**
 * What an input that is not a KEV catalog at all (an empty file, `{}`, CVE records) says: a skipped
 * item, so the import is partial (exit 3) and retires nothing, instead of "0 imported".
 */
const NOT_A_CATALOG_JSON =
  'not a KEV catalog: no "vulnerabilities" list (expected CISA\'s known_exploited_vulnerabilities.json or .csv)';
const NOT_A_CATALOG_CSV =
  "not a KEV catalog: no cveID column (expected CISA's known_exploited_vulnerabilities.csv or .json)";

/** The catalog's release (`"dateReleased": "2025-08-25T17:04:19.9796Z"`), in the header before its list. */
const DATE_RELEASED = /"dateReleased"\s*:\s*"([^"]*)"/;
const HEADER_BYTES = 4096;

/** `stream`, keeping its first HEADER_BYTES bytes (`head()`) as they pass. */
function keepingHead(stream: Readable): { stream: Readable; head: () => string } {
  const parts: Buffer[] = [];
  let kept = 0;
  async function* pass(): AsyncGenerator<Buffer> {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (kept < HEADER_BYTES) {
        parts.push(chunk.subarray(0, HEADER_BYTES - kept));
        kept += parts.at(-1)!.length;
      }
      yield chunk;
    }
  }
  return { stream: Readable.from(pass()), head: () => Buffer.concat(parts).toString('utf8') };
}

/**
 * When a catalog was taken: its `dateReleased` (JSON), else the day of its latest entry (the CSV has
 * no header; a list is at least as new as its newest entry). Undefined for a list of no entry.
 */
function snapshotItem(position: string, released: unknown, latestAdded: string | undefined): ImportItem[] {
  const takenAt = toIsoUtc(released) ?? latestAdded;
  return takenAt ? [{ kind: 'snapshot', position, takenAt }] : [];
}

/** The latest of `latest` and the dateAdded of `item` when it is a listed entry. */
function laterAdded(latest: string | undefined, item: ImportItem): string | undefined {
  if (item.kind !== 'cve') return latest;
  const added = toIsoUtc(item.records[0]?.doc.metrics.kev?.dateAdded);
  return added && (!latest || added > latest) ? added : latest;
}

export const kevSource: Source = {
  name: 'kev',
  // CISA removes an entry now and then (a CVE found not to be exploited after all).
  snapshotOf: 'cisa',
  accept: (name) => /known_exploited|kev/i.test(name) && /\.(json|csv)$/i.test(name),
  async *parse(file): AsyncGenerator<ImportItem> {
    const stream = await file.open();
    let latestAdded: string | undefined;
    try {
      if (/\.csv$/i.test(file.logicalName)) {
        let row = 1;
        for await (const record of chain(
          stream,
          parseCsv({ columns: true, bom: true, relax_column_count: true }),
        )) {
          // A CSV without CISA's cveID column is another file, not a KEV list of bad entries.
          if (row === 1 && !('cveID' in (record as Json))) break;
          row++;
          const item = kevItem(record, `${file.name}:${row}`);
          latestAdded = laterAdded(latestAdded, item);
          yield item;
        }
        if (row === 1) yield { kind: 'skip', position: file.name, reason: NOT_A_CATALOG_CSV };
        else yield* snapshotItem(file.name, undefined, latestAdded);
        return;
      }
      const json = keepingHead(stream);
      let whole = true;
      for await (const item of jsonArrayItems(
        file,
        json.stream,
        'vulnerabilities',
        kevItem,
        NOT_A_CATALOG_JSON,
      )) {
        latestAdded = laterAdded(latestAdded, item);
        if (item.kind === 'skip' && (isUnreadableRest(item.reason) || item.reason === NOT_A_CATALOG_JSON))
          whole = false;
        yield item;
      }
      // A cut file or another format is no list as of any date.
      if (whole) yield* snapshotItem(file.name, DATE_RELEASED.exec(json.head())?.[1], latestAdded);
    } catch (err) {
      yield unreadableRest(file.name, err);
    }
  },
};
