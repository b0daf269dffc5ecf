/**
 * Joining an organization through an invitation link (`/invitations/<secret>`, made and emailed by
 * MemberService.invite): a signed-in user whose email is the invited one accepts it; a person without
 * an account signs up through it (the email is the invited one, so following the emailed link proves
 * they own it); API v2 accepts with the person's credentials. Also open sign-up (`/signup` without an
 * invitation), off unless WEB_OPEN_SIGNUP is set.
 *
 * A link works once: accepting marks it used. Withdrawing the invitation (removing the pending
 * member) deletes its links, and the link answers not found.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AccountRepository } from '../db/account.repository.ts';
import { OneTimeLinkRepository } from '../db/one-time-link.repository.ts';
import { AppError, RetryLaterError, validationError } from '../domain/errors.ts';
import type { Role } from '../domain/member.ts';
import { normalizeEmail } from '../domain/names.ts';
import type { WebUser } from '../domain/user.ts';
import type { AccountService } from './account.service.ts';
import { FailureThrottle } from './failure-throttle.ts';
import { hashLinkSecret, type WebSessionService } from './web-session.service.ts';

/** Unknown invitation links allowed per address in 15 minutes (guessing one is hopeless; this keeps it so). */
const LINK_FAILURES = 20;
const LINK_WINDOW_MS = 15 * 60_000;

export interface Invitation {
  organization: string;
  email: string;
  role: Role;
  /** Whether an account with the invited email exists (it accepts by signing in; else sign up). */
  accountExists: boolean;
  expiresAt: Date;
}

export interface AcceptedInvitation {
  organization: string;
  role: Role;
  user: WebUser;
  /** True when the acceptance created the account. */
  accountCreated: boolean;
}

type PendingInvitation = NonNullable<Awaited<ReturnType<OneTimeLinkRepository['findPendingInvitation']>>>;

/** OIDC_ONLY: what a sign-up through an invitation is told. */
export const SSO_ONLY_SIGN_UP =
  'This server makes accounts through single sign-on only: sign in with SSO, then open the invitation again.';

/** The answer to a sign-up that lost the race for its link to another one. */
const JUST_USED =
  'This invitation was just used to create an account: sign in with that account, or ask for a new invitation.';

export class InvitationService {
  private readonly accounts: AccountRepository;
  private readonly links: OneTimeLinkRepository;
  private readonly unknownLinks = new FailureThrottle(LINK_FAILURES, LINK_WINDOW_MS);

  constructor(
    db: Kysely<DB>,
    private readonly accountService: AccountService,
    private readonly webSessions: WebSessionService,
    private readonly options: {
      openSignup: boolean;
      /** OIDC_ONLY: no account is made with a password through an invitation (people sign in with SSO). */
      ssoOnly?: boolean;
    },
  ) {
    this.accounts = new AccountRepository(db);
    this.links = new OneTimeLinkRepository(db);
  }

  /** OIDC_ONLY: accounts come from single sign-on, never from a sign-up form. */
  get ssoOnly(): boolean {
    return this.options.ssoOnly ?? false;
  }

  /** Whether anyone may create an account at `/signup` (WEB_OPEN_SIGNUP). */
  get openSignup(): boolean {
    return this.options.openSignup;
  }

  /** The invitation of a link; not found for a link that is unknown, used, expired or withdrawn. */
  async find(token: string, address: string): Promise<Invitation> {
    const pending = await this.pending(token, address);
    return {
      organization: pending.organization_name,
      email: pending.email,
      role: pending.role,
      accountExists: (await this.accounts.findUserByEmail(pending.email)) !== undefined,
      expiresAt: pending.expires_at,
    };
  }

  /**
   * The signed-in user `userId` accepts the invitation; refused (403) when their email is not the
   * invited one (they sign in with the invited address instead).
   */
  async accept(token: string, userId: string, address: string): Promise<AcceptedInvitation> {
    const pending = await this.pending(token, address);
    const user = await this.webSessions.user(userId);
    if (!user) throw new AppError('not_found');
    return this.join(pending, user, false);
  }

