import { sql, type Kysely } from 'kysely';

/**
 * A version number of the catalog, bumped by every import batch that changes CVE rows: exact list
 * counts are cached per version (counting a broad filter over 300k rows costs 100+ ms).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE catalog_state (
      id integer PRIMARY KEY CHECK (id = 1),
      version bigint NOT NULL DEFAULT 0
    )`.execute(db);
  await sql`INSERT INTO catalog_state (id, version) VALUES (1, 0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS catalog_state`.execute(db);
}
