/** Each user's TOTP state and recovery codes (hashes only). */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';

type Db = Kysely<DB> | Transaction<DB>;

export class TwoFactorRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Starts a setup: the new sealed secret replaces any earlier one; two-factor stays off until confirmed. */
  async beginSetup(userId: string, sealedSecret: string): Promise<void> {
    await this.db
      .updateTable('app_user')
      .set({ totp_secret: sealedSecret, totp_enabled_at: null, totp_last_step: null })
      .where('id', '=', userId)
      .where('totp_enabled_at', 'is', null)
      .execute();
  }

  /** Turns two-factor on with the secret being set up, the code's step spent and new recovery codes. */
  async enable(userId: string, step: number, codeHashes: string[]): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const result = await tx
        .updateTable('app_user')
        .set({ totp_enabled_at: sql<Date>`now()`, totp_last_step: step })
        .where('id', '=', userId)
        .where('totp_enabled_at', 'is', null)
        .where('totp_secret', 'is not', null)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      await this.replaceRecoveryCodes(userId, codeHashes, tx);
      return true;
    });
  }

  /** Turns two-factor off: the secret and every recovery code are deleted. */
  async disable(userId: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const result = await tx
        .updateTable('app_user')
        .set({ totp_secret: null, totp_enabled_at: null, totp_last_step: null })
        .where('id', '=', userId)
        .where('totp_secret', 'is not', null)
        .executeTakeFirst();
      await tx.deleteFrom('recovery_code').where('user_id', '=', userId).execute();
      return result.numUpdatedRows > 0n;
    });
  }

  /**
   * Records `step` as the last accepted: false when a code of this step (or a later one) was already
   * accepted, so the same code never signs in twice, even from two requests at once.
   */
  async spendStep(userId: string, step: number): Promise<boolean> {
    const result = await this.db
      .updateTable('app_user')
      .set({ totp_last_step: step })
      .where('id', '=', userId)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async replaceRecoveryCodes(userId: string, codeHashes: string[], tx: Db = this.db): Promise<void> {
    await tx.deleteFrom('recovery_code').where('user_id', '=', userId).execute();
    if (codeHashes.length)
      await tx
        .insertInto('recovery_code')
        .values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash })))
        .execute();
  }

  /** Spends the unused recovery code with this hash; false when there is none. */
  async useRecoveryCode(userId: string, codeHash: string): Promise<boolean> {
    const result = await this.db
      .updateTable('recovery_code')
      .set({ used_at: sql<Date>`now()` })
      .where('user_id', '=', userId)
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async unusedRecoveryCodes(userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('recovery_code')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .executeTakeFirstOrThrow();
    return row.n;
  }
}
