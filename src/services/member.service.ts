/**
 * Members of an organization: list, invite, change a role, remove. Every change is audited, and an
 * organization always keeps at least one joined owner. Changes to one organization's members take
 * turns (the organization row is locked), so two concurrent demotions cannot both pass that check.
 */
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AccountRepository } from '../db/account.repository.ts';
import type { MemberRow, Role } from '../domain/member.ts';
import { AuditRepository } from '../db/audit.repository.ts';
import { TrackerRepository } from '../db/tracker.repository.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';
import type { Actor } from '../domain/actor.ts';
import { AppError, validationError } from '../domain/errors.ts';
import { EMAIL, normalizeEmail } from '../domain/names.ts';
import { assertPageInRange, offsetOf, type PageRequest } from '../domain/paging.ts';

// OpenCVE 3.1's sentences, word for word (scripts written against it may compare them).
const ALREADY_MEMBER = 'Member already exist';
const ALREADY_INVITED = 'An invitation has already been sent to this email address';
const alreadyMember = (joined = true) =>
  validationError({ email: [joined ? ALREADY_MEMBER : ALREADY_INVITED] });

export class MemberService {
  private readonly accounts: AccountRepository;
  private readonly audit: AuditRepository;
  private readonly tracker: TrackerRepository;

  constructor(private readonly db: Kysely<DB>) {
    this.accounts = new AccountRepository(db);
    this.audit = new AuditRepository(db);
    this.tracker = new TrackerRepository(db);
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

  /**
   * Invites `email` with `role` (default `member`). The membership is pending until the invited user
   * accepts it (AccountService.acceptInvitation), also when a user with that email already exists.
   */
  async invite(
    organizationId: string,
    input: { email: string; role?: Role },
    actor: Actor,
  ): Promise<MemberRow> {
    if (!EMAIL.test(input.email.trim())) throw validationError({ email: ['not an email address'] });
    const email = normalizeEmail(input.email);
    const role = input.role ?? 'member';
    try {
      return await this.inOrganization(organizationId, async (tx) => {
        const user = await this.accounts.findUserByEmail(email, tx);
        const existing = await this.accounts.findMemberByEmailOrUser(
          organizationId,
          email,
          user?.id ?? null,
          tx,
        );
        if (existing) throw alreadyMember(existing.date_joined !== null);
        const { id } = await this.accounts.addMembership(
          { organizationId, userId: user?.id ?? null, email, role, joined: false },
          tx,
        );
        await this.record(tx, organizationId, actor, 'member.create', id, email, {
          email: { old: null, new: email },
          role: { old: null, new: role },
        });
        return (await this.accounts.findMember(organizationId, id, tx))!;
      });
    } catch (err) {
      // A concurrent invitation of the same email on PostgreSQL.
      if (isUniqueViolation(err)) throw alreadyMember(false);
      throw err;
    }
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

  /** Removes a member or withdraws an invitation; the last joined owner cannot be removed. */
  async remove(organizationId: string, id: string, actor: Actor): Promise<void> {
    await this.inOrganization(organizationId, async (tx) => {
      const member = await this.accounts.findMember(organizationId, id, tx);
      if (!member) throw new AppError('not_found');
      await this.assertNotLastOwner(tx, member, 'id', 'Cannot remove the last owner.');
      await this.accounts.deleteMember(id, tx);
      await this.record(tx, organizationId, actor, 'member.delete', id, member.email, {
        email: { old: member.email, new: null },
        role: { old: member.role, new: null },
      });
      // Only members can be assignees: the CVEs they had in this organization's projects are
      // unassigned, each move audited like any other.
      if (member.user_id) {
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
    });
  }

  /** Runs `fn` in a transaction holding the organization's lock; not_found when it is gone. */
  private inOrganization<T>(organizationId: string, fn: (tx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (tx) => {
      if (!(await this.accounts.lockOrganization(organizationId, tx))) throw new AppError('not_found');
      return fn(tx);
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
