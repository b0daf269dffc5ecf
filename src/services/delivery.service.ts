/**
 * Deliveries (docs/notifications.md): a payload for one notification, sent at least once. Each delivery is queued
 * as a job; the job sends one attempt and records it; a failed attempt that may succeed later queues
 * the next one after an exponential backoff (DELIVERY_RETRY_BASE_SECONDS · 2^(n−1)), until
 * DELIVERY_ATTEMPTS have been made (then the delivery is `dead`). A failure no retry can fix (a
 * refused address, a 4xx answer, an unconfirmed email address) ends it as `failed` at once.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DB, DeliveryTable } from '../db/schema.ts';
import { JobRepository } from '../db/job.repository.ts';
import { NotificationRepository, type NotificationRow } from '../db/notification.repository.ts';
import type { DeliveryRow, DeliveryStatus } from '../domain/notification.ts';
import type { NotificationConfig } from '../config.ts';
import { type NewDelivery } from '../db/notification.repository.ts';
import { EntryCache } from './entry-cache.ts';
import type { SecretBox } from '../domain/secret-box.ts';
import type { ChannelSender, DeliveryAttempt } from '../notifications/channel-sender.ts';
import { CHANNELS, type ChannelTarget } from '../notifications/channel-registry.ts';
import { maskedExchange } from '../notifications/exchange.ts';
import {
  joinPayload,
  type NotificationChange,
  type NotificationType,
  type OutgoingPayload,
  type SerializedPayload,
} from '../notifications/payload.ts';

export const DELIVER_JOB = 'notifications.deliver';
/** The daily job that deletes deliveries older than DELIVERY_RETENTION_DAYS. */
export const PURGE_DELIVERIES_JOB = 'notifications.purge';

/** What is sealed in `notification.secrets`: each channel's secrets (see its `configure`). */
export type NotificationSecrets = Record<string, unknown>;

/**
 * What a new delivery is about: who, which notification, and the CVEs with their events. Requests
 * queued together that share a `changes` entry (the same object) store it once.
 */
export interface DeliveryRequest {
  notification: Pick<NotificationRow, 'id' | 'name'>;
  kind: NotificationType;
  organization: string;
  project: string;
  title: string;
  period: { start: Date; end: Date };
  changes: NotificationChange[];
}

