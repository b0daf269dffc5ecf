/**
 * Bad input (SPEC §9): a malformed record is skipped and reported with its position and reason, the
 * rest of the input is imported, and the import ends `partial`; an input that cannot be read at all
 * is an InputError. Also: CVE 5 records from a zip archive and from a .jsonl.gz.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportService } from '../../src/services/import.service.ts';
import { InputError } from '../../src/sources/input.ts';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { countRows, cveRow, fixture, makeZip, mustCveRow, tempDir } from '../helpers/catalog.ts';

const PARSE_ITEMS = fileURLToPath(new URL('../helpers/parse-items.ts', import.meta.url));

/** Parses `target` with `source` in a child process (20 s limit) and returns its items and exit status. */
function parseInChild(
  source: string,
  target: string,
): { status: number | null; stderr: string; items: { kind: string; position: string; cveId?: string }[] } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', PARSE_ITEMS, source, target], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  const items = result.stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { kind: string; position: string; cveId?: string });
  return { status: result.status, stderr: result.stderr, items };
}

describeEachDatabase('ImportService with bad input', (use) => {
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

  describe('importInputs(cve5, zip archive)', () => {
    it('imports the records of a zip of a cvelistV5 folder and reports a bad entry by archive!entry', async () => {
      const work = path.join(dir, 'zip-src');
      await fs.cp(fixture('cve5', 'cves'), path.join(work, 'cves'), { recursive: true });
      await fs.mkdir(path.join(work, 'cves', '2024', '9xxx'), { recursive: true });
      await fs.writeFile(
        path.join(work, 'cves', '2024', '9xxx', 'CVE-2024-9999.json'),
        JSON.stringify({ cveMetadata: { cveId: 'CVE-2024-9999', state: 'PUBLISHED' }, containers: {} }),
      );
      const zip = path.join(dir, 'cvelistV5.zip');
      makeZip(work, zip, ['cves']);

      const report = await service.importInputs(sources.cve5, [zip]);
      expect(report.counts).toEqual({ imported: 9, updated: 0, unchanged: 0, skipped: 1, pending: 0 });
      expect(report.status).toBe('partial');
      expect(report.problems).toEqual([
        {
          position: `${zip}!cves/2024/9xxx/CVE-2024-9999.json`,
          id: 'CVE-2024-9999',
          reason: 'no CNA container',
        },
      ]);
      expect((await mustCveRow(use().db, 'CVE-2021-44228')).metrics.cvssV3_1.provider).toBe('vulnrichment');
      expect(await cveRow(use().db, 'CVE-2024-9999')).toBeUndefined();
    });
  });

  describe('importInputs(cve5, .jsonl with bad lines)', () => {
    let jsonl: string;
    const good = async () =>
      (await fs.readFile(fixture('cve5', 'vulnrichment-2-records.jsonl'), 'utf8')).split('\n');
    beforeAll(async () => {
      const [first, second] = await good();
      const invalidId = JSON.parse(first!) as { cveMetadata: { cveId: string } };
      invalidId.cveMetadata.cveId = 'CVE-2024-41481x';
      jsonl = path.join(dir, 'records.jsonl');
      await fs.writeFile(
        jsonl,
        [
          first, // 1
          second!.slice(0, 300), // 2: truncated
          JSON.stringify(invalidId), // 3
          '', // 4: blank lines are not records
          '42', // 5
          '{"cveMetadata": 5}', // 6
          second, // 7
          '',
        ].join('\n'),
      );
    });

    it('imports the good records and reports each bad line by file:line with its reason', async () => {
      const changesBefore = await countRows(use().db, 'cve_change');
      const report = await service.importInputs(sources.cve5, [jsonl]);
      expect(report.status).toBe('partial');
      expect(report.counts).toEqual({ imported: 2, updated: 0, unchanged: 0, skipped: 4, pending: 0 });
      expect(report.problems).toHaveLength(4);
      expect(report.problems[0]).toEqual({
        position: `${jsonl}:2`,
        reason: expect.stringMatching(/^malformed JSON/),
      });
      expect(report.problems[1]).toEqual({
        position: `${jsonl}:3`,
        id: 'CVE-2024-41481x',
        reason: 'invalid CVE id "CVE-2024-41481x"',
      });
      expect(report.problems[2]).toEqual({
        position: `${jsonl}:5`,
        reason: 'not a CVE 5 record (no cveMetadata)',
      });
      expect(report.problems[3]).toEqual({
        position: `${jsonl}:6`,
        reason: 'not a CVE 5 record (no cveMetadata)',
      });
      expect((await mustCveRow(use().db, 'CVE-2024-41481')).description).toBe(
        'Typora before 1.9.3 Markdown editor has a cross-site scripting (XSS) vulnerability via the Mermaid component.',
      );
      expect((await mustCveRow(use().db, 'CVE-2024-47855')).description).toBe(
        'util/JSONTokener.java in JSON-lib before 3.1.0 mishandles an unbalanced comment string.',
      );
      expect(await countRows(use().db, 'cve_change')).toBe(changesBefore + 2);
    });

    it('reads the same lines from a .jsonl.gz, reporting the compressed file name', async () => {
      const gz = path.join(dir, 'records.jsonl.gz');
      await fs.writeFile(gz, zlib.gzipSync(await fs.readFile(jsonl)));
      const report = await service.importInputs(sources.cve5, [gz]);
      expect(report.counts).toEqual({ imported: 0, updated: 0, unchanged: 2, skipped: 4, pending: 0 });
      expect(report.problems.map((p) => p.position)).toEqual([`${gz}:2`, `${gz}:3`, `${gz}:5`, `${gz}:6`]);
    });

    it('records the partial run in import_run with its counts and problems', async () => {
      const run = await use()
        .db.selectFrom('import_run')
        .selectAll()
        .where('source', '=', 'cve5')
        .orderBy('started_at', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      expect(run.status).toBe('partial');
      expect(run.finished_at).not.toBeNull();
      expect(run.counts).toMatchObject({ skipped: 4, unchanged: 2 });
      expect(run.problems).toHaveLength(4);
    });

    it('skips a malformed single-record file of a folder and imports the others', async () => {
      const folder = path.join(dir, 'folder');
      await fs.mkdir(path.join(folder, '2024', '41xxx'), { recursive: true });
      await fs.writeFile(
        path.join(folder, '2024', '41xxx', 'CVE-2024-41000.json'),
        '{"dataType": "CVE_RECORD", ',
      );
      await fs.copyFile(
        fixture('cve5', 'cves', '2024', '6xxx', 'CVE-2024-6387.json'),
        path.join(folder, '2024', 'CVE-2024-6387.json'),
      );
      // Not a record file name: ignored, not reported.
      await fs.writeFile(path.join(folder, 'README.md'), '# notes');
      const report = await service.importInputs(sources.cve5, [folder]);
      expect(report.counts).toEqual({ imported: 0, updated: 0, unchanged: 1, skipped: 1, pending: 0 });
      expect(report.problems).toEqual([
        {
          position: path.join(folder, '2024', '41xxx', 'CVE-2024-41000.json'),
          reason: expect.stringMatching(/^malformed JSON/),
        },
      ]);
    });
  });

  describe('importInputs(nvd, 1.1 feed with bad items)', () => {
    it('imports the good items and reports the bad ones by CVE_Items index', async () => {
      const feed = JSON.parse(
        zlib.gunzipSync(await fs.readFile(fixture('nvd', 'feed-1.1-heartbleed.json.gz'))).toString('utf8'),
      ) as { CVE_Items: unknown[] };
      const [a, b, c] = feed.CVE_Items;
      feed.CVE_Items = [a, { cve: { CVE_data_meta: { ID: 'CVE-14-0160' } } }, b, 'not an item', c];
      const file = path.join(dir, 'nvdcve-1.1-bad.json');
      await fs.writeFile(file, JSON.stringify(feed, null, 2));

      const report = await service.importInputs(sources.nvd, [file]);
      expect(report.status).toBe('partial');
      expect(report.counts).toEqual({ imported: 3, updated: 0, unchanged: 0, skipped: 2, pending: 0 });
      expect(report.problems).toEqual([
        { position: `${file}:CVE_Items[1]`, reason: 'invalid CVE id "CVE-14-0160"' },
        { position: `${file}:CVE_Items[3]`, reason: 'not an NVD 1.1 feed item' },
      ]);
      expect((await mustCveRow(use().db, 'CVE-2014-0160')).cvss20).toBe(5);
      expect(await cveRow(use().db, 'CVE-2014-0161')).toBeDefined();
    });
  });

  describe('importInputs(nvd, API 2.0 page with an element that is not JSON)', () => {
    it('reports that element by its index and imports the ones before and after it', async () => {
      const record = async (id: string) => fs.readFile(fixture('nvd', `${id}.json`), 'utf8');
      const page = [
        '{"resultsPerPage": 3, "startIndex": 0, "totalResults": 3, "format": "NVD_CVE", "version": "2.0",',
        ' "vulnerabilities": [',
        `  {"cve": ${await record('CVE-2019-25161')}},`,
        '  {"cve": {"id": "CVE-2099-0001", "descriptions": [{"lang": "en", "value": "cut \\" here"}], }},',
        `  {"cve": ${await record('CVE-2024-31331')}}`,
        ']}',
      ].join('\n');
      const file = path.join(dir, 'nvd-page-with-broken-element.json');
      await fs.writeFile(file, page);

      const report = await service.importInputs(sources.nvd, [file]);
      expect(report.status).toBe('partial');
      // Both good records were read (each imported, or updated if an earlier test brought it).
      const { imported, updated, unchanged, skipped } = report.counts;
      expect({ read: imported + updated + unchanged, skipped }).toEqual({ read: 2, skipped: 1 });
      expect(report.problems).toEqual([
        { position: `${file}:vulnerabilities[1]`, reason: expect.stringMatching(/^not valid JSON/) },
      ]);
      expect(await cveRow(use().db, 'CVE-2019-25161')).toBeDefined();
      expect(await cveRow(use().db, 'CVE-2024-31331')).toBeDefined();
      expect(await cveRow(use().db, 'CVE-2099-0001')).toBeUndefined();
    });
  });

  describe('importInputs(kev, catalog with bad entries)', () => {
    it('imports the good entries and reports bad ids and dates by vulnerabilities index', async () => {
      const catalog = JSON.parse(
        await fs.readFile(fixture('kev', 'known_exploited_vulnerabilities-excerpt.json'), 'utf8'),
      ) as { vulnerabilities: Record<string, unknown>[] };
      const [a, b, c, d] = catalog.vulnerabilities;
      catalog.vulnerabilities = [
        a!,
        { ...b!, cveID: 'CVE-2014-160' },
        b!,
        { ...c!, dateAdded: 'soon' },
        c!,
        d!,
      ];
      const file = path.join(dir, 'known_exploited_vulnerabilities.json');
      await fs.writeFile(file, JSON.stringify(catalog, null, 4));

      const report = await service.importInputs(sources.kev, [file]);
      expect(report.status).toBe('partial');
      // All four CVEs are already in the catalog (the zip and the NVD feed above).
      expect(report.counts).toEqual({ imported: 0, updated: 4, unchanged: 0, skipped: 2, pending: 0 });
      expect(report.problems).toEqual([
        { position: `${file}:vulnerabilities[1]`, reason: 'invalid CVE id "CVE-2014-160"' },
        {
          position: `${file}:vulnerabilities[3]`,
          id: 'CVE-2011-0611',
          reason: 'missing or invalid dateAdded',
        },
      ]);
      expect((await mustCveRow(use().db, 'CVE-2011-0611')).metrics.kev.provider).toBe('cisa');
    });
  });

  describe('importInputs(epss, csv with bad rows)', () => {
    it('keeps the good scores and reports bad scores and ids by file:row', async () => {
      const file = path.join(dir, 'epss_scores-2025-08-25.csv.gz');
      const csv = [
        '#model_version:v2025.03.14,score_date:2025-08-25T12:55:00Z',
        'cve,epss,percentile',
        'CVE-2024-3094,0.84091,0.99261', // row 1: in the catalog
        'CVE-2021-44228,abc,0.99999', // row 2
        'CVE-2021-442,0.94358,0.99957', // row 3
        'CVE-2011-0611,1.5,0.99', // row 4
        'CVE-2022-48703,0.00008,0.00812', // row 5: not in the catalog
        '',
      ].join('\n');
      await fs.writeFile(file, zlib.gzipSync(csv));
      const report = await service.importInputs(sources.epss, [file]);
      expect(report.status).toBe('partial');
      expect(report.counts).toEqual({ imported: 0, updated: 1, unchanged: 0, skipped: 3, pending: 1 });
      expect(report.problems).toEqual([
        { position: `${file}:row 2`, id: 'CVE-2021-44228', reason: 'invalid score "abc"' },
        { position: `${file}:row 3`, reason: 'invalid CVE id "CVE-2021-442"' },
        { position: `${file}:row 4`, id: 'CVE-2011-0611', reason: 'invalid score "1.5"' },
      ]);
      const xz = await mustCveRow(use().db, 'CVE-2024-3094');
      expect(xz.metrics.epss).toEqual({ data: { score: 0.84091, percentile: 0.99261 }, provider: 'first' });
      expect((await mustCveRow(use().db, 'CVE-2021-44228')).epss).toBeNull();
    });
  });

  describe('importInputs with unreadable targets', () => {
    it('throws InputError naming a missing path, and records the run as failed', async () => {
      const missing = path.join(dir, 'no', 'such', 'records.jsonl');
      const attempt = service.importInputs(sources.cve5, [missing]);
      await expect(attempt).rejects.toBeInstanceOf(InputError);
      await expect(attempt).rejects.toThrow(`${missing}: no such file or folder`);
      const run = await use()
        .db.selectFrom('import_run')
        .select(['status', 'finished_at'])
        .orderBy('started_at', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      expect(run.status).toBe('failed');
      expect(run.finished_at).not.toBeNull();
    });

    it('throws InputError for a .zip that is not a zip archive', async () => {
      const file = path.join(dir, 'records.zip');
      await fs.writeFile(file, 'this is not a zip archive\n');
      const attempt = service.importInputs(sources.cve5, [file]);
      await expect(attempt).rejects.toBeInstanceOf(InputError);
      await expect(attempt).rejects.toThrow(`${file} is not a readable zip archive`);
    });

    it('throws InputError for a truncated zip archive', async () => {
      const whole = await fs.readFile(path.join(dir, 'cvelistV5.zip'));
      const file = path.join(dir, 'truncated.zip');
      await fs.writeFile(file, whole.subarray(0, Math.floor(whole.length / 2)));
      await expect(service.importInputs(sources.cve5, [file])).rejects.toBeInstanceOf(InputError);
    });
  });

  describe('importInputs(cve5, one .json file holding an array of records)', () => {
    it('imports each element and reports a bad one by file[index], whatever blanks come first', async () => {
      const records = await Promise.all(
        [
          ['2024', '3xxx', 'CVE-2024-3094.json'],
          ['2024', '6xxx', 'CVE-2024-6387.json'],
        ].map((p) => fs.readFile(fixture('cve5', 'cves', ...p), 'utf8')),
      );
      const file = path.join(dir, 'bulk.json');
      await fs.writeFile(file, `\r\n\t [${records[0]}, {"cveMetadata": {}}, ${records[1]}]`);

      const report = await service.importInputs(sources.cve5, [file]);
      expect(report.status).toBe('partial');
      // Both came in the zip above, as files of their own: as elements they make the same statements.
      expect(report.counts).toEqual({ imported: 0, updated: 0, unchanged: 2, skipped: 1, pending: 0 });
      expect(report.problems.map((p) => p.position)).toEqual([`${file}[1]`]);
      expect((await mustCveRow(use().db, 'CVE-2024-6387')).state).toBe('PUBLISHED');
    });
  });
});

// No database involved: once per run, not per backend.
// Parsed in a child process, so that a regression (an uncaught stream error crashes or hangs the
// process) fails these tests only.
describe('streamed sources with truncated input (parsed in a child process)', () => {
  let dir: string;
  let removeDir: () => Promise<void>;
  beforeAll(async () => {
    ({ dir, remove: removeDir } = await tempDir());
  });
  afterAll(async () => {
    await removeDir();
  });

  it('yields the items before a truncation of a 1.1 feed, then one skip for the unreadable rest', async () => {
    const text = zlib
      .gunzipSync(await fs.readFile(fixture('nvd', 'feed-1.1-heartbleed.json.gz')))
      .toString('utf8');
    const file = path.join(dir, 'nvdcve-1.1-truncated.json');
    await fs.writeFile(file, text.slice(0, text.indexOf('"CVE-2014-0161"')));
    const result = parseInChild('nvd', file);
    expect(result.status, result.stderr).toBe(0);
    expect(result.items).toEqual([
      { kind: 'cve', position: `${file}:CVE_Items[0]`, cveId: 'CVE-2014-0159' },
      { kind: 'cve', position: `${file}:CVE_Items[1]`, cveId: 'CVE-2014-0160' },
      {
        kind: 'skip',
        position: file,
        reason: expect.stringMatching(/^the rest of the file is unreadable/),
      },
    ]);
  });

  it('yields the entries before a truncation of the KEV catalog, then one skip', async () => {
    const text = await fs.readFile(fixture('kev', 'known_exploited_vulnerabilities-excerpt.json'), 'utf8');
    const file = path.join(dir, 'known_exploited_vulnerabilities-truncated.json');
    await fs.writeFile(file, text.slice(0, text.indexOf('"CVE-2011-0611"')));
    const result = parseInChild('kev', file);
    expect(result.status, result.stderr).toBe(0);
    expect(result.items).toEqual([
      { kind: 'cve', position: `${file}:vulnerabilities[0]`, cveId: 'CVE-2024-4577' },
      { kind: 'cve', position: `${file}:vulnerabilities[1]`, cveId: 'CVE-2014-0160' },
      {
        kind: 'skip',
        position: file,
        reason: expect.stringMatching(/^the rest of the file is unreadable/),
      },
    ]);
  });

  // An interrupted daily download: gunzip's error must reach the CSV reader and end in one skip.
  it('yields the rows before the cut of a truncated EPSS .csv.gz, then one skip', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => `CVE-2024-${1000 + i},0.0004${i % 10},0.1${i % 10}`);
    const csv = [
      '#model_version:v2025.03.14,score_date:2025-08-25T12:55:00Z',
      'cve,epss,percentile',
      ...rows,
    ];
    const gz = zlib.gzipSync(csv.join('\n') + '\n');
    const file = path.join(dir, 'epss_scores-truncated.csv.gz');
    await fs.writeFile(file, gz.subarray(0, Math.floor(gz.length / 2)));
    const result = parseInChild('epss', file);
    expect(result.status, result.stderr).toBe(0);
    expect(result.items.length).toBeGreaterThan(1);
    expect(result.items.slice(0, -1).every((i) => i.kind === 'cve')).toBe(true);
    expect(result.items.at(-1)).toMatchObject({
      kind: 'skip',
      reason: expect.stringMatching(/^the rest of the file is unreadable/),
    });
  });

  it('yields every item of the untruncated feed (the child process itself works)', () => {
    const result = parseInChild('nvd', fixture('nvd', 'feed-1.1-heartbleed.json.gz'));
    expect(result.status, result.stderr).toBe(0);
    expect(result.items.map((i) => i.cveId)).toEqual(['CVE-2014-0159', 'CVE-2014-0160', 'CVE-2014-0161']);
  });
});
