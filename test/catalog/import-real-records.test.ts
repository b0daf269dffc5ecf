/**
 * Imports real upstream records (test/fixtures, copied from ../shared/data) and checks the merged
 * `cve` rows field by field (SPEC §3.2) and the change history (SPEC §3.3).
 */
import zlib from 'node:zlib';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportService } from '../../src/services/import.service.ts';
import type { ImportReport } from '../../src/domain/import-report.ts';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { SAMPLE_RECORDS, storeAliasTable } from '../helpers/aliases.ts';
import {
  changesOf,
  countRows,
  fixture,
  mustCveRow,
  readJson,
  sourceRow,
  tempDir,
} from '../helpers/catalog.ts';

const CVE5_FOLDER = fixture('cve5', 'cves');
const CVE5_IDS = [
  'CVE-2011-0611',
  'CVE-2019-25161',
  'CVE-2021-36593',
  'CVE-2021-44228',
  'CVE-2023-4863',
  'CVE-2024-31331',
  'CVE-2024-3094',
  'CVE-2024-4577',
  'CVE-2024-6387',
];
const XZ_NVD = fixture('nvd', 'CVE-2024-3094.json');
const HEARTBLEED_FEED = fixture('nvd', 'feed-1.1-heartbleed.json.gz');
const KEV_EXCERPT = fixture('kev', 'known_exploited_vulnerabilities-excerpt.json');

type Json = Record<string, unknown>;

