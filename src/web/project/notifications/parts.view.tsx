/** What the notification pages share: the notification as they draw it, its state, a delivery's, an attempt's answer. */
import type { DeliveryAttemptRecord, DeliveryRow } from '../../../domain/notification.ts';
import type { NotificationRow } from './channel.form.ts';

/** A notification with what may be shown of its configuration (never a secret), as the routes hand it to the views. */
export type ShownNotification = NotificationRow & {
  /** Where it sends: an address, a webhook's host, a chat URL masked. */
  target: string;
  /** A webhook's extra header names (their values are secret). */
  headerNames: string[];
};

/** A notification's state: awaiting confirmation, unsubscribed, active or disabled. */
export function StatusBadge({ n }: { n: NotificationRow }) {
  if (n.type === 'email' && n.email_status === 'pending')
    return <span class="badge warn">awaiting confirmation</span>;
  if (n.type === 'email' && n.email_status === 'unsubscribed')
    return <span class="badge neutral">unsubscribed</span>;
  return n.is_enabled ? <span class="badge ok">active</span> : <span class="badge neutral">disabled</span>;
}

const DELIVERY_BADGE: Record<DeliveryRow['status'], string> = {
  succeeded: 'badge ok',
  pending: 'badge neutral',
  failed: 'badge kev',
  dead: 'badge kev',
};

/** A delivery's status as a badge. */
export function DeliveryStatus({ d }: { d: DeliveryRow }) {
  return <span class={DELIVERY_BADGE[d.status]}>{d.status}</span>;
}

/** A delivery's attempts, as recorded. */
export const attemptsOf = (d: DeliveryRow) => d.attempts as DeliveryAttemptRecord[];

/** What the last attempt came to: the HTTP status (or SMTP reply), else the error. */
export function AttemptOutcome({ attempt }: { attempt: DeliveryAttemptRecord | undefined }) {
  if (!attempt) return <span class="muted">not attempted yet</span>;
  return (
    <>
      {attempt.status_code !== null && <span class="mono">{attempt.status_code}</span>}
      {attempt.error && <div class="small">{attempt.error}</div>}
      {attempt.status_code === null && !attempt.error && <span class="muted">–</span>}
    </>
  );
}
