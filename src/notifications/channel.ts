/**
 * The contract of a notification channel. A channel is one folder under `channels/` (its
 * configuration, its renderer, how it sends, its test) and one line in `channel-registry.ts`; the API
 * schemas, the service's validation and the sender all read the registry (docs/notifications.md).
 */
import { Type, type TObject, type TProperties } from 'typebox';
import {
  validateOutboundUrl,
  type OutboundAgents,
  type OutboundResult,
  type PrivateDestinations,
} from './outbound.ts';
import type { OutgoingPayload } from './payload.ts';

export interface ChannelSenderOptions {
  /** SMTP_URL; without it email attempts fail (not retryable). */
  smtpUrl?: string | undefined;
  smtpFrom: string;
  /** OUTBOUND_ALLOW_PRIVATE / OUTBOUND_ALLOW_HOSTS: the non-public destinations allowed. */
  allowPrivate: PrivateDestinations;
  /** DELIVERY_TIMEOUT_MS: the time limit of one attempt. */
  timeoutMs: number;
  /** VULNTRACK_BASE_URL, for CVE links in messages. */
  baseUrl?: string | undefined;
}

/** What every channel's sender is given: the options, and outbound HTTP through the SSRF guard. */
export interface ChannelContext {
  options: ChannelSenderOptions;
  /** Keep-alive agents shared by every channel's outbound HTTP (`postOutbound`). */
  outbound: { allowPrivate: PrivateDestinations; timeoutMs: number; agents: OutboundAgents };
}

/** One channel's sending side, made once per `createChannelSender`. */
export interface ChannelSend<Target> {
  /** One attempt; returns every expected failure (only a bug throws, and the caller catches it). */
  send(target: Target, payload: OutgoingPayload): Promise<OutboundResult> | OutboundResult;
  /** Releases what `send` opened (connections). */
  close?(): void;
}

/**
 * A configuration split into what the API may show and what is sealed at rest (a stored one is
 * handed to `target` with its secrets opened).
 */
export interface ConfiguredChannel {
  configuration: Record<string, unknown>;
  secrets: Record<string, unknown>;
}

/** A notification channel: its configuration, what is shown of it, its send target and its sender. */
export interface Channel<Target extends object = object> {
  /**
   * The configuration a client sends (`required` says which fields the channel needs). The request
   * schema of every channel's fields is the union of these, each field optional.
   */
  configuration: TObject;
  /** What the API shows of a stored configuration: never a secret. */
  shown: TProperties;
  /**
   * Checks a configuration the request schema accepted and splits it; pushes one sentence per
   * problem (the registry has already pushed one per field the channel does not declare). `type` is
   * the channel's name in the registry, for those sentences; `allowPrivate` (OUTBOUND_ALLOW_PRIVATE,
   * OUTBOUND_ALLOW_HOSTS) lets a URL name those loopback or private addresses literally.
   */
  configure(
    input: Record<string, unknown>,
    problems: string[],
    type: string,
    allowPrivate: PrivateDestinations,
  ): ConfiguredChannel;
  /**
   * What the API shows of a stored configuration (the fields of `shown`), in OpenCVE 3.1's masked
   * shapes; without it the stored configuration is shown as it is.
   */
  show?(configuration: Record<string, unknown>): Record<string, unknown>;
  /**
   * Secrets that outlive a change of configuration, taken from the ones it replaces (`previous`),
   * or made for a new notification (undefined). Only asked of a valid configuration.
   */
  lastingSecrets?(previous: Record<string, unknown> | undefined): Record<string, unknown>;
  /** The send target of a stored notification; `baseUrl` is VULNTRACK_BASE_URL (for links). */
  target(stored: ConfiguredChannel, baseUrl: string): Target;
  /** Renders and sends; made once per `createChannelSender`. */
  sender(context: ChannelContext): ChannelSend<Target>;
}

/** Sent as the User-Agent of every outbound HTTP request. */
export const USER_AGENT = 'vulntrack-notifications/1';
export const JSON_TYPE = 'application/json; charset=utf-8';

/** An attempt refused before anything was sent: bad configuration, never retried. */
export function refused(error: string): OutboundResult {
  return { ok: false, status_code: null, error, retryable: false };
}

/** A URL field of a request configuration (webhook, Slack, Teams). */
export const UrlField = Type.String({ minLength: 1, maxLength: 2048 });

/**
 * The required outbound URL `key` of `input`, checked statically: a literal non-public address is
 * refused unless `allowPrivate` (the SSRF guard checks DNS names again at send time).
 */
export function outboundUrl(
  input: Record<string, unknown>,
  key: string,
  type: string,
  problems: string[],
  allowPrivate: PrivateDestinations,
): URL | undefined {
  const value = input[key];
  if (value === undefined) {
    problems.push(`${key} is required for ${type}`);
    return undefined;
  }
  const error = validateOutboundUrl(String(value), allowPrivate);
  if (error) {
    problems.push(`${key}: ${error}`);
    return undefined;
  }
  return new URL(String(value));
}
