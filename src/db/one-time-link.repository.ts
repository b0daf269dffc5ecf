/** One-time links (first administrator, password reset, invitation): only a hash of each secret is stored. */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';
import type { OneTimeLinkPurpose } from '../domain/user.ts';

export class OneTimeLinkRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async create(
    values: {
      purpose: OneTimeLinkPurpose;
      tokenHash: string;
      expiresAt: Date;
      userId?: string;
      membershipId?: string;
    },
    tx: Kysely<DB> | Transaction<DB> = this.db,
  ): Promise<void> {
    await tx
      .insertInto('one_time_link')
      .values({
        purpose: values.purpose,
        token_hash: values.tokenHash,
        expires_at: values.expiresAt,
        user_id: values.userId ?? null,
        membership_id: values.membershipId ?? null,
      })
      .execute();
  }

  /** The unused, unexpired link with this hash and purpose. */
  findUsable(purpose: OneTimeLinkPurpose, tokenHash: string, tx: Kysely<DB> | Transaction<DB> = this.db) {
    return tx
      .selectFrom('one_time_link')
      .selectAll()
      .where('purpose', '=', purpose)
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .executeTakeFirst();
  }

  /** Marks the link used; false when another request used it first. */
  async use(id: string, tx: Kysely<DB> | Transaction<DB> = this.db): Promise<boolean> {
    const result = await tx
      .updateTable('one_time_link')
      .set({ used_at: sql`now()` })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Makes a used link usable again (its use created nothing). */
  async release(id: string): Promise<void> {
    await this.db.updateTable('one_time_link').set({ used_at: null }).where('id', '=', id).execute();
  }

  /** Drops the unused links of a purpose (for a user, when given): a new link replaces them. */
  async revoke(purpose: OneTimeLinkPurpose, userId?: string): Promise<void> {
    let query = this.db
      .deleteFrom('one_time_link')
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null);
    if (userId) query = query.where('user_id', '=', userId);
    await query.execute();
  }

  /** Drops the unused invitation links of a membership (a new one replaces them). */
  async revokeForMembership(membershipId: string, tx: Kysely<DB> | Transaction<DB> = this.db): Promise<void> {
    await tx
      .deleteFrom('one_time_link')
      .where('purpose', '=', 'invitation')
      .where('membership_id', '=', membershipId)
      .where('used_at', 'is', null)
      .execute();
  }

  /**
   * The usable invitation link with this hash, with its still pending membership and organization;
   * undefined when the link is unknown, used or expired, or the invitation was withdrawn or accepted.
   */
  findPendingInvitation(tokenHash: string) {
    return this.db
      .selectFrom('one_time_link as l')
      .innerJoin('membership as m', 'm.id', 'l.membership_id')
      .innerJoin('organization as o', 'o.id', 'm.organization_id')
      .select([
        'l.id as link_id',
        'm.id as membership_id',
        'm.email',
        'm.role',
        'o.id as organization_id',
        'o.name as organization_name',
        'l.expires_at',
      ])
      .where('l.purpose', '=', 'invitation')
      .where('l.token_hash', '=', tokenHash)
      .where('l.used_at', 'is', null)
      .where('l.expires_at', '>', sql<Date>`now()`)
      .where('m.date_joined', 'is', null)
      .executeTakeFirst();
  }
}
