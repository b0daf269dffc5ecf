/**
 * The CSV export of a report, one row per CVE: API v2's `format=csv` (keys and event types as the
 * JSON has them) and the web UI's download (the same facts in people's words).
 */
import { triggerLabel } from '../domain/automation.ts';
import { vendorKeyLabel } from '../domain/cpe.ts';
import { severityOf } from '../domain/cvss.ts';
import { capitalized, wordList, yesNo } from './cve-csv.ts';
import type { ReportCve } from '../services/report.service.ts';
import type { CsvColumn } from './csv.ts';

const join = (values: readonly string[]) => values.join(';');

export const REPORT_CSV_COLUMNS: readonly CsvColumn<ReportCve>[] = [
  { header: 'cve_id', value: (c) => c.cve_id },
  { header: 'title', value: (c) => c.title },
  { header: 'highest_cvss', value: (c) => c.highest_cvss },
  { header: 'severity', value: (c) => severityOf(c.highest_cvss) },
  { header: 'cvss31', value: (c) => c.cvss31 },
  { header: 'kev', value: (c) => String(c.kev) },
  { header: 'epss', value: (c) => c.epss },
  { header: 'matched', value: (c) => join(c.matched_keys) },
  { header: 'events', value: (c) => join(c.event_types) },
  { header: 'changes', value: (c) => c.changes.length },
  { header: 'change_types', value: (c) => join([...new Set(c.changes.flatMap((ch) => ch.types))]) },
];

/** The web UI's download of a report (`…/reports/<id>/csv`): API v2's columns in people's words. */
export const WEB_REPORT_CSV_COLUMNS: readonly CsvColumn<ReportCve>[] = [
  { header: 'CVE', value: (c) => c.cve_id },
  { header: 'Title', value: (c) => c.title },
  { header: 'Highest CVSS', value: (c) => c.highest_cvss },
  { header: 'Severity', value: (c) => capitalized(severityOf(c.highest_cvss)) },
  { header: 'CVSS 3.1', value: (c) => c.cvss31 },
  { header: 'KEV', value: (c) => yesNo(c.kev) },
  { header: 'EPSS', value: (c) => c.epss },
  { header: 'Matched', value: (c) => wordList(c.matched_keys.map(vendorKeyLabel)) },
  { header: 'Events', value: (c) => wordList(c.event_types.map(triggerLabel)) },
  { header: 'Changes', value: (c) => c.changes.length },
  {
    header: 'Change types',
    value: (c) =>
      wordList([...new Set(c.changes.flatMap((ch) => ch.types))].map((t) => t.replace(/_/g, ' '))),
  },
];
