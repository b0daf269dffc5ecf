/**
 * An import run holds a lease, as jobs do (issue 16): a run whose process was killed with `kill -9`
 * is `interrupted` once the lease has passed, on a PostgreSQL server as on the embedded database,
 * instead of `running` forever; a live import renews its lease, so it never looks interrupted.
 *
 * The kill test runs the real command line with JOB_LEASE_SECONDS=2 and waits for observable states
 * (a progress line with saved records, a renewed lease, a lease that has passed), never for a timer.
 */
import { type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportRunRepository } from '../../src/db/import-run.repository.ts';
import { runCli, startCli, waitForOutput } from '../helpers/cli.ts';
import { backends, cliDatabase, describeEachDatabase } from '../helpers/databases.ts';
import { writeLargeCve5Input } from '../helpers/large-input.ts';

const SAVED = /cve5: [\d,]+ records read \([\d,]+\/s\), [1-9][\d,]* saved, [\d,]+ skipped\n/;
const FIXTURES = path.resolve('test/fixtures/cve5/cves');

describeEachDatabase('ImportRunRepository leases', (use) => {
  it('marks a running run whose lease has passed interrupted, where runs are listed and started', async () => {
    const runs = new ImportRunRepository(use().db);
    const stale = await runs.start('kev', -60_000); // a lease that passed a minute ago: its process died
    const live = await runs.start('epss', 60_000);
    expect(await runs.latestBySource()).toEqual([
      expect.objectContaining({ source: 'epss', status: 'running', finishedAt: null }),
      expect.objectContaining({ source: 'kev', status: 'interrupted', finishedAt: expect.any(Date) }),
    ]);
    // A process that was only stalled past its lease renews it: its run is running again.
    await runs.renew(stale, 60_000);
    expect((await runs.latestBySource()).map((r) => r.status)).toEqual(['running', 'running']);
    await runs.finish(stale, 'completed', {}, []);
    await runs.finish(live, 'completed', {}, []);
    expect(await runs.expireLeases()).toBe(0);
  });
});

describe('vulntrack import killed with kill -9', { timeout: 300_000 }, () => {
  let workDir: string;
  let input: string;
  const children = new Set<ChildProcess>();

  beforeAll(async () => {
    workDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'vt-lease-'));
    input = path.join(workDir, 'cve5-x5.jsonl.gz');
    await writeLargeCve5Input(input, 5);
  }, 120_000);

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await fsp.rm(workDir, { recursive: true, force: true });
  });

  for (const backend of backends) {
    it(`leaves its run interrupted, as a later import sees it [${backend}]`, async () => {
      const { env, open, drop } = await cliDatabase(backend, workDir);
      env.JOB_LEASE_SECONDS = '2';
      try {
        const child = startCli(['import', 'cve5', input], env);
        children.add(child);
        const closed = once(child, 'close');
        await waitForOutput(child, SAVED, 120_000);

        if (backend === 'postgres') {
          // While the import lives, its heartbeat renews the lease and it stays running past it.
          const database = await open();
          try {
            const lease = async () =>
              (
                await sql<{ lease: string; passed: boolean }>`
                  SELECT lease_until::text AS lease, now() > started_at + interval '4 seconds' AS passed
                    FROM import_run WHERE status = 'running'`.execute(database.db)
              ).rows[0];
            const first = (await lease())!.lease;
            for (let now = await lease(); now!.lease === first || !now!.passed; now = await lease())
              await new Promise((r) => setTimeout(r, 100));
            const runs = await new ImportRunRepository(database.db).latestBySource();
            expect(runs).toEqual([expect.objectContaining({ source: 'cve5', status: 'running' })]);
          } finally {
            await database.close();
          }
        }

        child.kill('SIGKILL');
        const [code, signal] = await closed;
        expect({ code, signal }).toEqual({ code: null, signal: 'SIGKILL' });

        if (backend === 'postgres') {
          // Nothing renews the lease now: wait until it has passed (observed in the database).
          const database = await open();
          try {
            const passed = async () =>
              (
                await sql<{ passed: boolean }>`
                  SELECT bool_and(lease_until < now()) AS passed FROM import_run WHERE status = 'running'`.execute(
                  database.db,
                )
              ).rows[0]!.passed;
            while (!(await passed())) await new Promise((r) => setTimeout(r, 100));
          } finally {
            await database.close();
          }
        }

        // A later import (another process) finds the killed run interrupted and records its own.
        const later = await runCli(['import', 'cve5', FIXTURES], env);
        expect(later.code, later.stderr).toBe(0);
        const database = await open();
        try {
          const { rows } = await sql<{ status: string; ended: boolean }>`
            SELECT status, finished_at IS NOT NULL AS ended FROM import_run ORDER BY started_at`.execute(
            database.db,
          );
          expect(rows).toEqual([
            { status: 'interrupted', ended: true },
            { status: 'completed', ended: true },
          ]);
        } finally {
          await database.close();
        }
      } finally {
        await drop();
      }
    });
  }
});
