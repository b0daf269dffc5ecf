/** Users, organizations and memberships. */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';

export type Role = 'owner' | 'member';

export class AccountRepository {
  constructor(private readonly db: Kysely<DB>) {}

  createUser(values: { username: string; email: string; passwordHash: string; isAdmin: boolean }) {
    return this.db
      .insertInto('app_user')
      .values({
        username: values.username,
        email: values.email,
        password_hash: values.passwordHash,
        is_admin: values.isAdmin,
      })
      .returning(['id', 'username', 'email', 'is_admin', 'created_at'])
      .executeTakeFirstOrThrow();
  }

  findUserByUsername(username: string) {
    return this.db.selectFrom('app_user').selectAll().where('username', '=', username).executeTakeFirst();
  }

  findUserByLogin(login: string) {
    return this.db
      .selectFrom('app_user')
      .selectAll()
      .where((eb) => eb.or([eb('username', '=', login), eb('email', '=', login.toLowerCase())]))
      .executeTakeFirst();
  }

  findUserByEmail(email: string) {
    return this.db.selectFrom('app_user').selectAll().where('email', '=', email).executeTakeFirst();
  }

  createOrganization(name: string, tx: Kysely<DB> | Transaction<DB> = this.db) {
    return tx
      .insertInto('organization')
      .values({ name })
      .returning(['id', 'name', 'created_at', 'updated_at'])
      .executeTakeFirstOrThrow();
  }

  findOrganization(name: string) {
    return this.db.selectFrom('organization').selectAll().where('name', '=', name).executeTakeFirst();
  }

  findOrganizationById(id: string) {
    return this.db.selectFrom('organization').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The organization with its member and project counts. */
  organizationSummary(id: string) {
    return this.db
      .selectFrom('organization as o')
      .select([
        'o.id',
        'o.name',
        'o.created_at',
        'o.updated_at',
        sql<number>`(SELECT count(*)::int FROM membership m WHERE m.organization_id = o.id AND m.date_joined IS NOT NULL)`.as(
          'members_count',
        ),
        sql<number>`(SELECT count(*)::int FROM project p WHERE p.organization_id = o.id)`.as(
          'projects_count',
        ),
      ])
      .where('o.id', '=', id)
      .executeTakeFirst();
  }

  renameOrganization(id: string, name: string) {
    return this.db
      .updateTable('organization')
      .set({ name, updated_at: sql`now()` })
      .where('id', '=', id)
      .returning(['id', 'name'])
      .executeTakeFirst();
  }

  addMembership(
    values: { organizationId: string; userId: string | null; email: string; role: Role; joined: boolean },
    tx: Kysely<DB> | Transaction<DB> = this.db,
  ) {
    return tx
      .insertInto('membership')
      .values({
        organization_id: values.organizationId,
        user_id: values.userId,
        email: values.email,
        role: values.role,
        date_joined: values.joined ? sql<Date>`now()` : null,
      })
      .returning(['id'])
      .executeTakeFirstOrThrow();
  }
}
