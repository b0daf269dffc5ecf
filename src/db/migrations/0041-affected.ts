import { sql, type Kysely } from 'kysely';

/**
 * What the CNA and CISA-ADP state is affected, per container (docs/catalog.md, "Change history";
 * `domain/affected.ts`'s `AffectedSource[]`): `cve.affected`, part of the merged view, compared when a
 * CVE is merged again so that a change of entries or ranges is an `affected` change. NULL for a CVE
 * merged before this migration: it is filled, without a change, the next time the CVE is merged (the
 * CVE 5 parser's version moved, so the next import parses every record again), and meanwhile read
 * from the stored statements (`CatalogService.getCve`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE cve ADD COLUMN affected jsonb`.execute(db);
  // As the catalog's other documents (migration 0011); PGlite has no lz4.
  await sql`
    DO $$ BEGIN
      ALTER TABLE cve ALTER COLUMN affected SET COMPRESSION lz4;
    EXCEPTION WHEN feature_not_supported THEN NULL;
    END $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE cve DROP COLUMN affected`.execute(db);
}
