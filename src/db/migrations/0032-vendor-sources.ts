import { sql, type Kysely } from 'kysely';

/**
 * Where each vendor key of a CVE comes from (docs/catalog.md, "Vendor keys and their provenance"):
 * `cve.vendor_sources` holds `domain/vendor-provenance.ts`'s `VendorProvenance` (each key with its
 * origins: `cpe:nvd`, `cpe:cna`, `cpe:adp`, `cna-text` with the alias evidence, `stated`; and the
 * text-derived keys NVD's CPEs retracted). NULL for a CVE merged before this migration: its keys
 * still follow the old rule (normalized CNA text) until the one-time re-map of those CVEs
 * (`ImportService.remapVendorKeys`, run by the next import), which the partial index finds at once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE cve ADD COLUMN vendor_sources jsonb`.execute(db);
  await sql`CREATE INDEX cve_vendor_sources_missing ON cve (cve_id) WHERE vendor_sources IS NULL`.execute(db);
  // As the catalog's other documents (migration 0011); PGlite has no lz4.
  await sql`
    DO $$ BEGIN
      ALTER TABLE cve ALTER COLUMN vendor_sources SET COMPRESSION lz4;
    EXCEPTION WHEN feature_not_supported THEN NULL;
    END $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX cve_vendor_sources_missing`.execute(db);
  await sql`ALTER TABLE cve DROP COLUMN vendor_sources`.execute(db);
}
