/**
 * The webhook channel: `POST` of the payload as JSON, the user's extra headers and the Standard
 * Webhooks signature headers. Configuration `{url, headers?}`; the URL, the header values and the
 * signing secret are sealed, the API shows the URL's host and the header names.
 */
import { Type } from 'typebox';
import { JSON_TYPE, outboundUrl, refused, UrlField, USER_AGENT, type Channel } from '../../channel.ts';
import { postOutbound } from '../../outbound.ts';
import { payloadJson } from '../../payload.ts';
import {
  isHeaderName,
  isOneLine,
  isReservedHeader,
  MAX_HEADER_VALUE,
  MAX_HEADERS,
} from './webhook-headers.ts';
import { newSigningSecret, signingKey, signWebhook } from './webhook-signature.ts';

export interface WebhookTarget {
  url: string;
  headers: Record<string, string>;
  signingSecret: string;
}

/** The configured headers' problems, one sentence each (the API answers 400 with them). */
function headerProblems(headers: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (Object.keys(headers).length > MAX_HEADERS) problems.push(`headers: at most ${MAX_HEADERS}`);
  for (const [name, value] of Object.entries(headers)) {
    if (!isHeaderName(name)) problems.push(`headers: "${name}" is not a valid header name`);
    else if (isReservedHeader(name)) problems.push(`headers: ${name} is set by vulntrack`);
    if (!isOneLine(value) || value.length > MAX_HEADER_VALUE)
      problems.push(`headers: the value of ${name} must be one line of text`);
  }
  return problems;
}

/**
 * The stored headers to send, lower-cased, without reserved names (dropped, not refused: the API
 * refuses them already), or an error sentence for an unusable one.
 */
function sentHeaders(headers: Record<string, string>): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!isHeaderName(name)) return `The header name "${name}" is not a valid HTTP header name.`;
    if (!isOneLine(value)) return `The value of the header ${name} contains a line break or is not text.`;
    if (!isReservedHeader(name)) out[name.toLowerCase()] = value;
  }
  return out;
}

export const webhookChannel: Channel<WebhookTarget> = {
  configuration: Type.Object({
    url: UrlField,
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: MAX_HEADER_VALUE }), {
        description: 'webhook: extra request headers (names are shown, values never).',
      }),
    ),
  }),
  // OpenCVE 3.1's masked shape: whether a URL and headers are set, the URL's host, header names.
  shown: {
    url_configured: Type.Boolean({ description: 'Webhook: whether a URL is set (the URL is secret).' }),
    headers_configured: Type.Boolean({ description: 'Webhook: whether extra headers are set.' }),
    host: Type.String({ description: 'Webhook: the host of the URL, with its port when it names one.' }),
    header_names: Type.Array(Type.String(), { description: 'Webhook: header names (values are secret).' }),
  },
  // Stored: `url_host` and `header_names` (as since the first release).
  show(stored) {
    const host = typeof stored.url_host === 'string' ? stored.url_host : '';
    const names = Array.isArray(stored.header_names) ? (stored.header_names as string[]) : [];
    return {
      url_configured: host !== '',
      headers_configured: names.length > 0,
      ...(host ? { host } : {}),
      header_names: names,
    };
  },
  configure(input, problems, type, allowPrivate) {
    const url = outboundUrl(input, 'url', type, problems, allowPrivate);
    const headers = (input.headers ?? {}) as Record<string, string>;
    problems.push(...headerProblems(headers));
    return {
      configuration: { url_host: url?.host, header_names: Object.keys(headers) },
      secrets: { url: url?.toString(), headers },
    };
  },
  // The signing secret outlives a change of URL: receivers keep verifying with it.
  lastingSecrets: (previous) => ({ signing_secret: previous?.signing_secret ?? newSigningSecret() }),
  target: ({ secrets }) => ({
    url: secrets.url as string,
    headers: (secrets.headers ?? {}) as Record<string, string>,
    signingSecret: secrets.signing_secret as string,
  }),
  sender: ({ outbound }) => ({
    send(target, payload) {
      const key = signingKey(target.signingSecret);
      if (!key) return refused('The signing secret is not a whsec_ secret of at least 16 bytes.');
      const headers = sentHeaders(target.headers);
      if (typeof headers === 'string') return refused(headers);
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
    },
  }),
};
