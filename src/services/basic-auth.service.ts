/**
 * HTTP Basic authentication of API v1 (a user's username or email and password), fast on repeated
 * calls: a credential verified recently is trusted without hashing the password again.
 *
 * - The cache is keyed by an HMAC (server secret) of the exact credential sent, so it holds no
 *   password and another password for the same user never matches an entry.
 * - An entry remembers the password hash it was verified against; a hit reads the user (one indexed
 *   read) and is honoured only while that hash is unchanged, so a password change invalidates it at
 *   once, in every process.
 * - Entries expire after API_V1_AUTH_CACHE_SECONDS (0: no cache); failures are never cached.
 * - An unknown user costs a verification against DUMMY_PASSWORD_HASH, so the time of an answer does
 *   not tell whether the user exists.
 * - Concurrent requests with one uncached credential share one verification.
 * - A disabled account is refused (401 `User inactive or deleted.`, Django REST framework's words, as
 *   OpenCVE answers for an inactive user) once its password is right, cached or not.
 * - A client address with too many failures in a minute (API_V1_AUTH_FAILURES_PER_MINUTE) is
 *   answered 429 with `Retry-After` before any lookup or hash (FailureThrottle).
 * - Every wrong password also counts in SignInGuard, the throttle shared with web sign-in and the
 *   password-confirm forms (10 in 15 minutes per account, its username and email together, and per
 *   address): an account or address locked there is answered 429 here, cached credential or not.
 * - A user with two-factor sign-in on is refused (401, TWO_FACTOR_REFUSED) even with the right
 *   password, unless the server allows it (API_V1_BASIC_TWO_FACTOR_USERS=allow): their password
 *   alone would otherwise read their organizations' projects. Checked on every call, cached or not.
 */
import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AccountRepository } from '../db/account.repository.ts';
import { AppError, RetryLaterError } from '../domain/errors.ts';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '../domain/passwords.ts';
import { FailureThrottle } from './failure-throttle.ts';
import { type Lock, SignInGuard } from './sign-in-guard.ts';

export type PasswordVerifier = (password: string, storedHash: string) => Promise<boolean>;

export interface BasicUser {
  userId: string;
  username: string;
}

interface Entry {
  user: BasicUser;
  passwordHash: string;
  expiresAt: number;
}

export const CREDENTIALS_NOT_PROVIDED = 'Authentication credentials were not provided.';
export const INVALID_CREDENTIALS = 'Invalid username/password.';
export const TWO_FACTOR_REFUSED =
  'Two-factor sign-in is on for this account, so API v1 does not accept its password alone. Use an API v2 token, or ask the server operator to allow it (API_V1_BASIC_TWO_FACTOR_USERS=allow).';

/** OIDC_ONLY: a password works for server administrators only. */
export const SSO_ONLY_REFUSED =
  'This server signs people in with single sign-on only: API v1 does not accept your password. Use an API v2 token.';

export interface BasicAuthOptions {
  /** OIDC_ONLY: only server administrators' passwords are accepted (default: everyone's). */
  adminsOnly?: boolean;
  /** The throttle shared by every door that checks a password (default: one of its own). */
  guard?: SignInGuard;
  /** Whether users with two-factor sign-in on may use Basic authentication (default: refuse). */
  twoFactorUsers?: 'refuse' | 'allow';
}

type UserRow = {
  id: string;
  username: string;
  password_hash: string;
  totp_enabled_at: Date | null;
  disabled_at: Date | null;
  is_admin: boolean;
};
export const INACTIVE_USER = 'User inactive or deleted.';

/** At most this many cached credentials per process (the oldest go first). */
const CAPACITY = 10_000;

export class BasicAuthService {
  private readonly accounts: AccountRepository;
  private readonly cache = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<BasicUser>>();
  private readonly failures: FailureThrottle;
  private readonly guard: SignInGuard;
  private readonly twoFactorUsers: 'refuse' | 'allow';
  /** Full password verifications done (each one a scrypt hash): the cost the cache saves. */
  verifications = 0;

  constructor(
    db: Kysely<DB>,
    private readonly secret: string,
    private readonly ttlMs: number,
    private readonly verify: PasswordVerifier = verifyPassword,
    failuresPerMinute = 0,
    options: BasicAuthOptions = {},
  ) {
    this.accounts = new AccountRepository(db);
    this.failures = new FailureThrottle(failuresPerMinute);
    this.guard = options.guard ?? new SignInGuard();
    this.twoFactorUsers = options.twoFactorUsers ?? 'refuse';
    this.adminsOnly = options.adminsOnly ?? false;
  }

