/**
 * Outbound HTTP for notification channels, with the SSRF guard (docs/notifications.md): the host of a URL is
 * resolved once, every address it resolves to must be public unicast (unless the operator allows
 * private ones), and the connection goes to an address that was checked, so a DNS answer that
 * changes between check and connect (rebinding) cannot redirect it.
 *
 * Why node:http(s) and not fetch: Node 20's bundled fetch can only be pinned to an address through a
 * `dispatcher` built from the separate undici package, and undici 7's Agent and Node 20's bundled
 * undici 6 are not guaranteed to agree on the dispatcher interface. `http.request` takes a `lookup`
 * option directly (passed to `net.connect`), needs no dependency, never follows redirects and never
 * reads proxy variables. TLS still verifies the certificate against the URL's host name (the
 * `servername` comes from the host, not from the address we connect to).
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { clip } from './message-summary.ts';
import { addressAllowed, nameAllowed, type PrivateDestinations } from '../domain/outbound-allow.ts';

export type { PrivateDestinations };

/** What one outbound attempt came to (the channel sender adds timing). */
export interface OutboundResult {
  ok: boolean;
  status_code: number | null;
  error: string | null;
  retryable: boolean;
  /**
   * What was sent and what came back, raw (secrets included, bodies by reference): only a test send
   * keeps it, masked (exchange.ts).
   */
  exchange?: RawExchange;
}

export interface RawExchange {
  request: { method: string; url: string; headers: Record<string, string>; body: Buffer };
  /** Absent when no response came. */
  response?: { status: number; headers: http.IncomingHttpHeaders; body: Buffer; truncated: boolean };
}

/** How a refusal names the settings that would allow the destination. */
const ALLOW_HINT =
  'an operator can allow internal receivers with OUTBOUND_ALLOW_HOSTS (host names and CIDR networks) or all private addresses with OUTBOUND_ALLOW_PRIVATE';

export interface OutboundOptions {
  /** The non-public destinations allowed (OUTBOUND_ALLOW_PRIVATE, OUTBOUND_ALLOW_HOSTS). */
  allowPrivate: PrivateDestinations;
  /** Time limit of the whole attempt: DNS, connect, request, response headers and body. */
  timeoutMs: number;
  /**
   * Keep-alive agents: a connection to a host is reused by the next attempt to the same host and
   * port while it is open. Still SSRF-safe: every attempt vets the host's addresses first, and a new
   * connection is only ever made to an address vetted by its own attempt. Without them, each
   * attempt has a connection of its own, closed after the answer.
   */
  agents?: OutboundAgents;
}

export interface OutboundAgents {
  http: http.Agent;
  https: https.Agent;
}

/** Keep-alive agents for `postOutbound`; `destroy()` closes their connections. */
export function outboundAgents(): OutboundAgents & { destroy(): void } {
  // Idle connections close after 4 s: before the 5 s after which Node servers close them, so a
  // request rarely meets a connection the receiver is closing. Up to 64 per host, as many kept idle
  // (a worker's concurrent deliveries to one receiver each keep theirs).
  const options = { keepAlive: true, maxSockets: 64, maxFreeSockets: 64, timeout: 4000 };
  const agents = { http: new http.Agent(options), https: new https.Agent(options) };
  return {
    ...agents,
    destroy() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** At most this much of a response body is read (it only ever feeds an error message). */
export const MAX_RESPONSE_BYTES = 4096;
const MAX_URL_LENGTH = 2048;

export interface AddressClass {
  /** The address in canonical form (an IPv4-mapped IPv6 address as the IPv4 it carries). */
  address: string;
  /** ipaddr.js range name: `unicast` for public addresses, else `loopback`, `private`, `linkLocal`… */
  range: string;
  public: boolean;
}

const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10)',
  private: 'a private address (RFC 1918)',
  uniqueLocal: 'a unique-local address (fc00::/7)',
  reserved: 'a reserved address',
  ipv4Compatible: 'an IPv4-compatible IPv6 address (::/96, deprecated by RFC 4291)',
};

/** NAT64 well-known prefix 64:ff9b::/96 (RFC 6052): the last 32 bits are an IPv4 address. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
/** IPv4-translated ::ffff:0:a.b.c.d (RFC 6145). */
const IPV4_TRANSLATED = ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96');
/** IPv4-compatible ::a.b.c.d (RFC 4291 deprecated it; ipaddr.js calls it unicast). `::` and `::1` are in it too. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/**
 * Classifies an IP address (no DNS). Only `unicast` (ipaddr.js' name for "none of the special
 * ranges") is public; IPv6 forms that carry an IPv4 address are judged by that address. Throws on a
 * string that is not an IP address.
 */
