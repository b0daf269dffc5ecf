/**
 * The cve5 history fixture (test/fixtures/cve5/history: 553 base records and 199 real upstream
 * commits of cisagov/vulnrichment) and the change history an import of it must record, computed
 * with the pure functions only (parseCve5Record → mergeCve with the shipped alias table → diffCve).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import { affectedSourcesOf } from '../../src/domain/affected.ts';
import { diffCve } from '../../src/domain/cve-change.ts';
import { mergeCve, type MergedCve, type Provider, type SourceDocument } from '../../src/domain/cve.ts';
import { parseCve5Record } from '../../src/sources/cve5/cve5.parse.ts';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { TextMapper } from '../../src/domain/vendor-provenance.ts';
import { mapCnaKeys, type AliasTable } from '../../src/domain/vendor-aliases.ts';
import { SHIPPED_ALIASES } from '../../src/services/vendor-alias.service.ts';

export type Json = Record<string, unknown>;

export interface HistoryLine {
  commit: string;
  committedAt: string;
  change: 'A' | 'M';
  path: string;
  record: Json;
}

export interface HistoryCommit {
  commit: string;
  committedAt: string;
  lines: HistoryLine[];
}

const HISTORY = fileURLToPath(new URL('../fixtures/cve5/history/', import.meta.url));

async function readGzipJsonLines<T>(file: string): Promise<T[]> {
  return zlib
    .gunzipSync(await fs.readFile(file))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

export const cveIdOf = (record: Json) => (record.cveMetadata as { cveId: string }).cveId;

/** The cvelistV5/vulnrichment path of a record: `YYYY/NNxxx/CVE-YYYY-NNNN.json`. */
export function recordPath(cveId: string): string {
  const [, year, number] = /^CVE-(\d{4})-(\d+)$/.exec(cveId)!;
  return `${year}/${number!.length > 3 ? number!.slice(0, -3) : '0'}xxx/${cveId}.json`;
}

export async function loadHistory(): Promise<{ base: Json[]; commits: HistoryCommit[] }> {
  const [base, lines] = await Promise.all([
    readGzipJsonLines<Json>(path.join(HISTORY, 'base.jsonl.gz')),
    readGzipJsonLines<HistoryLine>(path.join(HISTORY, 'commits.jsonl.gz')),
  ]);
  const commits: HistoryCommit[] = [];
  for (const line of lines) {
    if (commits.at(-1)?.commit !== line.commit)
      commits.push({ commit: line.commit, committedAt: line.committedAt, lines: [] });
    commits.at(-1)!.lines.push(line);
  }
  return { base, commits };
}

/** JSON with object keys sorted: jsonb does not keep key order. */
export function stable(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** A new install's mapper: the shipped alias table (learned from the bundled sample), no overrides. */
function shippedMapper(): TextMapper {
  const { table } = JSON.parse(gunzipSync(readFileSync(SHIPPED_ALIASES)).toString('utf8')) as {
    table: AliasTable;
  };
  return (containers) => mapCnaKeys(table, containers);
}

/**
 * Per CVE, the changes (`stable({types, data})`) that importing `versions` in order must record, on a
 * catalog that maps CNA text with the shipped table (as a new install does).
 */
export function expectedChanges(versions: Json[]): Map<string, string[]> {
  const mapText = shippedMapper();
  const views = new Map<string, MergedCve>();
  const statements = new Map<string, Map<Provider, SourceDocument>>();
  const changes = new Map<string, string[]>();
  for (const record of versions) {
    const { cveId, records } = parseCve5Record(record);
    const docs = new Map<Provider, SourceDocument>(records.map((r) => [r.provider, r.doc]));
    const after = mergeCve(cveId, docs, mapText);
    // The affected entries are compared statement to statement, as the import does.
    const previous = statements.get(cveId);
    const affected = previous && { before: affectedSourcesOf(previous), after: affectedSourcesOf(docs) };
    const change = diffCve(views.get(cveId), after, affected);
    views.set(cveId, after);
    statements.set(cveId, docs);
    if (change)
      changes.set(cveId, [...(changes.get(cveId) ?? []), stable({ types: change.types, data: change.data })]);
  }
  return changes;
}

/** Per CVE, the recorded changes (`stable({types, data})`), in the order they were recorded. */
export async function recordedChanges(db: Kysely<DB>): Promise<Map<string, string[]>> {
  const rows = await sql<{ cve_id: string; types: string[]; data: unknown }>`
    SELECT cve_id, types, data FROM cve_change ORDER BY cve_id, created_at, id`.execute(db);
  const map = new Map<string, string[]>();
  for (const r of rows.rows)
    map.set(r.cve_id, [...(map.get(r.cve_id) ?? []), stable({ types: r.types, data: r.data })]);
  return map;
}

/** The catalog's merged rows and statement hashes, for comparing two databases. */
export async function catalogSnapshot(db: Kysely<DB>) {
  const rows = await db
    .selectFrom('cve')
    .select([
      'cve_id',
      'state',
      'title',
      'description',
      'created_at',
      'updated_at',
      'metrics',
      'cvss20',
      'cvss30',
      'cvss31',
      'cvss40',
      'kev',
      'vendors',
      'weaknesses',
      'cpes',
      'references',
      'providers',
    ])
    .orderBy('cve_id')
    .execute();
  const sources = await db
    .selectFrom('cve_source')
    .select(['cve_id', 'provider', 'hash'])
    .orderBy('cve_id')
    .orderBy('provider')
    .execute();
  return { rows: rows.map((r) => stable(r)), sources };
}

/** Every version of every file up to `step` (0: the base), in commit order. */
export function versionsUpTo(base: Json[], commits: HistoryCommit[], step: number): Json[] {
  return [...base, ...commits.slice(0, step).flatMap((c) => c.lines.map((l) => l.record))];
}
