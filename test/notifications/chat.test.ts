/** Slack (Block Kit) and Teams (Adaptive Card) messages, as received by real receivers on loopback. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createChannelSender } from '../../src/notifications/channel-sender.ts';
import { CHAT_MAX_CVES } from '../../src/notifications/message-summary.ts';
import type { NotificationPayload } from '../../src/notifications/payload.ts';
import {
  SLACK_MAX_BLOCKS,
  SLACK_MAX_TEXT,
  type SlackMessage,
} from '../../src/notifications/channels/slack/slack-message.ts';
import type { CardElement, TeamsMessage } from '../../src/notifications/channels/teams/teams-card.ts';
import { bigReport, log4shellAlert } from './payloads.ts';
import { startReceiver, type Receiver } from './receivers.ts';

const BASE_URL = 'https://vulntrack.example.org';

let receiver: Receiver;
beforeAll(async () => {
  // Slack answers 200 "ok", a Teams Workflows trigger 202 with an empty body.
  receiver = await startReceiver((r) =>
    r.path.startsWith('/teams') ? { status: 202 } : { status: 200, body: 'ok' },
  );
});
afterAll(async () => receiver.close());
beforeEach(() => {
  receiver.requests.length = 0;
});

const sender = (baseUrl: string | undefined = BASE_URL) =>
  createChannelSender({ smtpFrom: 'vulntrack@example.com', allowPrivate: true, timeoutMs: 3000, baseUrl });

async function sendSlack(payload: NotificationPayload, baseUrl?: string): Promise<SlackMessage> {
  const attempt = await sender(baseUrl).send(
    { type: 'slack', webhookUrl: `${receiver.base}/services/T0/B0/x` },
    payload,
  );
  expect(attempt).toMatchObject({ ok: true, status_code: 200, error: null });
  const request = receiver.requests.at(-1)!;
  expect(request.headers['content-type']).toBe('application/json; charset=utf-8');
  return JSON.parse(request.body) as SlackMessage;
}

async function sendTeams(payload: NotificationPayload): Promise<TeamsMessage> {
  const attempt = await sender().send(
    { type: 'teams', webhookUrl: `${receiver.base}/teams/workflows/abc` },
    payload,
  );
  expect(attempt).toMatchObject({ ok: true, status_code: 202, error: null });
  return JSON.parse(receiver.requests.at(-1)!.body) as TeamsMessage;
}

function sectionTexts(message: SlackMessage): string[] {
  return message.blocks.flatMap((b) => (b.type === 'section' ? [b.text.text] : []));
}

describe('slack channel', () => {
  it('sends a Block Kit message: header, context, a section per CVE with link, CVSS, KEV and events', async () => {
    const payload = log4shellAlert();
    const message = await sendSlack(payload);

    expect(message.text).toBe('New critical CVE in payments: CVE-2021-44228: 1 CVE');
    expect(message.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: payload.title } });
    expect(message.blocks[1]).toEqual({
      type: 'context',
      elements: [
        { type: 'mrkdwn', text: 'acme / payments · security-team · 2021-12-10 00:00 – 2021-12-10 01:00 UTC' },
      ],
    });
    const [section] = sectionTexts(message);
    expect(section).toBe(
      [
        `*<${BASE_URL}/cves/CVE-2021-44228|CVE-2021-44228>* Apache Log4j2 JNDI features do not protect against attacker controlled LDAP and other JNDI related endpoints`,
        'CVSS 3.1: *10.0 (critical)* · KEV: *yes* · EPSS: 94.36%',
        'Events: entered the project, added to KEV',
        'Vendors: Apache, Apple, Bentley, Cisco, Debian and 8 more',
      ].join('\n'),
    );
    expect(message.blocks).toHaveLength(3);
  });

  it('shows CVE ids without links when no base URL is set', async () => {
    const message = await sendSlack(log4shellAlert(), '');
    expect(sectionTexts(message)[0]).toMatch(/^\*CVE-2021-44228\* Apache Log4j2/);
    expect(JSON.stringify(message)).not.toContain('/cves/');
  });

  it(`lists at most ${CHAT_MAX_CVES} CVEs, within Slack's limits, and says how many more there are`, async () => {
    const message = await sendSlack(bigReport(75));
    expect(message.blocks.length).toBeLessThanOrEqual(SLACK_MAX_BLOCKS);
    expect(sectionTexts(message)).toHaveLength(CHAT_MAX_CVES);
    for (const text of sectionTexts(message)) expect(text.length).toBeLessThanOrEqual(SLACK_MAX_TEXT);
    expect(message.blocks.at(-1)).toEqual({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: '…and 55 CVEs more (75 in all).' }],
    });
    expect(message.text).toBe('Weekly report for payments: 75 CVEs changed: 75 CVEs');
  });

  it('escapes text from CVE records so it cannot inject links or mentions', async () => {
    const payload = log4shellAlert();
    payload.changes[0]!.cve.title = 'Bypass <https://evil.example|click here> & <!channel>';
    const [section] = sectionTexts(await sendSlack(payload));
    expect(section).toContain('Bypass &lt;https://evil.example|click here&gt; &amp; &lt;!channel&gt;');
  });

  it('says so when nothing changed (a test message)', async () => {
    const payload: NotificationPayload = {
      ...log4shellAlert(),
      type: 'test',
      title: 'Test notification',
      changes: [],
    };
    const message = await sendSlack(payload);
    expect(sectionTexts(message)).toEqual(['No CVE changed in this period.']);
  });
});

function containers(card: TeamsMessage): Extract<CardElement, { type: 'Container' }>[] {
  return card.attachments[0]!.content.body.filter(
    (e): e is Extract<CardElement, { type: 'Container' }> => e.type === 'Container',
  );
}

describe('teams channel', () => {
  it('sends a Workflows message with one Adaptive Card 1.4', async () => {
    const message = await sendTeams(log4shellAlert());
    expect(message.type).toBe('message');
    expect(message.attachments).toHaveLength(1);
    const [attachment] = message.attachments;
    expect(attachment).toMatchObject({
      contentType: 'application/vnd.microsoft.card.adaptive',
      contentUrl: null,
      content: {
        $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
        type: 'AdaptiveCard',
        version: '1.4',
      },
    });
    const body = attachment!.content.body;
    expect(body[0]).toMatchObject({
      type: 'TextBlock',
      text: 'New critical CVE in payments: CVE-2021-44228',
      weight: 'Bolder',
    });
    expect(body[1]).toMatchObject({ type: 'TextBlock', isSubtle: true });
    const [cve] = containers(message);
    expect(cve!.items[0]).toMatchObject({
      type: 'TextBlock',
      text: `**[CVE-2021-44228](${BASE_URL}/cves/CVE-2021-44228)** Apache Log4j2 JNDI features do not protect against attacker controlled LDAP and other JNDI related endpoints`,
    });
    expect(cve!.items[1]).toEqual({
      type: 'FactSet',
      facts: [
        { title: 'CVSS 3.1', value: '10.0 (critical)' },
        { title: 'KEV', value: 'yes' },
        { title: 'EPSS', value: '94.36%' },
        { title: 'Events', value: 'entered the project, added to KEV' },
        { title: 'Vendors', value: 'Apache, Apple, Bentley, Cisco, Debian and 8 more' },
      ],
    });
  });

  it(`lists at most ${CHAT_MAX_CVES} CVEs and says how many more there are`, async () => {
    const message = await sendTeams(bigReport(75));
    expect(containers(message)).toHaveLength(CHAT_MAX_CVES);
    expect(message.attachments[0]!.content.body.at(-1)).toMatchObject({
      type: 'TextBlock',
      text: '…and 55 CVEs more (75 in all).',
    });
    // Teams refuses webhook messages over about 28 KB.
    expect(receiver.requests.at(-1)!.body.length).toBeLessThan(28_000);
  });

  it('escapes link brackets in text from CVE records', async () => {
    const payload = log4shellAlert();
    payload.changes[0]!.cve.title = 'See [details](https://evil.example)';
    const [cve] = containers(await sendTeams(payload));
    expect(cve!.items[0]).toMatchObject({
      text: expect.stringContaining('See \\[details\\](https://evil.example)'),
    });
  });
});
