/** Queries behind /readyz: is the database there, and how big is the catalog. */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';
import { migrationsApplied } from './migrate.ts';

export class HealthRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async ping(): Promise<void> {
    await sql`SELECT 1`.execute(this.db);
  }

  migrationsApplied(): Promise<boolean> {
    return migrationsApplied(this.db as Kysely<unknown>);
  }

  async cveCount(): Promise<number> {
    const row = await this.db
      .selectFrom('cve')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
