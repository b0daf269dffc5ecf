/**
 * Notifications of a project and their deliveries, as stored. A notification's `type` is a channel of
 * the registry (src/notifications/channel-registry.ts); repositories hand it out typed with it.
 */

/** Where an email notification's double opt-in stands. */
export type EmailStatus = 'confirmed' | 'pending' | 'unsubscribed';

/** Why a delivery was sent. */
export type DeliveryKind = 'alert' | 'report' | 'test';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'dead';

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
