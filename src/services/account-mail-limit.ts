/**
 * The one limit on account email: invitations (and their resends), email-notification confirmations
 * and password resets. Each email is counted per sender (whoever asked: a user, or an API token) in
 * a sliding hour and per recipient address in a sliding day; past either budget the email is not
 * sent. Counted in the database (`account_mail`, migration 0036) so the budgets survive a restart and
 * hold across processes; a transaction-scoped lock makes concurrent requests take turns.
 *
 * `reserve` is called inside the transaction that makes the email (the invitation, the queued
 * confirmation), so a refused or failed request counts nothing.
 */
import type { Kysely } from 'kysely';
import { AccountMailRepository } from '../db/account-mail.repository.ts';
import type { DB } from '../db/schema.ts';
import type { Actor } from '../domain/actor.ts';
import { RetryLaterError } from '../domain/errors.ts';
import { normalizeEmail } from '../domain/names.ts';

export type AccountMailKind = 'invitation' | 'email_confirmation' | 'password_reset';

export interface AccountMailLimits {
  /** Emails one sender may ask for in an hour (ACCOUNT_MAIL_PER_SENDER_PER_HOUR); 0: no limit. */
  perSenderPerHour: number;
  /** Emails one address may receive in a day (ACCOUNT_MAIL_PER_RECIPIENT_PER_DAY); 0: no limit. */
  perRecipientPerDay: number;
}

export const DEFAULT_ACCOUNT_MAIL_LIMITS: AccountMailLimits = { perSenderPerHour: 20, perRecipientPerDay: 5 };

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

export interface AccountMail {
  kind: AccountMailKind;
  /** Who asked; undefined for a password reset (no one is signed in) or the system. */
  sender: Actor | undefined;
  recipient: string;
}

export class AccountMailLimit {
  constructor(
    private readonly limits: AccountMailLimits = DEFAULT_ACCOUNT_MAIL_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts one email in `tx`, or throws 429 `rate_limited` (a RetryLaterError saying when to try
   * again) when its sender or its recipient has spent the budget. Call it in the transaction that
   * makes the email.
   */
  async reserve(tx: Kysely<DB>, mail: AccountMail): Promise<void> {
    const refusal = await this.check(tx, mail);
    if (refusal) throw refusal;
  }

  /** As `reserve`, but says false instead of throwing (a password reset must not tell who exists). */
  async tryReserve(tx: Kysely<DB>, mail: AccountMail): Promise<boolean> {
    return (await this.check(tx, mail)) === undefined;
  }

  private async check(tx: Kysely<DB>, mail: AccountMail): Promise<RetryLaterError | undefined> {
    const mails = new AccountMailRepository(tx);
    const now = this.now();
    const recipient = normalizeEmail(mail.recipient);
    const sender = senderKey(mail.sender);
    await mails.takeTurn();
    await mails.deleteBefore(new Date(now - DAY_MS));
    const { perRecipientPerDay, perSenderPerHour } = this.limits;
    if (perRecipientPerDay > 0) {
      const sent = await mails.countToRecipient(recipient, new Date(now - DAY_MS));
      if (sent.count >= perRecipientPerDay)
        return refused(
          secondsUntil(sent.oldest, DAY_MS, now),
          `${recipient} has been sent ${sent.count} account emails in the last 24 hours, the most this server sends to one address.`,
        );
    }
    if (sender && perSenderPerHour > 0) {
      const sent = await mails.countFromSender(sender, new Date(now - HOUR_MS));
      if (sent.count >= perSenderPerHour)
        return refused(
          secondsUntil(sent.oldest, HOUR_MS, now),
          `You have sent ${sent.count} invitation or confirmation emails in the last hour, the most this server allows.`,
        );
    }
    await mails.record({ kind: mail.kind, sender, recipient, at: new Date(now) });
    return undefined;
  }
}

/** Who asked, as counted: a user or a token; nobody for the system or an anonymous request. */
function senderKey(actor: Actor | undefined): string | null {
  if (!actor || actor.type === 'system' || !actor.id) return null;
  return `${actor.type}:${actor.id}`;
}

/** Whole seconds until the oldest email counted leaves the window (at least 1). */
function secondsUntil(oldest: Date | null, windowMs: number, now: number): number {
  return Math.max(1, Math.ceil(((oldest?.getTime() ?? now) + windowMs - now) / 1000));
}

function refused(seconds: number, why: string): RetryLaterError {
  return new RetryLaterError(seconds, `${why} Try again ${inWords(seconds)}.`);
}

/** `in 5 minutes`, `in 2 hours`, `in 1 hour and 10 minutes`: when, in words a person reads. */
export function inWords(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  if (minutes < 60) return `in ${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  const h = `${hours} hour${hours === 1 ? '' : 's'}`;
  return rest ? `in ${h} and ${rest} minute${rest === 1 ? '' : 's'}` : `in ${h}`;
}
