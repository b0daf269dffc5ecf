/**
 * MITRE CWE import: the official CSV download (excerpt of cwe_v4.14_view_1000.csv) and the XML catalog
 * layout fill the `weakness` table with names and descriptions.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportService } from '../../src/services/import.service.ts';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { fixture, makeZip, mustCveRow, readJson, tempDir } from '../helpers/catalog.ts';

const CSV_EXCERPT = fixture('cwe', 'cwe_v4.14_view_1000-excerpt.csv.gz');
const XML_EXCERPT = fixture('cwe', 'cwec_v4.14-excerpt.xml');

describeEachDatabase('ImportService with the CWE catalog', (use) => {
  let service: ImportService;
  const weakness = (cweId: string) =>
    use()
      .db.selectFrom('weakness')
      .select(['cwe_id', 'name', 'description'])
      .where('cwe_id', '=', cweId)
      .executeTakeFirst();
  beforeAll(() => {
    service = new ImportService(use().db);
  });

  describe('importInputs(nvd) before the CWE catalog', () => {
    it('creates nameless weakness rows for the CWE ids of imported CVEs', async () => {
      await service.importInputs(sources.nvd, [fixture('nvd', 'feed-1.1-heartbleed.json.gz')]);
      expect(await weakness('CWE-125')).toEqual({ cwe_id: 'CWE-125', name: null, description: null });
    });

    it('keeps NVD pseudo-ids on the CVE but does not make them weaknesses of the catalog', async () => {
      const { dir, remove } = await tempDir();
      try {
        const record = await readJson<{ weaknesses: { description: { lang: string; value: string }[] }[] }>(
          fixture('nvd', 'CVE-2022-20698.json'),
        );
        record.weaknesses.push({ description: [{ lang: 'en', value: 'NVD-CWE-noinfo' }] });
        const file = path.join(dir, 'CVE-2022-20698.json');
        await fs.writeFile(file, JSON.stringify(record));
        await service.importInputs(sources.nvd, [file]);
      } finally {
        await remove();
      }
      const row = await mustCveRow(use().db, 'CVE-2022-20698');
      expect(row.weaknesses).toContain('NVD-CWE-noinfo');
      expect(await weakness('NVD-CWE-noinfo')).toBeUndefined();
    });
  });

  describe('importInputs(cwe, CSV download)', () => {
    it('fills names and descriptions, naming the weakness a CVE import created', async () => {
      const report = await service.importInputs(sources.cwe, [CSV_EXCERPT]);
      expect(report.status).toBe('completed');
      // CWE-125 was already there (nameless, from Heartbleed): updated, not imported.
      expect(report.counts).toEqual({ imported: 3, updated: 1, unchanged: 0, skipped: 0, pending: 0 });
      expect(await weakness('CWE-125')).toEqual({
        cwe_id: 'CWE-125',
        name: 'Out-of-bounds Read',
        description: 'The product reads data past the end, or before the beginning, of the intended buffer.',
      });
      expect(await weakness('CWE-502')).toEqual({
        cwe_id: 'CWE-502',
        name: 'Deserialization of Untrusted Data',
        description:
          'The product deserializes untrusted data without sufficiently verifying that the resulting data will be valid.',
      });
      expect(await weakness('CWE-79')).toEqual({
        cwe_id: 'CWE-79',
        name: "Improper Neutralization of Input During Web Page Generation ('Cross-site Scripting')",
        description:
          'The product does not neutralize or incorrectly neutralizes user-controllable input before it is placed in ' +
          'output that is used as a web page that is served to other users.',
      });
      expect((await weakness('CWE-400'))?.name).toBe('Uncontrolled Resource Consumption');
    });

    it('counts every row unchanged when the same CSV is imported again', async () => {
      const report = await service.importInputs(sources.cwe, [CSV_EXCERPT]);
      expect(report.counts).toEqual({ imported: 0, updated: 0, unchanged: 4, skipped: 0, pending: 0 });
    });
  });

  describe('importInputs(cwe, XML catalog)', () => {
    let dir: string;
    let remove: () => Promise<void>;
    beforeAll(async () => {
      ({ dir, remove } = await tempDir());
    });
    afterAll(async () => {
      await remove();
    });

    it('imports every Weakness element', async () => {
      const report = await service.importInputs(sources.cwe, [XML_EXCERPT]);
      expect(report.status).toBe('completed');
      expect(report.counts).toEqual({ imported: 3, updated: 0, unchanged: 0, skipped: 0, pending: 0 });
      expect((await weakness('CWE-843'))?.name).toBe(
        "Access of Resource Using Incompatible Type ('Type Confusion')",
      );
      expect((await weakness('CWE-917'))?.name).toBe(
        "Improper Neutralization of Special Elements used in an Expression Language Statement ('Expression Language Injection')",
      );
    });

    // Real catalog entries also have <Description>s under mitigations and observed examples.
    it('takes the description from the Weakness Description element only', async () => {
      expect(await weakness('CWE-506')).toEqual({
        cwe_id: 'CWE-506',
        name: 'Embedded Malicious Code',
        description: 'The product contains code that appears to be malicious in nature.',
      });
      expect((await weakness('CWE-917'))?.description).toBe(
        'The product constructs all or part of an expression language (EL) statement in a framework such as a Java ' +
          'Server Page (JSP) using externally-influenced input from an upstream component, but it does not ' +
          'neutralize or incorrectly neutralizes special elements that could modify the intended EL statement ' +
          'before it is executed.',
      );
    });

    it('counts every weakness unchanged when the same XML is imported again', async () => {
      const report = await service.importInputs(sources.cwe, [XML_EXCERPT]);
      expect(report.counts).toEqual({ imported: 0, updated: 0, unchanged: 3, skipped: 0, pending: 0 });
    });

    it('reads the XML catalog from a zip, as MITRE publishes it', async () => {
      const zipDir = path.join(dir, 'zip');
      await fs.mkdir(zipDir);
      await fs.copyFile(XML_EXCERPT, path.join(zipDir, 'cwec_v4.14.xml'));
      const zip = path.join(dir, 'cwec_latest.xml.zip');
      makeZip(zipDir, zip, ['cwec_v4.14.xml']);
      const report = await service.importInputs(sources.cwe, [zip]);
      expect(report.counts).toEqual({ imported: 0, updated: 0, unchanged: 3, skipped: 0, pending: 0 });
    });
  });
});
