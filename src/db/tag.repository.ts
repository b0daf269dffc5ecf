/** A user's own tags on CVEs (`user_cve_tag`). */
import {
  sql,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type SqlBool,
  type Transaction,
} from 'kysely';
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

  /** The user's tags on each of some CVEs (a list page), sorted, by CVE id; untagged CVEs absent. */
  async ofCves(
    userId: string,
    cveIds: readonly string[],
    tx: Kysely<DB> | Transaction<DB> = this.db,
  ): Promise<Map<string, string[]>> {
    if (!cveIds.length) return new Map();
    const rows = await tx
      .selectFrom('user_cve_tag')
      .select(['cve_id', sql<string[]>`array_agg(tag ORDER BY tag)`.as('tags')])
      .where('user_id', '=', userId)
      .where(sql<SqlBool>`cve_id = ANY(${[...cveIds]}::text[])`)
      .groupBy('cve_id')
      .execute();
    return new Map(rows.map((r) => [r.cve_id, r.tags]));
  }

  /** Every tag the user has used, sorted (served by `user_cve_tag_tag_idx`). */
  async names(userId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('user_cve_tag')
      .select('tag')
      .distinct()
      .where('user_id', '=', userId)
      .orderBy('tag')
      .execute();
    return rows.map((r) => r.tag);
  }

  /**
   * Puts `add` on every CVE of `cveIds` and takes `remove` off them: two set-based statements
   * (unnest × unnest), whatever the number of CVEs.
   */
  async addAndRemove(
    userId: string,
    cveIds: readonly string[],
    add: readonly string[],
    remove: readonly string[],
    tx: Kysely<DB> | Transaction<DB> = this.db,
  ): Promise<void> {
    if (!cveIds.length) return;
    if (remove.length)
      await sql`DELETE FROM user_cve_tag
        WHERE user_id = ${userId} AND cve_id = ANY(${[...cveIds]}::text[]) AND tag = ANY(${[...remove]}::text[])`.execute(
        tx,
      );
    if (add.length)
      await sql`INSERT INTO user_cve_tag (user_id, cve_id, tag)
        SELECT ${userId}, c, t FROM unnest(${[...cveIds]}::text[]) c, unnest(${[...add]}::text[]) t
        ON CONFLICT DO NOTHING`.execute(tx);
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