export function classifyAddress(text: string): AddressClass {
  const parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return classifyAddress(v6.toIPv4Address().toString());
    if (v6.match(NAT64_WELL_KNOWN) || v6.match(IPV4_TRANSLATED)) {
      const bytes = v6.toByteArray().slice(12);
      return classifyAddress(ipaddr.fromByteArray(bytes).toString());
    }
    // Never a real destination: refused, in the words of the IPv4 address it carries when that is special.
    if (v6.match(IPV4_COMPATIBLE) && v6.range() === 'unicast') {
      const inner = classifyAddress(ipaddr.fromByteArray(v6.toByteArray().slice(12)).toString());
      return { ...inner, range: inner.public ? 'ipv4Compatible' : inner.range, public: false };
    }
  }
  const range = parsed.range();
  return { address: parsed.toString(), range, public: range === 'unicast' };
}

function describeRange(range: string): string {
  return RANGE_WORDS[range] ?? `a special-purpose address (${range})`;
}

/**
 * Static check of a notification URL, for create/update time: an error sentence, or undefined when
 * the URL is acceptable. A host that is literally not public (an IP address in a loopback, private,
 * link-local or other special range, or `localhost`) is refused here already, unless `allowPrivate`
 * allows it (OUTBOUND_ALLOW_PRIVATE, OUTBOUND_ALLOW_HOSTS); whether a DNS name is public is decided at send time (DNS can change).
 */
export function validateOutboundUrl(
  url: string,
  allowPrivate: PrivateDestinations = false,
): string | undefined {
  if (url.length > MAX_URL_LENGTH) return `The URL is longer than ${MAX_URL_LENGTH} characters.`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'The URL is not a valid absolute URL.';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `The URL must use http or https (got ${parsed.protocol.replace(/:$/, '')}).`;
  }
  if (parsed.username || parsed.password) {
    return 'The URL must not contain credentials (user:password@); send them in a header instead.';
  }
  if (!parsed.hostname) return 'The URL has no host.';
  if (allowPrivate !== true) {
    const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
    const range = isLocalhostName(host)
      ? nameAllowed(host, allowPrivate)
        ? undefined
        : 'loopback'
      : ipaddr.isValid(host) && !classifyAddress(host).public && !addressAllowed(host, allowPrivate)
        ? classifyAddress(host).range
        : undefined;
    // OpenCVE 3.1's sentence, then why.
    if (range)
      return `This URL is not allowed: ${host} is ${describeRange(range)}; notifications may only be sent to public addresses (${ALLOW_HINT}).`;
  }
  return undefined;
}

interface VettedAddress {
  address: string;
  family: 4 | 6;
}

type Resolution = { addresses: VettedAddress[] } | { refused: string } | { failed: string };

function isLocalhostName(host: string): boolean {
  // RFC 6761: localhost and every name under it are loopback, whatever a resolver says.
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** Resolves the host of a URL to every address, and refuses the lot if any of them is not public. */
async function resolveHost(hostname: string, allowPrivate: PrivateDestinations): Promise<Resolution> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  const refuse = (address: string, range: string): Resolution => ({
    refused: `Refused: ${hostname} ${address === host ? 'is' : `resolves to ${address}, which is`} ${describeRange(range)}; notifications may only be sent to public addresses (${ALLOW_HINT}).`,
  });
  if (ipaddr.isValid(host)) {
    const found = classifyAddress(host);
    if (!found.public && !addressAllowed(host, allowPrivate)) return refuse(host, found.range);
    return { addresses: [{ address: host, family: host.includes(':') ? 6 : 4 }] };
  }
  // A host name the operator allows may resolve to any address: their internal DNS vouches for it.
  const nameIsAllowed = nameAllowed(host, allowPrivate);
  if (!nameIsAllowed && isLocalhostName(host)) return refuse(host, 'loopback');
  let answers: dns.LookupAddress[];
  try {
    answers = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA')
      return { failed: `The host ${host} was not found in DNS.` };
    return { failed: `Resolving ${host} failed (${code ?? 'unknown error'}).` };
  }
  if (answers.length === 0) return { failed: `The host ${host} has no addresses.` };
  if (!nameIsAllowed) {
    for (const answer of answers) {
      const found = classifyAddress(answer.address);
      if (!found.public && !addressAllowed(answer.address, allowPrivate))
        return refuse(answer.address, found.range);
    }
  }
  return { addresses: answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 })) };
}

/** A `lookup` for net.connect that answers with the vetted addresses only, never asking DNS again. */
function pinnedLookup(addresses: VettedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = addresses.filter((a) => !options.family || options.family === a.family);
    const list = wanted.length ? wanted : addresses;
    if (options.all) {
      callback(null, list);
    } else {
      const first = list[0]!;
      callback(null, first.address, first.family);
    }
  };
}

