/**
 * What a test send (the web UI's Try button) shows of its HTTP exchange, with the secrets masked: the
 * request's method, URL, headers and body, and the response's status, headers and body excerpt. A
 * notification's secrets are its URL (a Slack or Teams URL is a credential, and a webhook URL may
 * carry one), its extra header values and its signing secret; none of them is kept in clear.
 *
 * - URL: scheme, host and port stay; the path becomes `/***`, as the notification's page says "URL
 *   path hidden" (a path of words may still name a private channel); every query value becomes `***`
 *   (Teams' `sig=`), its names stay.
 * - Request headers: those vulntrack sets itself stay (user-agent, content-type, content-length,
 *   webhook-id, webhook-timestamp); `webhook-signature` keeps `v1,` and its first 6 characters; any
 *   other (the user's extra headers) is masked whole.
 * - Response headers stay, but for `set-cookie`, `authorization` and `proxy-authenticate` values.
 * - Bodies: the request's (the payload; it holds no secret) up to 64 KiB, the response's as read
 *   (at most 4 KiB: MAX_RESPONSE_BYTES).
 */
import type { DeliveryExchange } from '../domain/notification.ts';
import type { RawExchange } from './outbound.ts';

export const MASK = '***';
const MAX_BODY = 65_536;
const SHOWN_REQUEST_HEADERS = new Set([
  'user-agent',
  'content-type',
  'content-length',
  'webhook-id',
  'webhook-timestamp',
]);
const MASKED_RESPONSE_HEADERS = new Set(['set-cookie', 'authorization', 'proxy-authenticate']);
/** The URL with its path and query values masked (scheme, host, port and query names stay). */
export function maskUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return MASK;
  }
  const path = parsed.pathname === '/' ? '/' : `/${MASK}`;
  const query = [...parsed.searchParams.keys()].map((key) => `${encodeURIComponent(key)}=${MASK}`);
  return `${parsed.protocol}//${parsed.host}${path}${query.length ? `?${query.join('&')}` : ''}`;
}

function maskRequestHeader(name: string, value: string): string {
  const lower = name.toLowerCase();
  if (SHOWN_REQUEST_HEADERS.has(lower)) return value;
  if (lower === 'webhook-signature')
    return value
      .split(' ')
      .map((part) => `${part.slice(0, part.indexOf(',') + 7)}…`)
      .join(' ');
  return MASK;
}

function cut(body: Buffer, max: number): { text: string; truncated: boolean } {
  return { text: body.subarray(0, max).toString('utf8'), truncated: body.length > max };
}

/** The exchange as the page may show it (and as it is stored): no secret in clear. */
export function maskedExchange(raw: RawExchange): DeliveryExchange {
  const request = cut(raw.request.body, MAX_BODY);
  const out: DeliveryExchange = {
    request: {
      method: raw.request.method,
      url: maskUrl(raw.request.url),
      headers: Object.entries(raw.request.headers).map(([k, v]) => [k, maskRequestHeader(k, v)]),
      body: request.truncated ? `${request.text}\n…` : request.text,
    },
  };
  if (raw.response) {
    const headers: [string, string][] = [];
    for (const [name, value] of Object.entries(raw.response.headers)) {
      if (value === undefined) continue;
      const text = Array.isArray(value) ? value.join(', ') : String(value);
      headers.push([name, MASKED_RESPONSE_HEADERS.has(name.toLowerCase()) ? MASK : text]);
    }
    out.response = {
      status: raw.response.status,
      headers,
      body: raw.response.body.toString('utf8'),
      truncated: raw.response.truncated,
    };
  }
  return out;
}
