/**
 * People in the web UI: signing in (username or email and password, throttled), the server-side
 * sessions that keep them signed in, the organizations they belong to, and the first administrator's
 * one-time link printed when no user exists yet.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AccountRepository } from '../db/account.repository.ts';
import { OneTimeLinkRepository } from '../db/one-time-link.repository.ts';
import { WebSessionRepository } from '../db/web-session.repository.ts';
import { AppError, RetryLaterError, validationError } from '../domain/errors.ts';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '../domain/passwords.ts';
import type { Role } from '../domain/member.ts';
import { ORGANIZATION_NAME } from '../domain/names.ts';
import type { OneTimeLinkPurpose, WebUser } from '../domain/user.ts';
import type { AccountService } from './account.service.ts';
import { type Lock, SignInGuard } from './sign-in-guard.ts';

/** What a disabled user is told when they sign in with the right password (web, second step). */
export const ACCOUNT_DISABLED = 'This account is disabled. Ask a server administrator to enable it.';

/** OIDC_ONLY: what anyone but a server administrator is told after the right password. */
export const PASSWORD_SIGN_IN_OFF = 'Password sign-in is off on this server: use the single sign-on button.';

const FIRST_ADMIN_LINK_HOURS = 24;
/** Expired sessions are deleted at most this often (by whichever process saves one). */
const PURGE_EVERY_MS = 10 * 60_000;

export interface OrganizationMembership {
  organizationId: string;
  name: string;
  role: Role;
}

/** A correct password: the user, and whether a second factor must follow before they are signed in. */
export type SignInResult = WebUser & { secondFactor: boolean };

type UserRow = Awaited<ReturnType<AccountRepository['findUserById']>> & {};

export function webUserOf(row: UserRow): WebUser {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    isAdmin: row.is_admin,
    timeZone: row.time_zone,
    dateFormat: row.date_format,
    theme: row.theme,
  };
}

/** A one-time link's secret (sent to the person) and the hash stored in its place. */
export function newLinkSecret(): { token: string; hash: string } {
  const token = randomBytes(24).toString('base64url');
  return { token, hash: hashLinkSecret(token) };
}

export const hashLinkSecret = (token: string) => createHash('sha256').update(token).digest('hex');

export class WebSessionService {
  private readonly accounts: AccountRepository;
  private readonly sessions: WebSessionRepository;
  private readonly links: OneTimeLinkRepository;
  private lastPurge = 0;

  constructor(
    db: Kysely<DB>,
    private readonly accountService: AccountService,
    /** The throttle shared by every door that checks a password. */
    private readonly guard: SignInGuard = new SignInGuard(),
    /** OIDC_ONLY: a password signs in server administrators only (the break-glass path). */
    private readonly passwordOnlyForAdmins = false,
  ) {
    this.accounts = new AccountRepository(db);
    this.sessions = new WebSessionRepository(db);
    this.links = new OneTimeLinkRepository(db);
  }

