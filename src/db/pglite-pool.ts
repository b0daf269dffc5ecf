/**
 * Presents an embedded PGlite database as the small part of a `pg.Pool` that Kysely's
 * PostgresDialect uses. PGlite is a single session, so `connect()` hands out one client at a time:
 * a transaction holds the session until it is released and other callers wait their turn.
 */
import type { PGlite } from '@electric-sql/pglite';

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

  constructor(private readonly pg: PGlite) {}

  async connect(): Promise<PoolClient> {
    let release!: () => void;
    const turn = new Promise<void>((resolve) => (release = resolve));
    const previous = this.queue;
    this.queue = previous.then(() => turn);
    await previous;
    let released = false;
    return {
      query: async (text, params) => {
        const result = await this.pg.query(text, params as unknown[] | undefined);
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

  async end(): Promise<void> {
    await this.queue;
  }
}
