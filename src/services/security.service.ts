/**
 * A person's account security: changing the password, two-factor sign-in (TOTP with recovery codes),
 * the second step of a sign-in with two-factor on, and password reset by an emailed one-time link (or
 * a link or a new password from the server's operator, on the CLI).
 *
 * The TOTP secret is stored sealed with the server secret (SecretBox), recovery codes and reset links
 * as hashes only. Every check that takes a guess (a password, a code) is throttled: the password
 * and codes of the confirm forms count in SignInGuard, the one throttle of every door that checks a
 * password (a locked account is refused here too), the second step of sign-in has its own budget.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AccountRepository } from '../db/account.repository.ts';
import { OneTimeLinkRepository } from '../db/one-time-link.repository.ts';
import { TwoFactorRepository } from '../db/two-factor.repository.ts';
import { WebSessionRepository } from '../db/web-session.repository.ts';
import { AppError, RetryLaterError, validationError } from '../domain/errors.ts';
import { hashPassword, verifyPassword } from '../domain/passwords.ts';
import type { SecretBox } from '../domain/secret-box.ts';
import {
  groupedSecret,
  hashRecoveryCode,
  looksLikeTotpCode,
  newRecoveryCodes,
  newTotpSecret,
  totpStepOf,
  totpUri,
} from '../domain/two-factor.ts';
import type { WebUser } from '../domain/user.ts';
import type { EmailSender } from '../notifications/channels/email/email-sender.ts';
import { escapeHtml } from '../notifications/channels/email/email-message.ts';
import type { AccountService } from './account.service.ts';
import { AccountMailLimit } from './account-mail-limit.ts';
import { FailureThrottle } from './failure-throttle.ts';
import { SignInGuard } from './sign-in-guard.ts';
import { ACCOUNT_DISABLED, hashLinkSecret, newLinkSecret, webUserOf } from './web-session.service.ts';

const WINDOW_MS = 15 * 60_000;
/** Wrong codes allowed per address, and per account, in 15 minutes at the second step of sign-in. */
const CODE_FAILURES = 10;
/** Wrong codes allowed per account in 15 minutes while confirming a new two-factor setup. */
const SETUP_CODE_FAILURES = 10;
/** Reset emails asked for per address, and per account name typed, in 15 minutes. */
const RESET_REQUESTS_PER_ADDRESS = 10;
const RESET_REQUESTS_PER_LOGIN = 3;
const RESET_LINK_MS = 60 * 60_000;
const MIN_PASSWORD = 8;

export type TwoFactorState = 'off' | 'pending' | 'on';

export interface SecurityOverview {
  twoFactor: TwoFactorState;
  enabledAt: Date | null;
  recoveryCodesLeft: number;
}

export interface PendingSetup {
  /** The base32 secret in groups of four, for typing into an app. */
  secret: string;
  /** The otpauth:// URI (what an app's QR scanner would read). */
  uri: string;
}

export interface SecurityOptions {
  box: SecretBox;
  /** `limit`: the account-mail limit reset emails count against (default: its default budgets). */
  email: { sender: EmailSender | undefined; baseUrl: string; limit?: AccountMailLimit };
  /** Where a failed background email is reported (default: stderr). */
  warn?: (message: string) => void;
  /** The throttle shared by every door that checks a password (default: one of its own). */
  guard?: SignInGuard;
  /** OIDC_ONLY: reset links go to server administrators only (others sign in with single sign-on). */
  resetOnlyForAdmins?: boolean;
}

type UserRow = Awaited<ReturnType<AccountRepository['findUserById']>> & {};

const retryLater = (seconds: number, what: string) =>
  new RetryLaterError(
    seconds,
    `Too many ${what}. Try again in ${Math.ceil(seconds / 60)} minute${seconds > 60 ? 's' : ''}.`,
  );

