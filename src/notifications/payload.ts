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

/**
 * A payload as stored (DeliveryService): its JSON text, sent as it is, so a webhook signs and posts
 * these bytes without parsing them. Channels that render the payload parse it.
 */
export interface SerializedPayload {
  id: string;
  json: string;
}

export type OutgoingPayload = NotificationPayload | SerializedPayload;

function isSerialized(p: OutgoingPayload): p is SerializedPayload {
  return typeof (p as SerializedPayload).json === 'string';
}

export function payloadJson(p: OutgoingPayload): string {
  return isSerialized(p) ? p.json : JSON.stringify(p);
}

export function payloadValue(p: OutgoingPayload): NotificationPayload {
  return isSerialized(p) ? (JSON.parse(p.json) as NotificationPayload) : p;
}

/** The payload's JSON from its other fields' JSON (an object, without `changes`) and its changes' JSON texts. */
export function joinPayload(headerJson: string, changesJson: readonly string[] | string): string {
  const changes = typeof changesJson === 'string' ? changesJson : changesJson.join(',');
  return `${headerJson.slice(0, -1)},"changes":[${changes}]}`;
}
