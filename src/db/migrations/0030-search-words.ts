import { sql, type Kysely } from 'kysely';

/**
 * Substring search served by a word index instead of a trigram index over each CVE's whole text
 * (migration 0014), which made a first import 15–25 % slower: about 250 trigram GIN entries per CVE
 * against about 50 for the English full-text vector before it (bench/RESULTS.md, sessions 8 and 9).
 *
 * - `cve.search_words`: the distinct words of three characters or more of `search_text` (split at
 *   ASCII blanks, punctuation and symbols: every ASCII character but letters and digits), in lower
 *   case, with a GIN index: 44 per CVE on average over the 44,130-record corpus. The catalog writer
 *   computes them in Node (`cveSearchWords`, src/domain/search-words.ts) and the database lower-cases
 *   them with the `lower()` of `search_text`. A row written without them (a test's or a script's
 *   `INSERT`), or whose text an `UPDATE` changes without them, gets them from `cve_search_words` in
 *   SQL (a trigger), which also adds them to the dictionary: slower (the regular expression in SQL
 *   cost a first import about 4 s of server CPU), but never wrong.
 * - `search_word`: one row per distinct word of the catalog, with a trigram index: the words a piece
 *   of text can be part of. The catalog writer adds the words of the CVEs it writes; a word no CVE
 *   holds any more stays (a lookup of a stale word finds no CVE).
 *
 * A search for `log4j` reads the words containing it (`log4j`, `log4j2`, …) from `search_word`, then
 * the CVEs holding one of them through `cve_search_words_idx`, then rechecks `search_text LIKE
 * '%log4j%'` on those rows (src/db/cve-search.ts). Converting the catalog of the 44,130-record
 * corpus (the words computed in SQL, the dictionary, both indexes: 43.6 words per CVE, 115,049
 * words) took 60 s on PostgreSQL 15, on a 2-core machine shared with other builds (load average 11–12);
 * expect well under that on a quiet one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION cve_search_words(cve_id text, title text, description text, vendors text[])
    RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT ARRAY(
        SELECT DISTINCT w
          FROM unnest(regexp_split_to_array(cve_search_text(cve_id, title, description, vendors),
                                            '[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+')) AS w
         WHERE length(w) >= 3)
    $$`.execute(db);
  await sql`DROP INDEX IF EXISTS cve_search_text_idx`.execute(db);
  await sql`ALTER TABLE cve ADD COLUMN search_words text[]`.execute(db);
  await sql`UPDATE cve SET search_words = cve_search_words(cve_id, title, description, vendors)`.execute(db);
  await sql`ALTER TABLE cve ALTER COLUMN search_words SET NOT NULL`.execute(db);
  await sql`CREATE INDEX cve_search_words_idx ON cve USING gin (search_words)`.execute(db);

  await sql`CREATE TABLE search_word (word text PRIMARY KEY)`.execute(db);
  await sql`
    INSERT INTO search_word (word)
    SELECT DISTINCT w FROM cve CROSS JOIN LATERAL unnest(cve.search_words) AS w`.execute(db);
  await sql`CREATE INDEX search_word_trgm_idx ON search_word USING gin (word gin_trgm_ops)`.execute(db);

  await sql`
    CREATE FUNCTION cve_search_words_computed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.search_words := cve_search_words(NEW.cve_id, NEW.title, NEW.description, NEW.vendors);
      INSERT INTO search_word (word) SELECT unnest(NEW.search_words) ON CONFLICT DO NOTHING;
      RETURN NEW;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER cve_search_words_inserted BEFORE INSERT ON cve
    FOR EACH ROW WHEN (NEW.search_words IS NULL) EXECUTE FUNCTION cve_search_words_computed()`.execute(db);
  await sql`
    CREATE TRIGGER cve_search_words_updated BEFORE UPDATE ON cve
    FOR EACH ROW WHEN (NEW.search_words IS NULL OR (NEW.search_words IS NOT DISTINCT FROM OLD.search_words
      AND (NEW.cve_id, NEW.title, NEW.description, NEW.vendors)
          IS DISTINCT FROM (OLD.cve_id, OLD.title, OLD.description, OLD.vendors)))
    EXECUTE FUNCTION cve_search_words_computed()`.execute(db);
  await sql`ANALYZE cve (search_words), search_word`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS cve_search_words_inserted ON cve`.execute(db);
  await sql`DROP TRIGGER IF EXISTS cve_search_words_updated ON cve`.execute(db);
  await sql`DROP FUNCTION IF EXISTS cve_search_words_computed()`.execute(db);
  await sql`DROP TABLE IF EXISTS search_word`.execute(db);
  await sql`ALTER TABLE cve DROP COLUMN IF EXISTS search_words`.execute(db);
  await sql`DROP FUNCTION IF EXISTS cve_search_words(text, text, text, text[])`.execute(db);
  await sql`CREATE INDEX cve_search_text_idx ON cve USING gin (search_text gin_trgm_ops)`.execute(db);
}
