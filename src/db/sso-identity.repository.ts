/** Users' identities at an OpenID Connect provider, by (issuer, subject) (migration 0040). */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';

export class SsoIdentityRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** The user linked to the provider's subject, if any. */
  async findUser(issuer: string, subject: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('sso_identity')
      .select('user_id')
      .where('issuer', '=', issuer)
      .where('subject', '=', subject)
      .executeTakeFirst();
    return row?.user_id;
  }

  /** Whether the user has an identity at this issuer (linked to another subject, say). */
  async hasIdentity(userId: string, issuer: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('sso_identity')
      .select('subject')
      .where('user_id', '=', userId)
      .where('issuer', '=', issuer)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Links the subject to the user; false when either is linked already (nothing changes). */
  async link(
    issuer: string,
    subject: string,
    userId: string,
    tx: Kysely<DB> | Transaction<DB> = this.db,
  ): Promise<boolean> {
    const inserted = await tx
      .insertInto('sso_identity')
      .values({ issuer, subject, user_id: userId, last_sign_in_at: sql<Date>`now()` })
      .onConflict((oc) => oc.doNothing())
      .returning('user_id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  async touch(issuer: string, subject: string): Promise<void> {
    await this.db
      .updateTable('sso_identity')
      .set({ last_sign_in_at: sql<Date>`now()` })
      .where('issuer', '=', issuer)
      .where('subject', '=', subject)
      .execute();
  }

  /** Sets or clears `app_user.sso_link_allowed`; false when there is no such user. */
  async allowLinkByEmail(
    userId: string,
    allowed: boolean,
    tx: Kysely<DB> | Transaction<DB> = this.db,
  ): Promise<boolean> {
    const result = await tx
      .updateTable('app_user')
      .set({ sso_link_allowed: allowed })
      .where('id', '=', userId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
