/**
 * The embedded data dir is private: the dir and its directories 0700, its files 0600, for a new
 * install and for one made before (fixed at start), with no help from the umask.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';

/** Every entry under `dir` (itself included) whose mode is not private, as `path mode`. */
function notPrivate(dir: string): string[] {
  const found: string[] = [];
  const visit = (entry: string) => {
    const stat = fs.lstatSync(entry);
    const mode = stat.mode & 0o777;
    if (mode !== (stat.isDirectory() ? 0o700 : 0o600))
      found.push(`${path.relative(dir, entry) || '.'} ${mode.toString(8)}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(dir);
  return found;
}

function countEntries(dir: string): number {
  return fs.statSync(dir).isDirectory()
    ? 1 + fs.readdirSync(dir).reduce((n, name) => n + countEntries(path.join(dir, name)), 0)
    : 1;
}

describe('the embedded data dir', () => {
  const dirs: string[] = [];
  const newDataDir = () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vt-private-')), 'data');
    dirs.push(path.dirname(dir));
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is created private: every directory 0700, every file 0600, whatever the umask', async () => {
    const saved = process.umask(0o000);
    const dataDir = newDataDir();
    try {
      const database = await openDatabase({ dataDir });
      // While it runs (after the migrations wrote their files) and after it closes.
      expect(notPrivate(dataDir)).toEqual([]);
      await database.db.schema.createTable('privacy_probe').addColumn('x', 'integer').execute();
      await database.close();
    } finally {
      process.umask(saved);
    }
    expect(countEntries(dataDir)).toBeGreaterThan(1000);
    expect(notPrivate(dataDir)).toEqual([]);
  });

  it('fixes an existing install at start: world-readable files and directories become private', async () => {
    const dataDir = newDataDir();
    await (await openDatabase({ dataDir })).close();
    // An install made before: PGlite's 0666 files and 0755 directories.
    const widen = (entry: string) => {
      const stat = fs.statSync(entry);
      fs.chmodSync(entry, stat.isDirectory() ? 0o755 : 0o666);
      if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) widen(path.join(entry, name));
    };
    widen(dataDir);
    expect(notPrivate(dataDir).length).toBeGreaterThan(1000);

    const database = await openDatabase({ dataDir });
    expect(notPrivate(dataDir)).toEqual([]);
    await database.close();
  });
});
