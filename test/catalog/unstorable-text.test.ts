/**
 * Text PostgreSQL cannot store (docs/catalog.md, "Bad input"): JSON may escape U+0000 (`"\u0000"`)
 * and lone surrogates, which `jsonb` and `text` refuse. One such character in one record used to
 * fail the whole import ("unsupported Unicode escape sequence"), and so every retry of a sync; the
 * importer now stores every source's records without it, whichever field holds it.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportService } from '../../src/services/import.service.ts';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { changesOf, fixture, mustCveRow, readJson, sourceRow, tempDir } from '../helpers/catalog.ts';

const NUL = '\u0000';

/** No string or key of `value` holds U+0000 or a lone surrogate. */
function storable(value: unknown): boolean {
  return !/\\u(?:0000|d[89a-f])/.test(JSON.stringify(value));
}

interface Cve5Record {
  containers: {
    cna: {
      title: string;
      descriptions: { lang: string; value: string }[];
      references: { url: string }[];
      affected: { vendor?: string; product?: string }[];
    };
  };
}

describeEachDatabase('ImportService with text PostgreSQL cannot store', (use) => {
  let service: ImportService;
  let dir: string;
  let removeDir: () => Promise<void>;
  beforeAll(async () => {
    service = new ImportService(use().db);
    ({ dir, remove: removeDir } = await tempDir());
  });
  afterAll(async () => {
    await removeDir();
  });

  describe('importInputs(cve5, .jsonl)', () => {
    let jsonl: string;
    beforeAll(async () => {
      const [first, last] = (await fs.readFile(fixture('cve5', 'vulnrichment-2-records.jsonl'), 'utf8'))
        .split('\n')
        .filter(Boolean);
      const xz = await readJson<Cve5Record>(fixture('cve5', 'cves', '2024', '3xxx', 'CVE-2024-3094.json'));
      const cna = xz.containers.cna;
      cna.descriptions[0]!.value += `${NUL} (NUL)`;
      cna.title = `Xz:${NUL} malicious code \ud800in distributed source`;
      cna.references[0]!.url += NUL;
      cna.affected[1]!.product = `Red Hat Enterprise${NUL} Linux 6`;
      jsonl = path.join(dir, 'nul.jsonl');
      await fs.writeFile(jsonl, [first, JSON.stringify(xz), last, ''].join('\n'));
    });

    it('imports all three records, the middle one without U+0000 in any field, and its change', async () => {
      const report = await service.importInputs(sources.cve5, [jsonl]);
      expect(report.status).toBe('completed');
      expect(report.counts).toEqual({ imported: 3, updated: 0, unchanged: 0, skipped: 0, pending: 0 });
      expect(report.problems).toEqual([]);
      const xz = await mustCveRow(use().db, 'CVE-2024-3094');
      expect(xz.description).toMatch(/ \(NUL\)$/);
      expect(xz.description).not.toContain(NUL);
      expect(xz.title).toBe('Xz: malicious code \ufffdin distributed source');
      expect(JSON.stringify(xz.references)).toContain(
        '"http://www.openwall.com/lists/oss-security/2024/03/29/10"',
      );
      const mitre = await sourceRow(use().db, 'CVE-2024-3094', 'mitre');
      expect(storable(mitre!.data)).toBe(true);
      expect(JSON.stringify(mitre!.data)).toContain('Red Hat Enterprise Linux 6');
      expect(await changesOf(use().db, 'CVE-2024-3094')).toHaveLength(1);
      await mustCveRow(use().db, 'CVE-2024-41481');
      await mustCveRow(use().db, 'CVE-2024-47855');
    });

    it('finds the records unchanged when imported again', async () => {
      const report = await service.importInputs(sources.cve5, [jsonl]);
      expect(report.counts).toEqual({ imported: 0, updated: 0, unchanged: 3, skipped: 0, pending: 0 });
      expect(report.changes).toBe(0);
    });

    it('skips a line with a raw NUL byte (not JSON) and records the run with its problem', async () => {
      const file = path.join(dir, 'raw-nul.jsonl');
      const lines = (await fs.readFile(jsonl, 'utf8')).split('\n');
      await fs.writeFile(file, [lines[0], `{"cveMetadata":${NUL}}`, lines[2], ''].join('\n'));
      const report = await service.importInputs(sources.cve5, [file]);
      expect(report.status).toBe('partial');
      expect(report.counts).toMatchObject({ unchanged: 2, skipped: 1 });
      expect(report.problems).toEqual([
        { position: `${file}:2`, reason: expect.stringMatching(/^malformed JSON/) },
      ]);
      const run = await use()
        .db.selectFrom('import_run')
        .select(['status', 'problems'])
        .orderBy('started_at', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      expect(run.status).toBe('partial');
      expect(run.problems).toEqual(report.problems);
    });
  });

  describe('importInputs(nvd, API 2.0 page)', () => {
    it('imports every record of the page, the raw record kept for API v1 without U+0000 too', async () => {
      const ids = ['CVE-2021-36593', 'CVE-2023-4863', 'CVE-2024-31331'];
      const cves = await Promise.all(
        ids.map((id) => readJson<{ descriptions: { value: string }[] }>(fixture('nvd', `${id}.json`))),
      );
      cves[1]!.descriptions[0]!.value = `Heap buffer overflow${NUL} in libwebp`;
      const page = path.join(dir, 'nvd-page.json');
      await fs.writeFile(
        page,
        JSON.stringify({
          resultsPerPage: 3,
          startIndex: 0,
          totalResults: 3,
          format: 'NVD_CVE',
          version: '2.0',
          timestamp: '2025-01-01T00:00:00.000',
          vulnerabilities: cves.map((cve) => ({ cve })),
        }),
      );
      const report = await service.importInputs(sources.nvd, [page]);
      expect(report.status).toBe('completed');
      expect(report.counts).toEqual({ imported: 3, updated: 0, unchanged: 0, skipped: 0, pending: 0 });
      expect((await mustCveRow(use().db, 'CVE-2023-4863')).description).toBe(
        'Heap buffer overflow in libwebp',
      );
      const nvd = await sourceRow(use().db, 'CVE-2023-4863', 'nvd');
      expect(storable(nvd!.raw)).toBe(true);
      expect(JSON.stringify(nvd!.raw)).toContain('Heap buffer overflow in libwebp');
      expect((await service.importInputs(sources.nvd, [page])).counts).toMatchObject({ unchanged: 3 });
    });
  });

  describe('importInputs(opencve-kb, a KB file)', () => {
    it('imports a KB file with U+0000 in a section and in its history', async () => {
      const kb = await readJson<{
        nvd: { description: string };
        opencve: { changes: { data: { details: unknown }[] }[] };
      }>(fixture('opencve-kb', '2025', 'CVE-2025-2239.json'));
      kb.nvd.description += NUL;
      kb.opencve.changes[0]!.data[0]!.details = { note: `kept${NUL}` };
      const kbDir = path.join(dir, 'kb', '2025');
      await fs.mkdir(kbDir, { recursive: true });
      await fs.writeFile(path.join(kbDir, 'CVE-2025-2239.json'), JSON.stringify(kb));
      const report = await service.importInputs(sources['opencve-kb'], [path.dirname(kbDir)]);
      expect(report.status).toBe('completed');
      expect(report.counts).toMatchObject({ imported: 1, skipped: 0 });
      expect(storable((await sourceRow(use().db, 'CVE-2025-2239', 'nvd'))!.data)).toBe(true);
      const changes = await changesOf(use().db, 'CVE-2025-2239');
      expect(changes).toHaveLength(3);
      expect(storable(changes.map((c) => c.data))).toBe(true);
      expect(JSON.stringify(changes.map((c) => c.data))).toContain('"note":"kept"');
    });
  });

  describe('importInputs(kev)', () => {
    it('imports a KEV catalog with U+0000 in an entry', async () => {
      const catalog = await readJson<{ vulnerabilities: { requiredAction: string }[] }>(
        fixture('kev', 'known_exploited_vulnerabilities-excerpt.json'),
      );
      catalog.vulnerabilities[0]!.requiredAction += NUL;
      const file = path.join(dir, 'kev.json');
      await fs.writeFile(file, JSON.stringify(catalog));
      const report = await service.importInputs(sources.kev, [file]);
      expect(report.status).toBe('completed');
      expect(report.counts.skipped).toBe(0);
      expect(report.counts.imported + report.counts.updated + report.counts.pending).toBe(4);
    });
  });
});
