/**
 * A cve5 git sync stopped half-way (a failure after some commits, as a killed worker would leave it)
 * and resumed: the cursor stands at the last commit completely imported, the next round starts
 * after it, and the change history ends exactly as if nothing had happened.
 */
import { describe, expect, it } from 'vitest';
import { SyncStateRepository } from '../../src/db/sync-state.repository.ts';
import { expectedChanges, loadHistory, recordedChanges } from '../helpers/cve5-history.ts';
import { cve5GitSync, stateAt, useHistoryRepo } from '../helpers/history-repo.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

const { base, commits } = await loadHistory();
/** The first sync imports the tree at FIRST; the round that fails covers the commits after it. */
const FIRST = 120;
const STOP_AFTER = 40;

const repo = useHistoryRepo(base, commits);

describeEachDatabase('SyncService (cve5 git sync stopped and resumed)', (use, backend) => {
  describe('run', () => {
    it('loses nothing and records nothing twice', async () => {
      const clone = await repo().cloneAt(`resume-${backend}`, FIRST);
      await cve5GitSync(use(), clone).run('cve5');
      await repo().moveMain(commits.length);
      const failing = cve5GitSync(use(), clone, {
        cve5Git: {
          afterCommit: (_sha, index) => {
            if (index === STOP_AFTER - 1) throw new Error('worker killed');
          },
        },
      });
      await expect(failing.run('cve5')).rejects.toThrow('worker killed');
      // Commits are applied in spans, each with its cursor: the cursor stands at the end of the span
      // holding the commit where the worker died, never before it.
      const stopped = await new SyncStateRepository(use().db).get('cve5');
      expect(stopped).toMatchObject({ consecutiveFailures: 1, lastError: 'worker killed' });
      const at = repo().shas.indexOf((stopped?.cursor as { commit: string }).commit);
      expect(at).toBeGreaterThanOrEqual(FIRST + STOP_AFTER);
      expect(at).toBeLessThan(commits.length);

      const report = await cve5GitSync(use(), clone).run('cve5');
      expect(report.notes.join()).toContain(`${commits.length - at} commits since`);
      const versions = [
        ...stateAt(base, commits, FIRST),
        ...commits.slice(FIRST).flatMap((c) => c.lines.map((l) => l.record)),
      ];
      expect(await recordedChanges(use().db)).toEqual(expectedChanges(versions));
      expect(await new SyncStateRepository(use().db).get('cve5')).toMatchObject({
        cursor: { commit: repo().shas[commits.length] },
        consecutiveFailures: 0,
        lastError: 'worker killed',
      });
    }, 60_000);
  });
});
