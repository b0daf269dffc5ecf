/** A user's own tags on CVEs (`user_cve_tag`). */
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { DB } from './schema.ts';

export class TagRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Makes the user's tags on the CVE exactly `tags`, in one transaction. */
  async replace(userId: string, cveId: string, tags: readonly string[]): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx
        .deleteFrom('user_cve_tag')
        .where('user_id', '=', userId)
        .where('cve_id', '=', cveId)
        .where(sql<SqlBool>`NOT (tag = ANY(${[...tags]}::text[]))`)
        .execute();
      if (tags.length) {
        await tx
          .insertInto('user_cve_tag')
          .values(tags.map((tag) => ({ user_id: userId, cve_id: cveId, tag })))
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
    });
  }

  /** The user's tagged CVEs with their tags (sorted), optionally only those of one CVE. */
  async list(userId: string, cveId?: string): Promise<{ cve_id: string; tags: string[] }[]> {
    let q = this.db
      .selectFrom('user_cve_tag')
      .select(['cve_id', sql<string[]>`array_agg(tag ORDER BY tag)`.as('tags')])
      .where('user_id', '=', userId);
    if (cveId !== undefined) q = q.where('cve_id', '=', cveId);
    return q.groupBy('cve_id').orderBy('cve_id').execute();
  }

  /** Whether the user has put `tag` on any CVE. */
  async exists(userId: string, tag: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('user_cve_tag')
      .select('cve_id')
      .where('user_id', '=', userId)
      .where('tag', '=', tag)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * The condition on `cve` "tagged `tag` by the user" (for CveFilters.where): the user's few tagged
   * ids are read first (`ARRAY(…)`, evaluated once) and the CVEs fetched by primary key.
   */
  filter(userId: string, tag: string): (eb: ExpressionBuilder<DB, 'cve'>) => Expression<SqlBool> {
    return (eb) => {
      const ids = eb
        .selectFrom('user_cve_tag as t')
        .select('t.cve_id')
        .where('t.user_id', '=', userId)
        .where('t.tag', '=', tag);
      return sql<SqlBool>`${eb.ref('cve.cve_id')} = ANY(ARRAY(${ids}))`;
    };
  }
}
