/**
 * cve5 sync from a git clone, on a real repository built from the history fixture (the base, then
 * each of the 199 upstream commits as a commit), pulled from an "upstream" whose main branch moves
 * forward in steps. After each step the catalog equals a fresh import of that state, and the change
 * history is the one computed from every version in commit order.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SyncStateRepository } from '../../src/db/sync-state.repository.ts';
import { ImportService } from '../../src/services/import.service.ts';
import { cve5Source } from '../../src/sources/cve5/cve5.source.ts';
import {
  catalogSnapshot,
  expectedChanges,
  loadHistory,
  recordedChanges,
  versionsUpTo,
} from '../helpers/cve5-history.ts';
import { cve5GitSync, stateAt, useHistoryRepo } from '../helpers/history-repo.ts';
import { describeEachDatabase, openTestDatabase, type Backend } from '../helpers/databases.ts';

const { base, commits } = await loadHistory();
const repo = useHistoryRepo(base, commits);

/** The catalog a fresh database gets from one import of the latest version of every file at `step`. */
async function freshImportOf(step: number, backend: Backend) {
  const file = path.join(repo().tmp, `state-${step}.jsonl`);
  await fs.writeFile(
    file,
    stateAt(base, commits, step)
      .map((r) => JSON.stringify(r))
      .join('\n') + '\n',
  );
  const database = await openTestDatabase(backend);
  try {
    await new ImportService(database.db).importInputs(cve5Source, [file]);
    return await catalogSnapshot(database.db);
  } finally {
    await database.close();
  }
}

describeEachDatabase('SyncService (cve5 from a git clone)', (use, backend) => {
  describe('run', () => {
    let clone: string;

    beforeAll(async () => {
      clone = await repo().cloneAt(`clone-${backend}`, 0);
    });

    for (const step of [0, 50, commits.length]) {
      it(`after pulling to upstream commit ${step}, holds the catalog and history of that state`, async () => {
        await repo().moveMain(step);
        const report = await cve5GitSync(use(), clone).run('cve5');
        expect(report).toMatchObject({ status: 'succeeded', cursor: { commit: repo().shas[step] } });
        expect(report.counts.skipped).toBe(0);
        expect(await recordedChanges(use().db)).toEqual(expectedChanges(versionsUpTo(base, commits, step)));
        expect(await catalogSnapshot(use().db)).toEqual(await freshImportOf(step, backend));
        expect(await new SyncStateRepository(use().db).get('cve5')).toMatchObject({
          cursor: { commit: repo().shas[step] },
          consecutiveFailures: 0,
          lastError: null,
        });
        // 150 commits imported one by one, then a fresh import to compare with: ~25 s on a quiet
        // 2-core machine, several times that when the suite's other files run beside it.
      }, 240_000);
    }

    it('imports nothing when upstream has not moved', async () => {
      const report = await cve5GitSync(use(), clone).run('cve5');
      expect(report.imports).toBe(0);
      expect(report.notes.join()).toMatch(/up to date/);
    });
  });
});
