/**
 * Re-imports skip unchanged raw records by fingerprint (migration 0007) without changing what an
 * import does: a record is skipped only when the identical bytes were imported before and the
 * statements they produced are still the stored ones; malformed records are still reported; a
 * history with several versions of one CVE still applies each version in order.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ImportService } from '../../src/services/import.service.ts';
import { cve5Source } from '../../src/sources/cve5/cve5.source.ts';
import type { Source } from '../../src/sources/source.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { changesOf, countRows, fixture, mustCveRow, sourceRow, tempDir } from '../helpers/catalog.ts';

type Json = Record<string, unknown>;
const CVE = 'CVE-2024-41481';

/** cve5, counting the raw records the importer parses. */
function countingSource() {
  const counter = { parsed: 0 };
  const source: Source = {
    ...cve5Source,
    async *scan(file) {
      for await (const item of cve5Source.scan!(file)) {
        yield item.kind === 'raw' ? { ...item, parse: () => (counter.parsed++, item.parse()) } : item;
      }
    },
  };
  return { source, counter };
}

describeEachDatabase('Import: skipping unchanged raw records', (use) => {
  let dir: string;
  let remove: () => Promise<void>;
  let lines: string[];
  /** The fixture's first record with another description: a second version of CVE. */
  let versionB: string;
  const write = async (name: string, content: string[]) => {
    const file = path.join(dir, name);
    await fs.writeFile(file, content.join('\n') + '\n');
    return file;
  };
  const importFile = (file: string, batchSize?: number) =>
    new ImportService(use().db).importInputs(cve5Source, [file], batchSize ? { batchSize } : {});

  beforeAll(async () => {
    ({ dir, remove } = await tempDir());
    lines = (await fs.readFile(fixture('cve5', 'vulnrichment-2-records.jsonl'), 'utf8'))
      .split('\n')
      .filter((l) => l.trim());
    const record = JSON.parse(lines[0]!) as { containers: { cna: { descriptions: Json[] } } };
    record.containers.cna.descriptions = [{ lang: 'en', value: 'Version B of this description.' }];
    versionB = JSON.stringify(record);
  });
  afterAll(() => remove());

  it('stores one fingerprint per imported record and skips identical records next time', async () => {
    const file = await write('a.jsonl', [...lines, '{"cveMetadata": {"cveId": "CVE-2024-1"}, broken']);
    const first = await importFile(file);
    expect(first.counts).toMatchObject({ imported: 2, skipped: 1 });
    expect(await countRows(use().db, 'cve_input')).toBe(2);
    const changes = await countRows(use().db, 'cve_change');

    const { source, counter } = countingSource();
    const again = await new ImportService(use().db).importInputs(source, [file]);
    expect(counter.parsed).toBe(0);
    expect(again.counts).toEqual({ imported: 0, updated: 0, unchanged: 2, skipped: 1, pending: 0 });
    // The malformed line is reported again, with its position and reason.
    expect(again.problems).toEqual([
      expect.objectContaining({ position: `${file}:3`, reason: expect.stringMatching(/malformed JSON/) }),
    ]);
    expect(await countRows(use().db, 'cve_change')).toBe(changes);
  });

  it('parses a record again when its statements were changed by something else', async () => {
    const db = use().db;
    await sql`UPDATE cve_source SET data = jsonb_set(data, '{description}', '"edited"'), hash = 'edited'
              WHERE cve_id = ${CVE} AND provider = 'mitre'`.execute(db);
    const report = await importFile(await write('b.jsonl', lines));
    expect(report.counts.unchanged).toBe(2);
    const mitre = await sourceRow(db, CVE, 'mitre');
    expect(mitre?.hash).not.toBe('edited');
    expect((mitre?.data as { description?: string }).description).not.toBe('edited');
  });

  for (const batchSize of [500, 1]) {
    it(`applies every version of a CVE in order, even when one was imported before (batch size ${batchSize})`, async () => {
      const db = use().db;
      const original = (await mustCveRow(db, CVE)).description;
      const before = (await changesOf(db, CVE)).length;
      // B then the stored version A again: A's fingerprint is stored, but B is written first.
      const report = await importFile(await write(`c${batchSize}.jsonl`, [versionB, lines[0]!]), batchSize);
      expect(report.counts).toMatchObject({ updated: 2, skipped: 0 });
      expect((await mustCveRow(db, CVE)).description).toBe(original);
      const changes = await changesOf(db, CVE);
      expect(changes).toHaveLength(before + 2);
      expect(changes.at(-1)!.types).toContain('description');
    });
  }
});
