/**
 * cve5 from a local git clone of cvelistV5 or vulnrichment: pull (fast-forward only, when the clone
 * has a remote), then import the CVE files changed by each commit since the cursor, one import per
 * commit in commit order, moving the cursor after each. The last imported statement wins in the
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

export interface Cve5GitSyncOptions {
  dir: string;
  /** Called after each commit's import and cursor move (tests stop a sync half-way with it). */
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
    const { dir } = this.options;
    const commits = (await git(dir, ['rev-list', '--reverse', '--first-parent', `${from}..${head}`]))
      .split('\n')
      .filter(Boolean);
    outcome.note(`${commits.length} commit${commits.length === 1 ? '' : 's'} since ${from.slice(0, 12)}`);
    for (const [index, commit] of commits.entries()) {
      const changed = (
        await git(dir, [
          'diff-tree',
          '--no-commit-id',
          '--name-only',
          '-r',
          '-m',
          '--first-parent',
          '--no-renames',
          '--diff-filter=d',
          commit,
        ])
      )
        .split('\n')
        .filter((p) => p && isCveFile(p));
      if (changed.length) {
        const file = path.join(tmp, `${commit}.jsonl`);
        await writeRecords(file, changed, commit, blobs);
        outcome.add(await context.importInputs([file]));
        await fsp.rm(file, { force: true });
      }
      const cursor = { commit };
      await context.saveCursor(cursor);
      outcome.cursor(cursor);
      context.progress(
        `cve5: commit ${index + 1} of ${commits.length} (${commit.slice(0, 12)}, ${changed.length} files)`,
      );
      await this.options.afterCommit?.(commit, index);
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
      await writeRecords(file, files.slice(i, i + TREE_CHUNK), head, blobs);
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

/** Writes the files' content at `rev` as JSON Lines (compact; unparsable content stays one line to be reported). */
async function writeRecords(file: string, paths: string[], rev: string, blobs: BlobReader) {
  const lines: string[] = [];
  for (const p of paths) {
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
