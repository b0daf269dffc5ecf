/** One-time links (first administrator, password reset, invitation): only a hash of each secret is stored. */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';
import type { OneTimeLinkPurpose } from '../domain/user.ts';

export class OneTimeLinkRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async create(values: {
    purpose: OneTimeLinkPurpose;
    tokenHash: string;
    expiresAt: Date;
    userId?: string;
    membershipId?: string;
  }): Promise<void> {
    await this.db
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

  /** Drops the unused links of a purpose (for a user, when given): a new link replaces them. */
  async revoke(purpose: OneTimeLinkPurpose, userId?: string): Promise<void> {
    let query = this.db
      .deleteFrom('one_time_link')
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null);
    if (userId) query = query.where('user_id', '=', userId);
    await query.execute();
  }
}
