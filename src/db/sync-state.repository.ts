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
  /** The first attempt (migration 0038); null only for a row written before any attempt. */
  firstAttemptAt: Date | null;
  /** When the owners were emailed that this source is stale; null when not in this episode. */
  staleAlertedAt: Date | null;
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
      .values({ source, cursor: '{}', last_attempt_at: sql`now()`, first_attempt_at: sql`now()` })
      .onConflict((oc) =>
        oc.column('source').doUpdateSet({
          last_attempt_at: sql`now()`,
          // A row a cursor created before any attempt (a test, an operator's reset) gets it now.
          first_attempt_at: sql`coalesce(sync_state.first_attempt_at, now())`,
          updated_at: sql`now()`,
        }),
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
      // A success ends a stale episode: the next one is alerted again (docs/sync.md, "Staleness").
      .set({
        last_success_at: sql`now()`,
        consecutive_failures: 0,
        stale_alerted_at: null,
        updated_at: sql`now()`,
      })
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

  /**
   * Claims the stale alert of `source`'s current episode: true for exactly one caller per episode
   * (the row is marked in the same statement), false when this episode was alerted already. An
   * episode starts at the last success, so a mark older than it belongs to an earlier episode.
   */
  async claimStaleAlert(source: string): Promise<boolean> {
    const row = await this.db
      .updateTable('sync_state')
      .set({ stale_alerted_at: sql`now()`, updated_at: sql`now()` })
      .where('source', '=', source)
      .where((eb) =>
        eb.or([eb('stale_alerted_at', 'is', null), eb('stale_alerted_at', '<', eb.ref('last_success_at'))]),
      )
      .returning('source')
      .executeTakeFirst();
    return row !== undefined;
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
  first_attempt_at: Date | null;
  stale_alerted_at: Date | null;
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
    firstAttemptAt: row.first_attempt_at,
    staleAlertedAt: row.stale_alerted_at,
  };
}
