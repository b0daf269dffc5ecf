/** Account email sent (migration 0036), counted per sender and per recipient by the account-mail limit. */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** How many emails matched since a time, and when the oldest of them was sent. */
export interface MailCount {
  count: number;
  oldest: Date | null;
}

export class AccountMailRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * Makes the callers of the enclosing transaction take turns (a transaction-scoped advisory lock),
   * so that two emails counted at once cannot both pass the last place of a budget.
   */
  async takeTurn(): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(hashtext('vulntrack.account_mail'))`.execute(this.db);
  }

  /** Emails to `recipient` (lower-cased) since `since`. */
  countToRecipient(recipient: string, since: Date): Promise<MailCount> {
    return this.count('recipient', recipient, since);
  }

  /** Emails asked for by `sender` since `since`. */
  countFromSender(sender: string, since: Date): Promise<MailCount> {
    return this.count('sender', sender, since);
  }

  async record(values: { kind: string; sender: string | null; recipient: string; at: Date }): Promise<void> {
    await this.db
      .insertInto('account_mail')
      .values({
        kind: values.kind,
        sender: values.sender,
        recipient: values.recipient,
        created_at: values.at,
      })
      .execute();
  }

  /** Forgets emails sent before `before` (no budget looks that far back). */
  async deleteBefore(before: Date): Promise<void> {
    await this.db.deleteFrom('account_mail').where('created_at', '<', before).execute();
  }

  private async count(column: 'sender' | 'recipient', value: string, since: Date): Promise<MailCount> {
    const row = await this.db
      .selectFrom('account_mail')
      .select((eb) => [eb.fn.countAll<string>().as('count'), eb.fn.min('created_at').as('oldest')])
      .where(column, '=', value)
      .where('created_at', '>=', since)
      .executeTakeFirstOrThrow();
    return { count: Number(row.count), oldest: row.oldest ? new Date(row.oldest) : null };
  }
}
