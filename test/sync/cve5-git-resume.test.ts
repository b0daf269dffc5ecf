/**
 * A cve5 git sync stopped half-way (a failure after some commits, as a killed worker would leave it)
 * and resumed: the cursor stands at the last commit completely imported, the next round starts
 * after it, and the change history ends exactly as if nothing had happened.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/client.ts';
import { SyncStateRepository } from '../../src/db/sync-state.repository.ts';
import { ImportService } from '../../src/services/import.service.ts';
import { SyncService, type SyncServiceOptions } from '../../src/services/sync.service.ts';
import { expectedChanges, loadHistory, recordedChanges } from '../helpers/cve5-history.ts';
import { buildHistoryRepo, stateAt, type HistoryRepo } from '../helpers/history-repo.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

const { base, commits } = await loadHistory();
/** The first sync imports the tree at FIRST; the round that fails covers the commits after it. */
const FIRST = 120;
const STOP_AFTER = 40;

let repo: HistoryRepo;
beforeAll(async () => {
  repo = await buildHistoryRepo(base, commits);
}, 60_000);
afterAll(async () => {
  await repo?.remove();
});

const syncService = (database: Database, clone: string, options: SyncServiceOptions = {}) =>
  new SyncService(
    database.db,
    new ImportService(database.db),
    parseConfig({ CVE5_GIT_DIR: clone }).sync,
    options,
  );

describeEachDatabase('SyncService (cve5 git sync stopped and resumed)', (use, backend) => {
  describe('run', () => {
    it('loses nothing and records nothing twice', async () => {
      const clone = await repo.cloneAt(`resume-${backend}`, FIRST);
      await syncService(use(), clone).run('cve5');
      await repo.moveMain(commits.length);
      const failing = syncService(use(), clone, {
        cve5Git: {
          afterCommit: (_sha, index) => {
            if (index === STOP_AFTER - 1) throw new Error('worker killed');
          },
        },
      });
      await expect(failing.run('cve5')).rejects.toThrow('worker killed');
      // Commits touching distinct files are imported as one group: the cursor stands at the end of
      // the group holding the commit where the worker died, never before it.
      const stopped = await new SyncStateRepository(use().db).get('cve5');
      expect(stopped).toMatchObject({ consecutiveFailures: 1, lastError: 'worker killed' });
      const at = repo.shas.indexOf((stopped?.cursor as { commit: string }).commit);
      expect(at).toBeGreaterThanOrEqual(FIRST + STOP_AFTER);
      expect(at).toBeLessThan(commits.length);

      const report = await syncService(use(), clone).run('cve5');
      expect(report.notes.join()).toContain(`${commits.length - at} commits since`);
      const versions = [
        ...stateAt(base, commits, FIRST),
        ...commits.slice(FIRST).flatMap((c) => c.lines.map((l) => l.record)),
      ];
      expect(await recordedChanges(use().db)).toEqual(expectedChanges(versions));
      expect(await new SyncStateRepository(use().db).get('cve5')).toMatchObject({
        cursor: { commit: repo.shas[commits.length] },
        consecutiveFailures: 0,
        lastError: 'worker killed',
      });
    }, 60_000);
  });
});
