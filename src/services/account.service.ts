/** Users and organizations: created from the CLI (first admin, first organization) and the web UI. */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AccountRepository } from '../db/account.repository.ts';
import { AuditRepository } from '../db/audit.repository.ts';
import type { Actor } from '../domain/actor.ts';
import { AppError, validationError } from '../domain/errors.ts';
import { EMAIL, normalizeEmail, ORGANIZATION_NAME, USERNAME } from '../domain/names.ts';
import { hashPassword } from '../domain/passwords.ts';

export class AccountService {
  private readonly accounts: AccountRepository;
  private readonly audit: AuditRepository;

  constructor(private readonly db: Kysely<DB>) {
    this.accounts = new AccountRepository(db);
    this.audit = new AuditRepository(db);
  }

  async createUser(input: { username: string; email: string; password: string; isAdmin?: boolean }) {
    const details: Record<string, string[]> = {};
    if (!USERNAME.test(input.username))
      details.username = ['letters, digits and _ . @ + - only, at most 150 characters'];
    if (!EMAIL.test(input.email)) details.email = ['not an email address'];
    if (input.password.length < 8) details.password = ['at least 8 characters'];
    if (Object.keys(details).length) throw validationError(details);
    const email = normalizeEmail(input.email);
    if (await this.accounts.findUserByUsername(input.username))
      throw validationError({ username: ['already taken'] });
    if (await this.accounts.findUserByEmail(email)) throw validationError({ email: ['already registered'] });
    return this.accounts.createUser({
      username: input.username,
      email,
      passwordHash: await hashPassword(input.password),
      isAdmin: input.isAdmin ?? false,
    });
  }

  /** Creates an organization with `ownerUsername` as its first owner. */
  async createOrganization(name: string, ownerUsername: string) {
    if (!ORGANIZATION_NAME.test(name))
      throw validationError({ name: ['letters, digits and - only (at most 100)'] });
    const owner = await this.accounts.findUserByUsername(ownerUsername);
    if (!owner) throw validationError({ owner: [`no user named "${ownerUsername}"`] });
    if (await this.accounts.findOrganization(name)) throw validationError({ name: ['already taken'] });
    const actor: Actor = { type: 'user', id: owner.id, name: owner.username };
    return this.db.transaction().execute(async (tx) => {
      const org = await this.accounts.createOrganization(name, tx);
      await this.accounts.addMembership(
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
        },
        tx,
      );
      return org;
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
}
