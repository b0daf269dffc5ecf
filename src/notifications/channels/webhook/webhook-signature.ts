/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): `webhook-signature` is
 * `v1,<base64 HMAC-SHA256 of "${id}.${timestamp}.${body}">` keyed with the base64-decoded part of a
 * `whsec_` secret.
 *
 * Signed with node:crypto rather than the `standardwebhooks` package: it is a few lines, needs no
 * runtime dependency (the package brings pure-JS SHA-256 and base64 libraries), and the tests verify
 * our signatures with that package, an implementation independent of this one, which they could not
 * do if both sides were the same code.
 */
import crypto from 'node:crypto';

export const SIGNING_SECRET_PREFIX = 'whsec_';

/** A new per-notification secret: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return SIGNING_SECRET_PREFIX + crypto.randomBytes(32).toString('base64');
}

/** The key bytes of a `whsec_` secret, or undefined when it is not one. */
export function signingKey(secret: string): Buffer | undefined {
  if (!secret.startsWith(SIGNING_SECRET_PREFIX)) return undefined;
  const encoded = secret.slice(SIGNING_SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= 16 ? key : undefined;
}

export interface WebhookSignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The three Standard Webhooks headers for one message; `at` defaults to now. */
export function signWebhook(
  key: Buffer,
  id: string,
  body: string | Buffer,
  at: Date = new Date(),
): WebhookSignatureHeaders {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signature = crypto
    .createHmac('sha256', key)
    .update(`${id}.${timestamp}.`, 'utf8')
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
