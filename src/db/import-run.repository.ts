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

  async start(source: string): Promise<string> {
    const row = await this.db
      .insertInto('import_run')
      .values({ source, status: 'running', counts: '{}', problems: '[]' })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async finish(id: string, status: string, counts: object, problems: unknown[]): Promise<void> {
    await this.db
      .updateTable('import_run')
      .set({
        status,
        finished_at: sql`now()`,
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

  /** The latest run of each source. */
  async latestBySource(): Promise<ImportRunSummary[]> {
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
