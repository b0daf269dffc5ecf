/**
 * Atom 1.0 (RFC 4287) written as text with an XML escaper: Preact's renderer writes HTML, not XML
 * (it would not escape for XML nor write the declaration), and a feed needs only a few elements.
 * Every text and attribute goes through `xmlText`, which also drops what XML 1.0 cannot hold
 * (control characters, lone surrogates), so an upstream description cannot break the document.
 */

/** XML 1.0's Char production, negated: what may not appear in a document at all. */
// eslint-disable-next-line no-control-regex
const NOT_XML_CHAR = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Text or an attribute value as XML: escaped, characters XML cannot hold removed. */
export function xmlText(value: string): string {
  return value.replace(NOT_XML_CHAR, '').replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

export interface AtomEntry {
  /** A permanent IRI, e.g. `urn:uuid:…`. */
  id: string;
  title: string;
  updated: Date;
  /** The entry's page (rel="alternate"). */
  link: string;
  summary: string;
  categories?: string[];
}

export interface AtomFeed {
  id: string;
  title: string;
  subtitle?: string;
  updated: Date;
  /** The feed's own URL (rel="self"). */
  self: string;
  /** The page it follows (rel="alternate"). */
  alternate: string;
  author: string;
  entries: AtomEntry[];
}

const el = (name: string, text: string) => `<${name}>${xmlText(text)}</${name}>`;
const link = (rel: string, href: string, type?: string) =>
  `<link rel="${rel}" href="${xmlText(href)}"${type ? ` type="${type}"` : ''}/>`;

/** The feed as an Atom 1.0 document (UTF-8). */
export function atomDocument(feed: AtomFeed): string {
  const out = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    el('id', feed.id),
    `<title type="text">${xmlText(feed.title)}</title>`,
    ...(feed.subtitle ? [`<subtitle type="text">${xmlText(feed.subtitle)}</subtitle>`] : []),
    el('updated', feed.updated.toISOString()),
    link('self', feed.self, 'application/atom+xml'),
    link('alternate', feed.alternate, 'text/html'),
    `<author>${el('name', feed.author)}</author>`,
    '<generator>vulntrack</generator>',
  ];
  for (const e of feed.entries) {
    out.push(
      '<entry>',
      el('id', e.id),
      `<title type="text">${xmlText(e.title)}</title>`,
      el('updated', e.updated.toISOString()),
      link('alternate', e.link, 'text/html'),
      ...(e.categories ?? []).map((c) => `<category term="${xmlText(c)}"/>`),
      `<summary type="text">${xmlText(e.summary)}</summary>`,
      '</entry>',
    );
  }
  out.push('</feed>', '');
  return out.join('\n');
}
