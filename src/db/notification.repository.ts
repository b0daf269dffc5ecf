/** Notification channels of projects and their deliveries (each with its attempts). */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB, DeliveryTable, NotificationTable } from './schema.ts';
import type { ChannelType } from '../notifications/channel-registry.ts';
import type {
  DeliveryRow,
  DeliveryStatus,
  NotificationRow as StoredNotification,
} from '../domain/notification.ts';

/** A notification whose type is a registered channel. */
export type NotificationRow = StoredNotification<ChannelType>;

type Executor = Kysely<DB> | Transaction<DB>;

export interface NewNotification {
  project_id: string;
  name: string;
  type: NotificationTable['type'];
  is_enabled: boolean;
  configuration: Record<string, unknown>;
  secrets: string;
  email_status: NotificationTable['email_status'];
  email_token_hash: string | null;
}

/** A new delivery: its payload without `changes`, and its changes as indexes into the batch's entries. */
export interface NewDelivery {
  id: string;
  notification_id: string;
  kind: DeliveryTable['kind'];
  header: Record<string, unknown>;
  entries: number[];
}

const DELIVERY_COLUMNS = [
  'id',
  'notification_id',
  'kind',
  'payload',
  'status',
  'attempts',
  'created_at',
  'updated_at',
] as const;

const COLUMNS = [
  'id',
  'project_id',
  'name',
  'type',
  'is_enabled',
  'configuration',
  'secrets',
  'email_status',
  'created_at',
  'updated_at',
] as const;

