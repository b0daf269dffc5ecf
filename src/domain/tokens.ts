/**
 * Organization API tokens: `vtr_org.<token_id>.<secret>`, 12 and 32 characters of [A-Za-z0-9]. Only a
 * keyed hash of the secret is stored (HMAC-SHA-256 with the server secret: the secret is random, so a
 * slow password hash would add nothing but hundreds of milliseconds per request), compared in
 * constant time.
 */
import { createHash, createHmac, randomInt, timingSafeEqual } from 'node:crypto';

export const TOKEN_PREFIX = 'vtr_org';
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const TOKEN_PATTERN = /^vtr_org\.([A-Za-z0-9]{12})\.([A-Za-z0-9]{32})$/;

export type TokenMode = 'read' | 'write';

function randomString(length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

export interface NewToken {
  tokenId: string;
  secret: string;
  /** The whole token, shown once. */
  token: string;
}

export function generateToken(): NewToken {
  const tokenId = randomString(12);
  const secret = randomString(32);
  return { tokenId, secret, token: `${TOKEN_PREFIX}.${tokenId}.${secret}` };
}

/** The parts of a well-formed token; undefined for anything else. */
export function parseToken(value: string): { tokenId: string; secret: string } | undefined {
  const m = TOKEN_PATTERN.exec(value);
  return m ? { tokenId: m[1]!, secret: m[2]! } : undefined;
}

export function hashTokenSecret(secret: string, serverSecret: string): string {
  return createHmac('sha256', serverSecret).update(secret).digest('hex');
}

/** Constant-time check of a presented secret against the stored hash. */
export function verifyTokenSecret(secret: string, storedHash: string, serverSecret: string): boolean {
  const presented = Buffer.from(hashTokenSecret(secret, serverSecret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** The credential of an `Authorization: Bearer <credential>` header; undefined for anything else. */
export function bearerCredential(header: string | undefined): string | undefined {
  return header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

/** Whether two secrets are equal, in time that tells nothing of where they differ (or their lengths). */
export function sameSecret(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