function statusResult(status: number, body: string): OutboundResult {
  if (status >= 200 && status < 300) return { ok: true, status_code: status, error: null, retryable: false };
  const reason = http.STATUS_CODES[status] ?? 'Unknown';
  const excerpt = clip(body, 200);
  const said = excerpt ? `: ${excerpt.replace(/[.]+$/, '')}` : '';
  if (status >= 300 && status < 400) {
    return {
      ok: false,
      status_code: status,
      error: `The receiver answered HTTP ${status} ${reason} (a redirect); redirects are not followed, so update the URL.`,
      retryable: false,
    };
  }
  // 408 Request Timeout, 425 Too Early and 429 Too Many Requests are worth trying again; other 4xx
  // mean the request itself is wrong (or the receiver is gone) and will be answered the same way.
  const retryable = status >= 500 || status === 408 || status === 425 || status === 429;
  return {
    ok: false,
    status_code: status,
    error: `The receiver answered HTTP ${status} ${reason}${said}.`,
    retryable,
  };
}

const NETWORK_ERRORS: Record<string, (where: string) => string> = {
  ECONNREFUSED: (where) => `The connection to ${where} was refused.`,
  ECONNRESET: (where) => `The connection to ${where} was closed before a response arrived.`,
  EPIPE: (where) => `The connection to ${where} was closed before a response arrived.`,
  EHOSTUNREACH: (where) => `${where} is unreachable from this server.`,
  ENETUNREACH: (where) => `${where} is unreachable from this server.`,
  HPE_INVALID_CONSTANT: (where) => `${where} did not answer with valid HTTP.`,
  HPE_INVALID_STATUS: (where) => `${where} did not answer with valid HTTP.`,
};

function networkError(error: unknown, url: URL): string {
  const err = error as NodeJS.ErrnoException;
  const known = err.code ? NETWORK_ERRORS[err.code] : undefined;
  if (known) return known(url.host);
  if (err.code && /CERT|TLS|SSL/.test(err.code)) {
    return `The TLS certificate of ${url.host} was rejected (${clip(err.message, 120)}).`;
  }
  return `The request to ${url.host} failed (${clip(err.message || String(error), 160)}).`;
}

/**
 * POSTs `body` to `url` once: SSRF guard, a time limit for the whole attempt, no redirects, at most
 * MAX_RESPONSE_BYTES of the response read. Never throws.
 */
export async function postOutbound(
  url: string,
  body: string | Buffer,
  headers: Record<string, string>,
  options: OutboundOptions,
): Promise<OutboundResult> {
  // The form only: whether the host is public is resolveHost's to say below (names and literals alike).
  const invalid = validateOutboundUrl(url, true);
  if (invalid) return { ok: false, status_code: null, error: invalid, retryable: false };
  const target = new URL(url);
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const sentHeaders = { ...headers, 'content-length': String(payload.length) };
  const sent: RawExchange = { request: { method: 'POST', url, headers: sentHeaders, body: payload } };
  const withExchange = (result: OutboundResult): OutboundResult => ({ ...result, exchange: sent });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const timedOut = (): OutboundResult => ({
    ok: false,
    status_code: null,
    error: `No response from ${target.host} within ${options.timeoutMs} ms.`,
    retryable: true,
  });
  try {
    const aborted = new Promise<'aborted'>((resolve) =>
      controller.signal.addEventListener('abort', () => resolve('aborted'), { once: true }),
    );
    const resolution = await Promise.race([resolveHost(target.hostname, options.allowPrivate), aborted]);
    if (resolution === 'aborted') return withExchange(timedOut());
    if ('refused' in resolution) {
      return withExchange({ ok: false, status_code: null, error: resolution.refused, retryable: false });
    }
    if ('failed' in resolution)
      return withExchange({ ok: false, status_code: null, error: resolution.failed, retryable: true });

    const request = (target.protocol === 'https:' ? https : http).request(target, {
      method: 'POST',
      headers: sentHeaders,
      lookup: pinnedLookup(resolution.addresses),
      agent: options.agents ? options.agents[target.protocol === 'https:' ? 'https' : 'http'] : false,
      signal: controller.signal,
    });
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      request.once('response', resolve);
      request.once('error', reject);
      request.end(payload);
    });
    let received = Buffer.alloc(0);
    let whole = false;
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        received = Buffer.concat([received, chunk]);
        if (received.length >= MAX_RESPONSE_BYTES) break;
      }
      whole = received.length < MAX_RESPONSE_BYTES;
    } catch {
      // The status already arrived; a body cut short by the time limit or the peer changes nothing.
    } finally {
      // A response read to its end leaves its connection to the agent (kept alive); any other closes it.
      if (!whole) response.destroy();
    }
    const excerpt = received.subarray(0, MAX_RESPONSE_BYTES);
    sent.response = {
      status: response.statusCode ?? 0,
      headers: response.headers,
      body: excerpt,
      truncated: !whole,
    };
    return withExchange(statusResult(response.statusCode ?? 0, excerpt.toString('utf8')));
  } catch (error) {
    if (controller.signal.aborted) return withExchange(timedOut());
    return withExchange({
      ok: false,
      status_code: null,
      error: networkError(error, target),
      retryable: true,
    });
  } finally {
    clearTimeout(timer);
  }
}
