/**
 * Members of an organization: list, invite, change a role, remove. Every change is audited, and an
 * organization always keeps at least one joined owner. Changes to one organization's members take
 * turns (the organization row is locked), so two concurrent demotions cannot both pass that check.
 *
 * An invitation comes with a one-time link (`/invitations/<secret>`, 14 days; only a hash of the
 * secret is stored), emailed to the invited address when SMTP is configured. Without SMTP (or when
 * the SMTP server refuses the message) the caller gets the link to hand over itself.
 */
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AccountRepository } from '../db/account.repository.ts';
import type { MemberRow, Role } from '../domain/member.ts';
import { AuditRepository } from '../db/audit.repository.ts';
import { TrackerRepository } from '../db/tracker.repository.ts';
import { TokenRepository } from '../db/token.repository.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';
import type { Actor } from '../domain/actor.ts';
import { AppError, validationError } from '../domain/errors.ts';
import { EMAIL, normalizeEmail } from '../domain/names.ts';
import { assertPageInRange, offsetOf, type PageRequest } from '../domain/paging.ts';
import { OneTimeLinkRepository } from '../db/one-time-link.repository.ts';
import type { EmailSender } from '../notifications/channels/email/email-sender.ts';
import { escapeHtml } from '../notifications/channels/email/email-message.ts';
import { AccountMailLimit } from './account-mail-limit.ts';
import { hashLinkSecret, newLinkSecret } from './web-session.service.ts';
import { revokeTokensOfCreator } from './creator-tokens.ts';

/** How long an invitation link works. */
export const INVITATION_DAYS = 14;

/** How invitation emails go out: the SMTP sender (none without SMTP_URL) and the site's address. */
export interface InvitationMail {
  sender: EmailSender | undefined;
  baseUrl: string;
  /** The account-mail limit each emailed invitation counts against (default: its default budgets). */
  limit?: AccountMailLimit;
}

/**
 * What became of an invitation's email: `sent`; `failed` (the SMTP server refused it, `error` says
 * why) or `not_configured` (no SMTP_URL), both with the `link` to hand over instead.
 */
export type InvitationDelivery =
  | { email: 'sent' }
  | { email: 'failed'; error: string; link: string }
  | { email: 'not_configured'; link: string };

export type InvitedMember = MemberRow & { invitation: InvitationDelivery };

// OpenCVE 3.1's sentences, word for word (scripts written against it may compare them).
const ALREADY_MEMBER = 'Member already exist';
const ALREADY_INVITED = 'An invitation has already been sent to this email address';
const alreadyMember = (joined = true) =>
  validationError({ email: [joined ? ALREADY_MEMBER : ALREADY_INVITED] });

