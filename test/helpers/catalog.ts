/** Small readers of the catalog tables for import tests, and paths to the fixtures. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import type { MergedMetrics } from '../../src/domain/cve.ts';

export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export function fixture(...parts: string[]): string {
  return path.join(FIXTURES, ...parts);
}

export async function readJson<T = Record<string, unknown>>(file: string): Promise<T> {
  return JSON.parse(await fs.readFile(file, 'utf8')) as T;
}

/** The merged `cve` row of a CVE, with `metrics` typed; undefined when the catalog does not list it. */
export async function cveRow(db: Kysely<DB>, cveId: string) {
  const row = await db.selectFrom('cve').selectAll().where('cve_id', '=', cveId).executeTakeFirst();
  return row && { ...row, metrics: row.metrics as unknown as MergedMetrics };
}

/** Like cveRow, but fails the test when the CVE is missing. */
export async function mustCveRow(db: Kysely<DB>, cveId: string) {
  const row = await cveRow(db, cveId);
  if (!row) throw new Error(`${cveId} is not in the catalog`);
  return row;
}

export async function changesOf(db: Kysely<DB>, cveId: string) {
  return db
    .selectFrom('cve_change')
    .select(['id', 'cve_id', 'types', 'data', 'created_at'])
    .where('cve_id', '=', cveId)
    .orderBy('created_at')
    .execute();
}

export async function countRows(db: Kysely<DB>, table: keyof DB): Promise<number> {
  const result = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(db);
  return result.rows[0]!.n;
}

export async function sourceRow(db: Kysely<DB>, cveId: string, provider: string) {
  return db
    .selectFrom('cve_source')
    .selectAll()
    .where('cve_id', '=', cveId)
    .where('provider', '=', provider)
    .executeTakeFirst();
}

/** A fresh temporary folder and a function that removes it. */
export async function tempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vulntrack-test-'));
  return { dir, remove: () => fs.rm(dir, { recursive: true, force: true }) };
}

/** Zips `entries` (paths relative to `cwd`) into `zipFile` with the zip tool, or python3 when it is missing. */
export function makeZip(cwd: string, zipFile: string, entries: string[]): void {
  try {
    execFileSync('zip', ['-q', '-r', zipFile, ...entries], { cwd });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const script =
      'import os,sys,zipfile\n' +
      'z=zipfile.ZipFile(sys.argv[1],"w",zipfile.ZIP_DEFLATED)\n' +
      'for e in sys.argv[2:]:\n' +
      '  if os.path.isfile(e): z.write(e)\n' +
      '  for root,_,files in os.walk(e):\n' +
      '    for f in files: z.write(os.path.join(root,f))\n' +
      'z.close()\n';
    execFileSync('python3', ['-c', script, zipFile, ...entries], { cwd });
  }
}
