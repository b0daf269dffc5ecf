/**
 * A re-imported record changes only what it brings. The importer reads back only the stored
 * statements the new version neither brings nor replaces (another source's, such as NVD's): an
 * unchanged statement it brings is the stored one. Checked against the oracle of a first import of
 * the same final inputs under another id: the merged views must be the same.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ImportService } from '../../src/services/import.service.ts';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { changesOf, fixture, mustCveRow, readJson, tempDir } from '../helpers/catalog.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CVE = 'CVE-2024-3094';
/** The oracle's id: the same records, imported once, in their final versions. */
const ORACLE = 'CVE-2099-3094';
const NEW_DESCRIPTION = 'Malicious code was discovered in the upstream tarballs of xz (edited).';

/** The record under `id`, its CNA description replaced when `edit` (its CISA-ADP container untouched). */
function cve5Record(record: Json, id: string, edit: boolean): Json {
  const copy = structuredClone(record);
  copy.cveMetadata.cveId = id;
  if (edit) copy.containers.cna.descriptions[0].value = NEW_DESCRIPTION;
  return copy;
}

describeEachDatabase('Import: a re-imported record keeps the other statements', (use) => {
  let dir: string;
  let remove: () => Promise<void>;
  let cve5: Json;
  let nvd: Json;
  const importJson = async (source: 'cve5' | 'nvd', name: string, value: Json) => {
    const file = path.join(dir, name);
    await fs.writeFile(file, JSON.stringify(value));
    const report = await new ImportService(use().db).importInputs(sources[source], [file]);
    expect(report.status).toBe('completed');
    return report;
  };

  beforeAll(async () => {
    ({ dir, remove } = await tempDir());
    cve5 = await readJson(fixture('cve5', 'cves', '2024', '3xxx', `${CVE}.json`));
    nvd = await readJson(fixture('nvd', `${CVE}.json`));
    expect(cve5.containers.adp.map((a: Json) => a.providerMetadata.shortName)).toContain('CISA-ADP');

    await importJson('cve5', 'a1.json', cve5Record(cve5, CVE, false));
    await importJson('nvd', 'a2.json', nvd);
    // The CNA's statement changes, CISA-ADP's (vulnrichment) does not, NVD's is another source's.
    await importJson('cve5', 'a3.json', cve5Record(cve5, CVE, true));

    await importJson('cve5', 'b1.json', cve5Record(cve5, ORACLE, true));
    await importJson('nvd', 'b2.json', { ...nvd, id: ORACLE });
  });
  afterAll(() => remove());

  it('merges the new CNA statement with the unchanged CISA-ADP one and NVD’s', async () => {
    const row = await mustCveRow(use().db, CVE);
    expect(row.description).toBe(NEW_DESCRIPTION);
    expect(row.providers).toEqual(expect.arrayContaining(['mitre', 'vulnrichment', 'nvd']));
    expect(row.nvd_configurations).not.toBeNull();
  });

  it('gives the merged view a first import of the final inputs gives', async () => {
    const fields = (r: Json) => {
      const { cve_id: _id, inserted_at: _i, modified_at: _m, search_text: _s, ...rest } = r;
      return JSON.parse(JSON.stringify(rest).replaceAll(ORACLE, CVE));
    };
    expect(fields(await mustCveRow(use().db, CVE))).toEqual(fields(await mustCveRow(use().db, ORACLE)));
  });

  it('records the re-import as a description change only', async () => {
    const changes = await changesOf(use().db, CVE);
    expect(changes).toHaveLength(3);
    expect(changes[2]!.types).toEqual(['description']);
  });
});
