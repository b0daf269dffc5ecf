/** What every upstream source produces: a stream of items, each a CVE statement, a weakness or a skip. */
import type { Provider, SourceRecord } from '../domain/cve.ts';
import type { InputFile } from './input.ts';

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
    }
  | { kind: 'weakness'; position: string; weakness: WeaknessRecord }
  | { kind: 'skip'; position: string; id?: string; reason: string };

export const SOURCE_NAMES = ['cve5', 'nvd', 'kev', 'epss', 'cwe', 'opencve-kb'] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

export interface Source {
  name: SourceName;
  /** Which files of a folder or archive belong to this source. */
  accept(logicalName: string): boolean;
  /** Parses one input file. Never throws for a bad record: it yields a skip and goes on. */
  parse(file: InputFile): AsyncGenerator<ImportItem>;
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
