/** What every upstream source produces: a stream of items, each a CVE statement, a weakness or a skip. */
import type { Provider, SourceRecord } from '../domain/cve.ts';
import type { ImportedChange } from '../domain/cve-change.ts';
import type { Readable } from 'node:stream';
import type { InputFile } from './input.ts';
import { jsonArrayElements } from './json-array.ts';

export interface WeaknessRecord {
  cweId: string;
  name: string;
  description: string;
}

export type ImportItem =
  | {
      kind: 'cve';
      cveId: string;
      /** Position in the input, for messages: `file.jsonl:42`. */
      position: string;
      records: SourceRecord[];
      /** Providers this item speaks for completely: a provider listed here but absent from `records` is removed. */
      replaces: Provider[];
      /**
       * The CVE's change history as recorded elsewhere (OpenCVE's KB), oldest first: kept with its ids
       * and dates. Given (even empty), it stands for the CVE's creation when the item brings the CVE
       * into the catalog.
       */
      history?: ImportedChange[];
    }
  | { kind: 'weakness'; position: string; weakness: WeaknessRecord }
  | { kind: 'skip'; position: string; id?: string; reason: string }
  /**
   * A snapshot source's input (Source.snapshotOf) is its list as of `takenAt` (ISO, UTC): a statement
   * it does not list but whose fact is dated on that day or later is kept (domain/snapshot.ts).
   */
  | { kind: 'snapshot'; position: string; takenAt: string };

/**
 * A record not parsed yet (see `Source.scan`): its CVE id as read from the raw text, and a fingerprint
 * of the raw input. Equal fingerprints parse to equal items, so a record whose fingerprint is stored
 * (and whose statements are still the ones it produced) is known to change nothing without parsing.
 */
export interface RawItem {
  kind: 'raw';
  /** Read from the raw text: the id the record is looked up by; `parse()` alone decides the real one. */
  cveId: string;
  position: string;
  /** Hash of the raw input and of the parser's version. */
  fingerprint: string;
  parse(): ImportItem;
}

export const SOURCE_NAMES = ['cve5', 'nvd', 'kev', 'epss', 'cwe', 'opencve-kb'] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

export interface Source {
  name: SourceName;
  /** Which files of a folder or archive belong to this source. */
  accept(logicalName: string): boolean;
  /** Parses one input file. Never throws for a bad record: it yields a skip and goes on. */
  parse(file: InputFile): AsyncGenerator<ImportItem>;
  /**
   * Optional fast path of `parse` for the importer: the same items in the same order, except that a
   * record may come as a `raw` item, parsed only if its fingerprint is not the stored one.
   */
  scan?(file: InputFile): AsyncGenerator<ImportItem | RawItem>;
  /**
   * The provider whose whole list one input of this source is (the KEV catalog is every entry CISA
   * keeps): after an import read without problems, this provider's statements about CVEs the input
   * no longer lists are retired, as upstream removed those entries (ImportService.retireUnlisted),
   * except those stating a fact newer than the input: its parser yields a `snapshot` item saying
   * when the input was taken (none: every statement it does not list is retired).
   */
  snapshotOf?: Provider;
}

export function isSourceName(name: string): name is SourceName {
  return (SOURCE_NAMES as readonly string[]).includes(name);
}

/** A record that failed validation: the reason goes into the import's report. */
export class RecordError extends Error {
  override name = 'RecordError';
}

export function errorReason(err: unknown): string {
  if (err instanceof RecordError) return err.message;
  if (err instanceof SyntaxError) return `malformed JSON (${err.message})`;
  return err instanceof Error ? err.message : String(err);
}

const UNREADABLE = 'the rest of the file is unreadable';

/**
 * The skip that ends a file whose rest cannot be read (a cut download, a broken archive): the items
 * before it stand, and a sync round treats it as a failure (isUnreadableRest).
 */
export function unreadableRest(position: string, err: unknown): ImportItem {
  return { kind: 'skip', position, reason: `${UNREADABLE}: ${errorReason(err)}` };
}

export function isUnreadableRest(reason: string): boolean {
  return reason.startsWith(UNREADABLE);
}

/**
 * The items of the array under the top-level key `key` of a JSON file (json-array.ts), each at
 * `file:key[index]`: an element that is not JSON is skipped on its own, a cut file ends in
 * unreadableRest. With `notFound`, a file without the key (empty, `{}`, another format) is one
 * skipped item with that reason, not an empty list.
 */
export async function* jsonArrayItems(
  file: InputFile,
  stream: Readable,
  key: string,
  toItem: (value: unknown, position: string) => ImportItem,
  notFound?: string,
): AsyncGenerator<ImportItem> {
  let found = false;
  try {
    for await (const element of jsonArrayElements(stream, key, () => (found = true))) {
      const position = `${file.name}:${key}[${element.index}]`;
      yield 'error' in element
        ? { kind: 'skip', position, reason: element.error }
        : toItem(element.value, position);
    }
    if (!found && notFound) yield { kind: 'skip', position: file.name, reason: notFound };
  } catch (err) {
    yield unreadableRest(file.name, err);
  }
}
