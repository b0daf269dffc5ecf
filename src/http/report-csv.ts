/** The CSV export of a report (API v2's `format=csv` and the web UI's download): one row per CVE. */
import { severityOf } from '../domain/cvss.ts';
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
