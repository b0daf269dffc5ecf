/**
 * Sends one notification email over SMTP (nodemailer). The SMTP server is an operator setting
 * (SMTP_URL), so it gets no SSRF check. Never throws.
 */
import nodemailer, { type NodemailerError, type Transporter } from 'nodemailer';
import type { SMTPSentMessageInfo } from 'nodemailer';
import type { EmailMessage } from './email-message.ts';
import { clip } from '../../message-summary.ts';
import type { OutboundResult } from '../../outbound.ts';

export interface EmailSenderOptions {
  smtpUrl: string;
  smtpFrom: string;
  timeoutMs: number;
}

export interface OutgoingEmail extends EmailMessage {
  to: string;
  /**
   * Shown in the parts already; here it becomes List-Unsubscribe (RFC 2369) with one-click (RFC 8058).
   * Absent for a message that is no subscription (a password reset, an invitation).
   */
  unsubscribeUrl?: string;
  /** The delivery id: becomes the Message-ID, so a retried delivery is recognizable as the same message. */
  deliveryId: string;
}

export interface EmailSender {
  send(email: OutgoingEmail): Promise<OutboundResult>;
  close(): void;
}

function replyCode(response: string | undefined): number | null {
  const match = /^([2-5]\d\d)\b/.exec(response ?? '');
  return match ? Number(match[1]) : null;
}

function domainOf(from: string): string {
  const match = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from);
  return match?.[1] ?? 'vulntrack.invalid';
}

function failure(error: unknown, timeoutMs: number, timedOut: boolean): OutboundResult {
  const err = error as NodemailerError;
  if (timedOut || err.code === 'ETIMEDOUT') {
    return {
      ok: false,
      status_code: null,
      error: `The SMTP server did not finish within ${timeoutMs} ms.`,
      retryable: true,
    };
  }
  if (err.responseCode) {
    // RFC 5321: 5yz (but 503) is a permanent rejection of this message, 4yz a transient one.
    const permanent = err.permanent ?? (err.responseCode >= 500 && err.responseCode !== 503);
    return {
      ok: false,
      status_code: err.responseCode,
      error: `The SMTP server answered ${clip(err.response ?? String(err.responseCode), 200)}.`,
      retryable: !permanent,
    };
  }
  const cause = err.originalCode ?? err.code;
  if (cause === 'ECONNREFUSED') {
    return {
      ok: false,
      status_code: null,
      error: 'The SMTP server refused the connection.',
      retryable: true,
    };
  }
  return {
    ok: false,
    status_code: null,
    error: `Sending the email failed (${clip(err.message || String(error), 160)}).`,
    retryable: true,
  };
}

export function createEmailSender(options: EmailSenderOptions): EmailSender {
  const transport: Transporter<SMTPSentMessageInfo> = nodemailer.createTransport({
    url: options.smtpUrl,
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
    dnsTimeout: options.timeoutMs,
  });
  const messageDomain = domainOf(options.smtpFrom);

  return {
    async send(email) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), options.timeoutMs);
      try {
        const info = await transport.sendMail({
          from: options.smtpFrom,
          to: email.to,
          subject: email.subject,
          text: email.text,
          html: email.html,
          messageId: `<${email.deliveryId}@${messageDomain}>`,
          ...(email.unsubscribeUrl
            ? {
                list: { unsubscribe: email.unsubscribeUrl },
                headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
              }
            : {}),
          signal: controller.signal,
        });
        return { ok: true, status_code: replyCode(info.response), error: null, retryable: false };
      } catch (error) {
        return failure(error, options.timeoutMs, controller.signal.aborted);
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      transport.close();
    },
  };
}
