/**
 * A payload as an email: subject, plain-text and HTML parts, both with a visible unsubscribe link.
 * Pure: no I/O. Every value from the payload is HTML-escaped in the HTML part.
 */
import { clip, cveCount, EMAIL_MAX_CVES, summarize, type CveLine } from '../../message-summary.ts';
import type { NotificationPayload } from '../../payload.ts';

export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
}

const SUBJECT_MAX = 200;

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function textLine(line: CveLine): string {
  const rows = [
    `${line.cveId}: ${line.summary}`,
    `  CVSS 3.1: ${line.cvss} · KEV: ${line.kev ? 'yes' : 'no'} · EPSS: ${line.epss}`,
  ];
  if (line.events.length) rows.push(`  Events: ${line.events.join(', ')}`);
  if (line.vendors) rows.push(`  Vendors: ${line.vendors}`);
  if (line.url) rows.push(`  ${line.url}`);
  return rows.join('\n');
}

function htmlLine(line: CveLine): string {
  const id = line.url
    ? `<a href="${escapeHtml(line.url)}">${escapeHtml(line.cveId)}</a>`
    : escapeHtml(line.cveId);
  const facts = [
    `CVSS 3.1: <strong>${escapeHtml(line.cvss)}</strong>`,
    `KEV: <strong>${line.kev ? 'yes' : 'no'}</strong>`,
    `EPSS: ${escapeHtml(line.epss)}`,
  ];
  const rows = [`<strong>${id}</strong> ${escapeHtml(line.summary)}`, facts.join(' · ')];
  if (line.events.length) rows.push(`Events: ${escapeHtml(line.events.join(', '))}`);
  if (line.vendors) rows.push(`Vendors: ${escapeHtml(line.vendors)}`);
  return `<li style="margin-bottom:12px">${rows.join('<br>')}</li>`;
}

/** The email for `payload`; `unsubscribeUrl` is shown in both parts (the headers are the sender's). */
export function emailMessage(
  payload: NotificationPayload,
  options: { baseUrl?: string | undefined; unsubscribeUrl: string },
): EmailMessage {
  const summary = summarize(payload, { baseUrl: options.baseUrl, maxCves: EMAIL_MAX_CVES });
  const subject = clip(summary.title, SUBJECT_MAX);
  const intro = `${summary.context}\nPeriod: ${summary.period}\n${cveCount(summary.total)}`;
  const more = summary.hidden > 0 ? `…and ${cveCount(summary.hidden)} more (${summary.total} in all).` : '';
  const footer = `You receive this email because this address is subscribed to the notification "${payload.notification}" of the project ${payload.project}.`;

  const text = [
    subject,
    intro,
    summary.total === 0 ? 'No CVE changed in this period.' : summary.lines.map(textLine).join('\n\n'),
    more,
    `--\n${footer}\nUnsubscribe: ${options.unsubscribeUrl}`,
  ]
    .filter(Boolean)
    .join('\n\n');

  const html = [
    '<!DOCTYPE html>',
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    `<title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;line-height:1.4">',
    `<h1 style="font-size:20px">${escapeHtml(subject)}</h1>`,
    `<p style="color:#555">${escapeHtml(summary.context)}<br>Period: ${escapeHtml(summary.period)}<br>${cveCount(summary.total)}</p>`,
    summary.total === 0
      ? '<p>No CVE changed in this period.</p>'
      : `<ul style="padding-left:18px">${summary.lines.map(htmlLine).join('')}</ul>`,
    more ? `<p>${escapeHtml(more)}</p>` : '',
    `<hr><p style="color:#777;font-size:12px">${escapeHtml(footer)}<br>`,
    `<a href="${escapeHtml(options.unsubscribeUrl)}">Unsubscribe</a></p>`,
    '</body></html>',
  ]
    .filter(Boolean)
    .join('\n');

  return { subject, text, html };
}
