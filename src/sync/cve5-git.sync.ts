/**
 * cve5 from a local git clone of cvelistV5 or vulnrichment: pull (fast-forward only, when the clone
 * has a remote), then import the CVE files changed by each commit since the cursor, in commit order:
 * consecutive commits that touch distinct files are imported together (see commitGroups), and the
 * cursor moves after each group. The last imported statement wins in the
 * catalog (docs/catalog.md), so order matters and a resumed sync starts at the first commit not
 * completely imported: nothing is lost, nothing recorded twice. Deleted files are ignored: upstream
 * never deletes a CVE record (it marks it REJECTED), and a removed file says nothing about the CVE.
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BlobReader, git } from './git.ts';
import {
  OutcomeBuilder,
  SyncError,
  type SourceSync,
  type SyncContext,
  type SyncOutcome,
} from './sync-source.ts';

const CVE_FILE = /^CVE-\d{4}-\d+\.json$/i;
const isCveFile = (p: string) => CVE_FILE.test(path.posix.basename(p));
/** Records per temporary file (and import) when a whole tree is imported. */
const TREE_CHUNK = 5000;
/** At most this many files in one group of commits (one import). */
const GROUP_FILES = 5000;

export interface Cve5GitSyncOptions {
  dir: string;
  /** Called for each commit once its group is imported and the cursor moved (tests stop a sync half-way with it). */
  afterCommit?: (commit: string, index: number) => void | Promise<void>;
}

export class Cve5GitSync implements SourceSync {
  constructor(private readonly options: Cve5GitSyncOptions) {}

  async run(context: SyncContext): Promise<SyncOutcome> {
    const { dir } = this.options;
    const outcome = new OutcomeBuilder(context.cursor);
    await git(dir, ['rev-parse', '--git-dir']).catch(() => {
      throw new SyncError(`CVE5_GIT_DIR ${dir} is not a git clone`);
    });
    let pullError: Error | undefined;
    if ((await git(dir, ['remote'])).trim()) {
      context.progress(`cve5: git pull in ${dir}`);
      await git(dir, ['pull', '--ff-only', '--quiet']).catch((err: Error) => (pullError = err));
    } else {
      outcome.note('the clone has no remote: not pulled, reading its commits as they are');
    }
    const head = (await git(dir, ['rev-parse', 'HEAD'])).trim();
    const cursorCommit = typeof context.cursor.commit === 'string' ? context.cursor.commit : undefined;
    const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'vulntrack-cve5-'));
    const blobs = new BlobReader(dir);
    try {
      if (!cursorCommit) {
        outcome.note(`first sync: every CVE file of ${head.slice(0, 12)}`);
        await this.importTree(head, blobs, tmp, context, outcome);
      } else if (cursorCommit === head) {
        outcome.note(`up to date at ${head.slice(0, 12)}`);
      } else if (!(await isAncestor(dir, cursorCommit, head))) {
        // Upstream history was rewritten (or the clone replaced): the tree is the truth.
        outcome.note(
          `cursor ${cursorCommit.slice(0, 12)} is not in the history of HEAD: every CVE file again`,
        );
        await this.importTree(head, blobs, tmp, context, outcome);
      } else {
        await this.importCommits(cursorCommit, head, blobs, tmp, context, outcome);
      }
    } finally {
      blobs.close();
      await fsp.rm(tmp, { recursive: true, force: true });
    }
    if (pullError) throw new SyncError(`${pullError.message} (local commits were imported)`);
    return outcome.get();
  }

  private async importCommits(
    from: string,
    head: string,
    blobs: BlobReader,
    tmp: string,
    context: SyncContext,
    outcome: OutcomeBuilder,
  ) {
    const commits = await changedFiles(this.options.dir, from, head);
    outcome.note(`${commits.length} commit${commits.length === 1 ? '' : 's'} since ${from.slice(0, 12)}`);
    let done = 0;
    for (const group of commitGroups(commits)) {
      const records = group.flatMap((c) => c.files.map((p) => ({ rev: c.commit, path: p })));
      if (records.length) {
        const file = path.join(tmp, `${group[0]!.commit}.jsonl`);
        await writeRecords(file, records, blobs);
        outcome.add(await context.importInputs([file]));
        await fsp.rm(file, { force: true });
      }
      const last = group.at(-1)!;
      const cursor = { commit: last.commit };
      await context.saveCursor(cursor);
      outcome.cursor(cursor);
      done += group.length;
      context.progress(
        `cve5: commit ${done} of ${commits.length} (${last.commit.slice(0, 12)}, ${records.length} files in ${group.length} commit${group.length === 1 ? '' : 's'})`,
      );
      for (const c of group) await this.options.afterCommit?.(c.commit, c.index);
    }
  }

  private async importTree(
    head: string,
    blobs: BlobReader,
    tmp: string,
    context: SyncContext,
    outcome: OutcomeBuilder,
  ) {
    const files = (await git(this.options.dir, ['ls-tree', '-r', '--name-only', head]))
      .split('\n')
      .filter((p) => p && isCveFile(p));
    for (let i = 0; i < files.length; i += TREE_CHUNK) {
      const file = path.join(tmp, `tree-${i}.jsonl`);
      await writeRecords(
        file,
        files.slice(i, i + TREE_CHUNK).map((p) => ({ rev: head, path: p })),
        blobs,
      );
      outcome.add(await context.importInputs([file]));
      await fsp.rm(file, { force: true });
      context.progress(`cve5: ${Math.min(i + TREE_CHUNK, files.length)} of ${files.length} files of HEAD`);
    }
    const cursor = { commit: head };
    await context.saveCursor(cursor);
    outcome.cursor(cursor);
  }
}

