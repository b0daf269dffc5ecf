/**
 * What PostgreSQL can store of upstream text. JSON may escape any code unit (`"\u0000"`, `"\ud800"`),
 * and upstream records do hold such escapes, but PostgreSQL refuses U+0000 in `jsonb` ("unsupported
 * Unicode escape sequence") and in `text` (not UTF-8 it can store), and a lone UTF-16 surrogate in
 * `jsonb` (`text` receives it as U+FFFD, which UTF-8 encoding writes instead). Neither means
 * anything in a CVE's text, so the importer stores the text without them (docs/catalog.md, "Bad
 * input"): U+0000 removed, a lone surrogate as U+FFFD.
 */

const NUL = '\0';
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const HAS_LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** What `JSON.stringify` writes for U+0000 and for a lone surrogate (lower-case hex, by the spec). */
const ESCAPED_UNSTORABLE = /\\u(?:0000|d[89a-f])/;

/** `text` as PostgreSQL can store it: without U+0000, each lone surrogate replaced by U+FFFD. */
export function storableText(text: string): string {
  let out = text.includes(NUL) ? text.replaceAll(NUL, '') : text;
  if (HAS_LONE_SURROGATE.test(out)) out = out.replace(LONE_SURROGATE, '\ufffd');
  return out;
}

/**
 * A JSON value with `storableText` applied to every string and object key. Returns `value` itself
 * when nothing changes, else a copy of the parts that changed (the input is never modified).
 */
export function storableJson<T>(value: T): T {
  return storable(value) as T;
}

function storable(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((v: unknown, i) => {
      const s = storable(v);
      if (s !== v) (out ??= [...value])[i] = s;
    });
    return out ?? value;
  }
  if (value === null || typeof value !== 'object') return value;
  let changed = false;
  const entries = Object.entries(value).map(([k, v]) => {
    const key = storableText(k);
    const s = storable(v);
    if (key !== k || s !== v) changed = true;
    return [key, s] as const;
  });
  // fromEntries defines own properties: a `__proto__` key stays a key.
  return changed ? Object.fromEntries(entries) : value;
}

/**
 * Whether `JSON.stringify`'s text of a value may hold a string that `storableText` changes: a cheap
 * test of the text already serialized, before walking the value (an escaped backslash before `u0000`
 * also matches, which only costs the walk).
 */
export function mayHoldUnstorable(json: string): boolean {
  return ESCAPED_UNSTORABLE.test(json);
}
