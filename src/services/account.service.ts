/**
 * Users and organizations: created from the CLI (first admin, first organization) and the web UI;
 * a user accepting an invitation; accounts disabled and enabled again by a server administrator.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AccountRepository } from '../db/account.repository.ts';
import type { MemberRow } from '../domain/member.ts';
import { AuditRepository } from '../db/audit.repository.ts';
import { TokenRepository } from '../db/token.repository.ts';
import { WebSessionRepository } from '../db/web-session.repository.ts';
import { SsoIdentityRepository } from '../db/sso-identity.repository.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';
import type { Actor } from '../domain/actor.ts';
import { AppError, validationError } from '../domain/errors.ts';
import {
  EMAIL,
  isReservedName,
  NAME_MESSAGES,
  normalizeEmail,
  ORGANIZATION_NAME,
  USERNAME,
} from '../domain/names.ts';
import { hashPassword } from '../domain/passwords.ts';
import {
  DATE_FORMATS,
  isTimeZone,
  THEMES,
  type DateFormat,
  type Theme,
  type UserSummary,
} from '../domain/user.ts';
import { revokeTokensOfCreator } from './creator-tokens.ts';

/** What disabling or enabling an account did: `changed` false when it already was so. */
export interface AccountStatusChange {
  username: string;
  disabled: boolean;
  changed: boolean;
  /** API tokens of theirs revoked (disabling only). */
  tokensRevoked: number;
}

export class AccountService {
  private readonly accounts: AccountRepository;
  private readonly audit: AuditRepository;
  private readonly tokens: TokenRepository;
  private readonly sessions: WebSessionRepository;

  constructor(private readonly db: Kysely<DB>) {
    this.accounts = new AccountRepository(db);
    this.audit = new AuditRepository(db);
    this.tokens = new TokenRepository(db);
    this.sessions = new WebSessionRepository(db);
  }

  /** Refuses, with every problem at once, a new user's details that are malformed or taken. */
  async validateNewUser(input: { username: string; email: string; password: string }): Promise<void> {
    const details: Record<string, string[]> = {};
    if (!USERNAME.test(input.username))
      details.username = ['letters, digits and _ . @ + - only, at most 150 characters'];
    if (!EMAIL.test(input.email)) details.email = ['not an email address'];
    if (input.password.length < 8) details.password = ['at least 8 characters'];
    if (!details.username && (await this.accounts.findUserByUsername(input.username)))
      details.username = ['already taken'];
    if (!details.email && (await this.accounts.findUserByEmail(normalizeEmail(input.email))))
      details.email = ['already registered'];
    if (Object.keys(details).length) throw validationError(details);
  }

  async createUser(input: { username: string; email: string; password: string; isAdmin?: boolean }) {
    await this.validateNewUser(input);
    return this.accounts.createUser({
      username: input.username,
      email: normalizeEmail(input.email),
      passwordHash: await hashPassword(input.password),
      isAdmin: input.isAdmin ?? false,
    });
  }

  /**
   * Sets a user's password. Credentials cached by API v1's Basic authentication stop working at once:
   * the cache holds the password hash they were verified against.
   */
  async changePassword(username: string, password: string): Promise<void> {
    if (password.length < 8) throw validationError({ password: ['at least 8 characters'] });
    const user = await this.accounts.findUserByUsername(username);
    if (!user) throw new AppError('not_found');
    await this.accounts.setPasswordHash(user.id, await hashPassword(password));
  }

  /**
   * Sets the user's display preferences: an IANA time zone this server knows, a date format and a
   * theme, each checked, every problem at once.
   */
  async updateSettings(
    userId: string,
    input: { timeZone: string; dateFormat: string; theme: string },
  ): Promise<void> {
    const details: Record<string, string[]> = {};
    const timeZone = input.timeZone.trim();
    if (!isTimeZone(timeZone))
      details.time_zone = [
        `"${timeZone.slice(0, 64)}" is not a time zone: pick one from the list (e.g. Europe/Paris, UTC).`,
      ];
    if (!(DATE_FORMATS as readonly string[]).includes(input.dateFormat))
      details.date_format = [`Choose one of ${DATE_FORMATS.join(', ')}.`];
    if (!(THEMES as readonly string[]).includes(input.theme))
      details.theme = [`Choose one of ${THEMES.join(', ')}.`];
    if (Object.keys(details).length) throw validationError(details);
    const updated = await this.accounts.updateSettings(userId, {
      timeZone,
      dateFormat: input.dateFormat as DateFormat,
      theme: input.theme as Theme,
    });
    if (!updated) throw new AppError('not_found');
  }

  /** Every user with whether two-factor sign-in is on and whether the account is disabled. */
  async listUsers(): Promise<UserSummary[]> {
    return (await this.accounts.listUsers()).map((u) => ({
      username: u.username,
      email: u.email,
      isAdmin: u.is_admin,
      createdAt: u.created_at,
      twoFactor: u.totp_enabled_at !== null,
      disabled: u.disabled_at !== null,
    }));
  }

  /**
   * Disables an account (a server administrator's act: `vulntrack user disable`, `/admin/users`).
   * The user can no longer sign in (web, API v1 Basic), every session of theirs ends, and the API
   * tokens they created in each organization they belong to are revoked, with a `token.revoke` audit
   * entry each, as when a member is removed. They stay listed as members. Idempotent: disabling a
   * disabled account ends what may be left (`changed` false). A user cannot disable their own account
   * (a conflict): they would lock themselves out, perhaps the last administrator with them.
   */
  async disableUser(username: string, actor: Actor): Promise<AccountStatusChange> {
    const user = await this.accounts.findUserByUsername(username);
    if (!user) throw new AppError('not_found', `No user is named "${username}".`);
    if (actor.type === 'user' && actor.id === user.id)
      throw new AppError('conflict', 'You cannot disable your own account. Ask another administrator.');
    const organizations = await this.accounts.organizationsOfUser(user.id);
    return this.db.transaction().execute(async (tx) => {
      const changed = await this.accounts.setDisabled(user.id, true, tx);
      await this.sessions.deleteOfUser(user.id, undefined, tx);
      let tokensRevoked = 0;
      for (const { organizationId } of organizations)
        tokensRevoked += await revokeTokensOfCreator({ tokens: this.tokens, audit: this.audit }, tx, {
          organizationId,
          userId: user.id,
          actor,
          why: `its creator ${user.email} was disabled`,
        });
      return { username: user.username, disabled: true, changed, tokensRevoked };
    });
  }