async function isAncestor(dir: string, commit: string, head: string): Promise<boolean> {
  try {
    await git(dir, ['merge-base', '--is-ancestor', commit, head]);
    return true;
  } catch {
    return false;
  }
}

interface CommitFiles {
  commit: string;
  index: number;
  /** CVE files the commit added or modified (against its first parent). */
  files: string[];
}

/** The commits after `from` up to `head` (first-parent, oldest first) with their changed CVE files: one git process. */
async function changedFiles(dir: string, from: string, head: string): Promise<CommitFiles[]> {
  const out = await git(dir, [
    'log',
    '--reverse',
    '--first-parent',
    '--diff-merges=first-parent',
    '--name-only',
    '--no-renames',
    '--diff-filter=d',
    '--format=%x00%H',
    `${from}..${head}`,
  ]);
  return out
    .split('\0')
    .filter((chunk) => chunk.trim())
    .map((chunk, index) => {
      const [commit, ...files] = chunk.split('\n').filter(Boolean);
      return { commit: commit!, index, files: files.filter(isCveFile) };
    });
}

/**
 * Consecutive commits that never touch the same file twice, imported as one: each CVE has one version
 * in a group, so the group's import records exactly the changes the commits one by one would, and an
 * interrupted group imported again from its start changes nothing twice (a version already applied
 * is unchanged). A file touched again starts the next group.
 */
export function* commitGroups(
  commits: readonly CommitFiles[],
  maxFiles = GROUP_FILES,
): Generator<CommitFiles[]> {
  let group: CommitFiles[] = [];
  let seen = new Set<string>();
  for (const c of commits) {
    if (group.length && (c.files.some((f) => seen.has(f)) || seen.size + c.files.length > maxFiles)) {
      yield group;
      group = [];
      seen = new Set();
    }
    group.push(c);
    for (const f of c.files) seen.add(f);
  }
  if (group.length) yield group;
}

/** Writes each file's content at its revision as JSON Lines (compact; unparsable content stays one line to be reported). */
async function writeRecords(file: string, records: { rev: string; path: string }[], blobs: BlobReader) {
  const lines: string[] = [];
  for (const { rev, path: p } of records) {
    const blob = await blobs.read(`${rev}:${p}`);
    if (!blob) continue;
    const text = blob.toString('utf8');
    try {
      lines.push(JSON.stringify(JSON.parse(text)));
    } catch {
      lines.push(text.replace(/\r?\n/g, ' '));
    }
  }
  await fsp.writeFile(file, lines.join('\n') + '\n');
}
