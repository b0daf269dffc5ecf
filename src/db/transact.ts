/**
 * Runs `fn` in a transaction: `db`'s own when `db` already is one (the work then commits or rolls
 * back with it), else a new one.
 */
import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.ts';

export function transact<T>(db: Kysely<DB>, fn: (tx: Transaction<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db as Transaction<DB>) : db.transaction().execute(fn);
}
