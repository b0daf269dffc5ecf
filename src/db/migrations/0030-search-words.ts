import { sql, type Kysely } from 'kysely';

/**
 * Substring search served by a word index instead of a trigram index over each CVE's whole text
 * (migration 0014), which made a first import 15–25 % slower: about 250 trigram GIN entries per CVE
 * against about 50 for the English full-text vector before it (bench/RESULTS.md, session 9).
 *
 * - `cve.search_words`: the words of `search_text` (the lower-case text that search matches), split
 *   at ASCII blanks, punctuation and symbols (every ASCII character but letters and digits), with a
 *   GIN index. Computed by the database from the same lower-cased text, so any writer's rows (an
 *   import, a test's or a benchmark's `INSERT`) get words that agree with `search_text` exactly.
 *   Repeated words are kept in the array (removing them costs a subquery per row); the index stores
 *   each once.
 * - `search_word`: one row per distinct word of three characters or more of the catalog, with a
 *   trigram index: the words a piece of text can be part of. Triggers on `cve` add the words of
 *   inserted and updated rows; words no CVE holds any more stay (a lookup of a stale word finds no
 *   CVE).
 *
 * A search for `log4j` reads the words containing it (`log4j`, `log4j2`, …) from `search_word`, then
 * the CVEs with one of them through `cve_search_words_idx`, then rechecks `search_text LIKE
 * '%log4j%'` on those rows (src/db/cve-search.ts). Converting the 44,130-record corpus's catalog
 * takes about 10 s on PostgreSQL 15 (the table rewrite that computes the column, the dictionary, the
 * index).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION cve_search_words(cve_id text, title text, description text, vendors text[])
    RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT array_remove(regexp_split_to_array(cve_search_text(cve_id, title, description, vendors),
                                                '[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+'), '')
    $$`.execute(db);
  await sql`DROP INDEX IF EXISTS cve_search_text_idx`.execute(db);
  await sql`
    ALTER TABLE cve ADD COLUMN search_words text[] NOT NULL
      GENERATED ALWAYS AS (cve_search_words(cve_id, title, description, vendors)) STORED`.execute(db);
  await sql`CREATE INDEX cve_search_words_idx ON cve USING gin (search_words)`.execute(db);

  await sql`CREATE TABLE search_word (word text PRIMARY KEY)`.execute(db);
  await sql`
    INSERT INTO search_word (word)
    SELECT DISTINCT w FROM cve CROSS JOIN LATERAL unnest(cve.search_words) AS w WHERE length(w) >= 3`.execute(
    db,
  );
  await sql`CREATE INDEX search_word_trgm_idx ON search_word USING gin (word gin_trgm_ops)`.execute(db);
  await sql`
    CREATE FUNCTION search_word_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO search_word (word)
      SELECT DISTINCT w FROM new_rows n CROSS JOIN LATERAL unnest(n.search_words) AS w WHERE length(w) >= 3
      ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE FUNCTION search_word_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- Only rows whose words changed: an update of scores or dates adds nothing.
      INSERT INTO search_word (word)
      SELECT DISTINCT w
        FROM new_rows n JOIN old_rows o ON o.cve_id = n.cve_id AND o.search_words IS DISTINCT FROM n.search_words
        CROSS JOIN LATERAL unnest(n.search_words) AS w
       WHERE length(w) >= 3
      ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER search_word_inserted AFTER INSERT ON cve REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION search_word_inserted()`.execute(db);
  await sql`
    CREATE TRIGGER search_word_updated AFTER UPDATE ON cve REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION search_word_updated()`.execute(db);
  await sql`ANALYZE cve (search_words), search_word`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS search_word_inserted ON cve`.execute(db);
  await sql`DROP TRIGGER IF EXISTS search_word_updated ON cve`.execute(db);
  await sql`DROP FUNCTION IF EXISTS search_word_inserted()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS search_word_updated()`.execute(db);
  await sql`DROP TABLE IF EXISTS search_word`.execute(db);
  await sql`ALTER TABLE cve DROP COLUMN IF EXISTS search_words`.execute(db);
  await sql`DROP FUNCTION IF EXISTS cve_search_words(text, text, text, text[])`.execute(db);
  await sql`CREATE INDEX cve_search_text_idx ON cve USING gin (search_text gin_trgm_ops)`.execute(db);
}
