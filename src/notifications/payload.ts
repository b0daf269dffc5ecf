/**
 * The webhook payload (docs/notifications.md). It is also the input of every channel: Slack, Teams and email render
 * it, a webhook receives it as it is.
 */
import type { DeliveryKind } from '../domain/notification.ts';

/** Why a payload was sent: a delivery's kind. */
export type NotificationType = DeliveryKind;

export interface NotificationCve {
  cve_id: string;
  title: string | null;
  description: string | null;
  cvss31: number | null;
  kev: boolean;
  epss: number | null;
  /** Vendor keys (`vendor`, `vendor$PRODUCT$product`): what receivers match on. */
  vendors: string[];
  /**
   * The same facts in people's words, for a receiver that shows them: `vendors` as `Microsoft /
   * Exchange Server`, in the order of the keys. Added beside the keys, never instead of them; absent
   * from a payload stored before it was added (a retried old delivery sends its bytes as they were).
   */
  display?: { vendors: string[] };
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
  /** UTF-8 JSON. */
  json: Buffer;
}

export type OutgoingPayload = NotificationPayload | SerializedPayload;

function isSerialized(p: OutgoingPayload): p is SerializedPayload {
  return Buffer.isBuffer((p as SerializedPayload).json);
}

/** The payload as UTF-8 JSON: what a webhook signs and posts. */
export function payloadJson(p: OutgoingPayload): Buffer {
  return isSerialized(p) ? p.json : Buffer.from(JSON.stringify(p), 'utf8');
}

export function payloadValue(p: OutgoingPayload): NotificationPayload {
  return isSerialized(p) ? (JSON.parse(p.json.toString('utf8')) as NotificationPayload) : p;
}

const CHANGES_OPEN = Buffer.from(',"changes":[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/** The payload's UTF-8 JSON from its other fields' JSON (an object, without `changes`) and its changes' JSON. */
export function joinPayload(headerJson: string, changes: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from(headerJson.slice(0, -1), 'utf8'), CHANGES_OPEN];
  changes.forEach((c, i) => {
    if (i) parts.push(COMMA);
    parts.push(c);
  });
  parts.push(CLOSE);
  return Buffer.concat(parts);
}
