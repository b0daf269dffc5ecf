/**
 * cve5 over HTTP from a local server laid out like the CVE Program's release archives (docs/sync.md):
 * the day's baseline (a zip holding cves.zip), then the hourly deltas in order; a delta not
 * published yet ends the round, an older missing one is noted for the next baseline to make up.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyncStateRepository } from '../../src/db/sync-state.repository.ts';
import { ImportService } from '../../src/services/import.service.ts';
import { cve5Source } from '../../src/sources/cve5/cve5.source.ts';
import { Cve5HttpSync } from '../../src/sync/cve5-http.sync.ts';
import type { SyncContext } from '../../src/sync/sync-source.ts';
import { cveIdOf, loadHistory, recordPath, type Json } from '../helpers/cve5-history.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { startUpstream, type UpstreamServer } from '../helpers/upstream-server.ts';

const run = promisify(execFile);
const { base, commits } = await loadHistory();
const files = new Map<string, Buffer>();
let tmp: string;
let server: UpstreamServer;

/** Zips `records` in the cvelistV5 layout under `prefix`; returns the zip's bytes. */
async function zipRecords(name: string, prefix: string, records: Json[]): Promise<string> {
  const dir = path.join(tmp, name);
  for (const r of records) {
    const file = path.join(dir, prefix, recordPath(cveIdOf(r)));
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, JSON.stringify(r, null, 2));
  }
  const zip = path.join(tmp, `${name}.zip`);
  await run('zip', ['-qr', zip, prefix], { cwd: dir });
  return zip;
}

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'vulntrack-cve5-http-'));
  const inner = await zipRecords('cves', 'cves', base);
  await fs.rename(inner, path.join(tmp, 'cves.zip'));
  await run('zip', ['-qj', path.join(tmp, 'baseline.zip'), path.join(tmp, 'cves.zip')]);
  files.set(
    '/cve_2026-11-22_0000Z/2026-11-22_all_CVEs_at_midnight.zip.zip',
    await fs.readFile(path.join(tmp, 'baseline.zip')),
  );
  const hours: Record<string, number> = { '01': 0, '02': 1, '04': 2 };
  for (const [hh, i] of Object.entries(hours)) {
    const zip = await zipRecords(
      `delta-${hh}`,
      'deltaCves',
      commits[i]!.lines.map((l) => l.record),
    );
    files.set(`/cve_2026-11-22_${hh}00Z/2026-11-22_delta_CVEs_at_${hh}00Z.zip`, await fs.readFile(zip));
  }
  server = await startUpstream((url) => {
    const body = files.get(url.pathname);
    return body ? { status: 200, body } : { status: 404 };
  });
});
afterAll(async () => {
  await server?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

describeEachDatabase('Cve5HttpSync', (use) => {
  const context = async (): Promise<SyncContext> => {
    const states = new SyncStateRepository(use().db);
    const imports = new ImportService(use().db);
    return {
      cursor: (await states.get('cve5'))?.cursor ?? {},
      saveCursor: (c) => states.saveCursor('cve5', c),
      importInputs: (targets) => imports.importInputs(cve5Source, targets),
      importFiles: (files, { cursor } = {}) =>
        imports.importFiles(cve5Source, files, {
          ...(cursor && {
            atomic: { beforeCommit: (db) => new SyncStateRepository(db).saveCursor('cve5', cursor) },
          }),
        }),
      progress: () => {},
    };
  };
  const sync = (now: string) =>
    new Cve5HttpSync({
      baseUrl: server.base,
      policy: { attempts: 2, baseDelayMs: 10 },
      now: () => new Date(now),
    });

  describe('run', () => {
    it('imports the day’s baseline, then each published hourly delta in order', async () => {
      const outcome = await sync('2026-11-22T03:30:00Z').run(await context());
      expect(outcome.imports).toBe(3);
      expect(outcome.counts.imported).toBeGreaterThanOrEqual(base.length);
      expect(outcome.cursor).toEqual({ hour: '2026-11-22T02:00:00.000Z' });
      expect(outcome.notes).toContain('delta 2026-11-22T03:00:00.000Z not published yet');
      const ids = new Set((await use().db.selectFrom('cve').select('cve_id').execute()).map((r) => r.cve_id));
      for (const line of [...commits[0]!.lines, ...commits[1]!.lines])
        expect(ids.has(cveIdOf(line.record))).toBe(true);
    });

    it('goes on past an older missing delta and marks the gap for the next baseline', async () => {
      const outcome = await sync('2026-11-22T05:30:00Z').run(await context());
      expect(outcome.imports).toBe(1);
      expect(outcome.cursor).toEqual({
        hour: '2026-11-22T04:00:00.000Z',
        gapSince: '2026-11-22T03:00:00.000Z',
      });
      expect(outcome.notes.join()).toMatch(/delta 2026-11-22T03:00:00.000Z missing upstream/);
    });
  });
});
