/**
 * Requests refused before any route reads them, answered in the API's error envelope like every
 * other error: what Node's HTTP parser cannot read (an over-long URL or header, a request that is not
 * HTTP) and query strings that are not UTF-8 text.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_CATALOG, type ErrorCode } from '../domain/errors.ts';

function clientErrorOf(code: string | undefined): { code: ErrorCode; details?: Record<string, string[]> } {
  if (code === 'HPE_HEADER_OVERFLOW') return { code: 'request_header_too_large' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { code: 'request_timeout' };
  return { code: 'validation_error', details: { request: ['the request is not valid HTTP/1.1'] } };
}

/**
 * Fastify's `clientErrorHandler`: Node's parser refused the request (before Fastify saw it), so the
 * answer is written to the socket by hand, then the connection is closed as Node does.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  // A reset connection has no one left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { code, details } = clientErrorOf(err.code);
  const { status, message } = ERROR_CATALOG[code];
  const body = JSON.stringify({ error: { code, message, ...(details ? { details } : {}) } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/** A run of percent-encoded bytes: decoded together, as one UTF-8 character may span several. */
const ENCODED_RUN = /(?:%[0-9a-fA-F]{2})+/g;

function isUtf8Text(encoded: string): boolean {
  for (const [run] of encoded.matchAll(ENCODED_RUN)) {
    try {
      decodeURIComponent(run);
    } catch {
      return false;
    }
  }
  return true;
}

/** A parameter name as the query parser reads it (a malformed escape is kept as typed). */
function safeDecode(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * The query parameters of `url` whose name or value is not UTF-8 once percent-decoded (`%FF`),
 * which the query parser would otherwise turn into U+FFFD and search for.
 */
export function parametersNotUtf8(url: string): string[] {
  const start = url.indexOf('?');
  if (start < 0 || !url.includes('%', start)) return [];
  const names: string[] = [];
  for (const pair of url.slice(start + 1).split('&')) {
    if (isUtf8Text(pair)) continue;
    const [name = ''] = pair.split('=', 1);
    names.push(isUtf8Text(name) ? safeDecode(name) : 'query');
  }
  return names;
}
