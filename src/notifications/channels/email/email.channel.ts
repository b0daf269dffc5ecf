/**
 * The email channel: the payload as an email over SMTP (SMTP_URL), to one address that confirmed it
 * wants them (the double opt-in is NotificationService's; the status is a column of the
 * notification). Configuration `{email}`; the token of the confirmation and unsubscribe links is
 * sealed.
 */
import { Type } from 'typebox';
import { EMAIL, normalizeEmail } from '../../../domain/names.ts';
import { refused, type Channel } from '../../channel.ts';
import { clip } from '../../message-summary.ts';
import { payloadValue } from '../../payload.ts';
import { emailMessage } from './email-message.ts';
import { createEmailSender, type EmailSender } from './email-sender.ts';

export interface EmailTarget {
  to: string;
  unsubscribeUrl: string;
}

/** The confirmation or unsubscribe link of an address (pages of `src/api/email-links.routes.ts`). */
export function emailLink(baseUrl: string, page: 'confirm' | 'unsubscribe', token: string): string {
  return `${baseUrl}/notifications/${page}?token=${token}`;
}

export const emailChannel: Channel<EmailTarget> = {
  configuration: Type.Object({
    email: Type.String({ maxLength: 254, description: 'email: the recipient.' }),
  }),
  shown: {
    email: Type.String(),
    // From the notification's email_status column, not from the configuration.
    status: Type.Union(
      [Type.Literal('confirmed'), Type.Literal('pending'), Type.Literal('unsubscribed'), Type.Null()],
      { description: 'Email: addresses outside the organization must confirm (double opt-in).' },
    ),
  },
  configure(input, problems) {
    const email = input.email === undefined ? '' : normalizeEmail(String(input.email));
    if (!EMAIL.test(email) || email.length > 254) problems.push('email must be an email address');
    return { configuration: { email }, secrets: {} };
  },
  target: ({ configuration, secrets }, baseUrl) => ({
    to: String(configuration.email),
    unsubscribeUrl: emailLink(baseUrl, 'unsubscribe', String(secrets.email_token)),
  }),
  sender({ options }) {
    let smtp: EmailSender | undefined;
    return {
      send(target, payload) {
        if (!options.smtpUrl) {
          return refused('Email cannot be sent: no SMTP server is configured (set SMTP_URL).');
        }
        // One address only: a comma, semicolon or angle bracket would let one target reach several mailboxes.
        if (!/^[^\s@,;<>"]+@[^\s@,;<>"]+$/.test(target.to)) {
          return refused(`"${clip(target.to, 80)}" is not a single email address.`);
        }
        if (!/^https?:\/\/\S+$/.test(target.unsubscribeUrl)) {
          return refused('The unsubscribe link must be an http(s) URL.');
        }
        smtp ??= createEmailSender({
          smtpUrl: options.smtpUrl,
          smtpFrom: options.smtpFrom,
          timeoutMs: options.timeoutMs,
        });
        const message = emailMessage(payloadValue(payload), {
          baseUrl: options.baseUrl,
          unsubscribeUrl: target.unsubscribeUrl,
        });
        return smtp.send({
          ...message,
          to: target.to,
          unsubscribeUrl: target.unsubscribeUrl,
          deliveryId: payload.id,
        });
      },
      close() {
        smtp?.close();
        smtp = undefined;
      },
    };
  },
};
