/**
 * Stopping an import (issue 16): Ctrl-C (SIGINT) of `vulntrack import` cancels it at its next batch
 * boundary, whether it runs in the CLI's own process or was handed to a running server, and both
 * sides say so; a server that dies mid-import is named by the client, with what is kept and how to
 * resume. Real processes (`bin/vulntrack.js`), the embedded database and, with TEST_DATABASE_URL, a
 * PostgreSQL server; every kill waits for an observable state (a progress line with saved records).
 */
import { type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli, waitForOutput } from '../helpers/cli.ts';
import type { Database } from '../../src/db/client.ts';
import { backends, cliDatabase } from '../helpers/databases.ts';
import { writeLargeCve5Input } from '../helpers/large-input.ts';

/** A progress line once at least one batch is committed ("saved" counts committed records). */
const SAVED = /cve5: [\d,]+ records read \([\d,]+\/s\), [1-9][\d,]* saved, [\d,]+ skipped\n/;

interface Report {
  status: string;
  counts: Record<string, number>;
}

const children = new Set<ChildProcess>();

/** Starts the CLI, collecting its output; `exited` resolves with the exit code and signal. */
function run(args: string[], env: NodeJS.ProcessEnv) {
  const child = startCli(args, env);
  children.add(child);
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (output.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output.stderr += d.toString()));
  const exited = once(child, 'close').then(([code, signal]) => {
    children.delete(child);
    return { code: code as number | null, signal: signal as NodeJS.Signals | null };
  });
  return { child, output, exited };
}

async function countRows(database: Database) {
  const { rows } = await sql<{ cves: number; status: string | null; indexed: boolean }>`
    SELECT (SELECT count(*)::int FROM cve) AS cves,
           (SELECT status FROM import_run ORDER BY started_at DESC LIMIT 1) AS status,
           to_regclass('cve_search_text_idx') IS NOT NULL AS indexed`.execute(database.db);
  return rows[0]!;
}

