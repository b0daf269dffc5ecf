/** What the notification pages share: the notification as they draw it, its state, a delivery's, an attempt's answer. */
import type { DeliveryAttemptRecord, DeliveryRow, NotificationState } from '../../../domain/notification.ts';
import type { NotificationRow } from './channel.form.ts';

/** A notification with what may be shown of its configuration (never a secret), as the routes hand it to the views. */
export type ShownNotification = NotificationRow & {
  /** Where it sends: an address, a webhook's host, a chat URL masked. */
  target: string;
  /** A webhook's extra header names (their values are secret). */
  headerNames: string[];
  /** Where it stands (`notificationState`). */
  state: NotificationState;
};

const STATE_BADGE: Record<NotificationState, [string, string]> = {
  no_email_server: ['badge kev', 'cannot send: no email server'],
  awaiting_confirmation: ['badge warn', 'awaiting confirmation'],
  unsubscribed: ['badge neutral', 'unsubscribed'],
  active: ['badge ok', 'active'],
  disabled: ['badge neutral', 'disabled'],
};

/** A notification's state as a badge. */
export function StatusBadge({ n }: { n: ShownNotification }) {
  const [css, text] = STATE_BADGE[n.state];
  return <span class={css}>{text}</span>;
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