  /**
   * The user with this username or email and password (refused when the account is disabled); `secondFactor` when they turned two-factor
   * sign-in on: they are not signed in until SecurityService.verifySecondFactor accepts a code.
   * Wrong credentials are one error whatever was wrong (no way to learn which accounts exist). The
   * throttle is SignInGuard's, shared with API v1 and the password-confirm forms: after 10 wrong
   * passwords in 15 minutes from one address, or against one account (its username and email
   * together), sign-in is refused for the rest of the window before any password hash.
   */
  async signIn(login: string, password: string, address: string): Promise<SignInResult> {
    const refuse = (lock: Lock) => {
      const minutes = Math.ceil(lock.retryAfter / 60);
      return new RetryLaterError(
        lock.retryAfter,
        `Too many failed sign-ins. Try again in ${minutes} minute${minutes > 1 ? 's' : ''}.`,
      );
    };
    const addressLock = this.guard.addressLock(address);
    if (addressLock) throw refuse(addressLock);
    const trimmed = login.trim();
    const user = trimmed ? await this.accounts.findUserByLogin(trimmed) : undefined;
    const account = SignInGuard.accountOf(trimmed, user?.id);
    const lock = this.guard.lock(address, account);
    if (lock) throw refuse(lock);
    const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_PASSWORD_HASH);
    if (!user || !ok) {
      this.guard.fail(address, account);
      throw validationError({ login: ['Wrong username, email or password.'] });
    }
    // Said only to whoever knows the password: nothing about the account is told to anyone else.
    if (user.disabled_at) throw validationError({ login: [ACCOUNT_DISABLED] });
    if (this.passwordOnlyForAdmins && !user.is_admin)
      throw validationError({ login: [PASSWORD_SIGN_IN_OFF] });
    return { ...webUserOf(user), secondFactor: user.totp_enabled_at !== null };
  }

  /** The signed-in user of a session; undefined when the account is gone or disabled (the session ends). */
  async user(userId: string): Promise<WebUser | undefined> {
    const row = await this.accounts.findUserById(userId);
    return row && !row.disabled_at ? webUserOf(row) : undefined;
  }

  /** The organizations the user has joined, by name. */
  organizationsOf(userId: string): Promise<OrganizationMembership[]> {
    return this.accounts.organizationsOfUser(userId);
  }

  /** The user's membership of the organization named `name`; not found when they have not joined it. */
  async membership(userId: string, name: string): Promise<OrganizationMembership> {
    const found = (await this.organizationsOf(userId)).find((m) => m.name === name);
    if (!found) throw new AppError('not_found');
    return found;
  }

  // The store behind the session cookie.

  loadSession(id: string): Promise<Record<string, unknown> | undefined> {
    return this.sessions.find(id);
  }

  async saveSession(id: string, data: Record<string, unknown>, expiresAt: Date): Promise<void> {
    const userId = typeof data.userId === 'string' ? data.userId : null;
    await this.sessions.save(id, userId, data, expiresAt);
    if (Date.now() - this.lastPurge > PURGE_EVERY_MS) {
      this.lastPurge = Date.now();
      await this.sessions.deleteExpired();
    }
  }

  destroySession(id: string): Promise<void> {
    return this.sessions.delete(id);
  }

  /** Signs the user out everywhere but the session `keep` (after a password change, say). */
  endOtherSessions(userId: string, keep?: string): Promise<void> {
    return this.sessions.deleteOfUser(userId, keep);
  }

  // The first administrator.

  /**
   * When no user exists: a new one-time secret for the page that creates the first administrator
   * (valid 24 hours; earlier unused links stop working). Undefined once a user exists.
   */
  async firstAdminLink(): Promise<string | undefined> {
    if (await this.accounts.anyUser()) return undefined;
    await this.links.revoke('first_admin');
    const { token, hash } = newLinkSecret();
    await this.links.create({
      purpose: 'first_admin',
      tokenHash: hash,
      expiresAt: new Date(Date.now() + FIRST_ADMIN_LINK_HOURS * 3_600_000),
    });
    return token;
  }

  /** True when `token` is a usable link of that purpose (the page shows its form, or says it is spent). */
  async linkIsUsable(purpose: OneTimeLinkPurpose, token: string): Promise<boolean> {
    return (await this.links.findUsable(purpose, hashLinkSecret(token))) !== undefined;
  }

  /**
   * Creates the first administrator and their organization through the one-time link, which then
   * stops working.
   */
  async createFirstAdmin(
    token: string,
    input: { username: string; email: string; password: string; organization: string },
  ): Promise<WebUser> {
    const link = await this.links.findUsable('first_admin', hashLinkSecret(token));
    if (!link || (await this.accounts.anyUser())) throw new AppError('not_found');
    const details: Record<string, string[]> = {};
    if (!ORGANIZATION_NAME.test(input.organization))
      details.organization = ['Letters, digits and - only (1 to 100 characters).'];
    try {
      await this.accountService.validateNewUser(input);
    } catch (err) {
      if (!(err instanceof AppError) || !err.details) throw err;
      Object.assign(details, err.details);
    }
    if (Object.keys(details).length) throw validationError(details);
    // Spent before anything is created, in one conditional UPDATE: of requests racing on one link,
    // exactly one goes on (a second would otherwise make a hidden administrator of its own).
    if (!(await this.links.use(link.id))) throw new AppError('not_found');
    try {
      const created = await this.accountService.createUser({ ...input, isAdmin: true });
      await this.accountService.createOrganization(input.organization, created.username);
      return (await this.user(created.id))!;
    } catch (err) {
      // Nothing was made (a name taken since the check): the link works again for a corrected form.
      if (!(await this.accounts.anyUser())) await this.links.release(link.id);
      throw err;
    }
  }
}
