import { sql, type Kysely } from 'kysely';
import * as wordIndex from './0030-search-words.ts';

/**
 * Substring search back on the trigram index over `cve.search_text` (migration 0014), instead of the
 * word index of migration 0030, which cost as much on imports and several times more on searches.
 * Measured in session 12 on a quiet machine (bench/RESULTS-api.md): on the 300,000-CVE catalog the
 * word index spent 3.3, 5.7 and 8.5 ms of server CPU per request on `log4j`, `micro` and `microsoft
 * exchange` (its dictionary lookup alone 1.6–5.6 ms, `micro`'s count 49 ms), against 0.5, 1.5 and
 * 3.3 ms with the trigram index (session 8); and on a first import of the 44,130-record corpus the
 * two were alike (1,612–1,676 against 1,631–1,701 records/s, session 11, alternated).
 *
 * Drops the words, their triggers, functions and dictionary, and builds the trigram index again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS cve_search_words_inserted ON cve`.execute(db);
  await sql`DROP TRIGGER IF EXISTS cve_search_words_updated ON cve`.execute(db);
  await sql`DROP FUNCTION IF EXISTS cve_search_words_computed()`.execute(db);
  await sql`DROP TABLE IF EXISTS search_word`.execute(db);
  await sql`ALTER TABLE cve DROP COLUMN IF EXISTS search_words`.execute(db);
  await sql`DROP FUNCTION IF EXISTS cve_search_words(text, text, text, text[])`.execute(db);
  await sql`CREATE INDEX IF NOT EXISTS cve_search_text_idx ON cve USING gin (search_text gin_trgm_ops)`.execute(
    db,
  );
  await sql`ANALYZE cve (search_text)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await wordIndex.up(db);
}
