/**
 * FIRST EPSS scores: kept for CVEs the catalog does not list yet (`pending`), merged in when the record
 * arrives, kept current afterwards without change records (SPEC §3.3: EPSS is not a change).
 * The CSV files are written by the tests in FIRST's daily layout; the scores are illustrative.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportService } from '../../src/services/import.service.ts';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { changesOf, countRows, cveRow, fixture, mustCveRow, sourceRow, tempDir } from '../helpers/catalog.ts';

const XZ_RECORD = fixture('cve5', 'cves', '2024', '3xxx', 'CVE-2024-3094.json');

async function writeEpss(file: string, date: string, rows: [string, string, string][]): Promise<string> {
  const lines = [`#model_version:v2025.03.14,score_date:${date}T00:00:00+0000`, 'cve,epss,percentile'];
  for (const row of rows) lines.push(row.join(','));
  await fs.writeFile(file, zlib.gzipSync(lines.join('\n') + '\n'));
  return file;
}

describeEachDatabase('ImportService with EPSS scores', (use) => {
  let service: ImportService;
  let dir: string;
  let remove: () => Promise<void>;
  beforeAll(async () => {
    service = new ImportService(use().db);
    ({ dir, remove } = await tempDir());
  });
  afterAll(async () => {
    await remove();
  });

  describe('importInputs(epss) for a CVE the catalog does not list', () => {
    it('counts the score as pending and creates no cve row and no change', async () => {
      const file = await writeEpss(path.join(dir, 'epss_scores-2025-08-24.csv.gz'), '2025-08-24', [
        ['CVE-2024-3094', '0.84091', '0.99261'],
      ]);
      const report = await service.importInputs(sources.epss, [file]);
      expect(report.status).toBe('completed');
      expect(report.counts).toEqual({ imported: 0, updated: 0, unchanged: 0, skipped: 0, pending: 1 });
      expect(report.changes).toBe(0);
      expect(await cveRow(use().db, 'CVE-2024-3094')).toBeUndefined();
      expect(await countRows(use().db, 'cve_change')).toBe(0);
      expect((await sourceRow(use().db, 'CVE-2024-3094', 'first'))?.data).toMatchObject({
        metrics: { epss: { score: 0.84091, percentile: 0.99261 } },
      });
    });

    it('counts the same pending score imported again as unchanged, still without a cve row', async () => {
      const file = path.join(dir, 'epss_scores-2025-08-24.csv.gz');
      const report = await service.importInputs(sources.epss, [file]);
      expect(report.counts).toEqual({ imported: 0, updated: 0, unchanged: 1, skipped: 0, pending: 0 });
      expect(await cveRow(use().db, 'CVE-2024-3094')).toBeUndefined();
    });
  });

  describe('importInputs(cve5) after the EPSS score', () => {
    it('merges the kept score into metrics.epss and the epss column', async () => {
      const report = await service.importInputs(sources.cve5, [XZ_RECORD]);
      expect(report.counts).toEqual({ imported: 1, updated: 0, unchanged: 0, skipped: 0, pending: 0 });
      const row = await mustCveRow(use().db, 'CVE-2024-3094');
      expect(row.metrics.epss).toEqual({ data: { score: 0.84091, percentile: 0.99261 }, provider: 'first' });
      expect(row.epss).toBe(0.84091);
      expect(row.providers).toEqual(['mitre', 'vulnrichment', 'first']);
      // EPSS has no dates: the record's own.
      expect(row.created_at.toISOString()).toBe('2024-03-29T16:51:12.588Z');
      expect(row.updated_at.toISOString()).toBe('2024-08-20T17:24:56.165Z');
    });

    it('records one created change for the CVE', async () => {
      const changes = await changesOf(use().db, 'CVE-2024-3094');
      expect(changes).toHaveLength(1);
      expect(changes[0]!.types).toContain('created');
    });
  });

  describe('importInputs(epss) for a CVE in the catalog', () => {
    it('updates the score but records no change', async () => {
      const before = await mustCveRow(use().db, 'CVE-2024-3094');
      const file = await writeEpss(path.join(dir, 'epss_scores-2025-08-25.csv.gz'), '2025-08-25', [
        ['CVE-2024-3094', '0.85617', '0.99342'],
      ]);
      const report = await service.importInputs(sources.epss, [file]);
      expect(report.counts).toEqual({ imported: 0, updated: 1, unchanged: 0, skipped: 0, pending: 0 });
      expect(report.changes).toBe(0);
      const row = await mustCveRow(use().db, 'CVE-2024-3094');
      expect(row.metrics.epss).toEqual({ data: { score: 0.85617, percentile: 0.99342 }, provider: 'first' });
      expect(row.epss).toBe(0.85617);
      expect(row.updated_at.toISOString()).toBe(before.updated_at.toISOString());
      expect(await changesOf(use().db, 'CVE-2024-3094')).toHaveLength(1);
    });

    it('counts an unchanged score as unchanged', async () => {
      const report = await service.importInputs(sources.epss, [
        path.join(dir, 'epss_scores-2025-08-25.csv.gz'),
      ]);
      expect(report.counts).toEqual({ imported: 0, updated: 0, unchanged: 1, skipped: 0, pending: 0 });
    });

    it('keeps the score when the CVE record is imported again with a change', async () => {
      // The same record, edited: the CNA title changes. The merged view must keep the EPSS score.
      const record = JSON.parse(await fs.readFile(XZ_RECORD, 'utf8')) as {
        containers: { cna: { title: string } };
      };
      record.containers.cna.title = 'xz: malicious code in distributed source (CVE-2024-3094)';
      const file = path.join(dir, 'CVE-2024-3094.json');
      await fs.writeFile(file, JSON.stringify(record));
      const report = await service.importInputs(sources.cve5, [file]);
      expect(report.counts.updated).toBe(1);
      const row = await mustCveRow(use().db, 'CVE-2024-3094');
      expect(row.title).toBe('xz: malicious code in distributed source (CVE-2024-3094)');
      expect(row.epss).toBe(0.85617);
      const changes = await changesOf(use().db, 'CVE-2024-3094');
      expect(changes).toHaveLength(2);
      expect(changes[1]!.types).toEqual(['title']);
    });
  });
});
