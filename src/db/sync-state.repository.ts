/** The sync cursor and outcome of each upstream source (`sync_state`, one row per source). */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

export interface SyncState {
  source: string;
  cursor: Record<string, unknown>;
  lastAttemptAt: Date | null;
  lastSuccessAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  consecutiveFailures: number;
}

export class SyncStateRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async get(source: string): Promise<SyncState | undefined> {
    const row = await this.db
      .selectFrom('sync_state')
      .selectAll()
      .where('source', '=', source)
      .executeTakeFirst();
    return row ? toState(row) : undefined;
  }

  async list(): Promise<SyncState[]> {
    const rows = await this.db.selectFrom('sync_state').selectAll().orderBy('source').execute();
    return rows.map(toState);
  }

  /** Marks the start of an attempt (creates the row on a source's first sync). */
  async recordAttempt(source: string): Promise<void> {
    await this.db
      .insertInto('sync_state')
      .values({ source, cursor: '{}', last_attempt_at: sql`now()` })
      .onConflict((oc) =>
        oc.column('source').doUpdateSet({ last_attempt_at: sql`now()`, updated_at: sql`now()` }),
      )
      .execute();
  }

  /** Moves the cursor; called after the data up to it was imported, so a crash never skips anything. */
  async saveCursor(source: string, cursor: Record<string, unknown>): Promise<void> {
    await this.db
      .insertInto('sync_state')
      .values({ source, cursor: JSON.stringify(cursor) })
      .onConflict((oc) =>
        oc.column('source').doUpdateSet({ cursor: JSON.stringify(cursor), updated_at: sql`now()` }),
      )
      .execute();
  }

  async recordSuccess(source: string): Promise<void> {
    await this.db
      .updateTable('sync_state')
      .set({ last_success_at: sql`now()`, consecutive_failures: 0, updated_at: sql`now()` })
      .where('source', '=', source)
      .execute();
  }

  async recordFailure(source: string, message: string): Promise<void> {
    await this.db
      .updateTable('sync_state')
      .set({
        last_error: message.slice(0, 2000),
        last_error_at: sql`now()`,
        consecutive_failures: sql`consecutive_failures + 1`,
        updated_at: sql`now()`,
      })
      .where('source', '=', source)
      .execute();
  }
}

function toState(row: {
  source: string;
  cursor: unknown;
  last_attempt_at: Date | null;
  last_success_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  consecutive_failures: number;
}): SyncState {
  const cursor = typeof row.cursor === 'string' ? (JSON.parse(row.cursor) as unknown) : row.cursor;
  return {
    source: row.source,
    cursor: (cursor ?? {}) as Record<string, unknown>,
    lastAttemptAt: row.last_attempt_at,
    lastSuccessAt: row.last_success_at,
    lastError: row.last_error,
    lastErrorAt: row.last_error_at,
    consecutiveFailures: row.consecutive_failures,
  };
}
