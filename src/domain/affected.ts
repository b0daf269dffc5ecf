/**
 * What a CVE record says is affected, per container (the CNA's, each ADP's): vendor, product,
 * platforms, default status, versions and ranges, CPEs, CVE 5.1 `cpeApplicability` and 5.2
 * `packageURL` (docs/api-v2.md, `affected`). Built from the CVE 5 statements when a CVE is merged,
 * compared for the change history (`affected` changes), and read in plain words on CVE pages. Pure.
 */
import { sameJson } from './canonical-json.ts';
import type { NvdConfiguration } from './nvd-configuration.ts';

/** One `affected[]` entry of a CVE 5 container as a statement keeps it (version matching reads it too). */
export interface AffectedProduct {
  vendor?: string;
  product?: string;
  defaultStatus?: string;
  versions?: unknown[];
  cpes?: string[];
  /** The package as its ecosystem names it (`xz`, `org.apache.logging.log4j:log4j-core`). */
  packageName?: string;
  /** Where that package is published (a registry or repository URL). */
  collectionURL?: string;
  /** CVE 5.2: the package as a Package URL. */
  packageURL?: string;
  platforms?: string[];
}

/** The parts of a CVE 5 statement (domain/cve.ts `SourceDocument`) its affected entries come from. */
interface AffectedStatement {
  affected?: readonly AffectedProduct[] | undefined;
  adpAffected?: readonly AffectedProduct[] | undefined;
  cpeApplicability?: NvdConfiguration[] | undefined;
  assigner?: string | undefined;
  affectedComplete?: true | undefined;
}

/** The providers whose statements hold a CVE 5 record's containers. */
export const CVE5_STATEMENTS: ReadonlySet<string> = new Set(['mitre', 'vulnrichment']);

/**
 * Whether these statements' affected entries can be compared with others: each CVE 5 statement among
 * them keeps its container whole (`affectedComplete`, parser `cve5/4` on). An older one lacks fields
 * the parser keeps now; comparing it would record them as news.
 */
export function affectedComparable(statements: ReadonlyMap<string, AffectedStatement>): boolean {
  for (const [provider, statement] of statements)
    if (CVE5_STATEMENTS.has(provider) && !statement.affectedComplete) return false;
  return true;
}

/** One version statement of an affected entry, as CVE 5 writes it (`versions[]`). */
export interface AffectedVersion {
  version: string;
  status: string;
  lessThan?: string;
  lessThanOrEqual?: string;
  versionType?: string;
  /** Status changes inside the range, in order: `{at, status}`. */
  changes?: { at: string; status: string }[];
}

/** One `affected[]` entry of a container, its fields checked and its versions normalized. */
export interface AffectedEntry {
  vendor?: string;
  product?: string;
  /** `packageName` and `collectionURL` (an ecosystem's package), when the entry names one. */
  packageName?: string;
  collectionURL?: string;
  /** CVE 5.2: the package as a Package URL (`pkg:maven/org.apache.logging.log4j/log4j-core`). */
  packageURL?: string;
  platforms?: string[];
  defaultStatus?: string;
  versions: AffectedVersion[];
  cpes?: string[];
}

/** What one container of the record states: `cna` or `adp`, with the provider's short name. */
export interface AffectedSource {
  source: 'cna' | 'adp';
  /** The container's provider by its short name (`apache`, `CISA-ADP`); null when the record names none. */
  provider: string | null;
  entries: AffectedEntry[];
  /** CVE 5.1's `cpeApplicability` of the container: configurations in NVD's layout. */
  cpeApplicability?: NvdConfiguration[];
}

/** The ADP whose container a `vulnrichment` statement holds (the only ADP with affected entries). */
export const VULNRICHMENT_SHORT_NAME = 'CISA-ADP';

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** A `versions[]` item kept with its known fields, or undefined when it has no version (schema-invalid). */
function versionOf(value: unknown): AffectedVersion | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  const version = text(v.version);
  if (version === undefined) return undefined;
  const out: AffectedVersion = { version, status: text(v.status) ?? 'unknown' };
  for (const key of ['lessThan', 'lessThanOrEqual', 'versionType'] as const) {
    const t = text(v[key]);
    if (t !== undefined) out[key] = t;
  }
  if (Array.isArray(v.changes)) {
    const changes = v.changes
      .map((c) => (c && typeof c === 'object' ? (c as Record<string, unknown>) : {}))
      .filter((c) => text(c.at) !== undefined)
      .map((c) => ({ at: text(c.at)!, status: text(c.status) ?? 'unknown' }));
    if (changes.length) out.changes = changes;
  }
  return out;
}

