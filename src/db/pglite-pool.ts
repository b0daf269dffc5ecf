/**
 * Presents an embedded PGlite database as the small part of a `pg.Pool` that Kysely's
 * PostgresDialect uses. PGlite is a single session, so `connect()` hands out one client at a time:
 * a transaction holds the session until it is released and other callers wait their turn.
 *
 * It also checkpoints, which PGlite does not do by itself: it runs PostgreSQL as a single backend
 * without the server's checkpointer, so the WAL would grow with every write until the process ends
 * (and a restart after a crash would replay all of it).
 */
import type { PGlite } from '@electric-sql/pglite';
import { preparedStatementName } from './prepared.ts';

/** WAL written since the last checkpoint from which the pool runs one (the data dir's max_wal_size). */
const CHECKPOINT_WAL_BYTES = 64 * 1024 * 1024;
/** How often, at most, the pool looks at the WAL written since the last checkpoint. */
const WAL_CHECK_INTERVAL_MS = 1000;

interface QueryResult {
  rows: unknown[];
  rowCount: number;
  command: string;
}

interface PoolClient {
  query(sql: string, params?: readonly unknown[]): Promise<QueryResult>;
  release(): void;
}

export class PGlitePool {
  private queue: Promise<void> = Promise.resolve();
  /** Statements of `PreparedQuery` prepared in the session so far (prepared.ts). */
  private readonly prepared = new Set<string>();
  /** Whether '…' literals take backslashes as they are (checked once); undefined until then. */
  private plainStrings: boolean | undefined;

  private lastWalCheck = 0;
  private walCheck: Promise<void> | undefined;

  constructor(private readonly pg: PGlite) {}

  /**
   * Runs a statement. One of `PreparedQuery` (prepared.ts) is prepared once in the session
   * (`PREPARE`) and run with `EXECUTE` and its values as literals: PGlite has no named statements in
   * its API, and parsing and planning a lookup in WASM costs ~0.45 ms, as much as running it.
   * Anything unusual (a value that is not text, a number, a boolean or null; a statement PostgreSQL
   * cannot prepare) runs as an ordinary query.
   */
  private async run(text: string, params: readonly unknown[] | undefined) {
    const name = preparedStatementName(text);
    const values = name ? await this.literals(params ?? []) : undefined;
    if (!name || values === undefined) return this.pg.query(text, params as unknown[] | undefined);
    if (!this.prepared.has(name)) {
      try {
        await this.pg.query(`PREPARE ${name} AS ${text}`);
        this.prepared.add(name);
      } catch {
        return this.pg.query(text, params as unknown[] | undefined);
      }
    }
    try {
      return await this.pg.query(values.length ? `EXECUTE ${name}(${values.join(', ')})` : `EXECUTE ${name}`);
    } catch (err) {
      // The session lost it (DEALLOCATE): prepare again next time.
      if ((err as { code?: unknown }).code !== '26000') throw err;
      this.prepared.delete(name);
      return this.pg.query(text, params as unknown[] | undefined);
    }
  }

  /** `params` as SQL literals, or undefined when one cannot be written as one safely. */
  private async literals(params: readonly unknown[]): Promise<string[] | undefined> {
    if (this.plainStrings === undefined) {
      const { rows } = await this.pg.query<{ on: string }>(
        `SELECT current_setting('standard_conforming_strings') AS on`,
      );
      this.plainStrings = rows[0]?.on === 'on';
    }
    if (!this.plainStrings) return undefined;
    const out: string[] = [];
    for (const value of params) {
      if (value === null || value === undefined) out.push('NULL');
      else if (typeof value === 'string' && !value.includes('\u0000'))
        out.push(`'${value.replace(/'/g, "''")}'`);
      else if (typeof value === 'number' && Number.isFinite(value)) out.push(String(value));
      else if (typeof value === 'boolean') out.push(value ? 'TRUE' : 'FALSE');
      else return undefined;
    }
    return out;
  }

  async connect(): Promise<PoolClient> {
    let release!: () => void;
    const turn = new Promise<void>((resolve) => (release = resolve));
    const previous = this.queue;
    this.queue = previous.then(() => turn);
    await previous;
    let released = false;
    return {
      query: async (text, params) => {
        const result = await this.run(text, params);
        return {
          rows: result.rows,
          rowCount: result.affectedRows ?? 0,
          command: /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? '',
        };
      },
      release: () => {
        if (!released) {
          released = true;
          release();
          this.checkpointIfDue();
        }
      },
    };
  }

  /** Runs `fn` on the PGlite instance while holding the session, so no transaction is open around it. */
  async exclusive<T>(fn: (pg: PGlite) => Promise<T>): Promise<T> {
    const client = await this.connect();
    try {
      return await fn(this.pg);
    } finally {
      client.release();
    }
  }

  /**
   * Between two sessions' turns, at most once a second: a CHECKPOINT once the WAL written since the
   * last one reaches CHECKPOINT_WAL_BYTES, as a server's checkpointer would. Older WAL segments are
   * then removed or recycled, so the WAL on disk stays near that size however long the process runs.
   */
  private checkpointIfDue(): void {
    const now = Date.now();
    if (this.walCheck || now - this.lastWalCheck < WAL_CHECK_INTERVAL_MS) return;
    this.lastWalCheck = now;
    this.walCheck = this.exclusive(async (pg) => {
      const { rows } = await pg.query<{ written: number }>(
        `SELECT (pg_current_wal_lsn() - (pg_control_checkpoint()).redo_lsn)::float8 AS written`,
      );
      if ((rows[0]?.written ?? 0) >= CHECKPOINT_WAL_BYTES) await pg.exec('CHECKPOINT');
    })
      // A failed check (the database closing) is retried at the next turn; nothing waits on it.
      .catch(() => {})
      .finally(() => (this.walCheck = undefined));
  }

  async end(): Promise<void> {
    await this.queue;
  }
}
