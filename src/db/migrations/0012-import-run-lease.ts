import { sql, type Kysely } from 'kysely';

/**
 * A lease on each running import (docs/catalog.md): the importing process renews `lease_until` while
 * it runs, so a run whose process died (`kill -9`, a lost machine) is seen as `interrupted` once the
 * lease has passed, on a PostgreSQL server as on the embedded database. Runs left `running` by a
 * version without leases get one that has already passed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE import_run ADD COLUMN lease_until timestamptz`.execute(db);
  await sql`UPDATE import_run SET lease_until = now() WHERE status = 'running'`.execute(db);
  // What the lease check reads (at each import's start and each /readyz): the few running runs.
  await sql`CREATE INDEX import_run_lease_idx ON import_run (lease_until) WHERE status = 'running'`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS import_run_lease_idx`.execute(db);
  await sql`ALTER TABLE import_run DROP COLUMN lease_until`.execute(db);
}
