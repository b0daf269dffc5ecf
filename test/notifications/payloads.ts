/**
 * Notification payloads built from real records: the OpenCVE KB files in test/fixtures (title,
 * description, CVSS 3.1, vendors, EPSS where the file has one) and the KEV excerpt. Log4Shell's
 * file has no EPSS score, so its 0.94358 is illustrative.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { NotificationChange, NotificationPayload } from '../../src/notifications/payload.ts';

interface KbRecord {
  cve: string;
  epss?: { score: number };
  opencve: {
    title: { data: string | null };
    description: { data: string | null };
    metrics: { cvssV3_1?: { data: { score?: number } }; kev?: { data: { dateAdded?: string } } };
    vendors: { data: string[] };
  };
}

const KB_DIR = 'test/fixtures/opencve-kb';
const KEV_IDS = new Set(
  (
    JSON.parse(fs.readFileSync('test/fixtures/kev/known_exploited_vulnerabilities-excerpt.json', 'utf8')) as {
      vulnerabilities: Array<{ cveID: string }>;
    }
  ).vulnerabilities.map((v) => v.cveID),
);

function kbFile(cveId: string): string {
  return path.join(KB_DIR, cveId.split('-')[1]!, `${cveId}.json`);
}

/** One change of a payload, for a CVE of the OpenCVE KB fixtures. */
export function changeOf(cveId: string, events: NotificationChange['events']): NotificationChange {
  const record = JSON.parse(fs.readFileSync(kbFile(cveId), 'utf8')) as KbRecord;
  return {
    cve: {
      cve_id: record.cve,
      title: record.opencve.title.data,
      description: record.opencve.description.data,
      cvss31: record.opencve.metrics.cvssV3_1?.data.score ?? null,
      kev: KEV_IDS.has(record.cve) || Boolean(record.opencve.metrics.kev?.data.dateAdded),
      epss: record.epss?.score ?? (record.cve === 'CVE-2021-44228' ? 0.94358 : null),
      vendors: record.opencve.vendors.data.filter((v) => !v.includes('$PRODUCT$')),
    },
    events,
  };
}

/** Every CVE of the KB fixtures that has an OpenCVE section, by id. */
export function kbCveIds(): string[] {
  return fs
    .readdirSync(KB_DIR)
    .flatMap((year) => fs.readdirSync(path.join(KB_DIR, year)))
    .map((f) => f.replace(/\.json$/, ''))
    .filter((id) => 'opencve' in (JSON.parse(fs.readFileSync(kbFile(id), 'utf8')) as object))
    .sort();
}

/** An alert about Log4Shell (CVE-2021-44228) entering the project and being added to KEV. */
export function log4shellAlert(id = 'dlv_01J9Z3N4Q6X1Y2Z3A4B5C6D7E8'): NotificationPayload {
  return {
    id,
    type: 'alert',
    organization: 'acme',
    project: 'payments',
    notification: 'security-team',
    title: 'New critical CVE in payments: CVE-2021-44228',
    period: { start: '2021-12-10T00:00:00.000Z', end: '2021-12-10T01:00:00.000Z' },
    changes: [
      changeOf('CVE-2021-44228', [
        { type: 'cve_enters_project', details: { vendors: ['apache'] } },
        { type: 'kev_added', details: { date_added: '2021-12-10' } },
      ]),
    ],
  };
}

/** A weekly report over every KB fixture CVE, repeated (with made-up ids) up to `count` changes. */
export function bigReport(count: number): NotificationPayload {
  const real = kbCveIds().map((id) => changeOf(id, [{ type: 'description_changed', details: {} }]));
  const changes = Array.from({ length: count }, (_, i) => {
    const base = real[i % real.length]!;
    if (i < real.length) return base;
    return { ...base, cve: { ...base.cve, cve_id: `CVE-2099-${String(10000 + i)}` } };
  });
  return {
    id: 'dlv_report_2024_w23',
    type: 'report',
    organization: 'acme',
    project: 'payments',
    notification: 'weekly-digest',
    title: `Weekly report for payments: ${count} CVEs changed`,
    period: { start: '2024-06-03T00:00:00.000Z', end: '2024-06-10T00:00:00.000Z' },
    changes,
  };
}