export class MemberService {
  private readonly accounts: AccountRepository;
  private readonly audit: AuditRepository;
  private readonly tracker: TrackerRepository;
  private readonly tokens: TokenRepository;
  private readonly links: OneTimeLinkRepository;
  private readonly mailLimit: AccountMailLimit;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly mail: InvitationMail = { sender: undefined, baseUrl: 'http://localhost:8000' },
  ) {
    this.mailLimit = mail.limit ?? new AccountMailLimit();
    this.accounts = new AccountRepository(db);
    this.audit = new AuditRepository(db);
    this.tracker = new TrackerRepository(db);
    this.tokens = new TokenRepository(db);
    this.links = new OneTimeLinkRepository(db);
  }

  /** Whether invitations are emailed (SMTP_URL is set). */
  get emailConfigured(): boolean {
    return this.mail.sender !== undefined;
  }

  /**
   * Of invitation links an owner was shown earlier (handed back by the members page, which never
   * stores them), those of this organization that still work, with the address each invites: the
   * page lists them again beside a new one, so inviting a second person does not lose the first link.
   * At most 20; anything else (another organization's, used, withdrawn, expired, not a link) is dropped.
   */
  async pendingInvitationLinks(
    organizationId: string,
    links: readonly string[],
  ): Promise<{ email: string; link: string }[]> {
    const prefix = `${this.mail.baseUrl}/invitations/`;
    const found: { email: string; link: string }[] = [];
    for (const link of new Set(links.slice(0, 20))) {
      const token = link.startsWith(prefix) ? link.slice(prefix.length) : '';
      if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) continue;
      const pending = await this.links.findPendingInvitation(hashLinkSecret(token));
      if (pending?.organization_id === organizationId) found.push({ email: pending.email, link });
    }
    return found;
  }

  /** Members and pending invitations, in the order they were invited. */
  async list(organizationId: string, page: PageRequest): Promise<{ count: number; items: MemberRow[] }> {
    const count = await this.accounts.countMembers(organizationId);
    assertPageInRange(page, count);
    return {
      count,
      items: await this.accounts.listMembers(organizationId, page.pageSize, offsetOf(page)),
    };
  }

  /** The member or pending invitation of `email` (normalized as invitations store it), if any. */
  findByEmail(organizationId: string, email: string): Promise<MemberRow | undefined> {
    return this.accounts.findMemberByEmailOrUser(organizationId, normalizeEmail(email), null);
  }

  /**
   * Invites `email` with `role` (default `member`) and emails the invitation link. The membership is
   * pending until the invited person accepts it through the link (InvitationService), also when a
   * user with that email already exists.
   */
  async invite(
    organizationId: string,
    input: { email: string; role?: Role },
    actor: Actor,
  ): Promise<InvitedMember> {
    if (!EMAIL.test(input.email.trim())) throw validationError({ email: ['not an email address'] });
    if (input.role !== undefined && input.role !== 'owner' && input.role !== 'member')
      throw validationError({ role: ['owner or member'] });
    const email = normalizeEmail(input.email);
    const role = input.role ?? 'member';
    let token = '';
    let invited: { member: MemberRow; organization: string };
    try {
      invited = await this.inOrganization(organizationId, async (tx, organization) => {
        const user = await this.accounts.findUserByEmail(email, tx);
        const existing = await this.accounts.findMemberByEmailOrUser(
          organizationId,
          email,
          user?.id ?? null,
          tx,
        );
        if (existing) throw alreadyMember(existing.date_joined !== null);
        await this.countMail(tx, actor, email);
        const { id } = await this.accounts.addMembership(
          { organizationId, userId: user?.id ?? null, email, role, joined: false },
          tx,
        );
        await this.record(tx, organizationId, actor, 'member.create', id, email, {
          email: { old: null, new: email },
          role: { old: null, new: role },
        });
        token = await this.newInvitationLink(id, tx);
        return { member: (await this.accounts.findMember(organizationId, id, tx))!, organization };
      });
    } catch (err) {
      // A concurrent invitation of the same email on PostgreSQL.
      if (isUniqueViolation(err)) throw alreadyMember(false);
      throw err;
    }
    const invitation = await this.sendInvitation(invited.member, invited.organization, actor, token);
    return { ...invited.member, invitation };
  }

  /**
   * A new link for a pending invitation, emailed again (the earlier links stop working). Not found
   * for no such invitation; a validation error once it was accepted.
   */
  async resendInvitation(organizationId: string, id: string, actor: Actor): Promise<InvitedMember> {
    let token = '';
    const { member, organization } = await this.inOrganization(organizationId, async (tx, organization) => {
      const member = await this.accounts.findMember(organizationId, id, tx);
      if (!member) throw new AppError('not_found');
      if (member.date_joined !== null) throw validationError({ id: ['already a member: nothing to resend'] });
      await this.countMail(tx, actor, member.email);
      await this.links.revokeForMembership(id, tx);
      token = await this.newInvitationLink(id, tx);
      await this.record(tx, organizationId, actor, 'member.resend', id, member.email, {});
      return { member, organization };
    });
    return { ...member, invitation: await this.sendInvitation(member, organization, actor, token) };
  }

  /** Counts an invitation email against the account-mail limit (429 past it); none without SMTP. */
  private async countMail(tx: Transaction<DB>, actor: Actor, recipient: string): Promise<void> {
    if (this.mail.sender) await this.mailLimit.reserve(tx, { kind: 'invitation', sender: actor, recipient });
  }

  private async newInvitationLink(membershipId: string, tx: Transaction<DB>): Promise<string> {
    const { token, hash } = newLinkSecret();
    await this.links.create(
      {
        purpose: 'invitation',
        tokenHash: hash,
        membershipId,
        expiresAt: new Date(Date.now() + INVITATION_DAYS * 86_400_000),
      },
      tx,
    );
    return token;
  }

  /** Emails the invitation (one attempt; the outcome is returned, never thrown). */
  private async sendInvitation(
    member: MemberRow,
    organization: string,
    actor: Actor,
    token: string,
  ): Promise<InvitationDelivery> {
    const link = `${this.mail.baseUrl}/invitations/${token}`;
    if (!this.mail.sender) return { email: 'not_configured', link };
    const inviter = actor.type === 'user' ? actor.name : 'An administrator';
    const text = [
      `${inviter} invited you to join the organization "${organization}" on vulntrack as ${member.role === 'owner' ? 'an owner' : 'a member'}.`,
      '',
      `Accept the invitation: ${link}`,
      '',
      `The link works once, for ${INVITATION_DAYS} days. If you did not expect this, ignore this message.`,
    ].join('\n');
    const html =
      `<p>${escapeHtml(inviter)} invited you to join the organization &ldquo;${escapeHtml(organization)}&rdquo; on vulntrack ` +
      `as ${member.role === 'owner' ? 'an owner' : 'a member'}.</p>` +
      `<p><a href="${escapeHtml(link)}">Accept the invitation</a></p>` +
      `<p>The link works once, for ${INVITATION_DAYS} days. If you did not expect this, ignore this message.</p>`;
    const result = await this.mail.sender.send({
      to: member.email,
      subject: `You are invited to ${organization} on vulntrack`,
      text,
      html,
      deliveryId: `invitation-${member.id}-${Date.now()}`,
    });
    return result.ok ? { email: 'sent' } : { email: 'failed', error: result.error ?? 'not accepted', link };
  }

  /** Changes the role of a member or an invitation; the last joined owner cannot be demoted. */
  changeRole(organizationId: string, id: string, role: Role, actor: Actor): Promise<MemberRow> {
    return this.inOrganization(organizationId, async (tx) => {
      const member = await this.accounts.findMember(organizationId, id, tx);
      if (!member) throw new AppError('not_found');
      if (member.role === role) return member;
      await this.assertNotLastOwner(
        tx,
        member,
        'role',
        'You cannot demote the only owner of the organization.',
      );
      await this.accounts.setMemberRole(id, role, tx);
      await this.record(tx, organizationId, actor, 'member.update', id, member.email, {
        role: { old: member.role, new: role },
      });
      return { ...member, role };
    });
  }

  /**
   * Removes a member or withdraws an invitation (its links stop working); the last joined owner
   * cannot be removed. Returns who it was.
   */
  async remove(organizationId: string, id: string, actor: Actor): Promise<MemberRow> {
    return this.inOrganization(organizationId, async (tx) => {
      const member = await this.accounts.findMember(organizationId, id, tx);
      if (!member) throw new AppError('not_found');
      await this.assertNotLastOwner(tx, member, 'id', 'Cannot remove the last owner.');
      await this.accounts.deleteMember(id, tx);
      await this.record(tx, organizationId, actor, 'member.delete', id, member.email, {
        email: { old: member.email, new: null },
        role: { old: member.role, new: null },
      });
      // Only members can be assignees: the CVEs they had in this organization's projects are
      // unassigned, each move audited like any other. And the API tokens they created stop
      // working: a removed owner's write token could otherwise invite them back.
      if (member.user_id) {
        await revokeTokensOfCreator({ tokens: this.tokens, audit: this.audit }, tx, {
          organizationId,
          userId: member.user_id,
          actor,
          why: `its creator ${member.email} was removed`,
        });
        const unassigned = await this.tracker.unassignUser(organizationId, member.user_id, tx);
        await this.audit.recordMany(
          unassigned.map((t) => ({
            organizationId,
            actor,
            action: 'tracker_entry.update',
            resourceType: 'tracker_entry',
            resourceId: t.cve_id,
            resourceName: `${t.project}/${t.cve_id}`,
            changes: { assignee: { old: member.email, new: null } },
          })),
          tx,
        );
      }
      return member;
    });
  }

  /** Runs `fn` in a transaction holding the organization's lock; not_found when it is gone. */
  private inOrganization<T>(
    organizationId: string,
    fn: (tx: Transaction<DB>, organizationName: string) => Promise<T>,
  ): Promise<T> {
    return this.db.transaction().execute(async (tx) => {
      const org = await this.accounts.lockOrganization(organizationId, tx);
      if (!org) throw new AppError('not_found');
      return fn(tx, org.name);
    });
  }

  private async assertNotLastOwner(
    tx: Transaction<DB>,
    member: MemberRow,
    field: string,
    message: string,
  ): Promise<void> {
    if (member.role !== 'owner' || member.date_joined === null) return;
    if ((await this.accounts.countJoinedOwners(member.organization_id, tx)) <= 1)
      throw validationError({ [field]: [message] });
  }

  private record(
    tx: Transaction<DB>,
    organizationId: string,
    actor: Actor,
    action: string,
    memberId: string,
    email: string,
    changes: Record<string, { old: unknown; new: unknown }>,
  ): Promise<void> {
    return this.audit.record(
      {
        organizationId,
        actor,
        action,
        resourceType: 'member',
        resourceId: memberId,
        resourceName: email,
        changes,
      },
      tx,
    );
  }
}
