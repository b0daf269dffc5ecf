/**
 * One delivery attempt on one channel: render the payload for the channel, send it once, and say how
 * it went (docs/notifications.md). Retrying, recording and scheduling attempts is the caller's. `send` never throws.
 */
import { performance } from 'node:perf_hooks';
import { createEmailSender, type EmailSender } from './email-sender.ts';
import { emailMessage } from './email-message.ts';
import { clip } from './message-summary.ts';
import { outboundAgents, postOutbound, type OutboundResult } from './outbound.ts';
import { payloadJson, payloadValue, type OutgoingPayload } from './payload.ts';
import { slackMessage } from './slack-message.ts';
import { teamsMessage } from './teams-card.ts';
import { signingKey, signWebhook } from './webhook-signature.ts';

export { newSigningSecret } from './webhook-signature.ts';
export { validateOutboundUrl } from './outbound.ts';

export type ChannelTarget =
  | { type: 'webhook'; url: string; headers: Record<string, string>; signingSecret: string }
  | { type: 'slack'; webhookUrl: string }
  | { type: 'teams'; webhookUrl: string }
  | { type: 'email'; to: string; unsubscribeUrl: string };

export interface DeliveryAttempt {
  /** ISO timestamp of the attempt start. */
  at: string;
  /** HTTP status, or the SMTP reply code for email; null when no response came. */
  status_code: number | null;
  duration_ms: number;
  /** One sentence, never a stack trace; null on success. */
  error: string | null;
  ok: boolean;
  /** False for refused URLs (SSRF), redirects, 4xx other than 408/425/429, permanent SMTP rejections and bad configuration. */
  retryable: boolean;
}

export interface ChannelSenderOptions {
  /** SMTP_URL; without it email attempts fail (not retryable). */
  smtpUrl?: string | undefined;
  smtpFrom: string;
  /** OUTBOUND_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  /** DELIVERY_TIMEOUT_MS: the time limit of one attempt. */
  timeoutMs: number;
  /** VULNTRACK_BASE_URL, for CVE links in messages. */
  baseUrl?: string | undefined;
}

export interface ChannelSender {
  send(target: ChannelTarget, payload: OutgoingPayload): Promise<DeliveryAttempt>;
  /** Closes the SMTP transport. */
  close(): Promise<void>;
}

const USER_AGENT = 'vulntrack-notifications/1';
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Header names a user may not set on a webhook: the signature and content type are ours, and the
 * framing headers are the HTTP client's.
 */
const RESERVED_HEADER =
  /^(webhook-.*|content-type|content-length|content-encoding|transfer-encoding|host|connection)$/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function badConfig(error: string): OutboundResult {
  return { ok: false, status_code: null, error, retryable: false };
}

/** The user's extra headers without reserved names, or an error sentence for an unusable one. */
function userHeaders(headers: Record<string, string>): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) return `The header name "${name}" is not a valid HTTP header name.`;
    if (typeof value !== 'string' || /[\r\n\0]/.test(value)) {
      return `The value of the header ${name} contains a line break or is not text.`;
    }
    if (!RESERVED_HEADER.test(name)) out[name.toLowerCase()] = value;
  }
  return out;
}

export function createChannelSender(options: ChannelSenderOptions): ChannelSender {
  const agents = outboundAgents();
  const outbound = { allowPrivate: options.allowPrivate, timeoutMs: options.timeoutMs, agents };
  let email: EmailSender | undefined;

  function sendWebhook(target: Extract<ChannelTarget, { type: 'webhook' }>, payload: OutgoingPayload) {
    const key = signingKey(target.signingSecret);
    if (!key) return badConfig('The signing secret is not a whsec_ secret of at least 16 bytes.');
    const headers = userHeaders(target.headers);
    if (typeof headers === 'string') return badConfig(headers);
    const body = payloadJson(payload);
    return postOutbound(
      target.url,
      body,
      {
        'user-agent': USER_AGENT,
        ...headers,
        'content-type': JSON_TYPE,
        ...signWebhook(key, payload.id, body),
      },
      outbound,
    );
  }

  function sendEmail(target: Extract<ChannelTarget, { type: 'email' }>, payload: OutgoingPayload) {
    if (!options.smtpUrl) {
      return badConfig('Email cannot be sent: no SMTP server is configured (set SMTP_URL).');
    }
    // One address only: a comma, semicolon or angle bracket would let one target reach several mailboxes.
    if (!/^[^\s@,;<>"]+@[^\s@,;<>"]+$/.test(target.to)) {
      return badConfig(`"${clip(target.to, 80)}" is not a single email address.`);
    }
    if (!/^https?:\/\/\S+$/.test(target.unsubscribeUrl)) {
      return badConfig('The unsubscribe link must be an http(s) URL.');
    }
    email ??= createEmailSender({
      smtpUrl: options.smtpUrl,
      smtpFrom: options.smtpFrom,
      timeoutMs: options.timeoutMs,
    });
    const message = emailMessage(payloadValue(payload), {
      baseUrl: options.baseUrl,
      unsubscribeUrl: target.unsubscribeUrl,
    });
    return email.send({
      ...message,
      to: target.to,
      unsubscribeUrl: target.unsubscribeUrl,
      deliveryId: payload.id,
    });
  }

  function attempt(
    target: ChannelTarget,
    payload: OutgoingPayload,
  ): Promise<OutboundResult> | OutboundResult {
    const chat = { 'user-agent': USER_AGENT, 'content-type': JSON_TYPE };
    switch (target.type) {
      case 'webhook':
        return sendWebhook(target, payload);
      case 'slack':
        return postOutbound(
          target.webhookUrl,
          JSON.stringify(slackMessage(payloadValue(payload), options.baseUrl)),
          chat,
          outbound,
        );
      case 'teams':
        return postOutbound(
          target.webhookUrl,
          JSON.stringify(teamsMessage(payloadValue(payload), options.baseUrl)),
          chat,
          outbound,
        );
      case 'email':
        return sendEmail(target, payload);
    }
  }

  return {
    async send(target, payload) {
      const at = new Date().toISOString();
      const started = performance.now();
      let result: OutboundResult;
      try {
        result = await attempt(target, payload);
      } catch (error) {
        // Only a bug gets here (every path above returns its failures); keep it one sentence.
        const message = error instanceof Error ? error.message : String(error);
        result = {
          ok: false,
          status_code: null,
          error: `Unexpected error: ${message.split('\n')[0]}.`,
          retryable: true,
        };
      }
      return { at, duration_ms: Math.round(performance.now() - started), ...result };
    },
    async close() {
      agents.destroy();
      email?.close();
      email = undefined;
    },
  };
}
