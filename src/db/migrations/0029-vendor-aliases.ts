import { sql, type Kysely } from 'kysely';

/**
 * The CNA-text alias table (docs/catalog.md, "From CNA text to vendor keys"): the learned table as one
 * JSON document (`domain/vendor-aliases.ts`'s `AliasTable`, a few MB at most), rebuilt whole by
 * `vulntrack vendors learn` and its scheduled job, and the operator's own aliases and vetoes, which
 * outlive every rebuild. `revision` moves on every change of either, so a process keeps the table in
 * memory and reloads it only when the revision it holds is stale.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE vendor_alias_table (
      id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
      aliases jsonb NOT NULL,
      origin text NOT NULL CHECK (origin IN ('shipped', 'learned')),
      learned_from integer NOT NULL,
      learned_at timestamptz NOT NULL DEFAULT now(),
      revision bigint NOT NULL DEFAULT 1
    )`.execute(db);
  await sql`
    CREATE TABLE vendor_alias_override (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      vendor_text text NOT NULL,
      product_text text,
      key text NOT NULL,
      action text NOT NULL CHECK (action IN ('add', 'veto')),
      lookup text NOT NULL,
      created_by text,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (lookup, key)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS vendor_alias_override`.execute(db);
  await sql`DROP TABLE IF EXISTS vendor_alias_table`.execute(db);
}
