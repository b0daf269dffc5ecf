/** CISA Known Exploited Vulnerabilities catalog (JSON, or its CSV twin): the `cisa` statement. */
import { parse as parseCsv } from 'csv-parse';
import { chain } from '../input.ts';
import { isCveId, normalizeCweId } from '../../domain/cve-id.ts';
import { emptyDocument } from '../../domain/cve.ts';
import { toIsoUtc, toSecondsZ } from '../../domain/timestamps.ts';
import { jsonArrayItems, unreadableRest, type ImportItem, type Source } from '../source.ts';

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

export const kevSource: Source = {
  name: 'kev',
  // CISA removes an entry now and then (a CVE found not to be exploited after all).
  snapshotOf: 'cisa',
  accept: (name) => /known_exploited|kev/i.test(name) && /\.(json|csv)$/i.test(name),
  async *parse(file): AsyncGenerator<ImportItem> {
    const stream = await file.open();
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
          yield kevItem(record, `${file.name}:${row}`);
        }
        if (row === 1) yield { kind: 'skip', position: file.name, reason: NOT_A_CATALOG_CSV };
        return;
      }
      yield* jsonArrayItems(file, stream, 'vulnerabilities', kevItem, NOT_A_CATALOG_JSON);
    } catch (err) {
      yield unreadableRest(file.name, err);
    }
  },
};
