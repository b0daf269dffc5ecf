/** The audit log of each organization. */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';
import { statementBatches } from './batches.ts';
import { recordedName, type Actor } from '../domain/actor.ts';

export interface AuditEntry {
  organizationId: string;
  actor: Actor;
  action: string;
  resourceType: string;
  resourceId?: string | null;
  resourceName?: string | null;
  changes?: Record<string, unknown>;
}

export interface AuditFilter {
  action?: string | undefined;
  resource?: string | undefined;
  /** The actor's name as recorded (a username, a token's name, `system`). */
  actor?: string | undefined;
  /** At or after this instant. */
  since?: Date | undefined;
  /** Before this instant. */
  until?: Date | undefined;
}

export class AuditRepository {
  constructor(private readonly db: Kysely<DB>) {}

  record(entry: AuditEntry, tx: Kysely<DB> | Transaction<DB> = this.db): Promise<void> {
    return this.recordMany([entry], tx);
  }

  /** Records several entries, in as few statements as the parameter limit allows (a bulk tracker move writes one entry per CVE). */
  async recordMany(entries: AuditEntry[], tx: Kysely<DB> | Transaction<DB> = this.db): Promise<void> {
    for (const batch of statementBatches(entries, 10))
      await tx
        .insertInto('audit_log')
        .values(
          batch.map((entry) => ({
            organization_id: entry.organizationId,
            // The clock, not the transaction start; `seq` orders entries whose clock reads the same.
            created_at: sql<Date>`clock_timestamp()`,
            actor_type: entry.actor.type,
            actor_id: entry.actor.id,
            actor_name: recordedName(entry.actor),
            action: entry.action,
            resource_type: entry.resourceType,
            resource_id: entry.resourceId ?? null,
            resource_name: entry.resourceName ?? null,
            changes: JSON.stringify(entry.changes ?? {}),
          })),
        )
        .execute();
  }

  private filtered(organizationId: string, filter: AuditFilter) {
    let q = this.db.selectFrom('audit_log').where('organization_id', '=', organizationId);
    if (filter.action) q = q.where('action', '=', filter.action);
    if (filter.resource) q = q.where('resource_type', '=', filter.resource);
    if (filter.actor) q = q.where('actor_name', '=', filter.actor);
    if (filter.since) q = q.where('created_at', '>=', filter.since);
    if (filter.until) q = q.where('created_at', '<', filter.until);
    return q;
  }

  async count(organizationId: string, filter: AuditFilter): Promise<number> {
    const row = await this.filtered(organizationId, filter)
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    return row.n;
  }

  list(organizationId: string, filter: AuditFilter, limit: number, offset: number) {
    return this.filtered(organizationId, filter)
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('seq', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /** The actor names, actions and resource types found in the organization's log (for filter choices). */
  async facets(
    organizationId: string,
  ): Promise<{ actors: string[]; actions: string[]; resources: string[] }> {
    const distinct = async (column: 'actor_name' | 'action' | 'resource_type') =>
      (
        await this.db
          .selectFrom('audit_log')
          .select(column)
          .distinct()
          .where('organization_id', '=', organizationId)
          .where(column, 'is not', null)
          .orderBy(column)
          .limit(200)
          .execute()
      ).map((r) => String(r[column]));
    return {
      actors: await distinct('actor_name'),
      actions: await distinct('action'),
      resources: await distinct('resource_type'),
    };
  }
}
