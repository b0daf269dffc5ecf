/**
 * What Slack and Teams share: an incoming-webhook URL (`{webhook_url}`, sealed; the API shows its
 * host) that receives the channel's rendering of the payload as JSON. Each has its own folder with
 * its renderer and one line making it a channel.
 */
import { Type } from 'typebox';
import { JSON_TYPE, outboundUrl, UrlField, USER_AGENT, type Channel } from '../channel.ts';
import { postOutbound } from '../outbound.ts';
import { payloadValue, type NotificationPayload } from '../payload.ts';

export interface ChatTarget {
  webhookUrl: string;
}

/** A channel that posts `render(payload, VULNTRACK_BASE_URL)` to its webhook URL. */
export function chatWebhookChannel(
  render: (payload: NotificationPayload, baseUrl: string | undefined) => unknown,
): Channel<ChatTarget> {
  return {
    configuration: Type.Object({ webhook_url: UrlField }),
    shown: {
      webhook_host: Type.String({ description: 'Slack and Teams: the host of the URL.' }),
    },
    configure(input, problems, type) {
      const url = outboundUrl(input, 'webhook_url', type, problems);
      return { configuration: { webhook_host: url?.host }, secrets: { webhook_url: url?.toString() } };
    },
    target: ({ secrets }) => ({ webhookUrl: secrets.webhook_url as string }),
    sender: ({ options, outbound }) => ({
      send: (target, payload) =>
        postOutbound(
          target.webhookUrl,
          JSON.stringify(render(payloadValue(payload), options.baseUrl)),
          { 'user-agent': USER_AGENT, 'content-type': JSON_TYPE },
          outbound,
        ),
    }),
  };
}