/** One stored `affected[]` entry as the API serves it. */
export function affectedEntryOf(product: AffectedProduct): AffectedEntry {
  const entry: AffectedEntry = { versions: [] };
  for (const key of ['vendor', 'product', 'packageName', 'collectionURL', 'packageURL'] as const) {
    const t = text(product[key]);
    if (t !== undefined) entry[key] = t;
  }
  const platforms = (product.platforms ?? []).filter((p): p is string => !!text(p));
  if (platforms.length) entry.platforms = platforms;
  if (text(product.defaultStatus)) entry.defaultStatus = product.defaultStatus!;
  entry.versions = (product.versions ?? []).map(versionOf).filter((v): v is AffectedVersion => !!v);
  if (product.cpes?.length) entry.cpes = product.cpes;
  return entry;
}

function sourceOf(
  source: AffectedSource['source'],
  provider: string | null,
  products: readonly AffectedProduct[] | undefined,
  cpeApplicability: NvdConfiguration[] | undefined,
): AffectedSource | undefined {
  if (!products?.length && !cpeApplicability?.length) return undefined;
  return {
    source,
    provider,
    entries: (products ?? []).map(affectedEntryOf),
    ...(cpeApplicability?.length ? { cpeApplicability } : {}),
  };
}

/**
 * The affected entries of a CVE's statements: the CNA's (`mitre`) first, then CISA-ADP's
 * (`vulnrichment`, its whole entries, `adpAffected`); a container that states none is left out.
 */
export function affectedSourcesOf(statements: ReadonlyMap<string, AffectedStatement>): AffectedSource[] {
  const cna = statements.get('mitre');
  const adp = statements.get('vulnrichment');
  return [
    sourceOf('cna', cna?.assigner ?? null, cna?.affected, cna?.cpeApplicability),
    sourceOf('adp', VULNRICHMENT_SHORT_NAME, adp?.adpAffected, adp?.cpeApplicability),
  ].filter((s): s is AffectedSource => !!s);
}

/**
 * The `affected` change from `before` to `after`: the containers whose statement differs, each as it
 * was (`old`, absent when it is new) and as it is (`new`, absent when it is gone); undefined when no
 * container differs.
 */
export function diffAffected(
  before: readonly AffectedSource[],
  after: readonly AffectedSource[],
): { old: AffectedSource[]; new: AffectedSource[] } | undefined {
  const key = (s: AffectedSource) => `${s.source} ${s.provider ?? ''}`;
  const oldBy = new Map(before.map((s) => [key(s), s]));
  const newBy = new Map(after.map((s) => [key(s), s]));
  const changed = [...new Set([...oldBy.keys(), ...newBy.keys()])].filter(
    (k) => !sameJson(oldBy.get(k), newBy.get(k)),
  );
  if (!changed.length) return undefined;
  return {
    old: changed.map((k) => oldBy.get(k)).filter((s): s is AffectedSource => !!s),
    new: changed.map((k) => newBy.get(k)).filter((s): s is AffectedSource => !!s),
  };
}

/** One stretch of versions with one status, in plain words (`from 2.0.0 before 2.15.0`). */
export interface VersionSpan {
  status: string;
  text: string;
}

/** `*` (any later version) or nothing: an open end. */
const openEnd = (v: string | undefined) => v === undefined || v === '*';
/** `0` (or `*`) as a start: from the first version on. */
const openStart = (v: string) => v === '0' || v === '*';

function spanText(from: string, lessThan: string | undefined, lessThanOrEqual: string | undefined): string {
  if (lessThan === undefined && lessThanOrEqual === undefined) return from;
  const end = lessThan ?? lessThanOrEqual;
  if (openEnd(end)) return openStart(from) ? 'every version' : `from ${from} on`;
  const bound = lessThan !== undefined ? `before ${lessThan}` : `through ${lessThanOrEqual}`;
  return openStart(from) ? bound : `from ${from} ${bound}`;
}

/**
 * A version statement in plain words: one span, or, for a range with `changes`, one span per stretch
 * between them (Log4Shell: affected from 2.0-beta9 before 2.3.1, unaffected from 2.3.1 before 2.4…).
 */
export function versionSpans(v: AffectedVersion): VersionSpan[] {
  if (!v.changes?.length || (v.lessThan === undefined && v.lessThanOrEqual === undefined)) {
    return [{ status: v.status, text: spanText(v.version, v.lessThan, v.lessThanOrEqual) }];
  }
  const spans: VersionSpan[] = [];
  let from = v.version;
  let status = v.status;
  for (const change of v.changes) {
    spans.push({ status, text: spanText(from, change.at, undefined) });
    from = change.at;
    status = change.status;
  }
  spans.push({ status, text: spanText(from, v.lessThan, v.lessThanOrEqual) });
  return spans;
}
