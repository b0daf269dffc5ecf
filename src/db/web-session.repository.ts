/** The web UI's server-side sessions: one row per signed-in browser. */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

export class WebSessionRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async find(id: string): Promise<Record<string, unknown> | undefined> {
    const row = await this.db
      .selectFrom('web_session')
      .select('data')
      .where('id', '=', id)
      .where('expires_at', '>', sql<Date>`now()`)
      .executeTakeFirst();
    return row?.data;
  }

  async save(
    id: string,
    userId: string | null,
    data: Record<string, unknown>,
    expiresAt: Date,
  ): Promise<void> {
    const json = JSON.stringify(data);
    await this.db
      .insertInto('web_session')
      .values({ id, user_id: userId, data: json, expires_at: expiresAt })
      .onConflict((oc) => oc.column('id').doUpdateSet({ user_id: userId, data: json, expires_at: expiresAt }))
      .execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('web_session').where('id', '=', id).execute();
  }

  /** Ends every session of a user but `keep` (the one that asked, when it should stay signed in). */
  async deleteOfUser(userId: string, keep?: string): Promise<void> {
    let query = this.db.deleteFrom('web_session').where('user_id', '=', userId);
    if (keep) query = query.where('id', '!=', keep);
    await query.execute();
  }

  async deleteExpired(): Promise<number> {
    const result = await this.db
      .deleteFrom('web_session')
      .where('expires_at', '<=', sql<Date>`now()`)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
