/**
 * The cve5 git sync applies commits in spans, each one transaction with its cursor. A span holds
 * several versions of many files; a failure while a span is being written keeps nothing of it (the
 * cursor stays at the end of the span before), and the next round records exactly the changes the
 * commits applied one by one would. Changes of one transaction are dated in the order they were
 * recorded, so a CVE's history reads the same by (created_at, id) as by seq.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { SyncStateRepository } from '../../src/db/sync-state.repository.ts';
import { ImportService, type ImportOptions } from '../../src/services/import.service.ts';
import type { InputFile } from '../../src/sources/input.ts';
import type { Source } from '../../src/sources/source.ts';
import { expectedChanges, loadHistory, recordedChanges, versionsUpTo } from '../helpers/cve5-history.ts';
import { cve5GitSync, stateAt, useHistoryRepo } from '../helpers/history-repo.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

const { base, commits } = await loadHistory();
/** Small spans (a few commits each), so that the stream makes many. */
const SPAN_FILES = 400;

const repo = useHistoryRepo(base, commits);

/**
 * An importer that fails in the middle of its `failAt`-th import, once `afterFiles` files were read;
 * in batches of 100, so that several are written in the span's transaction by then.
 */
class FailingImportService extends ImportService {
  imports = 0;

  constructor(
    database: Database,
    private readonly failAt: number,
    private readonly afterFiles: number,
  ) {
    super(database.db);
  }

  override importFiles(source: Source, files: AsyncIterable<InputFile>, options?: ImportOptions) {
    const failing = ++this.imports === this.failAt;
    const afterFiles = this.afterFiles;
    async function* cut() {
      let n = 0;
      for await (const file of files) {
        if (failing && n++ === afterFiles) throw new Error('worker killed in the middle of a span');
        yield file;
      }
    }
    return super.importFiles(source, cut(), { ...options, batchSize: 100 });
  }
}

describeEachDatabase('SyncService (cve5 git sync in spans)', (use, backend) => {
  describe('run', () => {
    let clone: string;

    it('keeps nothing of a span that fails half-way, and the next round completes it exactly', async () => {
      clone = await repo().cloneAt(`spans-${backend}`, 0);
      await cve5GitSync(use(), clone).run('cve5');
      await repo().moveMain(commits.length);
      const spans: number[] = [];
      // Spans of the stream: 271 files, then one commit of 1,066, then 354 files, …: the third fails
      // after 250 of its files, two batches of which are written by then.
      const failing = new FailingImportService(use(), 3, 250);
      await expect(
        cve5GitSync(
          use(),
          clone,
          { cve5Git: { spanFiles: SPAN_FILES, afterCommit: (_sha, index) => void spans.push(index) } },
          failing,
        ).run('cve5'),
      ).rejects.toThrow('worker killed in the middle of a span');

      const state = await new SyncStateRepository(use().db).get('cve5');
      const step = repo().shas.indexOf((state?.cursor as { commit: string }).commit);
      // The cursor stands at the end of the second span: the last commit reported done.
      expect(step).toBe(spans.at(-1)! + 1);
      expect(step).toBeGreaterThan(0);
      expect(step).toBeLessThan(commits.length);
      // …and the catalog holds exactly the commits up to it, nothing of the failed span.
      expect(await recordedChanges(use().db)).toEqual(expectedChanges(versionsUpTo(base, commits, step)));
      const rows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM cve`.execute(use().db);
      expect(rows.rows[0]!.n).toBe(stateAt(base, commits, step).length);
      const run = await sql<{ status: string; problems: { reason: string }[] }>`
        SELECT status, problems FROM import_run ORDER BY started_at DESC LIMIT 1`.execute(use().db);
      expect(run.rows[0]).toMatchObject({ status: 'failed' });
      expect(run.rows[0]!.problems.at(-1)!.reason).toMatch(/nothing of it was kept/);

      const report = await cve5GitSync(use(), clone, { cve5Git: { spanFiles: SPAN_FILES } }).run('cve5');
      expect(report.notes.join()).toContain(`${commits.length - step} commits since`);
      expect(report.counts.skipped).toBe(0);
      expect(await recordedChanges(use().db)).toEqual(
        expectedChanges(versionsUpTo(base, commits, commits.length)),
      );
      expect(await new SyncStateRepository(use().db).get('cve5')).toMatchObject({
        cursor: { commit: repo().shas[commits.length] },
      });
    }, 240_000);

    it('dates the changes of a span in the order they were recorded', async () => {
      // Every CVE's changes, ordered as the API lists them (created_at, then id), are in seq order.
      const rows = await sql<{ cve_id: string; seq: string; created_at: string }>`
        SELECT cve_id, seq::text AS seq, created_at::text AS created_at FROM cve_change
         ORDER BY cve_id, created_at, id`.execute(use().db);
      const several = new Map<string, { seq: number; createdAt: string }[]>();
      for (const r of rows.rows) {
        const list = several.get(r.cve_id) ?? [];
        list.push({ seq: Number(r.seq), createdAt: r.created_at });
        several.set(r.cve_id, list);
      }
      let checked = 0;
      for (const list of several.values()) {
        if (list.length < 2) continue;
        checked++;
        const seqs = list.map((c) => c.seq);
        expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
        expect(new Set(list.map((c) => c.createdAt)).size).toBe(list.length);
      }
      // Many CVEs change several times in the stream, often within one span.
      expect(checked).toBeGreaterThan(100);
    });
  });
});