  private readonly adminsOnly: boolean;

  /**
   * The user of an `Authorization: Basic …` header sent from `client` (its address). Throws
   * `invalid_token` (401) with the message API v1 shows: no header, or a malformed, unknown or wrong
   * credential, or a user with two-factor on (TWO_FACTOR_REFUSED); RetryLaterError (429) when
   * `client` failed too often lately, or the account is locked by SignInGuard.
   */
  async authenticate(header: string | undefined, client = ''): Promise<BasicUser> {
    if (!header) throw new AppError('invalid_token', CREDENTIALS_NOT_PROVIDED);
    const wait = this.failures.retryAfter(client);
    if (wait !== undefined) throw locked({ on: 'address', retryAfter: wait });
    const addressLock = this.guard.addressLock(client);
    if (addressLock) throw locked(addressLock);

    const credential = parseBasic(header);
    if (!credential) {
      this.failures.fail(client);
      this.guard.fail(client);
      throw new AppError('invalid_token', INVALID_CREDENTIALS);
    }
    const user: UserRow | undefined = await this.accounts.findUserByLogin(credential.login);
    const account = SignInGuard.accountOf(credential.login, user?.id);
    const lock = this.guard.lock(client, account);
    if (lock) throw locked(lock);

    let result: BasicUser;
    try {
      result = await this.check(credential, user);
    } catch (err) {
      if (err instanceof AppError && err.code === 'invalid_token') {
        this.failures.fail(client);
        this.guard.fail(client, account);
      }
      throw err;
    }
    // The password was right: saying why it is refused tells nothing its sender does not know.
    if (user?.disabled_at) throw new AppError('invalid_token', INACTIVE_USER);
    if (this.adminsOnly && !user?.is_admin) throw new AppError('invalid_token', SSO_ONLY_REFUSED);
    if (user?.totp_enabled_at && this.twoFactorUsers !== 'allow')
      throw new AppError('invalid_token', TWO_FACTOR_REFUSED);
    return result;
  }

  private async check(
    credential: { raw: string; password: string },
    user: UserRow | undefined,
  ): Promise<BasicUser> {
    const key = createHmac('sha256', this.secret).update(credential.raw).digest('base64url');
    const entry = this.cache.get(key);
    if (entry) {
      if (
        entry.expiresAt > Date.now() &&
        user?.id === entry.user.userId &&
        user.password_hash === entry.passwordHash
      ) {
        return entry.user;
      }
      this.cache.delete(key);
    }

    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.verifyFully(key, credential.password, user).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return pending;
  }

  private async verifyFully(key: string, password: string, user: UserRow | undefined): Promise<BasicUser> {
    this.verifications++;
    // Unknown users cost a hash too: the answer's timing must not reveal who exists.
    const ok = await this.verify(password, user?.password_hash ?? DUMMY_PASSWORD_HASH);
    if (!ok || !user) throw new AppError('invalid_token', INVALID_CREDENTIALS);
    const result = { userId: user.id, username: user.username };
    if (this.ttlMs > 0) {
      this.cache.set(key, {
        user: result,
        passwordHash: user.password_hash,
        expiresAt: Date.now() + this.ttlMs,
      });
      if (this.cache.size > CAPACITY) this.cache.delete(this.cache.keys().next().value!);
    }
    return result;
  }
}

function locked(lock: Lock): RetryLaterError {
  const s = lock.retryAfter === 1 ? '' : 's';
  return new RetryLaterError(
    lock.retryAfter,
    lock.on === 'address'
      ? `Too many failed sign-ins from this address. Expected available in ${lock.retryAfter} second${s}.`
      : `Too many failed sign-ins to this account (on the web or API v1). Expected available in ${lock.retryAfter} second${s}.`,
  );
}

/** `Basic base64(login:password)` → its parts; undefined when malformed. */
function parseBasic(header: string): { raw: string; login: string; password: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return undefined;
  const raw = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = raw.indexOf(':');
  if (colon <= 0 || raw.includes('\u0000') || raw.length > 1024) return undefined;
  return { raw, login: raw.slice(0, colon), password: raw.slice(colon + 1) };
}