/** The hash under which an email token is looked up (the token itself is only in the sealed secrets). */
export function emailTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export class DeliveryService {
  private readonly notifications: NotificationRepository;
  private readonly jobs: JobRepository;
  private readonly entries: EntryCache;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly sender: ChannelSender,
    private readonly box: SecretBox,
    private readonly settings: Pick<
      NotificationConfig,
      'deliveryAttempts' | 'deliveryRetryBaseMs' | 'deliveryRetentionMs'
    >,
    private readonly baseUrl: string,
    private readonly observe: (channel: string, outcome: string) => void = () => {},
  ) {
    this.notifications = new NotificationRepository(db);
    this.jobs = new JobRepository(db);
    this.entries = new EntryCache((ids) => this.notifications.entryBodies(ids));
  }

  /** Creates deliveries and queues their first attempt, inside the caller's transaction. */
  async queue(tx: Transaction<DB> | Kysely<DB>, requests: readonly DeliveryRequest[]): Promise<string[]> {
    if (!requests.length) return [];
    const rows = await this.create(tx, requests, (r) => r.kind);
    await new JobRepository(tx).enqueue(
      rows.map((r) => ({
        name: DELIVER_JOB,
        payload: { delivery: r.id },
        dedupeKey: attemptJobKey(r.id, 1),
      })),
    );
    return rows.map((r) => r.id);
  }

  /** One attempt of a queued delivery (the `notifications.deliver` job). */
  async attempt(deliveryId: string): Promise<DeliveryRow | undefined> {
    const found = await this.notifications.deliveryToSend(deliveryId);
    if (!found) return undefined;
    const { delivery, notification } = found;
    if (delivery.status !== 'pending') return delivery;
    const json = found.entries
      ? joinPayload(found.headerJson, await this.entries.get(found.entries))
      : Buffer.from(found.headerJson, 'utf8');
    const result = await this.send(notification, { id: delivery.id, json } satisfies SerializedPayload);
    const made = delivery.attempts.length + 1;
    const status: DeliveryStatus = result.ok
      ? 'succeeded'
      : !result.retryable
        ? 'failed'
        : made >= this.settings.deliveryAttempts
          ? 'dead'
          : 'pending';
    const record = attemptRecord(result);
    await this.notifications.appendAttempt(deliveryId, record, status);
    this.observe(notification.type, status === 'pending' ? 'retry' : status);
    if (status === 'pending') {
      await this.jobs.enqueue([
        {
          name: DELIVER_JOB,
          payload: { delivery: deliveryId },
          runAt: new Date(Date.now() + this.retryDelayMs(made)),
          dedupeKey: attemptJobKey(deliveryId, made + 1),
        },
      ]);
    }
    return { ...delivery, status, attempts: [...delivery.attempts, record], updated_at: new Date() };
  }

  /** `POST …/notifications/<name>/test`: a sample payload sent now, once; the delivery with its attempt. */
  async sendTest(request: DeliveryRequest, notification: NotificationRow): Promise<DeliveryRow> {
    const [row] = await this.db.transaction().execute((tx) => this.create(tx, [request], () => 'test'));
    const payload = { ...row!.header, changes: request.changes } as unknown as OutgoingPayload;
    const result = await this.send(notification, payload);
    // A test keeps what was sent and what came back, masked, for the web UI's Try button.
    const record = result.exchange
      ? { ...attemptRecord(result), exchange: maskedExchange(result.exchange) }
      : attemptRecord(result);
    const recorded = await this.notifications.recordAttempt(
      row!.id,
      record,
      result.ok ? 'succeeded' : 'failed',
    );
    return recorded!;
  }

  /**
   * Queues one more attempt of a dead or failed delivery (not a test), now, inside the caller's
   * transaction: the delivery is pending again with its attempts kept, so that attempt failing ends
   * it as dead (or failed) again. The status it had, or undefined when it is not dead or failed.
   */
  async reopen(
    tx: Transaction<DB>,
    notificationId: string,
    deliveryId: string,
  ): Promise<DeliveryStatus | undefined> {
    const reopened = await new NotificationRepository(tx).reopenDelivery(notificationId, deliveryId, tx);
    if (!reopened) return undefined;
    await new JobRepository(tx).enqueue([
      {
        name: DELIVER_JOB,
        payload: { delivery: deliveryId },
        dedupeKey: attemptJobKey(deliveryId, reopened.attempts + 1),
      },
    ]);
    return reopened.status;
  }

  /** When the next attempt of each pending delivery is due (its queued job), by delivery id. */
  async nextAttempts(deliveries: readonly DeliveryRow[]): Promise<Map<string, Date>> {
    const pending = deliveries.filter((d) => d.status === 'pending');
    const keys = new Map(pending.map((d) => [attemptJobKey(d.id, d.attempts.length + 1), d.id]));
    const due = await this.notifications.nextAttempts([...keys.keys()]);
    return new Map([...due].map(([key, at]) => [keys.get(key)!, at]));
  }

  /** Deletes the deliveries older than DELIVERY_RETENTION_DAYS with their attempts (the daily purge job). */
  purgeExpired(now = new Date()): Promise<number> {
    return this.notifications.purgeDeliveries(new Date(now.getTime() - this.settings.deliveryRetentionMs));
  }

  /**
   * Writes deliveries (pending) with their payloads: each payload without its changes, and each
   * distinct `changes` entry once, as JSON text that attempts send as it is.
   */
  private async create(
    tx: Transaction<DB> | Kysely<DB>,
    requests: readonly DeliveryRequest[],
    kindOf: (r: DeliveryRequest) => DeliveryTable['kind'],
  ): Promise<NewDelivery[]> {
    const entryIndex = new Map<NotificationChange, number>();
    const entries: string[] = [];
    const rows = requests.map((r): NewDelivery => {
      const id = randomUUID();
      return {
        id,
        notification_id: r.notification.id,
        kind: kindOf(r),
        header: payloadHeader(id, r),
        entries: r.changes.map((change) => {
          let i = entryIndex.get(change);
          if (i === undefined) {
            i = entries.push(JSON.stringify(change)) - 1;
            entryIndex.set(change, i);
          }
          return i;
        }),
      };
    });
    await new NotificationRepository(tx).createDeliveries(rows, entries, tx);
    return rows;
  }

  /** Delay before attempt `made + 1`: base · 2^(made−1), plus up to 10 % (never less: the span is a promise). */
  retryDelayMs(made: number): number {
    const exp = this.settings.deliveryRetryBaseMs * 2 ** Math.max(0, made - 1);
    return Math.round(exp * (1 + Math.random() * 0.1));
  }

  private async send(notification: NotificationRow, payload: OutgoingPayload): Promise<DeliveryAttempt> {
    const at = new Date().toISOString();
    const refuse = (error: string): DeliveryAttempt => ({
      at,
      status_code: null,
      duration_ms: 0,
      error,
      ok: false,
      retryable: false,
    });
    if (!notification.is_enabled) return refuse('The notification is disabled.');
    if (notification.type === 'email' && notification.email_status !== 'confirmed') {
      return refuse(
        notification.email_status === 'unsubscribed'
          ? 'The recipient unsubscribed.'
          : 'The email address has not confirmed the subscription yet.',
      );
    }
    let target: ChannelTarget;
    try {
      target = this.targetOf(notification);
    } catch {
      return refuse('The notification settings cannot be read (was VULNTRACK_SECRET changed?).');
    }
    return this.sender.send(target, payload);
  }

  private targetOf(n: NotificationRow): ChannelTarget {
    const secrets = this.box.open<NotificationSecrets>(n.secrets);
    const stored = { configuration: n.configuration, secrets };
    return { type: n.type, ...CHANNELS[n.type].target(stored, this.baseUrl) } as ChannelTarget;
  }
}

/** The dedupe key of the job of a delivery's `attempt`th attempt (one job per attempt). */
const attemptJobKey = (deliveryId: string, attempt: number) => `delivery:${deliveryId}:${attempt}`;

function attemptRecord(a: DeliveryAttempt) {
  return { at: a.at, status_code: a.status_code, duration_ms: a.duration_ms, error: a.error };
}

/** The payload (docs/notifications.md) without its `changes`. */
function payloadHeader(id: string, r: DeliveryRequest): Record<string, unknown> {
  return {
    id,
    type: r.kind,
    organization: r.organization,
    project: r.project,
    notification: r.notification.name,
    title: r.title,
    period: { start: r.period.start.toISOString(), end: r.period.end.toISOString() },
  };
}
