/** Users, organizations and memberships. */
import { sql, type InferResult, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';
import { PreparedQuery } from './prepared.ts';
import type { MemberRow, Role } from '../domain/member.ts';
import type { DateFormat, Theme } from '../domain/user.ts';

function organizationSummaryQuery(db: Kysely<DB>) {
  return db
    .selectFrom('organization as o')
    .select([
      'o.id',
      'o.name',
      'o.created_at',
      'o.updated_at',
      sql<number>`(SELECT count(*)::int FROM membership m WHERE m.organization_id = o.id AND m.date_joined IS NOT NULL)`.as(
        'members_count',
      ),
      sql<number>`(SELECT count(*)::int FROM project p WHERE p.organization_id = o.id)`.as('projects_count'),
    ])
    .where('o.id', '=', '');
}

export class AccountRepository {
  private readonly summaryById: PreparedQuery<
    InferResult<ReturnType<typeof organizationSummaryQuery>>[number],
    [organizationId: string]
  >;

  constructor(private readonly db: Kysely<DB>) {
    this.summaryById = new PreparedQuery(db, organizationSummaryQuery(db));
  }

  createUser(
    values: { username: string; email: string; passwordHash: string; isAdmin: boolean },
    tx: Kysely<DB> | Transaction<DB> = this.db,
  ) {
    return tx
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

  async setPasswordHash(
    userId: string,
    passwordHash: string,
    tx: Kysely<DB> | Transaction<DB> = this.db,
  ): Promise<boolean> {
    const result = await tx
      .updateTable('app_user')
      .set({ password_hash: passwordHash, updated_at: sql`now()` })
      .where('id', '=', userId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Sets a user's display preferences. */
  async updateSettings(
    userId: string,
    values: { timeZone: string; dateFormat: DateFormat; theme: Theme },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('app_user')
      .set({
        time_zone: values.timeZone,
        date_format: values.dateFormat,
        theme: values.theme,
        updated_at: sql`now()`,
      })
      .where('id', '=', userId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Disables the account (`disabled: true`) or enables it again; false when it already was so (or
   * there is no such user).
   */
  async setDisabled(userId: string, disabled: boolean, tx: Kysely<DB> | Transaction<DB> = this.db) {
    const result = await tx
      .updateTable('app_user')
      .set({ disabled_at: disabled ? sql<Date>`now()` : null, updated_at: sql`now()` })
      .where('id', '=', userId)
      .where('disabled_at', disabled ? 'is' : 'is not', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Every user, by username, with whether two-factor sign-in is on and whether the account is disabled (never a secret or a hash). */
  listUsers() {
    return this.db
      .selectFrom('app_user')
      .select(['id', 'username', 'email', 'is_admin', 'created_at', 'totp_enabled_at', 'disabled_at'])
      .orderBy('username')
      .execute();
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

  /** True once any user exists. */
  async anyUser(): Promise<boolean> {
    return (await this.db.selectFrom('app_user').select('id').limit(1).executeTakeFirst()) !== undefined;
  }

  /** The organizations a user has joined, by name, with their role. */
  organizationsOfUser(userId: string): Promise<{ organizationId: string; name: string; role: Role }[]> {
    return this.db
      .selectFrom('membership as m')
      .innerJoin('organization as o', 'o.id', 'm.organization_id')
      .select(['o.id as organizationId', 'o.name', 'm.role'])
      .where('m.user_id', '=', userId)
      .where('m.date_joined', 'is not', null)
      .orderBy('o.name')
      .execute();
  }

  findUserById(id: string) {
    return this.db.selectFrom('app_user').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findUserByEmail(email: string, tx: Kysely<DB> | Transaction<DB> = this.db) {
    return tx.selectFrom('app_user').selectAll().where('email', '=', email).executeTakeFirst();
  }

  createOrganization(name: string, tx: Kysely<DB> | Transaction<DB> = this.db) {
    return tx
      .insertInto('organization')
      .values({ name })
      .returning(['id', 'name', 'created_at', 'updated_at'])
      .executeTakeFirstOrThrow();
  }

  findOrganization(name: string, tx: Kysely<DB> | Transaction<DB> = this.db) {
    return tx.selectFrom('organization').selectAll().where('name', '=', name).executeTakeFirst();
  }

  findOrganizationById(id: string) {
    return this.db.selectFrom('organization').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The organization with its member and project counts. */
  /** The organization with its joined-member and project counts (a prepared statement, see prepared.ts). */
  organizationSummary(id: string) {
    return this.summaryById.executeTakeFirst(id);
  }

  /** Locks the organization row until the transaction ends: membership changes take turns per organization. */
  lockOrganization(id: string, tx: Transaction<DB>) {
    return tx.selectFrom('organization').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  }

  renameOrganization(id: string, name: string, tx: Kysely<DB> | Transaction<DB> = this.db) {
    return tx
      .updateTable('organization')
      .set({ name, updated_at: sql`now()` })
      .where('id', '=', id)
      .returning(['id', 'name', 'created_at', 'updated_at'])
      .executeTakeFirst();
  }

  /** Deletes the organization and, by cascade, everything it owns (its audit log too). */
  async deleteOrganization(id: string, tx: Kysely<DB> | Transaction<DB> = this.db): Promise<boolean> {
    const result = await tx.deleteFrom('organization').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
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

  private members(tx: Kysely<DB> | Transaction<DB>) {
    return tx
      .selectFrom('membership as m')
      .leftJoin('app_user as u', 'u.id', 'm.user_id')
      .select([
        'm.id',
        'm.organization_id',
        'm.user_id',
        'm.email',
        'u.username',
        'm.role',
        'm.date_invited',
        'm.date_joined',
      ]);
  }

  /** Every membership of the organization, invitations included. */
  async countMembers(organizationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('membership')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  /** Members and invitations in the order they were invited (the founding owner first). */
  listMembers(organizationId: string, limit: number, offset: number): Promise<MemberRow[]> {
    return this.members(this.db)
      .where('m.organization_id', '=', organizationId)
      .orderBy('m.date_invited')
      .orderBy('m.id')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  findMember(
    organizationId: string,
    id: string,
    tx: Kysely<DB> | Transaction<DB> = this.db,
  ): Promise<MemberRow | undefined> {
    return this.members(tx)
      .where('m.organization_id', '=', organizationId)
      .where('m.id', '=', id)
      .executeTakeFirst();
  }

  /** The membership of `email`, or of the user who has that email, in the organization. */
  findMemberByEmailOrUser(
    organizationId: string,
    email: string,
    userId: string | null,
    tx: Kysely<DB> | Transaction<DB> = this.db,
  ): Promise<MemberRow | undefined> {
    return this.members(tx)
      .where('m.organization_id', '=', organizationId)
      .where((eb) =>
        userId === null
          ? eb('m.email', '=', email)
          : eb.or([eb('m.email', '=', email), eb('m.user_id', '=', userId)]),
      )
      .orderBy('m.date_joined', (ob) => ob.asc().nullsLast())
      .executeTakeFirst();
  }

  /** The joined membership of the user in the organization (pending invitations do not count). */
  findJoinedMembership(organizationId: string, userId: string): Promise<MemberRow | undefined> {
    return this.members(this.db)
      .where('m.organization_id', '=', organizationId)
      .where('m.user_id', '=', userId)
      .where('m.date_joined', 'is not', null)
      .executeTakeFirst();
  }

  /** The addresses of every organization's joined owners whose account is enabled, each once. */
  async ownerAddresses(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('membership as m')
      .innerJoin('app_user as u', 'u.id', 'm.user_id')
      .select('u.email')
      .distinct()
      .where('m.role', '=', 'owner')
      .where('m.date_joined', 'is not', null)
      .where('u.disabled_at', 'is', null)
      .orderBy('u.email')
      .execute();
    return rows.map((r) => r.email);
  }

  async countJoinedOwners(organizationId: string, tx: Transaction<DB>): Promise<number> {
    const row = await tx
      .selectFrom('membership')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('organization_id', '=', organizationId)
      .where('role', '=', 'owner')
      .where('date_joined', 'is not', null)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  async setMemberRole(id: string, role: Role, tx: Transaction<DB>): Promise<void> {
    await tx
      .updateTable('membership')
      .set({ role, updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
  }

  /** Turns an invitation into a membership of `userId`. */
  async joinMembership(id: string, userId: string, tx: Transaction<DB>): Promise<void> {
    await tx
      .updateTable('membership')
      .set({ user_id: userId, date_joined: sql`now()`, updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
  }

  async deleteMember(id: string, tx: Transaction<DB>): Promise<void> {
    await tx.deleteFrom('membership').where('id', '=', id).execute();
  }
}
