/**
 * `vulntrack sync cve5` from a git clone, killed with SIGKILL in the middle of the history stream
 * (SPEC §9): each span of commits is one transaction with its cursor, so the catalog the kill leaves
 * holds exactly the commits up to the cursor (no change of a later commit, none missing), and the next
 * run completes the history with every change recorded once.
 *
 * What "exactly" means is what the same command line records without a kill: a second data dir (or
 * server database) syncs the same commits uninterrupted, stopping at the killed run's cursor and
 * then going on to the end. The real command line remembers minted-key merges catalog-wide
 * (`KeyMergeService`), which change how later records map, so the pure model of the history
 * (`expectedChanges`) is no reference here; it still checks that each CVE is there.
 *
 * Runs the real command line (`bin/vulntrack.js`) as a child process, against the embedded database in
 * a temporary data dir and, when TEST_DATABASE_URL is set, against a fresh PostgreSQL server database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { SyncStateRepository } from '../../src/db/sync-state.repository.ts';
import { loadHistory, recordedChanges } from '../helpers/cve5-history.ts';
import { stateAt, useHistoryRepo } from '../helpers/history-repo.ts';
import { backends, createServerDatabase, type Backend } from '../helpers/databases.ts';

const BIN = fileURLToPath(new URL('../../bin/vulntrack.js', import.meta.url));
/** The line the sync prints before it pulls, and one it prints once a span is committed with its cursor. */
const PULL = /^cve5: git pull in /m;
const SPAN_DONE = /^cve5: commit \d+ of \d+ /m;

const { base, commits } = await loadHistory();
const repo = useHistoryRepo(base, commits);
const children = new Set<ChildProcess>();

// Registered after the repository's own hooks, so it runs before its removal.
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all([...children].map((child) => once(child, 'close')));
});

/** `vulntrack sync cve5` in a child process; `exited` resolves with its code and signal, `stderr` grows. */
function startSync(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [BIN, 'sync', 'cve5'], {
    env: { ...process.env, LOG_LEVEL: 'warn', VULNTRACK_LOAD_SAMPLE: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('close', () => children.delete(child));
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (output.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output.stderr += d.toString()));
  const exited = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, output, exited };
}