describe('vulntrack import, interrupted', { timeout: 240_000 }, () => {
  let workDir: string;
  let input: string;
  let total: number;

  beforeAll(async () => {
    workDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'vt-cancel-'));
    input = path.join(workDir, 'cve5-x5.jsonl.gz');
    total = await writeLargeCve5Input(input, 5);
  }, 120_000);

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await fsp.rm(workDir, { recursive: true, force: true });
  });

  for (const backend of backends) {
    describe(`run by the CLI itself [${backend}]`, () => {
      let env: NodeJS.ProcessEnv;
      let open: () => Promise<Database>;
      let drop = async () => {};

      beforeAll(async () => {
        ({ env, open, drop } = await cliDatabase(backend, workDir));
      });
      afterAll(() => drop());

      it('cancels at a batch boundary on SIGINT, says so, exits 130 and keeps what it committed', async () => {
        const importing = run(['--json', 'import', 'cve5', input], env);
        await waitForOutput(importing.child, SAVED, 120_000);
        importing.child.kill('SIGINT');
        const { code, signal } = await importing.exited;
        expect({ code, signal }, importing.output.stderr).toEqual({ code: 130, signal: null });
        expect(importing.output.stderr).toContain('SIGINT: cancelling the import at its next batch boundary');
        expect(importing.output.stderr).toMatch(
          /import cancelled after [\d,]+ records; it stopped at a batch boundary: what it committed is kept/,
        );
        // A first import: the catalog was empty, so it builds the search index once, as it ends.
        expect(importing.output.stderr).toMatch(
          /cve5: [\d,]+ records read; building the search index \(the catalog was empty\)\n/,
        );
        const report = JSON.parse(importing.output.stdout) as Report;
        expect(report.status).toBe('cancelled');
        expect(report.counts.imported).toBeGreaterThan(0);
        expect(report.counts.imported).toBeLessThan(total);

        const database = await open();
        try {
          // Exactly what the report counts was committed, and the run is recorded as cancelled.
          expect(await countRows(database)).toEqual({
            cves: report.counts.imported,
            status: 'cancelled',
            indexed: true,
          });
        } finally {
          await database.close();
        }
      });
    });
  }

  describe('handed to a running server [embedded]', () => {
    let dataDir: string;
    let env: NodeJS.ProcessEnv;

    beforeAll(async () => {
      dataDir = await fsp.mkdtemp(path.join(workDir, 'served-'));
      env = { VULNTRACK_DATA_DIR: dataDir, DATABASE_URL: '', VULNTRACK_LOAD_SAMPLE: 'false' };
    });

    async function startServer() {
      const server = run(['serve'], { ...env, PORT: '0', HOST: '127.0.0.1' });
      const listening = await waitForOutput(server.child, /Server listening at http:\/\/[\d.]+:\d+/, 120_000);
      return { ...server, url: listening.replace('Server listening at ', '') };
    }

    it('cancels the import in the server on Ctrl-C: the server stops at a batch boundary and both say so', async () => {
      const server = await startServer();
      try {
        const importing = run(['--json', 'import', 'cve5', input], env);
        await waitForOutput(importing.child, SAVED, 120_000);
        expect(importing.output.stderr).toContain(
          `handing the command to the running server (pid ${server.child.pid})`,
        );
        importing.child.kill('SIGINT');
        const { code, signal } = await importing.exited;
        expect({ code, signal }, importing.output.stderr).toEqual({ code: 130, signal: null });
        expect(importing.output.stderr).toContain(
          `SIGINT: asking the server (pid ${server.child.pid}) to cancel the import; it stops at its next batch boundary`,
        );
        expect(importing.output.stderr).toMatch(
          /import cancelled after [\d,]+ records; it stopped at a batch boundary/,
        );
        const report = JSON.parse(importing.output.stdout) as Report;
        expect(report.status).toBe('cancelled');
        expect(report.counts.imported).toBeGreaterThan(0);
        expect(report.counts.imported).toBeLessThan(total);

        // The server says so, and stopped: it holds what the report counts, with the run cancelled.
        expect(server.output.stdout + server.output.stderr).toContain(
          'CLI import cancelled by the client: stopping it at its next batch boundary',
        );
        const ready = (await (await fetch(`${server.url}/readyz`)).json()) as {
          catalog: { cves: number };
          sources: { source: string; status: string }[];
        };
        expect(ready.catalog.cves).toBe(report.counts.imported);
        expect(ready.sources).toContainEqual(
          expect.objectContaining({ source: 'cve5', status: 'cancelled' }),
        );
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    });

    it('cancels a handed-off import when the server is stopped with SIGTERM, and the client says so', async () => {
      const server = await startServer();
      const importing = run(['--json', 'import', 'cve5', input], env);
      await waitForOutput(importing.child, SAVED, 120_000);
      server.child.kill('SIGTERM');
      const { code } = await importing.exited;
      expect(code, importing.output.stderr).toBe(130);
      expect(importing.output.stderr).toContain('the server is stopping: it cancels this command');
      expect(importing.output.stderr).toMatch(
        /import cancelled after [\d,]+ records; it stopped at a batch boundary/,
      );
      expect((JSON.parse(importing.output.stdout) as Report).status).toBe('cancelled');
      const stopped = await server.exited;
      expect(stopped.code).toBe(0);
      expect(server.output.stdout + server.output.stderr).toContain(
        'CLI import cancelled: the server is stopping: stopping it at its next batch boundary',
      );
    });

    it('names the server that died mid-import, with what is kept and how to resume', async () => {
      const server = await startServer();
      const importing = run(['import', 'cve5', input], env);
      const progress = await waitForOutput(importing.child, SAVED, 120_000);
      server.child.kill('SIGKILL');
      await server.exited;
      const { code } = await importing.exited;
      expect(code, importing.output.stderr).toBe(1);
      expect(importing.output.stderr).toContain(
        `vulntrack: the server (pid ${server.child.pid}) stopped before the import finished: the batches it committed are kept (its last progress: cve5: `,
      );
      expect(importing.output.stderr).toContain('run the same import again');
      expect(importing.output.stderr).not.toMatch(/^vulntrack: aborted$/m);
      expect(progress).toMatch(SAVED);
    });
  });
});
