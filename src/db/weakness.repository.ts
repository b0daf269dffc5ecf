/** CWE weaknesses of the catalog. Listed by name descending, as OpenCVE does (unnamed ones last). */
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { DB } from './schema.ts';

export class WeaknessRepository {
  constructor(private readonly db: Kysely<DB>) {}

  private filtered(search: string | undefined) {
    let q = this.db.selectFrom('weakness');
    if (search) {
      const pattern = `%${search.replace(/[%_\\]/g, '\\$&')}%`;
      q = q.where((eb) => eb.or([eb('cwe_id', 'ilike', pattern), eb('name', 'ilike', pattern)]));
    }
    return q;
  }

  async count(search?: string): Promise<number> {
    return (
      await this.filtered(search)
        .select(sql<number>`count(*)::int`.as('n'))
        .executeTakeFirstOrThrow()
    ).n;
  }

  list(search: string | undefined, limit: number, offset: number) {
    return this.filtered(search)
      .select(['cwe_id', 'name', 'description', 'created_at', 'updated_at'])
      .orderBy(sql`name DESC NULLS LAST`)
      .orderBy('cwe_id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /** The names of these CWEs the catalog knows (a CWE without a name, or unknown, is left out). */
  async names(cweIds: readonly string[]): Promise<Map<string, string>> {
    if (!cweIds.length) return new Map();
    const rows = await this.db
      .selectFrom('weakness')
      .select(['cwe_id', 'name'])
      .where(sql<SqlBool>`cwe_id = ANY(${[...cweIds]}::text[])`)
      .execute();
    return new Map(rows.filter((r) => r.name).map((r) => [r.cwe_id, r.name!]));
  }

  find(cweId: string) {
    return this.db
      .selectFrom('weakness')
      .select(['cwe_id', 'name', 'description', 'created_at', 'updated_at'])
      .where('cwe_id', '=', cweId)
      .executeTakeFirst();
  }

  /**
   * Weaknesses with their CVE counts (kept by triggers in `weakness_cve_count`, migration 0020), most
   * CVEs first, from just after `after` (`[count, cwe_id]`).
   */
  async browse(
    search: string | undefined,
    after: { count: number; cweId: string } | undefined,
    limit: number,
  ) {
    const pattern = search ? `%${search.replace(/[%_\\]/g, '\\$&')}%` : undefined;
    const rows = await sql<{ cwe_id: string; name: string | null; cve_count: number }>`
      SELECT w.cwe_id, w.name, coalesce(c.cve_count, 0) AS cve_count
      FROM weakness w LEFT JOIN weakness_cve_count c ON c.cwe_id = w.cwe_id
      WHERE true${pattern ? sql` AND (w.cwe_id ILIKE ${pattern} OR w.name ILIKE ${pattern})` : sql``}${
        after
          ? sql` AND (coalesce(c.cve_count, 0) < ${after.count} OR (coalesce(c.cve_count, 0) = ${after.count} AND w.cwe_id > ${after.cweId}))`
          : sql``
      }
      ORDER BY coalesce(c.cve_count, 0) DESC, w.cwe_id
      LIMIT ${limit}`.execute(this.db);
    return rows.rows;
  }
}