  /**
   * A person without an account signs up through the invitation: the account gets the invited email
   * (the link came to it), then joins. Validation errors name the fields `username` and `password`.
   */
  async signUp(
    token: string,
    input: { username: string; password: string },
    address: string,
  ): Promise<AcceptedInvitation> {
    if (this.options.ssoOnly) throw new AppError('permission_denied', SSO_ONLY_SIGN_UP);
    const pending = await this.pending(token, address);
    if (await this.accounts.findUserByEmail(pending.email))
      throw validationError({
        _form: [`An account with ${pending.email} exists: sign in with it to accept.`],
      });
    const account = { username: input.username.trim(), email: pending.email, password: input.password };
    await this.accountService.validateNewUser(account);
    // Spent before the account is made, in one conditional UPDATE: of sign-ups racing on one link,
    // exactly one goes on; the others are told so (409) instead of failing on the email taken meanwhile.
    if (!(await this.links.use(pending.link_id))) throw new AppError('conflict', JUST_USED);
    let created: { id: string };
    try {
      created = await this.accountService.createUser(account);
    } catch (err) {
      // Nothing was made (a name taken since the check): the link works again for a corrected form.
      await this.links.release(pending.link_id);
      throw err;
    }
    const user = (await this.webSessions.user(created.id))!;
    return this.join(pending, user, true);
  }

  /**
   * API v2's acceptance, with no session: when an account with the invited email exists, `password`
   * (and `username`, if given) must be its credentials (sign-in throttling applies); otherwise a new
   * account is made with `username` and `password`.
   */
  async acceptWithCredentials(
    token: string,
    input: { username?: string | undefined; password: string },
    address: string,
  ): Promise<AcceptedInvitation> {
    const pending = await this.pending(token, address);
    const existing = await this.accounts.findUserByEmail(pending.email);
    if (!existing) {
      if (!input.username) throw validationError({ username: ['required to create the account'] });
      return this.signUp(token, { username: input.username, password: input.password }, address);
    }
    const user = await this.webSessions.signIn(input.username ?? pending.email, input.password, address);
    return this.join(pending, user, false);
  }

  /** Open sign-up (WEB_OPEN_SIGNUP): a new account, no organization. Not found while it is off. */
  async signUpOpen(input: { username: string; email: string; password: string }): Promise<WebUser> {
    if (!this.options.openSignup) throw new AppError('not_found');
    const created = await this.accountService.createUser({
      username: input.username.trim(),
      email: input.email.trim(),
      password: input.password,
    });
    return (await this.webSessions.user(created.id))!;
  }

  private async pending(token: string, address: string): Promise<PendingInvitation> {
    const wait = this.unknownLinks.retryAfter(address);
    if (wait !== undefined)
      throw new RetryLaterError(
        wait,
        `Too many invalid invitation links. Try again in ${Math.ceil(wait / 60)} minutes.`,
      );
    const found = /^[A-Za-z0-9_-]{20,100}$/.test(token)
      ? await this.links.findPendingInvitation(hashLinkSecret(token))
      : undefined;
    if (!found) {
      this.unknownLinks.fail(address);
      throw new AppError(
        'not_found',
        'This invitation link is not valid: it was used, withdrawn or has expired.',
      );
    }
    return found;
  }

  private async join(
    pending: PendingInvitation,
    user: WebUser,
    accountCreated: boolean,
  ): Promise<AcceptedInvitation> {
    if (normalizeEmail(user.email) !== pending.email)
      throw new AppError(
        'permission_denied',
        `This invitation is for ${pending.email}, and you are signed in as ${user.email}. Sign out, then sign in (or sign up) with ${pending.email}.`,
      );
    const member = await this.accountService.acceptInvitation(user.id, pending.organization_name);
    await this.links.use(pending.link_id);
    return { organization: pending.organization_name, role: member.role, user, accountCreated };
  }
}
