/**
 * Where an import's time goes, from a .cpuprofile of it: the import-specific reading of the generic
 * profile summary. Also a CLI for a saved profile:
 *   node --import tsx bench/import/profile.ts bench/.work/profiles/pg-first-import.cpuprofile
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixed, int, table } from '../lib/markdown.ts';
import {
  summarizeProfile,
  type Frame,
  type ProfileSummary,
  type Rule,
  type Share,
} from '../lib/cpuprofile.ts';

const inFile =
  (file: string, ...fns: string[]) =>
  (f: Frame) =>
    f.file === file && (!fns.length || fns.includes(f.fn));
const inPackage =
  (...pkgs: string[]) =>
  (f: Frame) =>
    pkgs.some((p) => f.file.startsWith(`${p}/`));
/** V8 shows native JSON.parse as a frame `parse` with no script; JSON.stringify has no frame of its own. */
const jsonParse = (f: Frame) => f.fn === 'parse' && f.file === '';

/**
 * Fingerprinting each statement: `serialize` (JSON.stringify + sha1) today, `hashOf` (canonicalJson
 * via documentText + sha1) before; tsx leaves arrow functions anonymous, so documentText and node's
 * hash functions identify the older form.
 */
const hashing = (f: Frame) =>
  inFile('src/services/import.service.ts', 'serialize', 'hashOf')(f) ||
  (f.fn === 'documentText' && f.file === 'src/domain/cve.ts') ||
  f.file.startsWith('node:internal/crypto');
const pgDriver = inPackage('pg', 'pg-protocol', 'pg-types', 'pg-pool');

/** In priority order: a sample goes to the first rule matching any frame of its stack. */
const CATEGORIES: Rule[] = [
  { name: 'idle: waiting on the database (or disk)', match: (f) => f.fn === '(idle)' },
  // The profiling run's per-statement server CPU readings: overhead, not the importer's.
  { name: 'benchmark instrumentation (/proc reads)', match: (f) => f.file === 'bench/lib/pg-server-cpu.ts' },
  { name: 'garbage collection', match: (f) => f.fn === '(garbage collector)' },
  {
    name: 'embedded database: PGlite (WASM)',
    match: (f) => f.file.startsWith('wasm://') || inPackage('@electric-sql/pglite')(f),
  },
  { name: 'fingerprints: JSON.stringify + sha1 per statement (serialize)', match: hashing },
  {
    name: 'change diff (diffCve, with its sameJson calls)',
    match: inFile('src/domain/cve-change.ts', 'diffCve'),
  },
  {
    name: 'merged-view comparison: canonicalJson twice (sameJson)',
    match: inFile('src/domain/canonical-json.ts', 'sameJson'),
  },
  { name: 'merge (mergeCve)', match: inFile('src/domain/cve.ts', 'mergeCve') },
  { name: 'normalization (cve5.parse.ts)', match: inFile('src/sources/cve5/cve5.parse.ts') },
  { name: 'pg driver: protocol, utf-8 encoding of parameters, result parsing', match: pgDriver },
  { name: 'kysely: query compilation and execution', match: inPackage('kysely') },
  {
    name: 'batch payloads: JSON.stringify + row mapping (catalog-write)',
    match: inFile('src/db/catalog-write.repository.ts'),
  },
  { name: 'line splitting (lines)', match: inFile('src/sources/input.ts', 'lines') },
  { name: 'decompression (zlib)', match: (f) => f.file === 'node:zlib' },
  // JSON.parse is inlined into the source's generator: its time is that generator's self time.
  {
    name: 'JSON.parse of input lines (cve5 source)',
    match: (f) => jsonParse(f) || inFile('src/sources/cve5/cve5.source.ts')(f),
  },
  {
    name: 'import loop: batching, maps (import.service.ts)',
    match: inFile('src/services/import.service.ts'),
  },
  { name: 'other project code', match: (f) => f.file.startsWith('src/') },
  { name: 'node internals: streams, sockets, promises', match: (f) => f.file.startsWith('node:') },
  { name: '(program): native code outside JS', match: (f) => f.fn === '(program)' },
];

/** Time with these functions on the stack, whoever called them (overlapping). */
const INCLUSIVE: Rule[] = [
  { name: 'serialize (JSON.stringify + sha1)', match: hashing },
  { name: 'canonicalJson (all callers)', match: inFile('src/domain/canonical-json.ts', 'canonicalJson') },
  { name: 'sameJson (all callers)', match: inFile('src/domain/canonical-json.ts', 'sameJson') },
  { name: 'mergeCve', match: inFile('src/domain/cve.ts', 'mergeCve') },
  { name: 'diffCve', match: inFile('src/domain/cve-change.ts', 'diffCve') },
  { name: 'parseCve5Record', match: inFile('src/sources/cve5/cve5.parse.ts', 'parseCve5Record') },
  { name: 'JSON.parse (input lines and pg jsonb results)', match: jsonParse },
  {
    name: 'CatalogWriteTransaction.write (sync part)',
    match: inFile('src/db/catalog-write.repository.ts', 'write'),
  },
  { name: 'pg driver', match: pgDriver },
  { name: 'kysely', match: inPackage('kysely') },
  { name: 'zlib', match: (f) => f.file === 'node:zlib' },
];

export function summarizeImportProfile(file: string): ProfileSummary {
  return summarizeProfile(file, { categories: CATEGORIES, inclusive: INCLUSIVE, top: 25 });
}

const shareTable = (title: string, rows: Share[]) =>
  table(
    [title, 'ms', 'share'],
    rows.map((r) => [r.name, int(r.ms), `${fixed(r.share * 100, 1)} %`]),
    ['left', 'right', 'right'],
  );

/** Markdown: categories, inclusive times of the usual suspects, top functions by self time. */
export function renderImportProfile(summary: ProfileSummary): string {
  return [
    `Sampled time: ${int(summary.totalMs)} ms (1 ms sampling; the main thread only).`,
    '',
    '**Where the time goes** (each sample counted once, in the first matching category):',
    '',
    shareTable('category', summary.categories),
    '',
    '**Inclusive time** (synchronous work with the function on the stack; overlaps):',
    '',
    shareTable('function', summary.inclusive),
    '',
    '**Top functions by self time**:',
    '',
    shareTable('function', summary.self),
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node --import tsx bench/import/profile.ts <file.cpuprofile>');
  console.log(renderImportProfile(summarizeImportProfile(file)));
}
