/**
 * CISA removes a KEV entry now and then. A KEV catalog is the whole list (Source.snapshotOf), so an
 * import of one retires the `cisa` statements of the CVEs it no longer lists: each CVE is merged
 * again, the change recorded, and the KEV flag falls back to the next provider (CISA-ADP) or goes.
 * An input that is not read whole retires nothing.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceCommands } from '../../src/cli/service-commands.ts';
import type { Services } from '../../src/services/services.ts';
import { ImportService } from '../../src/services/import.service.ts';
import type { ImportReport } from '../../src/domain/import-report.ts';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { changesOf, cveRow, fixture, mustCveRow, readJson, sourceRow, tempDir } from '../helpers/catalog.ts';

type Json = Record<string, unknown>;

const LOG4SHELL = 'CVE-2021-44228';
const PHP_CGI = 'CVE-2024-4577';
/** In the KEV excerpt, with no CVE record imported here: its KEV statement is kept, not listed. */
const HEARTBLEED = 'CVE-2014-0160';

describeEachDatabase('KEV entries removed upstream', (use) => {
  let service: ImportService;
  let dir: string;
  let remove: () => Promise<void>;
  let excerpt: Json & { vulnerabilities: Json[] };

  /** The excerpt's catalog with only the entries `keep` accepts (and its count to match). */
  async function kevFile(name: string, keep: (entry: Json) => boolean, extra: unknown[] = []) {
    const vulnerabilities = [...excerpt.vulnerabilities.filter(keep), ...extra];
    const file = path.join(dir, `known_exploited_vulnerabilities-${name}.json`);
    await fs.writeFile(file, JSON.stringify({ ...excerpt, count: vulnerabilities.length, vulnerabilities }));
    return file;
  }

  beforeAll(async () => {
    service = new ImportService(use().db);
    ({ dir, remove } = await tempDir());
    excerpt = await readJson(fixture('kev', 'known_exploited_vulnerabilities-excerpt.json'));
    await service.importInputs(sources.cve5, [
      fixture('cve5', 'cves', '2021', '44xxx', `${LOG4SHELL}.json`),
      fixture('cve5', 'cves', '2024', '4xxx', `${PHP_CGI}.json`),
    ]);
    const report = await service.importInputs(sources.kev, [
      fixture('kev', 'known_exploited_vulnerabilities-excerpt.json'),
    ]);
    expect(report.counts).toEqual({ imported: 0, updated: 2, unchanged: 0, skipped: 0, pending: 2 });
  });
  afterAll(async () => {
    await remove();
  });

  it('starts with both CVEs flagged KEV by the CISA catalog', async () => {
    for (const id of [LOG4SHELL, PHP_CGI]) {
      expect((await mustCveRow(use().db, id)).metrics.kev.provider).toBe('cisa');
    }
  });

  describe('a catalog without Log4Shell', () => {
    let report: ImportReport;
    let changesBefore: number;
    beforeAll(async () => {
      changesBefore = (await changesOf(use().db, LOG4SHELL)).length;
      report = await service.importInputs(sources.kev, [
        await kevFile('without-log4shell', (e) => e.cveID !== LOG4SHELL),
      ]);
    });

    it('deletes the CISA statement of Log4Shell and counts the CVE updated', async () => {
      expect(report.status).toBe('completed');
      expect(report.counts).toEqual({ imported: 0, updated: 1, unchanged: 3, skipped: 0, pending: 0 });
      expect(await sourceRow(use().db, LOG4SHELL, 'cisa')).toBeUndefined();
      expect(await sourceRow(use().db, PHP_CGI, 'cisa')).toBeDefined();
    });

    it('falls back to the KEV entry of the CISA-ADP container, and the view no longer names cisa', async () => {
      const row = await mustCveRow(use().db, LOG4SHELL);
      expect(row.kev).toBe(true);
      expect(row.metrics.kev.provider).toBe('vulnrichment');
      expect(row.providers).not.toContain('cisa');
    });

    it('records the switch as one metrics change', async () => {
      const changes = await changesOf(use().db, LOG4SHELL);
      expect(changes).toHaveLength(changesBefore + 1);
      const last = changes.at(-1)!;
      expect(last.types).toEqual(['metrics']);
      const [entry] = last.data as { type: string; details: { updated: Json } }[];
      expect(Object.keys(entry!.details.updated)).toEqual(['kev']);
    });

    it('changes nothing when the same catalog is imported again', async () => {
      const again = await service.importInputs(sources.kev, [
        path.join(dir, 'known_exploited_vulnerabilities-without-log4shell.json'),
      ]);
      expect(again.counts).toEqual({ imported: 0, updated: 0, unchanged: 3, skipped: 0, pending: 0 });
      expect(again.changes).toBe(0);
    });
  });

  describe('a catalog with an unreadable entry', () => {
    let report: ImportReport;
    beforeAll(async () => {
      // PHP-CGI is missing and one entry has no valid CVE id: the list cannot be trusted to be whole.
      report = await service.importInputs(sources.kev, [
        await kevFile('broken', (e) => e.cveID !== PHP_CGI && e.cveID !== LOG4SHELL, [
          { cveID: 'CVE-2024-x' },
        ]),
      ]);
    });

    it('retires nothing and says why', async () => {
      expect(report.status).toBe('partial');
      expect(report.counts.skipped).toBe(1);
      expect(report.problems.map((p) => p.reason)).toContain(
        'the kev entries of 1 CVE not in the input were kept: the input has unreadable entries',
      );
      expect(await sourceRow(use().db, PHP_CGI, 'cisa')).toBeDefined();
      expect((await mustCveRow(use().db, PHP_CGI)).metrics.kev.provider).toBe('cisa');
    });
  });

  describe('a catalog that lists nothing', () => {
    it('retires nothing: an empty list is more likely a broken mirror', async () => {
      const report = await service.importInputs(sources.kev, [await kevFile('empty', () => false)]);
      expect(report.counts).toEqual({ imported: 0, updated: 0, unchanged: 0, skipped: 0, pending: 0 });
      expect(report.problems.map((p) => p.reason)).toEqual([
        'the kev entries of 3 CVEs not in the input were kept: the input lists none',
      ]);
      expect(await sourceRow(use().db, PHP_CGI, 'cisa')).toBeDefined();
    });

    it('says so on the command line as a note of its own, not as a skipped record', async () => {
      // `vulntrack import` runs this command; it uses nothing of the services but the importer.
      const services = { imports: service } as unknown as Services;
      const result = await serviceCommands.import!(
        services,
        { source: 'kev', targets: [path.join(dir, 'known_exploited_vulnerabilities-empty.json')] },
        () => undefined,
      );
      expect(result.exitCode).toBe(0);
      expect(result.notes).toEqual([
        'the kev entries of 3 CVEs not in the input were kept: the input lists none',
      ]);
    });
  });

  describe('an input that is not a KEV catalog', () => {
    it('says so, exits 3 and retires nothing, for an empty file, {}, CVE 5 JSON lines or another CSV', async () => {
      const services = { imports: service } as unknown as Services;
      const inputs: [string, string | Buffer][] = [
        ['empty.json', ''],
        ['object.json', '{}'],
        ['records.jsonl', await fs.readFile(fixture('cve5', 'vulnrichment-2-records.jsonl'))],
        ['other.csv', 'cve,score\nCVE-2021-44228,0.9\n'],
        ['empty.csv', ''],
      ];
      for (const [name, content] of inputs) {
        const file = path.join(dir, `not-kev-${name}`);
        await fs.writeFile(file, content);
        const result = await serviceCommands.import!(
          services,
          { source: 'kev', targets: [file] },
          () => undefined,
        );
        const report = result.data as ImportReport;
        expect(result.exitCode, name).toBe(3);
        expect(report.counts, name).toEqual({
          imported: 0,
          updated: 0,
          unchanged: 0,
          skipped: 1,
          pending: 0,
        });
        expect(result.notes?.[0], name).toMatch(
          new RegExp(
            `^skipped ${file.replace(/[.]/g, '\\.')}: not a KEV catalog: no (?:"vulnerabilities" list|cveID column) \\(expected CISA's known_exploited_vulnerabilities`,
          ),
        );
        expect(report.problems.map((p) => p.reason)).toContain(
          'the kev entries of 3 CVEs not in the input were kept: the input has unreadable entries',
        );
      }
      for (const id of [PHP_CGI, HEARTBLEED]) expect(await sourceRow(use().db, id, 'cisa'), id).toBeDefined();
    });
  });

  describe('a catalog without PHP-CGI and without Heartbleed', () => {
    let report: ImportReport;
    beforeAll(async () => {
      report = await service.importInputs(sources.kev, [
        await kevFile('smaller', (e) => ![LOG4SHELL, PHP_CGI, HEARTBLEED].includes(e.cveID as string)),
      ]);
    });

    it('retires both, and PHP-CGI falls back to the CISA-ADP entry', async () => {
      expect(report.counts).toEqual({ imported: 0, updated: 1, unchanged: 2, skipped: 0, pending: 0 });
      expect(await sourceRow(use().db, PHP_CGI, 'cisa')).toBeUndefined();
      expect((await mustCveRow(use().db, PHP_CGI)).metrics.kev.provider).toBe('vulnrichment');
    });

    it('deletes the KEV statement of Heartbleed, a CVE not published here, which stays out of the catalog', async () => {
      expect(await sourceRow(use().db, HEARTBLEED, 'cisa')).toBeUndefined();
      expect(await cveRow(use().db, HEARTBLEED)).toBeUndefined();
      expect(await changesOf(use().db, HEARTBLEED)).toEqual([]);
    });

    it('has nothing more to retire when the same catalog comes again', async () => {
      const again = await service.importInputs(sources.kev, [
        path.join(dir, 'known_exploited_vulnerabilities-smaller.json'),
      ]);
      expect(again.counts).toEqual({ imported: 0, updated: 0, unchanged: 1, skipped: 0, pending: 0 });
      expect(again.problems).toEqual([]);
    });

    it('brings an entry back when CISA lists it again', async () => {
      const back = await service.importInputs(sources.kev, [
        fixture('kev', 'known_exploited_vulnerabilities-excerpt.json'),
      ]);
      expect(back.counts).toEqual({ imported: 0, updated: 2, unchanged: 1, skipped: 0, pending: 1 });
      for (const id of [LOG4SHELL, PHP_CGI])
        expect((await mustCveRow(use().db, id)).metrics.kev.provider).toBe('cisa');
      expect(await sourceRow(use().db, HEARTBLEED, 'cisa')).toBeDefined();
    });
  });
});

