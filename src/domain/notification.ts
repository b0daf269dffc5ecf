/**
 * Notifications of a project and their deliveries, as stored. A notification's `type` is a channel of
 * the registry (src/notifications/channel-registry.ts); repositories hand it out typed with it.
 */

/** Where an email notification's double opt-in stands. */
export type EmailStatus = 'confirmed' | 'pending' | 'unsubscribed';

/** Why a delivery was sent. */
export type DeliveryKind = 'alert' | 'report' | 'test';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'dead';

/**
 * Where a notification stands, in one place for every page that shows it: an email notification on a
 * server without SMTP_URL can send nothing, not even its confirmation, whatever else it says.
 */
export type NotificationState =
  'no_email_server' | 'awaiting_confirmation' | 'unsubscribed' | 'active' | 'disabled';

export function notificationState(
  n: { type: string; is_enabled: boolean; email_status: EmailStatus | null },
  emailConfigured: boolean,
): NotificationState {
  if (n.type === 'email') {
    if (!emailConfigured) return 'no_email_server';
    if (n.email_status === 'pending') return 'awaiting_confirmation';
    if (n.email_status === 'unsubscribed') return 'unsubscribed';
  }
  return n.is_enabled ? 'active' : 'disabled';
}

/** The sentence a page shows when nothing can be sent, for the states that need one. */
export const NO_EMAIL_SERVER =
  'Email is not configured on this server (SMTP_URL is not set): an email notification can send nothing, not even its confirmation. Ask the operator to set SMTP_URL, or use a webhook, Slack or Teams.';

/** A notification: what may be shown in `configuration`, the rest sealed in `secrets`. */
export interface NotificationRow<Type extends string = string> {
  id: string;
  project_id: string;
  name: string;
  type: Type;
  is_enabled: boolean;
  configuration: Record<string, unknown>;
  secrets: string;
  email_status: EmailStatus | null;
  created_at: Date;
  updated_at: Date;
}

export interface DeliveryRow {
  id: string;
  notification_id: string;
  kind: DeliveryKind;
  payload: Record<string, unknown>;
  status: DeliveryStatus;
  attempts: unknown[];
  created_at: Date;
  updated_at: Date;
}

/**
 * The HTTP exchange of a test send (the Try button), as stored with its attempt: secrets masked
 * (src/notifications/exchange.ts), the bodies cut. Only test deliveries keep one.
 */
export interface DeliveryExchange {
  request: { method: string; url: string; headers: [string, string][]; body: string };
  /** Absent when no response came (refused, unreachable, timed out). */
  response?: { status: number; headers: [string, string][]; body: string; truncated: boolean };
}

/** One attempt of a delivery, as recorded. */
export interface DeliveryAttemptRecord {
  at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  /** Test deliveries only: what was sent and what came back. */
  exchange?: DeliveryExchange;
}
