import { sql, type Kysely } from 'kysely';
import * as wordIndex from './0030-search-words.ts';

/**
 * Substring search back on the trigram index over `cve.search_text` (migration 0014), instead of the
 * word index of migration 0030, which cost as much on imports and more on every search (up to twice as much).
 * Measured in session 12 on a quiet machine (bench/RESULTS-api.md): on the 300,000-CVE catalog the
 * word index spent 3.3, 5.7 and 8.5 ms of server CPU per request on `log4j`, `micro` and `microsoft
 * exchange` (its dictionary lookup alone 1.6–5.6 ms, `micro`'s count 49 ms), against 1.5, 3.7 and
 * 7.6 ms with the trigram index, the same day; and on a first import of the 44,130-record corpus the
 * two were alike (1,612–1,676 against 1,631–1,701 records/s, session 11, alternated).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // What migration 0030 undoes: the words, their triggers, functions and dictionary, and the
  // trigram index built again.
  await wordIndex.down(db);
  await sql`ANALYZE cve (search_text)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await wordIndex.up(db);
}