  /**
   * `vulntrack user link-sso <username>`: the next single sign-on whose email is the user's links
   * their account to that identity, without the password sign-in otherwise required first
   * (OIDC_ONLY refuses it to anyone but an administrator). The flag is cleared once used.
   */
  async allowSsoLink(username: string): Promise<{ username: string; email: string }> {
    const user = await this.accounts.findUserByUsername(username);
    if (!user) throw new AppError('not_found', `No user is named "${username}".`);
    await new SsoIdentityRepository(this.db).allowLinkByEmail(user.id, true);
    return { username: user.username, email: user.email };
  }

  /** Enables a disabled account: the user signs in again. Their revoked tokens stay revoked. */
  async enableUser(username: string): Promise<AccountStatusChange> {
    const user = await this.accounts.findUserByUsername(username);
    if (!user) throw new AppError('not_found', `No user is named "${username}".`);
    const changed = await this.accounts.setDisabled(user.id, false);
    return { username: user.username, disabled: false, changed, tokensRevoked: 0 };
  }

  /** Creates an organization with `ownerUsername` as its first owner. */
  async createOrganization(name: string, ownerUsername: string) {
    if (!ORGANIZATION_NAME.test(name))
      throw validationError({ name: ['letters, digits and - only (at most 100)'] });
    if (isReservedName(name)) throw validationError({ name: [NAME_MESSAGES.organization.reserved] });
    const owner = await this.accounts.findUserByUsername(ownerUsername);
    if (!owner) throw validationError({ owner: [`no user named "${ownerUsername}"`] });
    if (await this.accounts.findOrganization(name))
      throw validationError({ name: [NAME_MESSAGES.organization.taken] });
    const actor: Actor = { type: 'user', id: owner.id, name: owner.username };
    try {
      return await this.db.transaction().execute(async (tx) => {
        const org = await this.accounts.createOrganization(name, tx);
        const membership = await this.accounts.addMembership(
          { organizationId: org.id, userId: owner.id, email: owner.email, role: 'owner', joined: true },
          tx,
        );
        await this.audit.record(
          {
            organizationId: org.id,
            actor,
            action: 'organization.create',
            resourceType: 'organization',
            resourceId: org.id,
            resourceName: name,
            changes: { name: { old: null, new: name } },
          },
          tx,
        );
        await this.audit.record(
          {
            organizationId: org.id,
            actor,
            action: 'member.create',
            resourceType: 'member',
            resourceId: membership.id,
            resourceName: owner.email,
            changes: { email: { old: null, new: owner.email }, role: { old: null, new: 'owner' } },
          },
          tx,
        );
        return org;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw validationError({ name: [NAME_MESSAGES.organization.taken] });
      throw err;
    }
  }

  /**
   * The user `userId` accepts their invitation to `orgName` (the invitation names their email, or
   * them). Accepting an invitation already accepted changes nothing. Not found when there is no
   * such user, organization or invitation. For the web UI and the CLI; verifying that the user owns
   * the email is the caller's concern.
   */
  async acceptInvitation(userId: string, orgName: string): Promise<MemberRow> {
    const user = await this.accounts.findUserById(userId);
    const org = await this.accounts.findOrganization(orgName);
    if (!user || !org) throw new AppError('not_found');
    return this.db.transaction().execute(async (tx) => {
      await this.accounts.lockOrganization(org.id, tx);
      const member = await this.accounts.findMemberByEmailOrUser(org.id, user.email, user.id, tx);
      if (!member || (member.user_id !== null && member.user_id !== user.id)) throw new AppError('not_found');
      if (member.date_joined !== null) return member;
      await this.accounts.joinMembership(member.id, user.id, tx);
      const joined = (await this.accounts.findMember(org.id, member.id, tx))!;
      await this.audit.record(
        {
          organizationId: org.id,
          actor: { type: 'user', id: user.id, name: user.username },
          action: 'member.join',
          resourceType: 'member',
          resourceId: member.id,
          resourceName: member.email,
          changes: {
            username: { old: null, new: user.username },
            date_joined: { old: null, new: joined.date_joined!.toISOString() },
          },
        },
        tx,
      );
      return joined;
    });
  }

  async getOrganization(name: string) {
    const org = await this.accounts.findOrganization(name);
    if (!org) throw new AppError('not_found');
    return org;
  }

  findUser(username: string) {
    return this.accounts.findUserByUsername(username);
  }

  /**
   * The user named `username` as an actor of the organization (an administrative command recorded
   * as theirs): `not_found` when no such user exists, `permission_denied` when the user is not a
   * joined member, so the audit log never credits an outsider.
   */
  async memberActor(organizationId: string, username: string): Promise<Actor> {
    const user = await this.accounts.findUserByUsername(username);
    if (!user) throw new AppError('not_found', `No user is named "${username}".`);
    if (!(await this.accounts.findJoinedMembership(organizationId, user.id)))
      throw new AppError('permission_denied', `The user "${username}" is not a member of the organization.`);
    return { type: 'user', id: user.id, name: user.username };
  }
}
