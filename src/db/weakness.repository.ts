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
}
