/**
 * NVD sync against a local server imitating the NVD CVE API 2.0: it pages (at most PAGE records per
 * answer, whatever resultsPerPage asks), filters by lastModified, refuses date ranges over 120 days
 * (404, as NVD does) and answers 403 when more than LIMIT requests arrive within WINDOW_MS. It serves
 * the real records of test/fixtures/nvd.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/client.ts';
import { SyncStateRepository } from '../../src/db/sync-state.repository.ts';
import { ImportService } from '../../src/services/import.service.ts';
import { SyncService } from '../../src/services/sync.service.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { startUpstream, type LoggedRequest, type UpstreamServer } from '../helpers/upstream-server.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/nvd/', import.meta.url));
const PAGE = 2;
const LIMIT = 4;
const WINDOW_MS = 1000;
const DAY = 24 * 3600 * 1000;

interface NvdCve {
  id: string;
  lastModified: string;
}
const records: NvdCve[] = await Promise.all(
  (await fs.readdir(FIXTURES))
    .filter((f) => /^CVE-.*\.json$/.test(f))
    .sort()
    .map(async (f) => JSON.parse(await fs.readFile(path.join(FIXTURES, f), 'utf8')) as NvdCve),
);
/** NVD's lastModified has no zone: it is UTC. */
const modified = (r: NvdCve) => Date.parse(`${r.lastModified}Z`);

let server: UpstreamServer;
/** Statuses to answer instead of data, one per request, before serving normally again. */
let injected: number[] = [];
/** Ids to serve as this instead (a malformed record in a page). */
let mangled: Record<string, string> = {};
/** Ids served with U+0000 in their description (text PostgreSQL cannot store). */
let withNul = new Set<string>();
const served = new Set<string>();

beforeAll(async () => {
  server = await startUpstream((url) => {
    const now = Date.now();
    const recent = server.log.filter((r) => now - r.at < WINDOW_MS);
    if (recent.length >= LIMIT) return { status: 403, body: 'rate limit exceeded' };
    const failure = injected.shift();
    if (failure) return { status: failure, body: 'injected failure' };
    const q = url.searchParams;
    const startIndex = Number(q.get('startIndex') ?? 0);
    const perPage = Number(q.get('resultsPerPage') ?? 2000);
    if (!Number.isInteger(startIndex) || startIndex < 0 || !Number.isInteger(perPage) || perPage > 2000)
      return { status: 404, headers: { message: 'Invalid paging' } };
    const start = q.get('lastModStartDate');
    const end = q.get('lastModEndDate');
    let list = records;
    if (start !== null || end !== null) {
      const s = Date.parse(start ?? '');
      const e = Date.parse(end ?? '');
      if (
        !/[+-]\d{2}:\d{2}$/.test(start ?? '') ||
        Number.isNaN(s) ||
        Number.isNaN(e) ||
        e < s ||
        e - s > 120 * DAY
      )
        return { status: 404, headers: { message: 'Invalid date range' } };
      list = records.filter((r) => modified(r) >= s && modified(r) <= e);
    }
    const page = list.slice(startIndex, startIndex + Math.min(perPage, PAGE));
    page.forEach((r) => served.add(r.id));
    return {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        resultsPerPage: page.length,
        startIndex,
        totalResults: list.length,
        format: 'NVD_CVE',
        version: '2.0',
        timestamp: new Date().toISOString(),
        vulnerabilities: page.map((cve) => ({ cve: asServed(cve) })),
      }),
    };
  });
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => {
  server.log.length = 0;
  served.clear();
  injected = [];
  mangled = {};
  withNul = new Set();
});

/** A record as the server serves it: its id mangled, its description with U+0000, as the test asks. */
function asServed(cve: NvdCve): NvdCve & { descriptions?: unknown } {
  const record = { ...cve, id: mangled[cve.id] ?? cve.id };
  if (!withNul.has(cve.id)) return record;
  const { descriptions } = cve as NvdCve & { descriptions: { lang: string; value: string }[] };
  return { ...record, descriptions: descriptions.map((d) => ({ ...d, value: `${d.value}\u0000` })) };
}

