/**
 * Texts offered in several languages (CVE 5 `descriptions`, NVD `descriptions` and
 * `description_data`: `[{lang, value}]`): the catalog keeps the English one (`en`, `en-US`…), else the
 * first, with the language tag the record gives it.
 */
export interface LanguageText {
  value: string;
  /** The record's language tag (BCP 47, e.g. `en`, `en-US`, `fr`), when it has one. */
  lang: string | undefined;
}

export function preferredText(list: unknown): LanguageText | undefined {
  if (!Array.isArray(list)) return undefined;
  const items = list.filter(
    (d): d is { lang?: unknown; value?: unknown } => !!d && typeof d === 'object' && !Array.isArray(d),
  );
  const chosen = items.find((d) => /^en\b/i.test(String(d.lang))) ?? items[0];
  if (typeof chosen?.value !== 'string' || chosen.value === '') return undefined;
  const lang = typeof chosen.lang === 'string' && /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(chosen.lang);
  return { value: chosen.value, lang: lang ? (chosen.lang as string) : undefined };
}
