/**
 * One delivery attempt on one channel: render the payload for the channel, send it once, and say how
 * it went (docs/notifications.md). Retrying, recording and scheduling attempts is the caller's. `send`
 * never throws. What each channel does is in its folder under `channels/`.
 */
import { performance } from 'node:perf_hooks';
import type { ChannelContext, ChannelSend, ChannelSenderOptions } from './channel.ts';
import { CHANNEL_TYPES, CHANNELS, type ChannelTarget, type ChannelType } from './channel-registry.ts';
import { outboundAgents, type OutboundResult, type RawExchange } from './outbound.ts';
import type { OutgoingPayload } from './payload.ts';

export type { ChannelSenderOptions } from './channel.ts';
export type { ChannelTarget } from './channel-registry.ts';
export { newSigningSecret } from './channels/webhook/webhook-signature.ts';
export { validateOutboundUrl } from './outbound.ts';

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
  /** HTTP channels: what was sent and received, raw (a test send keeps it masked, exchange.ts). */
  exchange?: RawExchange;
}

export interface ChannelSender {
  send(target: ChannelTarget, payload: OutgoingPayload): Promise<DeliveryAttempt>;
  /** Closes the SMTP transport and the kept-alive connections. */
  close(): Promise<void>;
}

export function createChannelSender(options: ChannelSenderOptions): ChannelSender {
  const agents = outboundAgents();
  const context: ChannelContext = {
    options,
    outbound: { allowPrivate: options.allowPrivate, timeoutMs: options.timeoutMs, agents },
  };
  const senders = Object.fromEntries(
    CHANNEL_TYPES.map((type) => [type, CHANNELS[type].sender(context) as ChannelSend<object>]),
  ) as Record<ChannelType, ChannelSend<object>>;

  return {
    async send(target, payload) {
      const at = new Date().toISOString();
      const started = performance.now();
      let result: OutboundResult;
      try {
        result = await senders[target.type].send(target, payload);
      } catch (error) {
        // Only a bug gets here (every channel returns its failures); keep it one sentence.
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
      for (const sender of Object.values(senders)) sender.close?.();
    },
  };
}
