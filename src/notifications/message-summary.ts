/**
 * What a chat or email message says about a payload, before any channel's markup: the CVEs shown
 * (capped), how many are left out, and each CVE's facts as short strings. Pure: no I/O.
 */
import { vendorKeyLabel } from '../domain/cpe.ts';
import { severityOf } from '../domain/cvss.ts';
import type { NotificationChange, NotificationPayload } from './payload.ts';

/** CVEs listed in a Slack or Teams message (Slack allows 50 blocks; a digest is a summary anyway). */
export const CHAT_MAX_CVES = 20;
/** CVEs listed in an email. */
export const EMAIL_MAX_CVES = 100;

const TITLE_MAX = 200;
const VENDORS_SHOWN = 5;

/** Readable names of the alert triggers (docs/notifications.md); other event types are shown with spaces for `_`. */
const EVENT_LABELS: Record<string, string> = {
  cve_enters_project: 'entered the project',
  cvss_increased: 'CVSS increased',
  cvss_decreased: 'CVSS decreased',
  epss_increased: 'EPSS increased',
  epss_decreased: 'EPSS decreased',
  kev_added: 'added to KEV',
  new_vendor: 'new vendor',
  new_product: 'new product',
  description_changed: 'description changed',
  title_changed: 'title changed',
  new_reference: 'new reference',
  new_weakness: 'new weakness',
  affected_changed: 'affected versions changed',
  cve_affects_component: 'affects an inventory component',
};

export interface CveLine {
  cveId: string;
  /** `${baseUrl}/cves/<id>`, when a base URL is configured. */
  url: string | undefined;
  /** The CVE title, else the start of its description, else a placeholder. */
  summary: string;
  /** e.g. `10.0 (critical)`, or `none`. */
  cvss: string;
  kev: boolean;
  /** e.g. `94.36%`, or `none`. */
  epss: string;
  /** Distinct event labels in payload order; empty for a report line without events. */
  events: string[];
  /** e.g. `Apache, Apache / Log4j, … and 12 more`, or '' without vendors. */
  vendors: string;
}

export interface MessageSummary {
  title: string;
  /** `organization / project · notification`. */
  context: string;
  /** `2021-12-10 00:00 – 2021-12-11 00:00 UTC`. */
  period: string;
  lines: CveLine[];
  /** CVEs of the payload not listed (over the cap). */
  hidden: number;
  total: number;
}

/** Collapses whitespace and control characters, and cuts at `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  const flat = text
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

/** Cuts `text` at `max` characters with an ellipsis, keeping its line breaks. */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function formatInstant(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toISOString().slice(0, 16).replace('T', ' ');
}

function cvssText(score: number | null): string {
  if (score === null) return 'none';
  return `${score.toFixed(1)} (${severityOf(score)})`;
}

function epssText(epss: number | null): string {
  if (epss === null) return 'none';
  return `${(epss * 100).toFixed(2)}%`;
}

function vendorsText(vendors: string[]): string {
  const shown = vendors.slice(0, VENDORS_SHOWN).join(', ');
  const more = vendors.length - VENDORS_SHOWN;
  return more > 0 ? `${shown} and ${more} more` : shown;
}

function eventLabel(type: string): string {
  return EVENT_LABELS[type] ?? type.replace(/_/g, ' ');
}

function cveLine(change: NotificationChange, baseUrl: string | undefined): CveLine {
  const { cve } = change;
  const summary = cve.title
    ? clip(cve.title, TITLE_MAX)
    : cve.description
      ? clip(cve.description, TITLE_MAX)
      : '(no description yet)';
  return {
    cveId: cve.cve_id,
    url: baseUrl ? `${baseUrl.replace(/\/+$/, '')}/cves/${encodeURIComponent(cve.cve_id)}` : undefined,
    summary,
    cvss: cvssText(cve.cvss31),
    kev: cve.kev,
    epss: epssText(cve.epss),
    events: [...new Set(change.events.map((e) => eventLabel(e.type)))],
    // People's words: the payload's own (a stored payload may predate `display`), else the keys'.
    vendors: vendorsText(cve.display?.vendors ?? cve.vendors.map(vendorKeyLabel)),
  };
}

/** The channel-neutral content of a message about `payload`, listing at most `maxCves` CVEs. */
export function summarize(
  payload: NotificationPayload,
  options: { baseUrl?: string | undefined; maxCves: number },
): MessageSummary {
  const shown = payload.changes.slice(0, options.maxCves);
  return {
    title: clip(payload.title, TITLE_MAX) || 'vulntrack notification',
    context: `${payload.organization} / ${payload.project} · ${payload.notification}`,
    period: `${formatInstant(payload.period.start)} – ${formatInstant(payload.period.end)} UTC`,
    lines: shown.map((change) => cveLine(change, options.baseUrl)),
    hidden: payload.changes.length - shown.length,
    total: payload.changes.length,
  };
}

/** `1 CVE` / `3 CVEs`. */
export function cveCount(n: number): string {
  return `${n} CVE${n === 1 ? '' : 's'}`;
}