function syncService(database: Database, env: Record<string, string> = {}) {
  const config = parseConfig({
    NVD_API_URL: `${server.base}/rest/json/cves/2.0`,
    NVD_RATE_LIMIT: String(LIMIT),
    NVD_RATE_WINDOW_SECONDS: String(WINDOW_MS / 1000),
    SYNC_RETRY_BASE_MS: '50',
    ...env,
  });
  return new SyncService(database.db, new ImportService(database.db), config.sync);
}

async function nvdStatements(database: Database): Promise<string[]> {
  const rows = await database.db
    .selectFrom('cve_source')
    .select('cve_id')
    .where('provider', '=', 'nvd')
    .orderBy('cve_id')
    .execute();
  return rows.map((r) => r.cve_id);
}

/** The most requests that started within any WINDOW_MS. */
function busiestWindow(log: LoggedRequest[]): number {
  return Math.max(...log.map((r) => log.filter((o) => o.at >= r.at && o.at - r.at < WINDOW_MS).length));
}

describeEachDatabase('SyncService (nvd)', (use) => {
  describe('run', () => {
    it('loads every record without a cursor or NVD_SYNC_START, page by page, and keeps the start time as cursor', async () => {
      const before = Date.now();
      const report = await syncService(use()).run('nvd');
      expect(await nvdStatements(use())).toEqual(records.map((r) => r.id));
      expect(report.counts).toMatchObject({ imported: records.length, skipped: 0 });
      expect(server.log.map((r) => r.url.searchParams.get('startIndex'))).toEqual(['0', '2', '4']);
      expect(server.log.every((r) => r.url.searchParams.get('resultsPerPage') === '2000')).toBe(true);
      expect(server.log.some((r) => r.url.searchParams.has('lastModStartDate'))).toBe(false);
      const cursor = Date.parse(String(report.cursor.lastModEnd));
      expect(cursor).toBeGreaterThanOrEqual(before - 1000);
      expect(cursor).toBeLessThanOrEqual(Date.now());
    });

    it('walks 120-day windows from the cursor to now, imports exactly what was served, within the rate limit', async () => {
      const start = '2024-03-01T00:00:00.000Z';
      await new SyncStateRepository(use().db).saveCursor('nvd', { lastModEnd: start });
      await use().db.deleteFrom('cve_change').execute();
      const began = Date.now();
      const report = await syncService(use()).run('nvd');
      const windows = server.log.map((r) => ({
        start: Date.parse(r.url.searchParams.get('lastModStartDate')!),
        end: Date.parse(r.url.searchParams.get('lastModEndDate')!),
      }));
      expect(server.log.every((r) => r.status === 200)).toBe(true);
      expect(windows[0]!.start).toBe(Date.parse(start));
      for (const [i, w] of windows.entries()) {
        expect(w.end - w.start).toBeLessThanOrEqual(120 * DAY);
        if (i > 0) expect([windows[i - 1]!.start, windows[i - 1]!.end]).toContain(w.start);
      }
      expect(windows.at(-1)!.end).toBeGreaterThanOrEqual(began - 1000);
      const expected = records.filter((r) => modified(r) >= Date.parse(start)).map((r) => r.id);
      expect([...served].sort()).toEqual(expected);
      // Served again, unchanged: nothing recorded.
      expect(report.counts).toMatchObject({ unchanged: expected.length, imported: 0, updated: 0 });
      expect(busiestWindow(server.log)).toBeLessThanOrEqual(LIMIT);
      expect(Date.parse(String(report.cursor.lastModEnd))).toBe(windows.at(-1)!.end);
    });

    it('retries after a 500 and a 403 and still imports everything', async () => {
      await new SyncStateRepository(use().db).saveCursor('nvd', { lastModEnd: '2024-10-01T00:00:00.000Z' });
      injected = [500, 403];
      const report = await syncService(use()).run('nvd');
      expect(server.log.slice(0, 3).map((r) => r.status)).toEqual([500, 403, 200]);
      // After a 403 the client waits a whole rate window before trying again.
      expect(server.log[2]!.at - server.log[1]!.at).toBeGreaterThanOrEqual(WINDOW_MS - 50);
      expect([...served].sort()).toEqual(['CVE-2022-20698', 'CVE-2024-3094']);
      expect(report.status).toBe('succeeded');
    });

    it('recovers from the server’s 403s when configured above its limit', async () => {
      await new SyncStateRepository(use().db).saveCursor('nvd', { lastModEnd: '2024-01-01T00:00:00.000Z' });
      const report = await syncService(use(), { NVD_RATE_LIMIT: '50' }).run('nvd');
      expect(server.log.filter((r) => r.status === 403).length).toBeGreaterThan(0);
      expect([...served].sort()).toEqual(
        records.filter((r) => modified(r) >= Date.parse('2024-01-01')).map((r) => r.id),
      );
      expect(report.status).toBe('succeeded');
    });

    it('imports the rest of a page around a malformed record and names the page in the problem', async () => {
      const [first, second] = records;
      // No cursor: a full load, pages of the records in order (the second is element 1 of page 0).
      await new SyncStateRepository(use().db).saveCursor('nvd', {});
      mangled = { [second!.id]: 'CVE-2024-x' };
      const report = await syncService(use()).run('nvd');
      expect(report.counts.skipped).toBe(1);
      expect(served).toContain(first!.id);
      const run = await use()
        .db.selectFrom('import_run')
        .select(['status', 'problems'])
        .where('source', '=', 'nvd')
        .where('status', '=', 'partial')
        .orderBy('started_at', 'desc')
        .executeTakeFirstOrThrow();
      expect(run.problems).toEqual([
        { position: 'nvd page 0:vulnerabilities[1]', reason: expect.stringMatching(/CVE-2024-x/) },
      ]);
    });

    it('imports a page whose record holds U+0000, stored without it, and moves its cursor on', async () => {
      await new SyncStateRepository(use().db).saveCursor('nvd', {});
      await use().db.deleteFrom('cve_source').where('provider', '=', 'nvd').execute();
      const [first, second] = records;
      withNul = new Set([second!.id]);
      const before = Date.now();
      const report = await syncService(use()).run('nvd');
      expect(report.status).toBe('succeeded');
      expect(report.counts).toMatchObject({ skipped: 0 });
      expect(await nvdStatements(use())).toEqual(records.map((r) => r.id));
      expect(served).toContain(first!.id);
      const row = await use()
        .db.selectFrom('cve_source')
        .select(['data'])
        .where('cve_id', '=', second!.id)
        .where('provider', '=', 'nvd')
        .executeTakeFirstOrThrow();
      expect(JSON.stringify(row.data)).not.toContain('\\u0000');
      expect(Date.parse(String(report.cursor.lastModEnd))).toBeGreaterThanOrEqual(before - 1000);
    });

    it('fails after its attempts when the server keeps failing, records it, and keeps the cursor', async () => {
      const cursor = { lastModEnd: '2026-01-01T00:00:00.000Z' };
      await new SyncStateRepository(use().db).saveCursor('nvd', cursor);
      injected = [500, 502, 503];
      await expect(syncService(use(), { SYNC_HTTP_ATTEMPTS: '3' }).run('nvd')).rejects.toThrow(
        /HTTP 503 \(after 3 attempts\)/,
      );
      expect(await new SyncStateRepository(use().db).get('nvd')).toMatchObject({
        cursor,
        consecutiveFailures: 1,
        lastError: expect.stringMatching(/HTTP 503/),
      });
    });
  });
});