/**
 * The OpenCVE KB's copy of a KEV entry and the KEV catalog state one fact (the `kev` metric of the
 * `cisa` statement). The KB's CVE-2025-48543 was added to KEV on 2025-09-04; the catalog excerpt was
 * released on 2025-08-25 and does not list it. A snapshot retires no fact newer than itself, or each
 * import would undo the other's (two `metrics` changes per round, for ever).
 */
describeEachDatabase('KEV catalogs and the OpenCVE KB imported in turns', (use) => {
  const ANDROID = 'CVE-2025-48543';
  const KEV_EXCERPT = fixture('kev', 'known_exploited_vulnerabilities-excerpt.json');
  let service: ImportService;
  let dir: string;
  let remove: () => Promise<void>;
  let excerpt: Json & { vulnerabilities: Json[] };

  const changeCount = async () =>
    (
      await use()
        .db.selectFrom('cve_change')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n;

  beforeAll(async () => {
    service = new ImportService(use().db);
    ({ dir, remove } = await tempDir());
    excerpt = await readJson(KEV_EXCERPT);
  });
  afterAll(async () => {
    await remove();
  });

  it('records nothing after the first round, and keeps the KB’s entry added after the catalog', async () => {
    await service.importInputs(sources['opencve-kb'], [fixture('opencve-kb')]);
    await service.importInputs(sources.kev, [KEV_EXCERPT]);
    const afterFirstRound = Number(await changeCount());
    for (let round = 2; round <= 3; round++) {
      const kb = await service.importInputs(sources['opencve-kb'], [fixture('opencve-kb')]);
      const kev = await service.importInputs(sources.kev, [KEV_EXCERPT]);
      expect([kb.changes, kev.changes], `round ${round}`).toEqual([0, 0]);
    }
    expect(Number(await changeCount())).toBe(afterFirstRound);
    const statement = await sourceRow(use().db, ANDROID, 'cisa');
    expect((statement!.data as { metrics: { kev: Json } }).metrics.kev).toMatchObject({
      dateAdded: '2025-09-04T00:00:00Z',
    });
    expect((await mustCveRow(use().db, ANDROID)).metrics.kev.provider).toBe('cisa');
  });

  it('keeps it too from the catalog’s CSV, dated by its latest entry (it has no release date)', async () => {
    const header = ['cveID', 'vendorProject', 'product', 'vulnerabilityName', 'dateAdded', 'dueDate'];
    const csv = path.join(dir, 'known_exploited_vulnerabilities.csv');
    const rows = excerpt.vulnerabilities.map((e) => header.map((h) => JSON.stringify(e[h] ?? '')).join(','));
    await fs.writeFile(csv, [header.join(','), ...rows, ''].join('\n'));
    const before = (await changesOf(use().db, ANDROID)).length;
    const report = await service.importInputs(sources.kev, [csv]);
    expect(report.problems).toEqual([]);
    expect(await sourceRow(use().db, ANDROID, 'cisa')).toBeDefined();
    expect(await changesOf(use().db, ANDROID)).toHaveLength(before);
    await service.importInputs(sources.kev, [KEV_EXCERPT]);
  });

  it('retires it when a catalog released after the KB’s date no longer lists it', async () => {
    const before = (await changesOf(use().db, ANDROID)).length;
    const later = path.join(dir, 'known_exploited_vulnerabilities-2025-09-10.json');
    await fs.writeFile(
      later,
      JSON.stringify({ ...excerpt, catalogVersion: '2025.09.10', dateReleased: '2025-09-10T15:00:00.000Z' }),
    );
    const report = await service.importInputs(sources.kev, [later]);
    expect(report.status).toBe('completed');
    expect(report.counts).toMatchObject({ updated: 1, skipped: 0 });
    expect(await sourceRow(use().db, ANDROID, 'cisa')).toBeUndefined();
    const changes = await changesOf(use().db, ANDROID);
    expect(changes).toHaveLength(before + 1);
    expect(changes.at(-1)!.types).toEqual(['metrics']);
  });
});
