/**
 * The one throttle of every door that checks a password: web sign-in (and accepting an invitation
 * with an existing account), API v1's Basic authentication and the password-confirm forms of the
 * account pages. Each wrong password counts against the account and against the client address,
 * whichever door it came through; after 10 in 15 minutes on either, every door refuses that
 * account (or address) for the rest of the window, before any password hash, even the right
 * password.
 *
 * The account is the user once the login text resolves to one (its id: a username and an email of
 * one user are one account). A login that names no user is counted under its own text, lowercased,
 * with the same budget, so an unknown name is refused exactly like a known one and the throttle
 * does not tell which accounts exist. A refusal because the account is locked also counts against
 * the address, so an address cannot probe which other names lead to a locked account.
 *
 * In memory, per process (FailureThrottle): N `serve` processes allow N times the budget.
 */
import { FailureThrottle } from './failure-throttle.ts';

/** Wrong passwords allowed per account, and per address, in a window. */
export const SIGN_IN_FAILURES = 10;
export const SIGN_IN_WINDOW_MS = 15 * 60_000;

/** What is locked: the address (whatever the account) or the account (from any address). */
export interface Lock {
  on: 'address' | 'account';
  /** Whole seconds until it may try again. */
  retryAfter: number;
}

export class SignInGuard {
  private readonly byAddress: FailureThrottle;
  private readonly byAccount: FailureThrottle;

  constructor(max = SIGN_IN_FAILURES, windowMs = SIGN_IN_WINDOW_MS, now: () => number = Date.now) {
    this.byAddress = new FailureThrottle(max, windowMs, 10_000, now);
    this.byAccount = new FailureThrottle(max, windowMs, 10_000, now);
  }

  /** The account a login names: the user's id when there is one, else the login text itself. */
  static accountOf(login: string, userId: string | undefined): string {
    return userId ? `user ${userId}` : `login ${login.trim().toLowerCase()}`;
  }

  /** The account of a known user (a signed-in user confirming their password). */
  static accountOfUser(userId: string): string {
    return `user ${userId}`;
  }

  /** The lock on this address, if any: ask before looking anything up. */
  addressLock(address: string): Lock | undefined {
    const retryAfter = this.byAddress.retryAfter(address);
    return retryAfter === undefined ? undefined : { on: 'address', retryAfter };
  }

  /**
   * The lock on this address or on this account, if any. A locked account counts one failure
   * against the address asking (see above).
   */
  lock(address: string, account: string): Lock | undefined {
    const onAddress = this.addressLock(address);
    if (onAddress) return onAddress;
    const retryAfter = this.byAccount.retryAfter(account);
    if (retryAfter === undefined) return undefined;
    this.byAddress.fail(address);
    return { on: 'account', retryAfter };
  }

  /** A wrong password (or code) for `account` from `address`; no account for a malformed attempt. */
  fail(address: string, account?: string): void {
    this.byAddress.fail(address);
    if (account !== undefined) this.byAccount.fail(account);
  }
}