function waitForStderr(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<void> {
  let seen = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${seen}`)),
      timeoutMs,
    );
    child.stderr!.on('data', (d: Buffer) => {
      seen += d.toString();
      if (pattern.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('close', () => {
      clearTimeout(timer);
      reject(new Error(`the sync exited before printing ${pattern}:\n${seen}`));
    });
  });
}

/**
 * Resolves while a transaction of the sync's catalog writes is open in `url`'s database, having
 * written (it holds a transaction id), once it has been seen for `holdMs`, or as soon as a second
 * writing transaction follows the first. A span is one transaction, so that is the middle of one,
 * some of its batches written. Were batches committed one by one, the second case would kill the
 * sync with the first batch committed past the cursor, which the test then finds.
 */
async function midSpanWrite(url: string, child: ChildProcess, holdMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let first: { xid: string; seenAt: number } | undefined;
    for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
      if (child.exitCode !== null) throw new Error('the sync exited before a span was half written');
      const { rows } = await client.query<{ xid: string }>(`
        SELECT backend_xid::text AS xid FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()
           AND backend_xid IS NOT NULL AND query NOT ILIKE '%import_run%'`);
      const xid = rows[0]?.xid;
      if (xid && !first) first = { xid, seenAt: Date.now() };
      else if (xid && first && (xid !== first.xid || Date.now() - first.seenAt >= holdMs)) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error('no span was written within 120 s');
  } finally {
    await client.end();
  }
}

async function target(backend: Backend, dir: string) {
  if (backend === 'embedded') {
    const dataDir = path.join(dir, 'data');
    return {
      env: { VULNTRACK_DATA_DIR: dataDir, DATABASE_URL: '' },
      open: () => openDatabase({ dataDir }),
      // Another process cannot look into the embedded database: half the first span's time into
      // the second (spans are about the same size, ~2,000 files), some of its batches are written.
      midSpan: (_child: ChildProcess, firstSpanMs: number) =>
        new Promise((resolve) => setTimeout(resolve, firstSpanMs / 2)),
      cleanup: () => Promise.resolve(),
    };
  }
  const { url, drop } = await createServerDatabase();
  return {
    env: { DATABASE_URL: url, VULNTRACK_SECRET: randomBytes(32).toString('hex') },
    open: () => openDatabase({ url, poolSize: 2 }),
    // Watched rather than timed: a timer raced the sync, which could commit every span first.
    midSpan: (child: ChildProcess, firstSpanMs: number) => midSpanWrite(url, child, firstSpanMs / 4),
    cleanup: drop,
  };
}

async function inspect(open: () => Promise<Database>) {
  const database = await open();
  try {
    const state = await new SyncStateRepository(database.db).get('cve5');
    const step = repo().shas.indexOf((state?.cursor as { commit?: string } | undefined)?.commit ?? '');
    const cves = await sql<{ n: number }>`SELECT count(*)::int AS n FROM cve`.execute(database.db);
    const run = await sql<{ status: string }>`
      SELECT status FROM import_run ORDER BY started_at DESC LIMIT 1`.execute(database.db);
    return {
      step,
      cves: cves.rows[0]!.n,
      changes: await recordedChanges(database.db),
      lastImport: run.rows[0]?.status,
    };
  } finally {
    await database.close();
  }
}

for (const backend of backends) {
  describe(`vulntrack sync cve5, killed [${backend}]`, () => {
    let t: Awaited<ReturnType<typeof target>>;
    /** The same command line over the same commits, never killed. */
    let reference: Awaited<ReturnType<typeof target>>;
    let clone: string;
    let referenceClone: string;
    let killedAtStep = -1;

    beforeAll(async () => {
      const dir = await fsp.mkdtemp(path.join(repo().tmp, `killed-${backend}-`));
      t = await target(backend, dir);
      reference = await target(backend, await fsp.mkdtemp(path.join(repo().tmp, `reference-${backend}-`)));
      clone = await repo().cloneAt(`killed-${backend}`, 0);
      referenceClone = await repo().cloneAt(`reference-${backend}`, 0);
    });
    afterAll(async () => {
      await t?.cleanup();
      await reference?.cleanup();
    });

    /** Syncs the reference uninterrupted to `step` (upstream's main moved there first); returns its catalog. */
    async function referenceAt(step: number) {
      await repo().moveMain(step);
      const { output, exited } = startSync({ ...reference.env, CVE5_GIT_DIR: referenceClone });
      const [code] = await exited;
      expect(code, output.stderr).toBe(0);
      const state = await inspect(reference.open);
      expect(state.step).toBe(step);
      return state;
    }

    it('leaves the catalog at the cursor, a span boundary, when killed with SIGKILL', async () => {
      const first = startSync({ ...t.env, CVE5_GIT_DIR: clone });
      const [code] = await first.exited;
      expect(code, first.output.stderr).toBe(0);
      await referenceAt(0);
      await repo().moveMain(commits.length);

      const { child, output, exited } = startSync({ ...t.env, CVE5_GIT_DIR: clone });
      await waitForStderr(child, PULL, 120_000);
      const started = Date.now();
      await waitForStderr(child, SPAN_DONE, 120_000);
      await t.midSpan(child, Date.now() - started);
      child.kill('SIGKILL');
      expect(await exited).toEqual([null, 'SIGKILL']);
      expect(output.stdout).toBe('');

      const killed = await inspect(t.open);
      killedAtStep = killed.step;
      expect(killed.step).toBeGreaterThan(0);
      expect(killed.step).toBeLessThan(commits.length);
      // Killed in the middle of a span's import (its run row was committed before the span began).
      expect(killed.lastImport).toBe('running');
      expect(killed.cves).toBe(stateAt(base, commits, killed.step).length);
      // The spans up to the cursor are the reference's too (they are cut from the same first commit).
      const uninterrupted = await referenceAt(killed.step);
      expect(killed.cves).toBe(uninterrupted.cves);
      expect(killed.changes).toEqual(uninterrupted.changes);
    }, 300_000);

    it('completes the history with every change recorded once when run again', async () => {
      expect(killedAtStep, 'the killed run left its cursor').toBeGreaterThan(0);
      const uninterrupted = await referenceAt(commits.length);
      const { output, exited } = startSync({ ...t.env, CVE5_GIT_DIR: clone });
      const [code] = await exited;
      expect(code, output.stderr).toBe(0);
      expect(output.stdout).toContain(`${commits.length - killedAtStep} commits since`);
      const done = await inspect(t.open);
      expect(done.step).toBe(commits.length);
      expect(done.cves).toBe(stateAt(base, commits, commits.length).length);
      expect(done.changes).toEqual(uninterrupted.changes);
    }, 300_000);
  });
}
