/**
 * The SPEC §7 webhook payload. It is also the input of every channel: Slack, Teams and email render
 * it, a webhook receives it as it is.
 */
export type NotificationType = 'alert' | 'report' | 'test';

export interface NotificationCve {
  cve_id: string;
  title: string | null;
  description: string | null;
  cvss31: number | null;
  kev: boolean;
  epss: number | null;
  vendors: string[];
}

export interface NotificationEvent {
  type: string;
  details: unknown;
}

export interface NotificationChange {
  cve: NotificationCve;
  events: NotificationEvent[];
}

export interface NotificationPayload {
  /** The delivery id: receivers drop duplicates by it (it is also the `webhook-id`). */
  id: string;
  type: NotificationType;
  /** Organization name. */
  organization: string;
  /** Project name. */
  project: string;
  /** Notification name. */
  notification: string;
  title: string;
  /** ISO timestamps. */
  period: { start: string; end: string };
  changes: NotificationChange[];
}
