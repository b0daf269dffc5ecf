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
