/**
 * What a user sees through their memberships (API v1): the organizations they have joined, and the
 * subscriptions of those organizations' projects. Invitations not yet accepted give nothing.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

export class UserScopeRepository {
  constructor(private readonly db: Kysely<DB>) {}

  private joined(userId: string) {
    return this.db
      .selectFrom('organization as o')
      .innerJoin('membership as m', 'm.organization_id', 'o.id')
      .where('m.user_id', '=', userId)
      .where('m.date_joined', 'is not', null);
  }

  async countOrganizations(userId: string): Promise<number> {
    const row = await this.joined(userId)
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    return row.n;
  }

  /** One page of the user's organizations, by name. */
  listOrganizations(userId: string, limit: number, offset: number) {
    return this.joined(userId)
      .select(['o.id', 'o.name', 'o.created_at', 'o.updated_at'])
      .orderBy('o.name')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /** The organization named `name` if the user has joined it. */
  findOrganization(userId: string, name: string) {
    return this.joined(userId)
      .select(['o.id', 'o.name', 'o.created_at', 'o.updated_at'])
      .where('o.name', '=', name)
      .executeTakeFirst();
  }

  /** The union of the subscribed vendor keys of every project of the user's organizations, sorted. */
  async subscriptionKeys(userId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('project_subscription as s')
      .innerJoin('project as p', 'p.id', 's.project_id')
      .innerJoin('membership as m', 'm.organization_id', 'p.organization_id')
      .where('m.user_id', '=', userId)
      .where('m.date_joined', 'is not', null)
      .select('s.vendor_key')
      .distinct()
      .orderBy('s.vendor_key')
      .execute();
    return rows.map((r) => r.vendor_key);
  }

  /** The projects of the organizations the user has joined. */
  async projectIds(userId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('project as p')
      .innerJoin('membership as m', 'm.organization_id', 'p.organization_id')
      .where('m.user_id', '=', userId)
      .where('m.date_joined', 'is not', null)
      .select('p.id')
      .execute();
    return rows.map((r) => r.id);
  }
}
