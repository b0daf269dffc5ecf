/**
 * cve5 from a local git clone of cvelistV5 or vulnrichment: pull (fast-forward only, when the clone
 * has a remote), then import the CVE files changed by each commit since the cursor, in commit order.
 * Consecutive commits are applied in spans (see commitSpans): each span is one import in one
 * transaction that also moves the cursor to its last commit, so a sync stopped anywhere (even by
 * kill -9) leaves the catalog at a span boundary with the cursor there, and the next round goes on
 * from it: nothing lost, nothing recorded twice. Blob contents go to the importer from memory.
 * Deleted files are ignored: upstream never deletes a CVE record (it marks it REJECTED), and a removed
 * file says nothing about the CVE.
 */
import path from 'node:path';
import { memoryFile, type InputFile } from '../sources/input.ts';
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
/**
 * File versions per span of commits, unless one commit alone holds more: bounds how long one
 * transaction holds the catalog write lock (and, on the embedded database, its only session), about
 * a second, and how much an interrupted round applies again.
 */
const SPAN_FILES = 2000;

export interface Cve5GitSyncOptions {
  dir: string;
  /** Called for each commit once its span is imported and the cursor moved (tests stop a sync half-way with it). */
  afterCommit?: (commit: string, index: number) => void | Promise<void>;
  /** File versions per span (SPAN_FILES). */
  spanFiles?: number;
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
    const blobs = new BlobReader(dir);
    try {
      if (!cursorCommit) {
        outcome.note(`first sync: every CVE file of ${head.slice(0, 12)}`);
        await this.importTree(head, blobs, context, outcome);
      } else if (cursorCommit === head) {
        outcome.note(`up to date at ${head.slice(0, 12)}`);
      } else if (!(await isAncestor(dir, cursorCommit, head))) {
        // Upstream history was rewritten (or the clone replaced): the tree is the truth.
        outcome.note(
          `cursor ${cursorCommit.slice(0, 12)} is not in the history of HEAD: every CVE file again`,
        );
        await this.importTree(head, blobs, context, outcome);
      } else {
        await this.importCommits(cursorCommit, head, blobs, context, outcome);
      }
    } finally {
      blobs.close();
    }
    if (pullError) throw new SyncError(`${pullError.message} (local commits were imported)`);
    return outcome.get();
  }

  private async importCommits(
    from: string,
    head: string,
    blobs: BlobReader,
    context: SyncContext,
    outcome: OutcomeBuilder,
  ) {
    const commits = await changedFiles(this.options.dir, from, head);
    outcome.note(`${commits.length} commit${commits.length === 1 ? '' : 's'} since ${from.slice(0, 12)}`);
    let done = 0;
    for (const span of commitSpans(commits, this.options.spanFiles ?? SPAN_FILES)) {
      const last = span.at(-1)!;
      const cursor = { commit: last.commit };
      const versions = span.flatMap((c) => c.files.map((p) => ({ rev: c.commit, path: p })));
      // Each version differs from the one before it (git lists the files a commit changed).
      if (versions.length)
        outcome.add(await context.importFiles(blobFiles(blobs, versions), { cursor, changedInputs: true }));
      else await context.saveCursor(cursor);
      outcome.cursor(cursor);
      done += span.length;
      context.progress(
        `cve5: commit ${done} of ${commits.length} (${last.commit.slice(0, 12)}, ${versions.length} files in ${span.length} commit${span.length === 1 ? '' : 's'})`,
      );
      for (const c of span) await this.options.afterCommit?.(c.commit, c.index);
    }
  }

  /**
   * Every CVE file of `head`, in one import of its own transactions (a tree can be large); then the
   * cursor. Stopped half-way, the next round imports the tree again, which records nothing twice.
   */
  private async importTree(head: string, blobs: BlobReader, context: SyncContext, outcome: OutcomeBuilder) {
    const files = (await git(this.options.dir, ['ls-tree', '-r', '--name-only', head]))
      .split('\n')
      .filter((p) => p && isCveFile(p));
    context.progress(`cve5: ${files.length} files of HEAD`);
    outcome.add(
      await context.importFiles(
        blobFiles(
          blobs,
          files.map((p) => ({ rev: head, path: p })),
        ),
      ),
    );
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
 * Consecutive commits applied as one import, until the next commit would take the span past
 * `maxFiles` file versions (a commit with more is a span of its own: the cursor never stops inside a
 * commit). A span may hold several versions of a file: the importer applies them in order, each
 * recording its own change, exactly as the commits one by one would.
 */
export function* commitSpans(
  commits: readonly CommitFiles[],
  maxFiles = SPAN_FILES,
): Generator<CommitFiles[]> {
  let span: CommitFiles[] = [];
  let files = 0;
  for (const c of commits) {
    if (span.length && files + c.files.length > maxFiles) {
      yield span;
      span = [];
      files = 0;
    }
    span.push(c);
    files += c.files.length;
  }
  if (span.length) yield span;
}

/** The versions' contents as input files, straight from git (read ahead), named `<commit>:<path>` in messages. */
async function* blobFiles(
  blobs: BlobReader,
  versions: readonly { rev: string; path: string }[],
): AsyncGenerator<InputFile> {
  const specs = versions.map((v) => `${v.rev}:${v.path}`);
  let i = 0;
  for await (const { blob } of blobs.readAhead(specs)) {
    const { rev, path: p } = versions[i++]!;
    if (!blob) continue;
    yield memoryFile(`${rev.slice(0, 12)}:${p}`, path.posix.basename(p), blob);
  }
}
