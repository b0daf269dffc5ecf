/** Notification channels of projects and their deliveries (each with its attempts). */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB, DeliveryTable, NotificationTable } from './schema.ts';

type Executor = Kysely<DB> | Transaction<DB>;

export interface NotificationRow {
  id: string;
  project_id: string;
  name: string;
  type: NotificationTable['type'];
  is_enabled: boolean;
  configuration: Record<string, unknown>;
  secrets: string;
  email_status: NotificationTable['email_status'];
  created_at: Date;
  updated_at: Date;
}

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

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'dead';

export interface DeliveryRow {
  id: string;
  notification_id: string;
  kind: DeliveryTable['kind'];
  payload: Record<string, unknown>;
  status: DeliveryStatus;
  attempts: unknown[];
  created_at: Date;
  updated_at: Date;
}

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

  async setEmailStatus(id: string, status: NonNullable<NotificationTable['email_status']>): Promise<void> {
    await this.db
      .updateTable('notification')
      .set({ email_status: status, updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
  }

  async delete(id: string, tx: Executor = this.db): Promise<void> {
    await tx.deleteFrom('notification').where('id', '=', id).execute();
  }

  /** Creates deliveries (status pending); returns their ids in order. */
  async createDeliveries(
    rows: readonly { id: string; notification_id: string; kind: DeliveryTable['kind']; payload: unknown }[],
    tx: Executor = this.db,
  ): Promise<void> {
    for (let i = 0; i < rows.length; i += 1000) {
      await tx
        .insertInto('delivery')
        .values(
          rows.slice(i, i + 1000).map((r) => ({
            id: r.id,
            notification_id: r.notification_id,
            kind: r.kind,
            payload: JSON.stringify(r.payload),
          })),
        )
        .execute();
    }
  }

  findDelivery(id: string): Promise<DeliveryRow | undefined> {
    return this.db.selectFrom('delivery').selectAll().where('id', '=', id).executeTakeFirst() as Promise<
      DeliveryRow | undefined
    >;
  }

  /**
   * `recordAttempt` without reading the row back: what a delivery job needs. A busy day's payloads
   * are tens of kilobytes each, and returning one means detoasting it and parsing it again.
   */
  async appendAttempt(id: string, attempt: unknown, status: DeliveryStatus): Promise<void> {
    await this.db
      .updateTable('delivery')
      .set({
        attempts: sql`attempts || ${JSON.stringify([attempt])}::jsonb`,
        status,
        updated_at: sql`now()`,
      })
      .where('id', '=', id)
      .execute();
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
      .returningAll()
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
      .selectAll()
      .where('notification_id', '=', notificationId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute() as Promise<DeliveryRow[]>;
  }
}
