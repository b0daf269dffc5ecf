/**
 * Keyword watches (issue 30): words a project watches for in the CVEs themselves, for names the
 * catalog has no key for yet. A keyword matches, in any case and as whole words, the CNA's and ADPs'
 * affected vendor and product names, the title and the description: `xz` matches "xz" and "xz-utils",
 * not "xzone". Text is read as words (runs of letters and digits; everything else separates them), so
 * a keyword of several words (`node.js`, `xz utils`) matches the same words in a row, whatever
 * separates them. Pure: the event processor and the catalog scan of a newly watched keyword both
 * match through `KeywordMatcher`.
 */

/** At most this many keywords per project. */
export const MAX_KEYWORDS = 100;
export const KEYWORD_MIN_LENGTH = 2;
export const KEYWORD_MAX_LENGTH = 100;

/** Where a keyword matched a CVE, in the order the answer names them. */
export const KEYWORD_FIELDS = ['vendor', 'product', 'title', 'description'] as const;
export type KeywordField = (typeof KEYWORD_FIELDS)[number];

/** The texts of a CVE a keyword is matched against. */
export interface KeywordTexts {
  /** The affected entries' vendor names (CNA and ADPs), as written. */
  vendors: readonly string[];
  /** The affected entries' product names (CNA and ADPs), as written. */
  products: readonly string[];
  title: string | null;
  description: string | null;
}

/** The words of a text, lower-cased, in order. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A keyword as it is stored and compared: trimmed, inner blanks collapsed to one space, lower case. */
export function normalizeKeyword(typed: string): string {
  return typed.trim().replace(/\s+/gu, ' ').toLowerCase();
}

/**
 * The keywords of a PUT, normalized, without duplicates (in any case), in the order given; or the
 * validation messages under `keywords` when one is not a keyword or there are too many.
 */
export function parseKeywords(
  typed: readonly string[],
): { keywords: string[] } | { errors: Record<string, string[]> } {
  const errors: string[] = [];
  const keywords = new Set<string>();
  for (const raw of typed) {
    const keyword = normalizeKeyword(raw);
    const shown = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
    if (keyword.length < KEYWORD_MIN_LENGTH)
      errors.push(
        `'${shown}' is too short: a keyword has ${KEYWORD_MIN_LENGTH} to ${KEYWORD_MAX_LENGTH} characters.`,
      );
    else if (keyword.length > KEYWORD_MAX_LENGTH)
      errors.push(
        `'${shown}' is too long (${keyword.length} characters): a keyword has ${KEYWORD_MIN_LENGTH} to ${KEYWORD_MAX_LENGTH}.`,
      );
    else if (!wordsOf(keyword).length) errors.push(`'${shown}' has no letter or digit to match.`);
    // eslint-disable-next-line no-control-regex
    else if (/[\u0000-\u001f\u007f]/u.test(keyword))
      errors.push(`'${shown.replace(/[^\P{Cc}]/gu, '?')}' holds a control character.`);
    else keywords.add(keyword);
  }
  if (keywords.size > MAX_KEYWORDS)
    errors.push(`A project watches at most ${MAX_KEYWORDS} keywords; this list has ${keywords.size}.`);
  return errors.length ? { errors: { keywords: errors } } : { keywords: [...keywords] };
}

/**
 * The piece of a keyword a candidate CVE's lower-cased text must contain (its longest word): what
 * the catalog scan of a newly watched keyword looks up before `KeywordMatcher` decides.
 */
export function keywordProbe(keyword: string): string {
  return wordsOf(keyword).reduce((a, b) => (b.length > a.length ? b : a), '');
}

interface Compiled {
  keyword: string;
  rest: string[];
}

/**
 * Many keywords compiled into one lookup over a text's words: the cost of matching a CVE is one map
 * lookup per word of its texts, whatever the number of keywords (a busy day's 800 changes against
 * the keywords of 10,000 projects: bench/notifications.bench.ts).
 */
export class KeywordMatcher {
  private readonly byFirst = new Map<string, Compiled[]>();
  readonly size: number;

  constructor(keywords: Iterable<string>) {
    let size = 0;
    for (const keyword of new Set(keywords)) {
      const [first, ...rest] = wordsOf(keyword);
      if (first === undefined) continue;
      let list = this.byFirst.get(first);
      if (!list) this.byFirst.set(first, (list = []));
      list.push({ keyword, rest });
      size += 1;
    }
    this.size = size;
  }

  /** Each keyword that matches the texts, with the fields it matched in (KEYWORD_FIELDS order). */
  match(texts: KeywordTexts): Map<string, KeywordField[]> {
    const out = new Map<string, KeywordField[]>();
    if (!this.size) return out;
    const scan = (field: KeywordField, text: string | null) => {
      if (!text) return;
      const words = wordsOf(text);
      for (let i = 0; i < words.length; i++) {
        const list = this.byFirst.get(words[i]!);
        if (!list) continue;
        for (const { keyword, rest } of list) {
          if (rest.some((w, j) => words[i + 1 + j] !== w)) continue;
          const fields = out.get(keyword);
          if (!fields) out.set(keyword, [field]);
          else if (fields.at(-1) !== field) fields.push(field);
        }
      }
    };
    for (const v of texts.vendors) scan('vendor', v);
    for (const p of texts.products) scan('product', p);
    scan('title', texts.title);
    scan('description', texts.description);
    return out;
  }
}

/** The key a keyword's matches go by beside vendor keys in the event match (no vendor key has a blank). */
export const keywordFlagKey = (keyword: string) => `keyword ${keyword}`;