describeEachDatabase('ImportService with real records', (use) => {
  let service: ImportService;
  beforeAll(async () => {
    await storeAliasTable(use().db, [SAMPLE_RECORDS]);
    service = new ImportService(use().db);
  });

  describe('importInputs(cve5, cvelistV5 folder)', () => {
    let first: ImportReport;
    beforeAll(async () => {
      first = await service.importInputs(sources.cve5, [CVE5_FOLDER]);
    });

    it('imports every record of the folder, completed, with one change per CVE', async () => {
      expect(first.status).toBe('completed');
      expect(first.problems).toEqual([]);
      expect(first.counts).toEqual({ imported: 9, updated: 0, unchanged: 0, skipped: 0, pending: 0 });
      expect(first.changes).toBe(9);
      const ids = await use().db.selectFrom('cve').select('cve_id').orderBy('cve_id').execute();
      expect(ids.map((r) => r.cve_id)).toEqual([...CVE5_IDS].sort());
    });

    it('records exactly one change with type created for each new CVE', async () => {
      const rows = await use().db.selectFrom('cve_change').select(['cve_id', 'types']).execute();
      expect(rows.map((r) => r.cve_id).sort()).toEqual([...CVE5_IDS].sort());
      for (const row of rows) expect(row.types, row.cve_id).toContain('created');
    });

    it('merges Log4Shell (CVE-2021-44228): CNA text, CISA-ADP CVSS 3.1, SSVC and KEV, CNA weaknesses', async () => {
      const record = await readJson<{ containers: { cna: { descriptions: { value: string }[] } } }>(
        fixture('cve5', 'cves', '2021', '44xxx', 'CVE-2021-44228.json'),
      );
      const row = await mustCveRow(use().db, 'CVE-2021-44228');
      expect(row.state).toBe('PUBLISHED');
      expect(row.title).toBe(
        'Apache Log4j2 JNDI features do not protect against attacker controlled LDAP and other JNDI related endpoints',
      );
      expect(row.description).toBe(record.containers.cna.descriptions[0]!.value);
      expect(row.description).toMatch(
        /^Apache Log4j2 2\.0-beta9 through 2\.15\.0 \(excluding security releases/,
      );
      // The CNA container has no CVSS; the CISA-ADP container has 3.1.
      expect(row.metrics.cvssV3_1).toEqual({
        data: { score: 10, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H' },
        provider: 'vulnrichment',
      });
      expect(row.cvss31).toBe(10);
      expect(row.cvss20).toBeNull();
      expect(row.metrics.cvssV2_0).toEqual({ data: {}, provider: null });
      expect(row.metrics.kev).toEqual({
        data: {
          dateAdded: '2021-12-10',
          reference: 'https://www.cisa.gov/known-exploited-vulnerabilities-catalog?field_cve=CVE-2021-44228',
        },
        provider: 'vulnrichment',
      });
      expect(row.kev).toBe(true);
      expect(row.metrics.ssvc).toEqual({
        data: {
          options: { Exploitation: 'active', Automatable: 'yes', 'Technical Impact': 'total' },
          version: '2.0.3',
        },
        provider: 'vulnrichment',
      });
      expect(row.metrics.threat_severity).toEqual({ data: null, provider: null });
      expect(row.metrics.epss).toEqual({ data: {}, provider: null });
      expect(row.epss).toBeNull();
      expect(row.weaknesses).toEqual(['CWE-20', 'CWE-400', 'CWE-502']);
      // No CPEs anywhere in the record: the vendor key comes from the CNA's own text mapped by the
      // alias table shipped with the sample ("Apache Software Foundation" → `apache`, a learned
      // alias; "Apache Log4j2", a product no CPE of the sample names, minted without the vendor's
      // prefix and its version: `log4j`, issue 30; SPEC §3.2 beyond).
      expect(row.cpes).toEqual([]);
      expect(row.vendors).toEqual(['apache', 'apache$PRODUCT$log4j']);
      expect(row.created_at.toISOString()).toBe('2021-12-10T00:00:00.000Z');
      expect(row.updated_at.toISOString()).toBe('2025-07-28T19:48:17.130Z');
      // 53 CNA references and the CVE Program container's copies: 51 distinct URLs.
      const refs = row.references as { url: string; tags: string[] }[];
      expect(refs).toHaveLength(51);
      expect(new Set(refs.map((r) => r.url)).size).toBe(51);
      expect(refs.map((r) => r.url)).toContain('https://logging.apache.org/log4j/2.x/security.html');
      expect(row.providers).toEqual(['mitre', 'vulnrichment']);
      expect(row.nvd_configurations).toBeNull();
    });

    it('fills the vendor, product and weakness tables from the merged rows', async () => {
      const { db } = use();
      const product = await db
        .selectFrom('product')
        .innerJoin('vendor', 'vendor.id', 'product.vendor_id')
        .select(['vendor.name as vendor', 'product.name as product'])
        .where('vendor.name', '=', 'apache')
        .execute();
      expect(product).toEqual([{ vendor: 'apache', product: 'log4j' }]);
      expect(await db.selectFrom('vendor').select('name').where('name', '=', 'apache').execute()).toEqual([
        { name: 'apache' },
      ]);
      const weaknesses = await db
        .selectFrom('weakness')
        .select('cwe_id')
        .where('cwe_id', 'in', ['CWE-20', 'CWE-400', 'CWE-502', 'CWE-843'])
        .orderBy('cwe_id')
        .execute();
      expect(weaknesses.map((w) => w.cwe_id)).toEqual(['CWE-20', 'CWE-400', 'CWE-502', 'CWE-843']);
    });

    it('keeps REJECTED records in the catalog, flagged, with the rejection reason as description', async () => {
      const a = await mustCveRow(use().db, 'CVE-2019-25161');
      expect(a.state).toBe('REJECTED');
      expect(a.description).toBe(
        'This CVE ID has been rejected or withdrawn by its CVE Numbering Authority.',
      );
      expect(a.created_at.toISOString()).toBe('2024-02-26T17:20:20.190Z');
      expect(a.updated_at.toISOString()).toBe('2024-02-27T09:57:13.593Z');
      const b = await mustCveRow(use().db, 'CVE-2021-36593');
      expect(b.state).toBe('REJECTED');
      expect(b.description).toMatch(/^DO NOT USE THIS CANDIDATE NUMBER\./);
      // No datePublished: the reservation date; dateUpdated has microseconds and no zone.
      expect(b.created_at.toISOString()).toBe('2021-07-12T00:00:00.000Z');
      expect(b.updated_at.toISOString()).toBe('2024-05-02T21:17:22.890Z');
      const [change] = await changesOf(use().db, 'CVE-2019-25161');
      expect(change?.types).toContain('created');
      expect(change?.data).toContainEqual({ type: 'created', details: { state: 'REJECTED' } });
    });

    it('takes KEV and SSVC of CVE-2024-4577 from the CISA-ADP container (vulnrichment)', async () => {
      const row = await mustCveRow(use().db, 'CVE-2024-4577');
      expect(row.title).toBe('Argument Injection in PHP-CGI');
      expect(row.metrics.kev).toEqual({
        data: {
          dateAdded: '2024-06-12',
          reference: 'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json',
        },
        provider: 'vulnrichment',
      });
      expect(row.kev).toBe(true);
      expect(row.metrics.ssvc).toEqual({
        data: {
          options: { Exploitation: 'active', Automatable: 'yes', 'Technical Impact': 'total' },
          version: '2.0.3',
        },
        provider: 'vulnrichment',
      });
      // The CNA scored it; its CVSS wins over any ADP one.
      expect(row.metrics.cvssV3_1).toEqual({
        data: { score: 9.8, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
        provider: 'mitre',
      });
      expect(row.weaknesses).toEqual(['CWE-78']);
      // CISA-ADP's CPEs name the vendor php_group.
      expect(row.vendors).toEqual(expect.arrayContaining(['php_group', 'php_group$PRODUCT$php']));
      expect(row.cpes).toEqual([
        'cpe:2.3:a:php_group:php:8.1.0:*:*:*:*:*:*:*',
        'cpe:2.3:a:php_group:php:8.2.0:*:*:*:*:*:*:*',
        'cpe:2.3:a:php_group:php:8.3.0:*:*:*:*:*:*:*',
      ]);
      expect(row.created_at.toISOString()).toBe('2024-06-09T19:42:36.464Z');
      expect(row.updated_at.toISOString()).toBe('2024-08-19T07:54:59.546Z');
    });

    it('takes CVSS, weaknesses and CPEs of CVE-2011-0611 from CISA-ADP when the CNA has none', async () => {
      const row = await mustCveRow(use().db, 'CVE-2011-0611');
      expect(row.title).toBeNull();
      expect(row.metrics.cvssV3_1).toEqual({
        data: { score: 8.8, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H' },
        provider: 'vulnrichment',
      });
      expect(row.metrics.kev).toEqual({
        data: {
          dateAdded: '2022-03-03',
          reference:
            'https://www.cisa.gov/known-exploited-vulnerabilities-catalog?search_api_fulltext=CVE-2011-0611',
        },
        provider: 'vulnrichment',
      });
      // The CNA's problem type is the text "n/a", not a weakness.
      expect(row.weaknesses).toEqual(['CWE-843']);
      // The CNA's "n/a" vendor and product are placeholders, not vendor keys.
      expect(row.vendors).toEqual([
        'adobe',
        'adobe$PRODUCT$acrobat',
        'adobe$PRODUCT$air',
        'adobe$PRODUCT$flash_player',
        'adobe$PRODUCT$reader',
      ]);
      // Zone-less CVE 5 dates are UTC.
      expect(row.created_at.toISOString()).toBe('2011-04-13T14:00:00.000Z');
    });

    it('records nothing when the same folder is imported again', async () => {
      const { db } = use();
      const before = await countRows(db, 'cve_change');
      const again = await service.importInputs(sources.cve5, [CVE5_FOLDER]);
      expect(again.status).toBe('completed');
      expect(again.counts).toEqual({ imported: 0, updated: 0, unchanged: 9, skipped: 0, pending: 0 });
      expect(again.changes).toBe(0);
      expect(await countRows(db, 'cve_change')).toBe(before);
    });
  });

  describe('importInputs(nvd, API 2.0 record) over a CVE 5 record', () => {
    let report: ImportReport;
    let changesBefore: number;
    beforeAll(async () => {
      changesBefore = (await changesOf(use().db, 'CVE-2024-3094')).length;
      report = await service.importInputs(sources.nvd, [XZ_NVD]);
    });

    it('updates the CVE and records one change', async () => {
      expect(report.status).toBe('completed');
      expect(report.counts).toEqual({ imported: 0, updated: 1, unchanged: 0, skipped: 0, pending: 0 });
      expect(report.changes).toBe(1);
      expect((await changesOf(use().db, 'CVE-2024-3094')).length).toBe(changesBefore + 1);
    });

    it('unions vendors and CPEs of CNA and NVD, and keeps the CNA text, CVSS and weakness', async () => {
      const row = await mustCveRow(use().db, 'CVE-2024-3094');
      expect(row.title).toBe('Xz: malicious code in distributed source');
      expect(row.description).toMatch(
        /^Malicious code was discovered in the upstream tarballs of xz, starting with/,
      );
      expect(row.vendors).toEqual(expect.arrayContaining(['redhat', 'redhat$PRODUCT$enterprise_linux']));
      expect(row.vendors).toEqual(expect.arrayContaining(['tukaani', 'tukaani$PRODUCT$xz']));
      expect(row.cpes).toEqual(
        expect.arrayContaining([
          'cpe:/o:redhat:enterprise_linux:6',
          'cpe:/a:redhat:jboss_enterprise_application_platform:8',
          'cpe:2.3:a:tukaani:xz:5.6.0:*:*:*:*:*:*:*',
          'cpe:2.3:a:tukaani:xz:5.6.1:*:*:*:*:*:*:*',
        ]),
      );
      expect(row.cpes).toHaveLength(7);
      expect(row.metrics.cvssV3_1).toEqual({
        data: { score: 10, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H' },
        provider: 'mitre',
      });
      expect(row.metrics.ssvc).toEqual({
        data: {
          options: { Exploitation: 'none', Automatable: 'yes', 'Technical Impact': 'total' },
          version: '2.0.3',
        },
        provider: 'vulnrichment',
      });
      expect(row.metrics.kev).toEqual({ data: {}, provider: null });
      expect(row.kev).toBe(false);
      expect(row.weaknesses).toEqual(['CWE-506']);
      expect(row.providers).toEqual(['mitre', 'vulnrichment', 'nvd']);
      // 54 distinct URLs in CNA + CVE Program container, the same 54 (58 entries) in NVD.
      expect((row.references as unknown[]).length).toBe(54);
    });

    it('maps the CNA "Red Hat" names onto the redhat CPE keys of the same affected entries', async () => {
      // SPEC §3.2: CNA vendor/product names are "matched to an existing CPE vendor/product where one is
      // known". Here every Red Hat entry carries its own CPE (cpe:/o:redhat:enterprise_linux:N), and OpenCVE's
      // merged view of this CVE (test/fixtures/opencve-kb/2024/CVE-2024-3094.json) has exactly these keys.
      const row = await mustCveRow(use().db, 'CVE-2024-3094');
      expect(row.vendors).toEqual([
        'redhat',
        'redhat$PRODUCT$enterprise_linux',
        'redhat$PRODUCT$jboss_enterprise_application_platform',
        'tukaani',
        'tukaani$PRODUCT$xz',
      ]);
    });

    it('keeps the NVD configurations in the API 2.0 layout', async () => {
      const row = await mustCveRow(use().db, 'CVE-2024-3094');
      expect(row.nvd_configurations).toEqual([
        {
          nodes: [
            {
              operator: 'OR',
              negate: false,
              cpeMatch: [
                {
                  vulnerable: true,
                  criteria: 'cpe:2.3:a:tukaani:xz:5.6.0:*:*:*:*:*:*:*',
                  matchCriteriaId: '73F1DAD7-F362-4C5B-B980-2E5313C369DA',
                },
                {
                  vulnerable: true,
                  criteria: 'cpe:2.3:a:tukaani:xz:5.6.1:*:*:*:*:*:*:*',
                  matchCriteriaId: '55782A0B-B9C5-4536-A885-84CAB7029C09',
                },
              ],
            },
          ],
        },
      ]);
    });

    it('takes created as the earliest and updated as the latest date over CNA, CISA-ADP and NVD', async () => {
      const row = await mustCveRow(use().db, 'CVE-2024-3094');
      // CNA datePublished 2024-03-29T16:51:12.588Z < NVD published 2024-03-29T17:15:21.150.
      expect(row.created_at.toISOString()).toBe('2024-03-29T16:51:12.588Z');
      // NVD lastModified 2025-02-06T09:15:10.820 > CNA dateUpdated 2024-08-20T17:24:56.165Z.
      expect(row.updated_at.toISOString()).toBe('2025-02-06T09:15:10.820Z');
    });

    it('records the new NVD vendor keys as first_time and the vendors/cpes additions', async () => {
      const changes = await changesOf(use().db, 'CVE-2024-3094');
      const last = changes.at(-1)!;
      expect(last.types).not.toContain('created');
      expect(last.types).toEqual(expect.arrayContaining(['first_time', 'vendors', 'cpes']));
      const data = last.data as { type: string; details: unknown }[];
      expect(data.find((d) => d.type === 'first_time')?.details).toEqual(['tukaani', 'tukaani$PRODUCT$xz']);
      expect(data.find((d) => d.type === 'cpes')?.details).toEqual({
        added: ['cpe:2.3:a:tukaani:xz:5.6.0:*:*:*:*:*:*:*', 'cpe:2.3:a:tukaani:xz:5.6.1:*:*:*:*:*:*:*'],
        removed: [],
      });
      expect(data.map((d) => d.type)).not.toContain('description');
    });

    it('keeps the NVD record as it came in cve_source.raw with format 2.0', async () => {
      const source = await sourceRow(use().db, 'CVE-2024-3094', 'nvd');
      const raw = source?.raw as { format: string; record: Json } | null;
      expect(raw?.format).toBe('2.0');
      expect(raw?.record).toEqual(await readJson(XZ_NVD));
    });

    it('keeps a REJECTED CNA record rejected when an older NVD record still describes the flaw', async () => {
      const r = await service.importInputs(sources.nvd, [fixture('nvd', 'CVE-2019-25161.json')]);
      expect(r.counts.updated).toBe(1);
      const row = await mustCveRow(use().db, 'CVE-2019-25161');
      expect(row.state).toBe('REJECTED');
      expect(row.description).toBe(
        'This CVE ID has been rejected or withdrawn by its CVE Numbering Authority.',
      );
      expect(row.updated_at.toISOString()).toBe('2024-02-27T09:57:13.593Z');
    });
  });

  describe('importInputs(nvd, API 2.0 response page)', () => {
    let report: ImportReport;
    let page: string;
    let remove: () => Promise<void>;
    beforeAll(async () => {
      let dir: string;
      ({ dir, remove } = await tempDir());
      page = path.join(dir, 'nvd-cves-page.json');
      const vulnerabilities = [
        { cve: await readJson(fixture('nvd', 'CVE-2023-4863.json')) },
        { cve: await readJson(fixture('nvd', 'CVE-2022-20698.json')) },
      ];
      await fs.writeFile(
        page,
        JSON.stringify({
          resultsPerPage: 2,
          startIndex: 0,
          totalResults: 2,
          format: 'NVD_CVE',
          version: '2.0',
          timestamp: '2025-02-25T01:00:00.000',
          vulnerabilities,
        }),
      );
      report = await service.importInputs(sources.nvd, [page]);
    });
    afterAll(async () => {
      await remove();
    });

    it('imports every vulnerabilities[].cve of the page', () => {
      expect(report.status).toBe('completed');
      // CVE-2023-4863 is in the catalog from its CVE 5 record; CVE-2022-20698 is new.
      expect(report.counts).toEqual({ imported: 1, updated: 1, unchanged: 0, skipped: 0, pending: 0 });
    });

    it("adds NVD's CVSS and weakness to a CNA record that has none, keeping the CNA text and dates", async () => {
      const row = await mustCveRow(use().db, 'CVE-2023-4863');
      // The CNA's early text, not NVD's later "libwebp … and libwebp 1.3.2" one.
      expect(row.description).toBe(
        'Heap buffer overflow in WebP in Google Chrome prior to 116.0.5845.187 allowed a remote attacker to ' +
          'perform an out of bounds memory write via a crafted HTML page. (Chromium security severity: Critical)',
      );
      expect(row.metrics.cvssV3_1).toEqual({
        data: { score: 8.8, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H' },
        provider: 'nvd',
      });
      expect(row.weaknesses).toEqual(['CWE-787']);
      expect(row.created_at.toISOString()).toBe('2023-09-12T14:24:59.275Z');
      expect(row.updated_at.toISOString()).toBe('2023-09-29T22:15:11.923Z');
      expect(row.providers).toEqual(['mitre', 'nvd']);
    });

    // NVD's own copy of the KEV entry (cisaExploitAdd, …) counts when no CISA source has the CVE.
    it('flags CVE-2023-4863 as KEV from the NVD record when no CISA source has it', async () => {
      const row = await mustCveRow(use().db, 'CVE-2023-4863');
      expect(row.metrics.kev.provider).toBe('nvd');
      expect(row.kev).toBe(true);
    });

    it("takes NVD's own (Primary) CVSS and every weakness source of an NVD-only CVE", async () => {
      const row = await mustCveRow(use().db, 'CVE-2022-20698');
      expect(row.metrics.cvssV3_1).toEqual({
        data: { score: 7.5, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H' },
        provider: 'nvd',
      });
      expect(row.metrics.cvssV2_0).toEqual({
        data: { score: 5, vector: 'AV:N/AC:L/Au:N/C:N/I:N/A:P' },
        provider: 'nvd',
      });
      expect(row.weaknesses).toEqual(['CWE-125', 'CWE-20']);
      expect(row.vendors).toEqual(
        expect.arrayContaining(['clamav', 'clamav$PRODUCT$clamav', 'debian', 'debian$PRODUCT$debian_linux']),
      );
      expect(row.created_at.toISOString()).toBe('2022-01-14T06:15:09.570Z');
      expect(row.updated_at.toISOString()).toBe('2024-11-21T06:43:21.197Z');
    });
  });

  describe('importInputs(nvd, JSON 1.1 feed) for Heartbleed', () => {
    let report: ImportReport;
    let item: Json;
    beforeAll(async () => {
      const feed = JSON.parse(zlib.gunzipSync(await fs.readFile(HEARTBLEED_FEED)).toString('utf8')) as {
        CVE_Items: Json[];
      };
      item = feed.CVE_Items[1]!;
      report = await service.importInputs(sources.nvd, [HEARTBLEED_FEED]);
    });

    it('imports the three items of the feed', () => {
      expect(report.status).toBe('completed');
      expect(report.counts).toEqual({ imported: 3, updated: 0, unchanged: 0, skipped: 0, pending: 0 });
      expect(report.changes).toBe(3);
    });

    it('merges CVE-2014-0160 from NVD alone: text, CVSS 2.0 and 3.1, weakness, dates', async () => {
      const row = await mustCveRow(use().db, 'CVE-2014-0160');
      expect(row.state).toBe('PUBLISHED');
      expect(row.title).toBeNull();
      expect(row.description).toBe(
        'The (1) TLS and (2) DTLS implementations in OpenSSL 1.0.1 before 1.0.1g do not properly handle Heartbeat ' +
          'Extension packets, which allows remote attackers to obtain sensitive information from process memory via ' +
          'crafted packets that trigger a buffer over-read, as demonstrated by reading private keys, related to ' +
          'd1_both.c and t1_lib.c, aka the Heartbleed bug.',
      );
      expect(row.metrics.cvssV2_0).toEqual({
        data: { score: 5, vector: 'AV:N/AC:L/Au:N/C:P/I:N/A:N' },
        provider: 'nvd',
      });
      expect(row.cvss20).toBe(5);
      expect(row.metrics.cvssV3_1).toEqual({
        data: { score: 7.5, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' },
        provider: 'nvd',
      });
      expect(row.cvss31).toBe(7.5);
      expect(row.metrics.cvssV3_0).toEqual({ data: {}, provider: null });
      expect(row.weaknesses).toEqual(['CWE-125']);
      expect(row.created_at.toISOString()).toBe('2014-04-07T22:55:00.000Z');
      expect(row.updated_at.toISOString()).toBe('2025-02-07T14:15:00.000Z');
      expect(row.providers).toEqual(['nvd']);
    });

    it('derives CPEs and vendor keys (openssl among 13 vendors) from every configuration node', async () => {
      const row = await mustCveRow(use().db, 'CVE-2014-0160');
      expect(row.cpes).toHaveLength(54);
      expect(row.cpes).toContain('cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*');
      // A CPE inside an AND node's children counts too.
      expect(row.cpes).toContain(
        'cpe:2.3:o:siemens:application_processing_engine_firmware:2.0:*:*:*:*:*:*:*',
      );
      expect(row.vendors).toEqual(expect.arrayContaining(['openssl', 'openssl$PRODUCT$openssl']));
      expect(row.vendors.filter((v) => !v.includes('$PRODUCT$'))).toEqual([
        'broadcom',
        'canonical',
        'debian',
        'fedoraproject',
        'filezilla-project',
        'intellian',
        'mitel',
        'openssl',
        'opensuse',
        'redhat',
        'ricon',
        'siemens',
        'splunk',
      ]);
      expect(row.vendors).toHaveLength(48);
    });

    it('de-duplicates the feed references by URL (262 entries, 128 URLs)', async () => {
      const row = await mustCveRow(use().db, 'CVE-2014-0160');
      const refs = row.references as { url: string; tags: string[] }[];
      expect(refs).toHaveLength(128);
      expect(refs).toContainEqual(
        expect.objectContaining({
          url: 'http://advisories.mageia.org/MGASA-2014-0165.html',
          tags: ['Third Party Advisory'],
        }),
      );
    });

    it('converts 1.1 configurations to the API 2.0 layout, AND nodes with their children', async () => {
      const row = await mustCveRow(use().db, 'CVE-2014-0160');
      const configurations = row.nvd_configurations as Json[];
      expect(configurations[0]).toEqual({
        nodes: [
          {
            operator: 'OR',
            negate: false,
            cpeMatch: [
              {
                criteria: 'cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*',
                matchCriteriaId: '',
                vulnerable: true,
                versionStartIncluding: '1.0.1',
                versionEndExcluding: '1.0.1g',
              },
            ],
          },
        ],
      });
      expect(configurations[2]).toEqual({
        operator: 'AND',
        negate: false,
        nodes: [
          {
            operator: 'OR',
            negate: false,
            cpeMatch: [
              {
                criteria: 'cpe:2.3:o:siemens:application_processing_engine_firmware:2.0:*:*:*:*:*:*:*',
                matchCriteriaId: '',
                vulnerable: true,
              },
            ],
          },
          {
            operator: 'OR',
            negate: false,
            cpeMatch: [
              {
                criteria: 'cpe:2.3:h:siemens:application_processing_engine:-:*:*:*:*:*:*:*',
                matchCriteriaId: '',
                vulnerable: false,
              },
            ],
          },
        ],
      });
    });

    it('keeps the feed item as it came in cve_source.raw with format 1.1', async () => {
      const source = await sourceRow(use().db, 'CVE-2014-0160', 'nvd');
      const raw = source?.raw as { format: string; record: Json } | null;
      expect(raw?.format).toBe('1.1');
      expect(raw?.record).toEqual(item);
    });
  });

  describe('importInputs(kev, catalog excerpt)', () => {
    let report: ImportReport;
    let changesBefore: number;
    beforeAll(async () => {
      changesBefore = (await changesOf(use().db, 'CVE-2024-4577')).length;
      report = await service.importInputs(sources.kev, [KEV_EXCERPT]);
    });

    it('updates the four CVEs of the excerpt that the catalog already lists', () => {
      expect(report.status).toBe('completed');
      expect(report.counts).toEqual({ imported: 0, updated: 4, unchanged: 0, skipped: 0, pending: 0 });
    });

    it('makes the CISA catalog the KEV provider of CVE-2024-4577, over CISA-ADP', async () => {
      const row = await mustCveRow(use().db, 'CVE-2024-4577');
      expect(row.metrics.kev).toEqual({
        data: {
          dateAdded: '2024-06-12T00:00:00Z',
          dueDate: '2024-07-03T00:00:00Z',
          vulnerabilityName: 'PHP-CGI OS Command Injection Vulnerability',
          requiredAction:
            'Apply mitigations per vendor instructions or discontinue use of the product if mitigations are unavailable.',
          knownRansomwareCampaignUse: 'Known',
        },
        provider: 'cisa',
      });
      expect(row.kev).toBe(true);
      // The KEV entry does not displace the CNA's title, text or dates.
      expect(row.title).toBe('Argument Injection in PHP-CGI');
      expect(row.description).toMatch(/^In PHP versions/);
      expect(row.created_at.toISOString()).toBe('2024-06-09T19:42:36.464Z');
      expect(row.providers).toEqual(['mitre', 'vulnrichment', 'cisa']);
    });

    it('records the KEV provider switch as a metrics update', async () => {
      const changes = await changesOf(use().db, 'CVE-2024-4577');
      expect(changes).toHaveLength(changesBefore + 1);
      const last = changes.at(-1)!;
      expect(last.types).toEqual(['metrics']);
      const [entry] = last.data as { type: string; details: { updated: Json; added: Json; removed: Json } }[];
      expect(Object.keys(entry!.details.updated)).toEqual(['kev']);
      expect(entry!.details.updated.kev).toMatchObject({
        old: { dateAdded: '2024-06-12' },
        new: { dateAdded: '2024-06-12T00:00:00Z', dueDate: '2024-07-03T00:00:00Z' },
      });
    });

    it('flags Heartbleed, known only from NVD so far, as KEV from the CISA catalog', async () => {
      const row = await mustCveRow(use().db, 'CVE-2014-0160');
      expect(row.kev).toBe(true);
      expect(row.metrics.kev.provider).toBe('cisa');
      expect(row.metrics.kev.data).toMatchObject({
        dateAdded: '2022-05-04T00:00:00Z',
        dueDate: '2022-05-25T00:00:00Z',
      });
      // NVD's text stays: it comes before the KEV short description.
      expect(row.description).toMatch(/^The \(1\) TLS and \(2\) DTLS implementations in OpenSSL/);
      expect(row.created_at.toISOString()).toBe('2014-04-07T22:55:00.000Z');
    });

    it('records nothing when the same KEV excerpt is imported again', async () => {
      const before = await countRows(use().db, 'cve_change');
      const again = await service.importInputs(sources.kev, [KEV_EXCERPT]);
      expect(again.counts).toEqual({ imported: 0, updated: 0, unchanged: 4, skipped: 0, pending: 0 });
      expect(await countRows(use().db, 'cve_change')).toBe(before);
    });
  });
});
