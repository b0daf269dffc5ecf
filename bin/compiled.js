/**
 * Whether `dist/` holds a build of the current `src/`. `npm ci` (through `prepare`) and `npm run build`
 * compile the TypeScript once, so a command starts as plain JavaScript; a developer who edits `src/`
 * afterwards must never run the older build, so the build counts as current only while nothing in `src/`
 * is newer than it. That is one `stat` per file and folder (about 230, a few milliseconds), and a
 * folder's time also moves when a file in it is added, deleted or renamed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The project root (this file's parent folder). */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Written last by the build, with the time the build started (a source saved during the build is newer).
 * @param {string} [root]
 */
export const stampPath = (root = ROOT) => path.join(root, 'dist', '.built');

/**
 * The newest modification time (ms) of a folder and everything in it.
 * @param {string} dir
 * @returns {number}
 */
export function newestChange(dir) {
  let newest = fs.statSync(dir).mtimeMs;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(file) : fs.statSync(file).mtimeMs);
  }
  return newest;
}

/**
 * The URL of the compiled command line when `dist/` is current, else undefined (run the sources).
 * @param {string} [root]
 * @returns {string | undefined}
 */
export function compiledEntry(root = ROOT) {
  let built;
  try {
    built = fs.statSync(stampPath(root)).mtimeMs;
  } catch {
    return undefined;
  }
  const src = path.join(root, 'src');
  if (fs.existsSync(src) && newestChange(src) >= built) return undefined;
  return pathToFileURL(path.join(root, 'dist', 'cli', 'main.js')).href;
}
