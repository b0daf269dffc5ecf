/**
 * Presents an embedded PGlite database as the small part of a `pg.Pool` that Kysely's
 * PostgresDialect uses. PGlite is a single session, so `connect()` hands out one client at a time:
 * a transaction holds the session until it is released and other callers wait their turn.
 * Between turns it checkpoints and vacuums, as a server's background processes would
 * (pglite-maintenance.ts).
 */
import type { PGlite } from '@electric-sql/pglite';
import { PGliteMaintenance } from './pglite-maintenance.ts';
import { preparedStatementName } from './prepared.ts';

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

  private readonly maintenance = new PGliteMaintenance((fn) => this.exclusive(fn));

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
          this.maintenance.afterTurn();
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
