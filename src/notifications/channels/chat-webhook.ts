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

/**
 * A channel that posts `render(payload, VULNTRACK_BASE_URL)` to its webhook URL. The API shows the
 * URL masked, as OpenCVE 3.1 shows Slack's: its scheme and host, then `maskedPath` in place of the
 * secret path (Slack: `https://hooks.slack.com/services/` and two masked parts).
 */
export function chatWebhookChannel(
  render: (payload: NotificationPayload, baseUrl: string | undefined) => unknown,
  maskedPath: string,
): Channel<ChatTarget> {
  return {
    configuration: Type.Object({ webhook_url: UrlField }),
    shown: {
      webhook_url: Type.String({
        description: 'Slack and Teams: the URL masked (scheme and host only; the path is secret).',
      }),
    },
    // Stored: `webhook_host` and (since OpenCVE's masked shape) `webhook_scheme`; https before that.
    show(stored) {
      const host = typeof stored.webhook_host === 'string' ? stored.webhook_host : '';
      if (!host) return {};
      const scheme = stored.webhook_scheme === 'http' ? 'http' : 'https';
      return { webhook_url: `${scheme}://${host}${maskedPath}` };
    },
    configure(input, problems, type, allowPrivate) {
      const url = outboundUrl(input, 'webhook_url', type, problems, allowPrivate);
      return {
        configuration: { webhook_host: url?.host, webhook_scheme: url?.protocol.replace(/:$/, '') },
        secrets: { webhook_url: url?.toString() },
      };
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
