/**
 * How the CVE lists' `search` reads what a person typed, as OpenCVE's users expect: each word
 * (separated by blanks) must appear somewhere in the CVE's id, title, description or vendor and
 * product names, in any case, as a whole word or a piece of one (`log4` finds "Log4j2"). The words
 * may appear in any order and in different fields (`apache log4j`: vendor `apache`, "Log4j2" in the
 * description).
 */

/** The words of a search, each once (case-insensitively), in the order typed; none for blank text. */
export function searchWords(text: string): string[] {
  const words = new Map<string, string>();
  for (const word of text.split(/\s+/u)) {
    if (word && !words.has(word.toLowerCase())) words.set(word.toLowerCase(), word);
  }
  return [...words.values()];
}

/**
 * How the word index reads a CVE's text and a searched piece of text alike (migration 0030): a word
 * is a run of characters other than ASCII blanks, punctuation and symbols (letters and digits of any
 * script, and any other non-ASCII character). The same characters as the migration's regular
 * expression `[\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]`: change both together.
 */
// eslint-disable-next-line no-control-regex -- ASCII control characters separate words, as in the database
const SEPARATORS = /[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/u;

/**
 * One word-like run of a searched text and what the text says of the CVE's word around it: a run
 * with a separator on both sides inside the text (`14` in `2.14.1`) is a whole word of the CVE; a
 * run at the start of the text may be the end of a longer word, at its end the start of one, and a
 * text of one run may be anywhere inside a word.
 */
export interface SearchPiece {
  text: string;
  /** The CVE's word may have characters before the piece (it starts the searched text). */
  openStart: boolean;
  /** The CVE's word may have characters after the piece (it ends the searched text). */
  openEnd: boolean;
}

/** The word-like runs of a searched text (see SearchPiece), in order; none for punctuation alone. */
export function searchPieces(text: string): SearchPiece[] {
  const runs = text.split(SEPARATORS);
  const pieces: SearchPiece[] = [];
  runs.forEach((run, i) => {
    if (run) pieces.push({ text: run, openStart: i === 0, openEnd: i === runs.length - 1 });
  });
  return pieces;
}

/**
 * The distinct words of a CVE's searchable text (its id, title, description and vendor and product
 * names, as migration 0014's `cve_search_text` joins them) as written, each once, for `search_words`:
 * the database lower-cases them (its `lower()` is the one `search_text` uses). Words shorter than
 * three characters are left out: no piece the index looks up is shorter (cve-search.ts).
 */
export function cveSearchWords(cve: {
  cveId: string;
  title: string | null;
  description: string | null;
  vendors: readonly string[];
}): string[] {
  const words = new Set<string>();
  const texts = [
    cve.cveId,
    cve.title ?? '',
    cve.description ?? '',
    ...cve.vendors.map((key) => key.replaceAll('$PRODUCT$', ' ')),
  ];
  for (const text of texts) {
    for (const word of text.split(SEPARATORS)) {
      // Lower case can be longer than the word as written (İ), never shorter.
      if (word.length >= 3 || (word && [...word.toLowerCase()].length >= 3)) words.add(word);
    }
  }
  return [...words];
}
