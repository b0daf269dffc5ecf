/**
 * A payload as a Slack incoming-webhook message in Block Kit: a header, a context line, a section per
 * CVE (capped) and an "and N more" context block. Pure: no I/O.
 *
 * Slack's limits: 50 blocks per message, 3000 characters per section text, 150 per header text; the
 * cap of CHAT_MAX_CVES keeps the message at most 2 + 20 + 1 blocks.
 */
import { CHAT_MAX_CVES, clip, cveCount, summarize, truncate, type CveLine } from '../../message-summary.ts';
import type { NotificationPayload } from '../../payload.ts';

export const SLACK_MAX_BLOCKS = 50;
export const SLACK_MAX_TEXT = 3000;
const SLACK_MAX_HEADER = 150;

type TextObject = { type: 'plain_text' | 'mrkdwn'; text: string };
export type SlackBlock =
  | { type: 'header'; text: TextObject }
  | { type: 'section'; text: TextObject }
  | { type: 'context'; elements: TextObject[] };

export interface SlackMessage {
  /** Shown in notifications and by clients that cannot render blocks. */
  text: string;
  blocks: SlackBlock[];
}

/** Slack mrkdwn needs only &, < and > escaped; everything else from a CVE record is shown as text. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function cveSection(line: CveLine): SlackBlock {
  // A URL we built ourselves (base URL + encoded id): only `|` and `>` would break the link syntax.
  const id = line.url ? `<${line.url.replace(/[|>]/g, encodeURIComponent)}|${line.cveId}>` : line.cveId;
  const facts = [`CVSS 3.1: *${line.cvss}*`, `KEV: *${line.kev ? 'yes' : 'no'}*`, `EPSS: ${line.epss}`];
  const rows = [`*${id}* ${escapeSlack(line.summary)}`, facts.join(' · ')];
  if (line.events.length) rows.push(`Events: ${escapeSlack(line.events.join(', '))}`);
  if (line.vendors) rows.push(`Vendors: ${escapeSlack(line.vendors)}`);
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(rows.join('\n'), SLACK_MAX_TEXT) } };
}

/** The Block Kit message for `payload`; CVE ids link to `${baseUrl}/cves/<id>` when baseUrl is set. */
export function slackMessage(payload: NotificationPayload, baseUrl?: string): SlackMessage {
  const summary = summarize(payload, { baseUrl, maxCves: CHAT_MAX_CVES });
  const blocks: SlackBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(summary.title, SLACK_MAX_HEADER) } },
    {
      type: 'context',
      elements: [{ type: 'mrkdwn', text: escapeSlack(`${summary.context} · ${summary.period}`) }],
    },
  ];
  if (summary.total === 0) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: 'No CVE changed in this period.' } });
  }
  for (const line of summary.lines) blocks.push(cveSection(line));
  if (summary.hidden > 0) {
    blocks.push({
      type: 'context',
      elements: [
        { type: 'mrkdwn', text: `…and ${cveCount(summary.hidden)} more (${summary.total} in all).` },
      ],
    });
  }
  return { text: escapeSlack(`${summary.title}: ${cveCount(summary.total)}`), blocks };
}
