/**
 * An organization's own settings: read it, rename it (audited), delete it (with everything it owns,
 * its audit log included: the caller logs the deletion, as nothing of the organization remains).
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AccountRepository } from '../db/account.repository.ts';
import { AuditRepository } from '../db/audit.repository.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';
import type { Actor } from '../domain/actor.ts';
import { AppError, validationError } from '../domain/errors.ts';
import { isReservedName, NAME_MESSAGES, ORGANIZATION_NAME } from '../domain/names.ts';
import { assertPageInRange, type PageRequest } from '../domain/paging.ts';

export interface OrganizationSummary {
  id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
  members_count: number;
  projects_count: number;
}

const nameTaken = () => validationError({ name: [NAME_MESSAGES.organization.taken] });

export class OrganizationService {
  private readonly accounts: AccountRepository;
  private readonly audit: AuditRepository;

  constructor(private readonly db: Kysely<DB>) {
    this.accounts = new AccountRepository(db);
    this.audit = new AuditRepository(db);
  }

  /** The organizations a token sees: its own, as a list of one. */
  async list(
    organizationId: string,
    page: PageRequest,
  ): Promise<{ count: number; items: OrganizationSummary[] }> {
    const org = await this.get(organizationId);
    assertPageInRange(page, 1);
    return { count: 1, items: page.page === 1 ? [org] : [] };
  }

  /** The organization with its joined-member and project counts. */
  async get(organizationId: string): Promise<OrganizationSummary> {
    const org = await this.accounts.organizationSummary(organizationId);
    if (!org) throw new AppError('not_found');
    return org;
  }

  /**
   * Renames the organization (name: a slug, unique). Renaming to the current name changes nothing and
   * records nothing.
   */
  async rename(organizationId: string, name: string, actor: Actor): Promise<OrganizationSummary> {
    if (!ORGANIZATION_NAME.test(name))
      throw validationError({ name: ['letters, digits and - only (1 to 100 characters)'] });
    if (isReservedName(name)) throw validationError({ name: [NAME_MESSAGES.organization.reserved] });
    try {
      await this.db.transaction().execute(async (tx) => {
        const org = await this.accounts.lockOrganization(organizationId, tx);
        if (!org) throw new AppError('not_found');
        if (org.name === name) return;
        if (await this.accounts.findOrganization(name, tx)) throw nameTaken();
        await this.accounts.renameOrganization(organizationId, name, tx);
        await this.audit.record(
          {
            organizationId,
            actor,
            action: 'organization.update',
            resourceType: 'organization',
            resourceId: organizationId,
            resourceName: name,
            changes: { name: { old: org.name, new: name } },
          },
          tx,
        );
      });
    } catch (err) {
      // Another organization took the name between the check and the update.
      if (isUniqueViolation(err)) throw nameTaken();
      throw err;
    }
    return this.get(organizationId);
  }

  /**
   * Deletes the organization and everything it owns (members, invitations, tokens, projects and their
   * tracker, notifications, automations, reports, the audit log). `confirmation` must repeat the
   * name. Returns what was deleted, for the caller's log line.
   */
  async delete(
    organizationId: string,
    confirmation: string,
    actor: Actor,
  ): Promise<{ id: string; name: string; actor: Actor }> {
    return this.db.transaction().execute(async (tx) => {
      const org = await this.accounts.lockOrganization(organizationId, tx);
      if (!org) throw new AppError('not_found');
      if (confirmation.trim() !== org.name)
        throw validationError({ confirm: [`type the organization's name, ${org.name}, to delete it`] });
      await this.accounts.deleteOrganization(organizationId, tx);
      return { id: org.id, name: org.name, actor };
    });
  }
}
