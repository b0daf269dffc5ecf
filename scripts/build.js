/**
 * `npm run build`, also run by `npm ci` and `npm install` (the `prepare` script) and, when `src/`
 * changed since, by `npm start`: compiles `src/` to `dist/` with tsc, so `bin/vulntrack.js` starts as
 * plain JavaScript. Types are not checked here (`npm run check` does that, and CI runs it): a build,
 * like tsx, emits what it is given. `--if-stale` builds only when `dist/` is older than `src/`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { compiledEntry, ROOT, stampPath } from '../bin/compiled.js';

if (process.argv.includes('--if-stale') && compiledEntry()) process.exit(0);

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // An install without dev dependencies: the command line runs the sources through tsx.
  console.warn(
    'vulntrack: typescript is not installed, so dist/ is not built; commands compile src/ at start',
  );
  process.exit(0);
}

const started = new Date();
// From scratch: a module deleted from src/ must not stay in dist/ (the v1 routes are found by listing a folder).
fs.rmSync(path.join(ROOT, 'dist'), { recursive: true, force: true });
const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck'], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (run.status !== 0) {
  console.error('vulntrack: the build failed; commands compile src/ at start until it succeeds');
  process.exit(run.status ?? 1);
}
// The web UI's static files are served as they are: copied beside the compiled modules.
fs.cpSync(path.join(ROOT, 'src', 'web', 'assets'), path.join(ROOT, 'dist', 'web', 'assets'), {
  recursive: true,
});
fs.writeFileSync(stampPath(), `dist/ compiled from src/ as it was at ${started.toISOString()}\n`);
fs.utimesSync(stampPath(), started, started);
