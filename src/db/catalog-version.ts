/**
 * The catalog's version (`catalog_state.version`): bumped by every import batch that writes CVE rows
 * or statements (`CatalogWriteTransaction.write`). Answers, list counts and inventory matching's
 * candidates kept in a process are keyed by it.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';
import { PreparedQuery } from './prepared.ts';

/** The version as a scalar subquery, read with another query's rows (the same snapshot). */
export const CATALOG_VERSION = sql<number>`(SELECT version FROM catalog_state WHERE id = 1)`;

/** Reads the version alone, as a prepared statement (a lookup many requests make). */
export class CatalogVersion {
  private readonly query: PreparedQuery<{ version: number }, [id: number]>;

  constructor(db: Kysely<DB>) {
    this.query = new PreparedQuery(db, db.selectFrom('catalog_state').select('version').where('id', '=', 1));
  }

  async read(): Promise<number> {
    return Number((await this.query.executeTakeFirst(1))?.version ?? 0);
  }
}
