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

  /** The catalog's size and when an import last completed (the sync-off banner says both). */
  async catalogSummary(): Promise<{ cves: number; lastImportAt: Date | null }> {
    const row = await sql<{ cves: number; last_import_at: Date | null }>`
      SELECT (SELECT count(*)::int FROM cve) AS cves,
             (SELECT max(finished_at) FROM import_run WHERE status IN ('completed', 'partial')) AS last_import_at`.execute(
      this.db,
    );
    const first = row.rows[0];
    return { cves: Number(first?.cves ?? 0), lastImportAt: first?.last_import_at ?? null };
  }
}
