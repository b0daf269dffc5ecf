/** A record of every import run: what ran, when, how it ended and what it skipped. */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

export interface ImportRunSummary {
  source: string;
  status: string;
  startedAt: Date;
  finishedAt: Date | null;
  counts: Record<string, number>;
}

export class ImportRunRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * Records a new run, held for `leaseMs` (renew it while the import runs). Runs of any source whose
   * lease has passed are marked `interrupted` first: their process died without finishing them.
   */
  async start(source: string, leaseMs: number): Promise<string> {
    await this.expireLeases();
    const row = await this.db
      .insertInto('import_run')
      .values({
        source,
        status: 'running',
        counts: '{}',
        problems: '[]',
        lease_until: sql`now() + ${leaseMs} * interval '1 millisecond'`,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /**
   * Extends a run's lease. A run marked `interrupted` while its process stalled past the lease is
   * running again: its process is alive after all.
   */
  async renew(id: string, leaseMs: number): Promise<void> {
    await this.db
      .updateTable('import_run')
      .set({
        status: 'running',
        finished_at: null,
        lease_until: sql`now() + ${leaseMs} * interval '1 millisecond'`,
      })
      .where('id', '=', id)
      .where('status', 'in', ['running', 'interrupted'])
      .execute();
  }

  /** Marks the runs whose lease has passed as `interrupted` (at the end of their lease). */
  async expireLeases(): Promise<number> {
    const result = await this.db
      .updateTable('import_run')
      .set({ status: 'interrupted', finished_at: sql`lease_until` })
      .where('status', '=', 'running')
      .where(sql<boolean>`lease_until < now()`)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async finish(id: string, status: string, counts: object, problems: unknown[]): Promise<void> {
    await this.db
      .updateTable('import_run')
      .set({
        status,
        finished_at: sql`now()`,
        lease_until: null,
        counts: JSON.stringify(counts),
        problems: JSON.stringify(problems),
      })
      .where('id', '=', id)
      .execute();
  }

  /** Marks runs still `running` as `interrupted`; only for a database no other process can be using. */
  async markInterrupted(): Promise<number> {
    const result = await this.db
      .updateTable('import_run')
      .set({ status: 'interrupted', finished_at: sql`now()` })
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** The latest run of each source; a run whose lease has passed is marked `interrupted` first. */
  async latestBySource(): Promise<ImportRunSummary[]> {
    await this.expireLeases();
    const rows = await this.db
      .selectFrom('import_run')
      .distinctOn('source')
      .select(['source', 'status', 'started_at', 'finished_at', 'counts'])
      .orderBy('source')
      .orderBy('started_at', 'desc')
      .execute();
    return rows.map((r) => ({
      source: r.source,
      status: r.status,
      startedAt: r.started_at,
      finishedAt: r.finished_at,
      counts: r.counts,
    }));
  }
}
