/**
 * A real git repository built from the cve5 history fixture: the base as the first commit, then each
 * of the 199 upstream commits as a commit writing its files at their upstream paths. `main` is the
 * branch a clone follows; `moveMain(step)` moves it (step 0 = base, step i = the i-th upstream commit).
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { parseConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/client.ts';
import { ImportService } from '../../src/services/import.service.ts';
import { SyncService, type SyncServiceOptions } from '../../src/services/sync.service.ts';
import { cveIdOf, recordPath, type HistoryCommit, type Json } from './cve5-history.ts';

const run = promisify(execFile);
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'upstream',
  GIT_AUTHOR_EMAIL: 'upstream@example.org',
  GIT_COMMITTER_NAME: 'upstream',
  GIT_COMMITTER_EMAIL: 'upstream@example.org',
};

export const git = async (dir: string, ...args: string[]) =>
  (await run('git', ['-C', dir, ...args], { env: GIT_ENV, maxBuffer: 64 * 1024 * 1024 })).stdout.trim();

export interface HistoryRepo {
  tmp: string;
  upstream: string;
  /** shas[0] is the base commit, shas[i] the i-th upstream commit. */
  shas: string[];
  moveMain(step: number): Promise<void>;
  /** A clone of `main`, with `main` moved to `step` first. */
  cloneAt(name: string, step: number): Promise<string>;
  remove(): Promise<void>;
}

/** Builds the repository in one `git fast-import` stream (a second or two for 200 commits). */
export async function buildHistoryRepo(base: Json[], commits: HistoryCommit[]): Promise<HistoryRepo> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'vulntrack-git-sync-'));
  const upstream = path.join(tmp, 'upstream');
  await fs.mkdir(upstream);
  await git(upstream, 'init', '-q', '-b', 'build');
  const parts: Buffer[] = [];
  const push = (text: string) => parts.push(Buffer.from(text));
  const data = (text: string) => push(`data ${Buffer.byteLength(text)}\n${text}\n`);
  const commit = (message: string, when: string, files: { path: string; content: string }[]) => {
    const seconds = Math.floor(Date.parse(when) / 1000);
    push(`commit refs/heads/build\ncommitter upstream <upstream@example.org> ${seconds} +0000\n`);
    data(message);
    for (const f of files) {
      push(`M 100644 inline ${f.path}\n`);
      data(f.content);
    }
    push('\n');
  };
  const file = (record: Json) => ({
    path: recordPath(cveIdOf(record)),
    content: JSON.stringify(record, null, 2) + '\n',
  });
  commit('base', commits[0]!.committedAt, [
    ...base.map(file),
    { path: 'README.md', content: 'not a record\n' },
  ]);
  for (const c of commits) {
    for (const line of c.lines) {
      if (line.path !== recordPath(cveIdOf(line.record)))
        throw new Error(`${line.path} is not where ${cveIdOf(line.record)} belongs`);
    }
    commit(
      `upstream ${c.commit}`,
      c.committedAt,
      c.lines.map((l) => file(l.record)),
    );
  }
  await new Promise<void>((resolve, reject) => {
    const child = spawn('git', ['-C', upstream, 'fast-import', '--quiet'], {
      stdio: ['pipe', 'ignore', 'inherit'],
      env: GIT_ENV,
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}`)),
    );
    child.stdin.end(Buffer.concat(parts));
  });
  const shas = (await git(upstream, 'rev-list', '--reverse', 'build')).split('\n');
  const moveMain = (step: number) =>
    git(upstream, 'update-ref', 'refs/heads/main', shas[step]!).then(() => {});
  return {
    tmp,
    upstream,
    shas,
    moveMain,
    async cloneAt(name, step) {
      await moveMain(step);
      const clone = path.join(tmp, name);
      await run('git', ['clone', '-q', '--branch', 'main', upstream, clone], { env: GIT_ENV });
      return clone;
    },
    remove: () => fs.rm(tmp, { recursive: true, force: true }),
  };
}

/** The latest version of every record after `step` upstream commits. */
export function stateAt(base: Json[], commits: HistoryCommit[], step: number): Json[] {
  const latest = new Map<string, Json>();
  for (const r of base) latest.set(cveIdOf(r), r);
  for (const c of commits.slice(0, step)) for (const l of c.lines) latest.set(cveIdOf(l.record), l.record);
  return [...latest.values()];
}

/** The history repository of a test file: built before its tests, removed after them. */
export function useHistoryRepo(base: Json[], commits: HistoryCommit[]): () => HistoryRepo {
  let repo: HistoryRepo | undefined;
  beforeAll(async () => {
    repo = await buildHistoryRepo(base, commits);
  }, 60_000);
  afterAll(async () => {
    await repo?.remove();
  });
  return () => {
    if (!repo) throw new Error('the history repository is built in beforeAll');
    return repo;
  };
}

/** A SyncService whose cve5 source is the git clone `clone`. */
export function cve5GitSync(
  database: Database,
  clone: string,
  options: SyncServiceOptions = {},
  imports = new ImportService(database.db),
): SyncService {
  return new SyncService(database.db, imports, parseConfig({ CVE5_GIT_DIR: clone }).sync, options);
}