export class NotificationRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async count(projectId: string): Promise<number> {
    const row = await this.db
      .selectFrom('notification')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  list(projectId: string, limit: number, offset: number): Promise<NotificationRow[]> {
    return this.db
      .selectFrom('notification')
      .select(COLUMNS)
      .where('project_id', '=', projectId)
      .orderBy('name')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /** Every notification of these projects (the event processor resolves `send_notification` by name). */
  forProjects(projectIds: readonly string[], tx: Executor = this.db): Promise<NotificationRow[]> {
    if (!projectIds.length) return Promise.resolve([]);
    return tx
      .selectFrom('notification')
      .select(COLUMNS)
      .where('project_id', 'in', [...projectIds])
      .execute();
  }

  findByName(projectId: string, name: string, tx: Executor = this.db): Promise<NotificationRow | undefined> {
    return tx
      .selectFrom('notification')
      .select(COLUMNS)
      .where('project_id', '=', projectId)
      .where('name', '=', name)
      .executeTakeFirst();
  }

  findById(id: string, tx: Executor = this.db): Promise<NotificationRow | undefined> {
    return tx.selectFrom('notification').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  findByEmailToken(tokenHash: string): Promise<NotificationRow | undefined> {
    return this.db
      .selectFrom('notification')
      .select(COLUMNS)
      .where('email_token_hash', '=', tokenHash)
      .executeTakeFirst();
  }

  async create(row: NewNotification, tx: Executor = this.db): Promise<NotificationRow> {
    return tx
      .insertInto('notification')
      .values({ ...row, configuration: JSON.stringify(row.configuration) })
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  }

  async update(
    id: string,
    patch: Partial<Omit<NewNotification, 'project_id' | 'type'>>,
    tx: Executor = this.db,
  ): Promise<NotificationRow> {
    const { configuration, ...rest } = patch;
    return tx
      .updateTable('notification')
      .set({
        ...rest,
        ...(configuration ? { configuration: JSON.stringify(configuration) } : {}),
        updated_at: sql`now()`,
      })
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  }

  /** Sets an email notification's opt-in status, and `is_enabled` when given. */
  async setEmailStatus(
    id: string,
    status: NonNullable<NotificationTable['email_status']>,
    isEnabled?: boolean,
  ): Promise<void> {
    await this.db
      .updateTable('notification')
      .set({
        email_status: status,
        ...(isEnabled === undefined ? {} : { is_enabled: isEnabled }),
        updated_at: sql`now()`,
      })
      .where('id', '=', id)
      .execute();
  }

  async delete(id: string, tx: Executor = this.db): Promise<void> {
    await tx.deleteFrom('notification').where('id', '=', id).execute();
  }

  /**
   * Creates deliveries (status pending) and the payload entries they carry, each distinct entry
   * stored once (`entries`: JSON texts; a delivery names its own by index, in order). One statement
   * each, whatever the number of rows; the caller's transaction makes them one write.
   */
  async createDeliveries(
    deliveries: readonly NewDelivery[],
    entries: readonly string[],
    tx: Executor = this.db,
  ): Promise<void> {
    if (!deliveries.length) return;
    let ids: string[] = [];
    if (entries.length) {
      const rows = await sql<{ id: string }>`
        INSERT INTO delivery_entry (body)
        SELECT u.body FROM unnest(${entries}::text[]) WITH ORDINALITY AS u(body, ord) ORDER BY u.ord
        RETURNING id`.execute(tx);
      // Identity values are drawn in insertion order, which is `ord`.
      ids = rows.rows.map((r) => r.id).sort((a, b) => Number(a) - Number(b));
    }
    const rows = deliveries.map((d) => ({
      id: d.id,
      notification_id: d.notification_id,
      kind: d.kind,
      payload: d.header,
      entries: d.entries.map((i) => ids[i]!),
    }));
    for (let i = 0; i < rows.length; i += 10_000) {
      await sql`
        INSERT INTO delivery (id, notification_id, kind, payload, entries)
        SELECT x.id, x.notification_id, x.kind, x.payload, x.entries
          FROM jsonb_to_recordset(${JSON.stringify(rows.slice(i, i + 10_000))}::jsonb)
               AS x(id uuid, notification_id uuid, kind text, payload jsonb, entries bigint[])`.execute(tx);
    }
  }

  /**
   * A delivery to attempt, with its notification, in one round trip: the row, the payload's fields
   * as JSON text, and the ids of its `changes` entries in order (null for a delivery written before
   * entries existed: its payload is whole).
   */
  async deliveryToSend(
    id: string,
  ): Promise<
    | { delivery: DeliveryRow; notification: NotificationRow; headerJson: string; entries: string[] | null }
    | undefined
  > {
    const { rows } = await sql<Record<string, unknown>>`
      SELECT d.id, d.notification_id, d.kind, d.payload, d.status, d.attempts, d.created_at, d.updated_at,
             d.payload::text AS header_json, d.entries,
             ${sql.join(COLUMNS.map((c) => sql`${sql.ref(`n.${c}`)} AS ${sql.ref(`n_${c}`)}`))}
        FROM delivery d JOIN notification n ON n.id = d.notification_id
       WHERE d.id = ${id}`.execute(this.db);
    const r = rows[0];
    if (!r) return undefined;
    const pick = (prefix: string, columns: readonly string[]) =>
      Object.fromEntries(columns.map((c) => [c, r[`${prefix}${c}`]]));
    return {
      delivery: pick('', DELIVERY_COLUMNS) as unknown as DeliveryRow,
      notification: pick('n_', COLUMNS) as unknown as NotificationRow,
      headerJson: r.header_json as string,
      entries: (r.entries as (string | number)[] | null)?.map(String) ?? null,
    };
  }

  /** The JSON texts of these payload entries, by id. */
  async entryBodies(ids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (!ids.length) return out;
    const { rows } = await sql<{ id: string | number; body: string }>`
      SELECT id, body FROM delivery_entry WHERE id = ANY(${[...ids]}::bigint[])`.execute(this.db);
    for (const r of rows) out.set(String(r.id), r.body);
    return out;
  }

  /** Deletes the deliveries created before `before`, and their entries (created with them). */
  async purgeDeliveries(before: Date): Promise<number> {
    const r = await this.db.deleteFrom('delivery').where('created_at', '<', before).executeTakeFirst();
    await this.db.deleteFrom('delivery_entry').where('created_at', '<', before).execute();
    return Number(r.numDeletedRows);
  }

  /**
   * `recordAttempt` without reading the row back: what a delivery job needs. A busy day's payloads
   * are tens of kilobytes each, and returning one means detoasting it and parsing it again.
   */
  async appendAttempt(id: string, attempt: unknown, status: DeliveryStatus): Promise<void> {
    await sql`
      UPDATE delivery SET attempts = attempts || ${JSON.stringify([attempt])}::jsonb, status = ${status},
             updated_at = now()
       WHERE id = ${id}`.execute(this.db);
  }

  /** Appends an attempt and sets the status (one statement: attempts are never lost to a race). */
  async recordAttempt(
    id: string,
    attempt: unknown,
    status: DeliveryStatus,
  ): Promise<DeliveryRow | undefined> {
    return (await this.db
      .updateTable('delivery')
      .set({
        attempts: sql`attempts || ${JSON.stringify([attempt])}::jsonb`,
        status,
        updated_at: sql`now()`,
      })
      .where('id', '=', id)
      .returning(DELIVERY_COLUMNS)
      .executeTakeFirst()) as DeliveryRow | undefined;
  }

  async countDeliveries(notificationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('delivery')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('notification_id', '=', notificationId)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  listDeliveries(notificationId: string, limit: number, offset: number): Promise<DeliveryRow[]> {
    return this.db
      .selectFrom('delivery')
      .select(DELIVERY_COLUMNS)
      .where('notification_id', '=', notificationId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute() as Promise<DeliveryRow[]>;
  }

  /** One delivery of a notification. */
  findDelivery(notificationId: string, id: string): Promise<DeliveryRow | undefined> {
    return this.db
      .selectFrom('delivery')
      .select(DELIVERY_COLUMNS)
      .where('notification_id', '=', notificationId)
      .where('id', '=', id)
      .executeTakeFirst() as Promise<DeliveryRow | undefined>;
  }

  /**
   * Sets a dead or failed delivery (not a test) of the notification back to pending; its attempts
   * stay. The row as it was, or undefined when there is no such delivery in one of those states.
   */
  async reopenDelivery(
    notificationId: string,
    id: string,
    tx: Executor = this.db,
  ): Promise<{ status: DeliveryStatus; attempts: number } | undefined> {
    const { rows } = await sql<{ status: DeliveryStatus; attempts: number }>`
      UPDATE delivery d SET status = 'pending', updated_at = now()
        FROM delivery old
       WHERE d.id = ${id} AND d.notification_id = ${notificationId} AND old.id = d.id
         AND d.status IN ('dead', 'failed') AND d.kind <> 'test'
      RETURNING old.status, jsonb_array_length(d.attempts)::int AS attempts`.execute(tx);
    return rows[0];
  }

  /**
   * When the next attempt of each of these deliveries is due: the run time of its queued
   * `notifications.deliver` job, looked up by the job's dedupe key (`delivery:<id>:<attempt>`).
   */
  async nextAttempts(dedupeKeys: readonly string[]): Promise<Map<string, Date>> {
    const out = new Map<string, Date>();
    if (!dedupeKeys.length) return out;
    const rows = await this.db
      .selectFrom('job')
      .select(['dedupe_key', 'run_at'])
      .where('dedupe_key', 'in', [...dedupeKeys])
      .where('status', 'in', ['pending', 'running'])
      .execute();
    for (const r of rows) if (r.dedupe_key) out.set(r.dedupe_key, new Date(r.run_at));
    return out;
  }

  /** The newest delivery of each of these notifications (tests included). */
  async lastDeliveries(notificationIds: readonly string[]): Promise<Map<string, DeliveryRow>> {
    const out = new Map<string, DeliveryRow>();
    if (!notificationIds.length) return out;
    const rows = (await this.db
      .selectFrom('delivery')
      .distinctOn('notification_id')
      .select(DELIVERY_COLUMNS)
      .where('notification_id', 'in', [...notificationIds])
      .orderBy('notification_id')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute()) as DeliveryRow[];
    for (const r of rows) out.set(r.notification_id, r);
    return out;
  }
}
