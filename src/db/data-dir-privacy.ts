/**
 * The embedded data dir holds password hashes, token HMACs and the whole database: it is the
 * owner's alone. PGlite writes through Emscripten's NODEFS, which sets file modes itself (968 of
 * 1,147 files of a new data dir were 0666 whatever the process umask; only its directories follow
 * the umask), so the modes are set here: the data dir and every directory beneath it 0700, every
 * file 0600. A directory at 0700 also keeps out whoever is not its owner from files PGlite creates
 * later, between two walks.
 */
import fs from 'node:fs';
import path from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Sets the modes of `dir` and everything beneath it (symbolic links are left alone, never followed).
 * Returns how many entries had to change. Idempotent; a file that vanishes meanwhile is skipped.
 */
export function makePrivate(dir: string): number {
  let changed = 0;
  const visit = (entry: string) => {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(entry);
    } catch {
      return; // removed meanwhile (WAL recycling, a temporary file)
    }
    if (stat.isSymbolicLink()) return;
    const mode = stat.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE;
    if ((stat.mode & 0o777) !== mode) {
      try {
        fs.chmodSync(entry, mode);
        changed++;
      } catch {
        return;
      }
    }
    if (stat.isDirectory()) {
      let names: string[] = [];
      try {
        names = fs.readdirSync(entry);
      } catch {
        return;
      }
      for (const name of names) visit(path.join(entry, name));
    }
  };
  visit(dir);
  return changed;
}