export class SecurityService {
  private readonly accounts: AccountRepository;
  private readonly twoFactor: TwoFactorRepository;
  private readonly sessions: WebSessionRepository;
  private readonly links: OneTimeLinkRepository;
  private readonly codeFailuresByAddress = new FailureThrottle(CODE_FAILURES, WINDOW_MS);
  private readonly codeFailuresByUser = new FailureThrottle(CODE_FAILURES, WINDOW_MS);
  private readonly setupCodeFailures = new FailureThrottle(SETUP_CODE_FAILURES, WINDOW_MS);
  private readonly guard: SignInGuard;
  private readonly resetsByAddress = new FailureThrottle(RESET_REQUESTS_PER_ADDRESS, WINDOW_MS);
  private readonly resetsByLogin = new FailureThrottle(RESET_REQUESTS_PER_LOGIN, WINDOW_MS);
  private readonly warn: (message: string) => void;
  private readonly mailLimit: AccountMailLimit;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly accountService: AccountService,
    private readonly options: SecurityOptions,
  ) {
    this.accounts = new AccountRepository(db);
    this.twoFactor = new TwoFactorRepository(db);
    this.sessions = new WebSessionRepository(db);
    this.links = new OneTimeLinkRepository(db);
    this.guard = options.guard ?? new SignInGuard();
    this.warn = options.warn ?? ((message) => process.stderr.write(`vulntrack: ${message}\n`));
    this.mailLimit = options.email.limit ?? new AccountMailLimit();
  }

  /** True when this server can send email (SMTP_URL is set): password reset by email works. */
  get emailConfigured(): boolean {
    return this.options.email.sender !== undefined;
  }

  /** Whether two-factor sign-in is on, being set up or off, and the recovery codes left. */
  async overview(userId: string): Promise<SecurityOverview> {
    const user = await this.user(userId);
    return {
      twoFactor: twoFactorState(user),
      enabledAt: user.totp_enabled_at,
      recoveryCodesLeft: user.totp_enabled_at ? await this.twoFactor.unusedRecoveryCodes(userId) : 0,
    };
  }

  // Password.

  /**
   * Changes the password of a signed-in user, who gives the current one. Every other session of the
   * user ends (`keepSession` stays signed in), unused reset links stop working, and API v1 credentials
   * cached with the old password stop working (the cache checks the stored hash). A wrong current
   * password counts in SignInGuard, from `address`.
   */
  async changePassword(
    userId: string,
    input: { current: string; password: string; confirm: string },
    keepSession: string,
    address: string,
  ): Promise<void> {
    const user = await this.user(userId);
    this.checkGuard(userId, address);
    const details: Record<string, string[]> = {};
    if (!input.current) details.current = ['Enter your current password.'];
    else if (!(await verifyPassword(input.current, user.password_hash))) {
      this.guard.fail(address, SignInGuard.accountOfUser(userId));
      details.current = ['That is not your current password.'];
    }
    Object.assign(details, newPasswordProblems(input.password, input.confirm));
    if (Object.keys(details).length) throw validationError(details);
    await this.accountService.changePassword(user.username, input.password);
    await this.sessions.deleteOfUser(userId, keepSession);
    await this.links.revoke('password_reset', userId);
  }

  // Two-factor setup.

  /** Starts setting up two-factor sign-in with a new secret (replacing one being set up). */
  async startTwoFactorSetup(userId: string): Promise<void> {
    const user = await this.user(userId);
    if (user.totp_enabled_at) throw new AppError('conflict', 'Two-factor sign-in is already on.');
    await this.twoFactor.beginSetup(userId, this.options.box.seal(newTotpSecret()));
  }

  /** The secret being set up, to show the user; undefined when no setup is under way. */
  async pendingSetup(userId: string): Promise<PendingSetup | undefined> {
    const user = await this.user(userId);
    if (twoFactorState(user) !== 'pending') return undefined;
    const secret = this.secretOf(user);
    return { secret: groupedSecret(secret), uri: totpUri(secret, user.username) };
  }

  /**
   * Turns two-factor sign-in on once the user proves their app has the secret (a current code), and
   * returns the 10 recovery codes, which are shown once (only their hashes are kept). Every other
   * session of the user ends (`keepSession`, the one that turned it on, stays signed in): a browser
   * signed in with the password alone, perhaps by whoever made the user turn two-factor on, is out.
   */
  async confirmTwoFactor(userId: string, code: string, keepSession: string): Promise<string[]> {
    const user = await this.user(userId);
    if (user.totp_enabled_at) throw new AppError('conflict', 'Two-factor sign-in is already on.');
    if (!user.totp_secret)
      throw validationError({ code: ['Start the setup again: no secret is being set up.'] });
    const wait = this.setupCodeFailures.retryAfter(userId);
    if (wait !== undefined) throw retryLater(wait, 'wrong codes');
    if (!code.trim()) throw validationError({ code: ['Enter the 6-digit code your app shows.'] });
    const step = totpStepOf(this.secretOf(user), code);
    if (step === undefined) {
      this.setupCodeFailures.fail(userId);
      throw validationError({
        code: [
          'That code is not right. Check that the app has this secret and that your device’s clock is right.',
        ],
      });
    }
    const codes = newRecoveryCodes();
    if (!(await this.twoFactor.enable(userId, step, codes.map(hashRecoveryCode))))
      throw new AppError('conflict', 'Two-factor sign-in is already on.');
    await this.sessions.deleteOfUser(userId, keepSession);
    return codes;
  }

  /** Turns two-factor sign-in off; the user proves it is them with their password or a code. */
  async disableTwoFactor(
    userId: string,
    proof: { password: string; code: string },
    address: string,
  ): Promise<void> {
    const user = await this.user(userId);
    if (!user.totp_secret) return;
    // A setup not confirmed yet is cancelled without proof: it never protected anything.
    if (user.totp_enabled_at) await this.reauthenticate(user, proof, address);
    await this.twoFactor.disable(userId);
  }

  /** New recovery codes in place of the old ones (all of which stop working); needs the password. */
  async regenerateRecoveryCodes(userId: string, password: string, address: string): Promise<string[]> {
    const user = await this.user(userId);
    if (!user.totp_enabled_at)
      throw new AppError('conflict', 'Two-factor sign-in is off: there are no recovery codes.');
    await this.reauthenticate(user, { password, code: '' }, address);
    const codes = newRecoveryCodes();
    await this.twoFactor.replaceRecoveryCodes(userId, codes.map(hashRecoveryCode));
    return codes;
  }

  // Sign-in, second step.

  /**
   * The second step of signing in for a user with two-factor on: a current code of their app (each
   * accepted once: the same code again, or an older one, is refused) or one of their recovery codes
   * (each works once). Throttled per address and per account like the password step.
   */
  async verifySecondFactor(userId: string, code: string, address: string): Promise<WebUser> {
    const wait = this.codeFailuresByAddress.retryAfter(address) ?? this.codeFailuresByUser.retryAfter(userId);
    if (wait !== undefined) throw retryLater(wait, 'wrong codes');
    const user = await this.accounts.findUserById(userId);
    if (!user?.totp_enabled_at) throw new AppError('not_found');
    // Disabled between the two steps: no code signs them in.
    if (user.disabled_at) throw validationError({ code: [ACCOUNT_DISABLED] });
    if (!code.trim()) throw validationError({ code: ['Enter the code your app shows, or a recovery code.'] });
    if (await this.codeIsGood(user, code)) return webUserOf(user);
    this.codeFailuresByAddress.fail(address);
    this.codeFailuresByUser.fail(userId);
    throw validationError({ code: ['That code is not right, or it was already used.'] });
  }

  // Password reset.

  /**
   * Emails a one-time reset link (valid one hour) to the account with this username or email, if
   * there is one. The answer is the same either way (nothing tells who has an account), and the
   * email goes out in the background so the time taken does not tell either.
   */
  async requestPasswordReset(login: string, address: string): Promise<void> {
    if (!this.options.email.sender)
      throw new AppError(
        'service_unavailable',
        'This server cannot send email. Ask an administrator to reset your password.',
      );
    const key = login.trim().toLowerCase();
    if (!key) throw validationError({ login: ['Enter your username or email.'] });
    const wait = this.resetsByAddress.retryAfter(address) ?? this.resetsByLogin.retryAfter(key);
    if (wait !== undefined) throw retryLater(wait, 'reset requests');
    this.resetsByAddress.fail(address);
    this.resetsByLogin.fail(key);
    const user = await this.accounts.findUserByLogin(login.trim());
    // Under OIDC_ONLY the answer is the same for anyone else: a reset form must not tell who exists.
    if (!user || (this.options.resetOnlyForAdmins && !user.is_admin)) return;
    // Past the account-mail limit of the address no email goes, and the answer says nothing of it
    // (as for an unknown account: a reset form must not tell who exists).
    const counted = await this.db
      .transaction()
      .execute((tx) =>
        this.mailLimit.tryReserve(tx, { kind: 'password_reset', sender: undefined, recipient: user.email }),
      );
    if (!counted) return;
    const url = await this.newResetLink(user.id);
    void this.sendResetEmail(user, url);
  }

  /** True when `token` is an unused, unexpired reset link. */
  async resetLinkIsUsable(token: string): Promise<boolean> {
    return (await this.links.findUsable('password_reset', hashLinkSecret(token))) !== undefined;
  }

  /**
   * Sets a new password through a reset link, which is then spent; every session of the user ends
   * (they sign in again, with their second factor when it is on). Not found for a link that is
   * unknown, spent or expired.
   */
  async resetPassword(token: string, input: { password: string; confirm: string }): Promise<void> {
    const link = await this.links.findUsable('password_reset', hashLinkSecret(token));
    if (!link?.user_id) throw new AppError('not_found');
    const problems = newPasswordProblems(input.password, input.confirm);
    if (Object.keys(problems).length) throw validationError(problems);
    const userId = link.user_id;
    const hash = await hashPassword(input.password);
    await this.db.transaction().execute(async (tx) => {
      if (!(await this.links.use(link.id, tx))) throw new AppError('not_found');
      await this.accounts.setPasswordHash(userId, hash, tx);
      await this.sessions.deleteOfUser(userId, undefined, tx);
    });
    await this.links.revoke('password_reset', userId);
  }

  // The server's operator (CLI).

  /** A one-time reset link for the user (one hour), for the operator to hand over. */
  async passwordResetLink(username: string): Promise<{ url: string; expiresAt: Date }> {
    const user = await this.accounts.findUserByUsername(username);
    if (!user) throw new AppError('not_found', `No user is named "${username}".`);
    const url = await this.newResetLink(user.id);
    return { url, expiresAt: new Date(Date.now() + RESET_LINK_MS) };
  }

  /** Sets the user's password directly and ends all of their sessions. */
  async setPassword(username: string, password: string): Promise<void> {
    const user = await this.accounts.findUserByUsername(username);
    if (!user) throw new AppError('not_found', `No user is named "${username}".`);
    await this.accountService.changePassword(username, password);
    await this.sessions.deleteOfUser(user.id);
    await this.links.revoke('password_reset', user.id);
  }

  /** Turns two-factor sign-in off for a locked-out user; false when it was not on. */
  async disableTwoFactorOf(username: string): Promise<boolean> {
    const user = await this.accounts.findUserByUsername(username);
    if (!user) throw new AppError('not_found', `No user is named "${username}".`);
    const wasOn = user.totp_enabled_at !== null;
    await this.twoFactor.disable(user.id);
    return wasOn;
  }

  // Helpers.

  private async user(userId: string): Promise<UserRow> {
    const user = await this.accounts.findUserById(userId);
    if (!user) throw new AppError('not_found');
    return user;
  }

  private secretOf(user: UserRow): string {
    return this.options.box.open<string>(user.totp_secret!);
  }

  /** Refuses (429) while SignInGuard has locked the account or the address. */
  private checkGuard(userId: string, address: string): void {
    const lock = this.guard.lock(address, SignInGuard.accountOfUser(userId));
    if (lock) throw retryLater(lock.retryAfter, 'wrong passwords or codes');
  }

  /** The user's password, or (with two-factor on) a current code or recovery code; else a field error. */
  private async reauthenticate(
    user: UserRow,
    proof: { password: string; code: string },
    address: string,
  ): Promise<void> {
    this.checkGuard(user.id, address);
    const account = SignInGuard.accountOfUser(user.id);
    if (proof.password) {
      if (await verifyPassword(proof.password, user.password_hash)) return;
      this.guard.fail(address, account);
      throw validationError({ password: ['That is not your password.'] });
    }
    if (proof.code && user.totp_enabled_at) {
      if (await this.codeIsGood(user, proof.code)) return;
      this.guard.fail(address, account);
      throw validationError({ code: ['That code is not right, or it was already used.'] });
    }
    throw validationError({
      password: [user.totp_enabled_at ? 'Enter your password, or a code below.' : 'Enter your password.'],
    });
  }

  /** A current TOTP code not used before (spent now), or an unused recovery code (spent now). */
  private async codeIsGood(user: UserRow, code: string): Promise<boolean> {
    if (looksLikeTotpCode(code)) {
      const step = totpStepOf(this.secretOf(user), code);
      return step !== undefined && (await this.twoFactor.spendStep(user.id, step));
    }
    if (code.length > 64) return false;
    return this.twoFactor.useRecoveryCode(user.id, hashRecoveryCode(code));
  }

  private async newResetLink(userId: string): Promise<string> {
    await this.links.revoke('password_reset', userId);
    const { token, hash } = newLinkSecret();
    await this.links.create({
      purpose: 'password_reset',
      tokenHash: hash,
      userId,
      expiresAt: new Date(Date.now() + RESET_LINK_MS),
    });
    return `${this.options.email.baseUrl}/password-reset/${token}`;
  }

  private async sendResetEmail(user: UserRow, url: string): Promise<void> {
    const sender = this.options.email.sender!;
    const text = [
      `Someone (hopefully you) asked to reset the password of the vulntrack account "${user.username}".`,
      '',
      `To choose a new password, open this link within an hour (it works once):`,
      url,
      '',
      'If this was not you, ignore this message: your password stays as it is.',
    ].join('\n');
    const html =
      `<p>Someone (hopefully you) asked to reset the password of the vulntrack account &ldquo;${escapeHtml(user.username)}&rdquo;.</p>` +
      `<p><a href="${escapeHtml(url)}">Choose a new password</a> (the link works once, within an hour).</p>` +
      '<p>If this was not you, ignore this message: your password stays as it is.</p>';
    try {
      const result = await sender.send({
        to: user.email,
        subject: 'Reset your vulntrack password',
        text,
        html,
        deliveryId: `password-reset-${randomUUID()}`,
      });
      if (!result.ok)
        this.warn(`the password reset email to user ${user.username} failed: ${result.error ?? 'refused'}`);
    } catch (err) {
      this.warn(`the password reset email to user ${user.username} failed: ${String(err)}`);
    }
  }
}

function twoFactorState(user: UserRow): TwoFactorState {
  if (user.totp_enabled_at) return 'on';
  return user.totp_secret ? 'pending' : 'off';
}

function newPasswordProblems(password: string, confirm: string): Record<string, string[]> {
  if (password.length < MIN_PASSWORD) return { password: [`At least ${MIN_PASSWORD} characters.`] };
  if (password.length > 1000) return { password: ['At most 1,000 characters.'] };
  if (password !== confirm) return { confirm: ['The two passwords are not the same.'] };
  return {};
}
