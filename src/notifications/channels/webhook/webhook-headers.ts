/**
 * The rules of a webhook's extra request headers, declared once: the configuration refuses a header
 * that breaks them (400), and the sender checks them again before sending a stored one.
 */

/** At most this many extra headers per webhook. */
export const MAX_HEADERS = 20;
/** The longest header value accepted, in characters. */
export const MAX_HEADER_VALUE = 4096;

/** An HTTP header name (an RFC 9110 token) of at most 100 characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

/**
 * Header names a user may not set: the signature and content type are ours, and the framing headers
 * are the HTTP client's.
 */
const RESERVED_HEADER =
  /^(webhook-.*|content-type|content-length|content-encoding|transfer-encoding|host|connection)$/i;

export function isHeaderName(name: string): boolean {
  return HEADER_NAME.test(name);
}

export function isReservedHeader(name: string): boolean {
  return RESERVED_HEADER.test(name);
}

/** One line of text: a line break or NUL in a value would let it forge further headers. */
export function isOneLine(value: unknown): value is string {
  return typeof value === 'string' && !/[\r\n\0]/.test(value);
}
