/**
 * Two-factor sign-in rules: TOTP (RFC 6238: SHA-1, 6 digits, 30-second steps, what every authenticator
 * app reads) through the `otpauth` library, and recovery codes. Pure: the caller stores the secret
 * (sealed) and the last step accepted.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

export const TOTP_ISSUER = 'vulntrack';
export const TOTP_PERIOD_SECONDS = 30;
/** Codes of the step before and after now are accepted too (a phone's clock a little off). */
const TOTP_WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;

const totpOf = (secret: string, label = '') =>
  new TOTP({
    issuer: TOTP_ISSUER,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });

/** A new TOTP secret (160 random bits), base32 as authenticator apps take it when typed. */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

/** The `otpauth://totp/...` URI an authenticator app imports (what a QR code would hold). */
export const totpUri = (secret: string, username: string): string => totpOf(secret, username).toString();

/** The secret in groups of four, easier to type. */
export const groupedSecret = (secret: string): string => secret.replace(/(.{4})(?=.)/g, '$1 ');

/** True for what looks like a TOTP code (six digits, spaces allowed) rather than a recovery code. */
export const looksLikeTotpCode = (input: string): boolean => /^\d{6}$/.test(input.replace(/\s+/g, ''));

/**
 * The time step `code` is valid for (now, or one step either side), or undefined when it is not a
 * valid code of this secret. The caller refuses a step it has already accepted (no replay).
 */
export function totpStepOf(secret: string, code: string, now = Date.now()): number | undefined {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = totpOf(secret).validate({ token, timestamp: now, window: TOTP_WINDOW });
  if (delta === null) return undefined;
  return Math.floor(now / 1000 / TOTP_PERIOD_SECONDS) + delta;
}

/** New recovery codes: 80 random bits each, written `abcd-efgh-ijkl-mnop` (base32, lower case). */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () =>
    // A copy: a Buffer may be a view on a larger shared ArrayBuffer.
    new Secret({ buffer: new Uint8Array(randomBytes(10)).buffer }).base32
      .toLowerCase()
      .replace(/(.{4})(?=.)/g, '$1-'),
  );
}

/** A recovery code as typed (any case, with or without dashes and spaces) to its stored hash. */
export function hashRecoveryCode(input: string): string {
  const normalized = input.replace(/[\s-]+/g, '').toLowerCase();
  return createHash('sha256').update(`recovery:${normalized}`).digest('hex');
}
