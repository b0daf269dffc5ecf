/**
 * A payload as a Microsoft Teams Workflows message: one Adaptive Card 1.4 attachment with the title,
 * a context line, a container per CVE (capped like Slack) and an "and N more" line. Pure: no I/O.
 */
import { CHAT_MAX_CVES, cveCount, summarize, type CveLine } from '../../message-summary.ts';
import type { NotificationPayload } from '../../payload.ts';

export const ADAPTIVE_CARD_CONTENT_TYPE = 'application/vnd.microsoft.card.adaptive';

export type CardElement =
  | {
      type: 'TextBlock';
      text: string;
      wrap: true;
      size?: 'Large' | 'Medium';
      weight?: 'Bolder';
      isSubtle?: boolean;
      spacing?: 'None' | 'Small';
    }
  | { type: 'FactSet'; facts: Array<{ title: string; value: string }> }
  | { type: 'Container'; separator: boolean; spacing: 'Medium'; items: CardElement[] };

export interface TeamsMessage {
  type: 'message';
  attachments: Array<{
    contentType: typeof ADAPTIVE_CARD_CONTENT_TYPE;
    contentUrl: null;
    content: {
      $schema: string;
      type: 'AdaptiveCard';
      version: '1.4';
      body: CardElement[];
      msteams: { width: 'Full' };
    };
  }>;
}

/**
 * TextBlocks render a Markdown subset; square brackets are escaped so text from a CVE record cannot
 * turn into a link (the only markup that could mislead a reader).
 */
export function escapeCardMarkdown(text: string): string {
  return text.replace(/([\\[\]])/g, '\\$1');
}

function cveContainer(line: CveLine): CardElement {
  const id = line.url ? `[${line.cveId}](${line.url})` : line.cveId;
  const facts = [
    { title: 'CVSS 3.1', value: line.cvss },
    { title: 'KEV', value: line.kev ? 'yes' : 'no' },
    { title: 'EPSS', value: line.epss },
  ];
  if (line.events.length) facts.push({ title: 'Events', value: escapeCardMarkdown(line.events.join(', ')) });
  if (line.vendors) facts.push({ title: 'Vendors', value: escapeCardMarkdown(line.vendors) });
  return {
    type: 'Container',
    separator: true,
    spacing: 'Medium',
    items: [
      { type: 'TextBlock', text: `**${id}** ${escapeCardMarkdown(line.summary)}`, wrap: true },
      { type: 'FactSet', facts },
    ],
  };
}

/** The Workflows webhook body for `payload`; CVE ids link to `${baseUrl}/cves/<id>` when set. */
export function teamsMessage(payload: NotificationPayload, baseUrl?: string): TeamsMessage {
  const summary = summarize(payload, { baseUrl, maxCves: CHAT_MAX_CVES });
  const body: CardElement[] = [
    {
      type: 'TextBlock',
      text: escapeCardMarkdown(summary.title),
      wrap: true,
      size: 'Large',
      weight: 'Bolder',
    },
    {
      type: 'TextBlock',
      text: escapeCardMarkdown(`${summary.context} · ${summary.period}`),
      wrap: true,
      isSubtle: true,
      spacing: 'None',
    },
  ];
  if (summary.total === 0)
    body.push({ type: 'TextBlock', text: 'No CVE changed in this period.', wrap: true });
  for (const line of summary.lines) body.push(cveContainer(line));
  if (summary.hidden > 0) {
    body.push({
      type: 'TextBlock',
      text: `…and ${cveCount(summary.hidden)} more (${summary.total} in all).`,
      wrap: true,
      isSubtle: true,
    });
  }
  return {
    type: 'message',
    attachments: [
      {
        contentType: ADAPTIVE_CARD_CONTENT_TYPE,
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          msteams: { width: 'Full' },
        },
      },
    ],
  };
}
