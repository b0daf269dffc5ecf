/**
 * The bundled sample as `npm start` loads it on a first start (CWE list, CVE 5 records, the whole KEV
 * catalog): the catalog lists exactly the CVEs whose record the sample holds. The KEV entries of the
 * others are kept as statements, waiting for their record, and the newest-updated list a script polls
 * starts with real records.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ImportReport } from '../../src/domain/import-report.ts';
import { loadSample, SAMPLE_DIR, SAMPLE_FILES } from '../../src/services/sample.service.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

/** The CVE ids of the sample's CVE 5 records (JSON Lines, gzipped), read from the files themselves. */
async function sampleRecordIds(): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const [source, file] of SAMPLE_FILES) {
    if (source !== 'cve5') continue;
    const text = gunzipSync(await fs.readFile(path.join(SAMPLE_DIR, file))).toString('utf8');
    for (const line of text.split('\n')) {
      if (line.trim()) ids.add((JSON.parse(line) as { cveMetadata: { cveId: string } }).cveMetadata.cveId);
    }
  }
  return ids;
}

describeEachDatabase('The sample catalog of a first start', (use) => {
  let api: TestApi;
  let auth: string;
  let reports: ImportReport[];
  let recordIds: Set<string>;
  let kevIds: string[];

  beforeAll(async () => {
    api = await buildTestApi(use());
    reports = await loadSample(api.services.imports, () => undefined);
    const { org, actor } = await createOrganization(api.services, 'sample');
    auth = (await createToken(api.services, org.id, actor, { mode: 'read' })).header;
    recordIds = await sampleRecordIds();
    const kev = JSON.parse(await fs.readFile(path.join(SAMPLE_DIR, 'kev.json'), 'utf8')) as {
      vulnerabilities: { cveID: string }[];
    };
    kevIds = kev.vulnerabilities.map((v) => v.cveID);
  }, 600_000);
  afterAll(() => api.close());

  const get = (url: string) => api.app.inject({ method: 'GET', url, headers: { authorization: auth } });

  it('lists as many CVEs as the sample has records', async () => {
    expect(recordIds.size).toBeGreaterThan(6000);
    const list = (await get('/api/v2/cves?page_size=1')).json();
    expect(list.count).toBe(recordIds.size);
    const { rows } = await sql<{ cve_id: string }>`SELECT cve_id FROM cve`.execute(use().db);
    expect(new Set(rows.map((r) => r.cve_id))).toEqual(recordIds);
  });

  it('keeps the KEV entries of CVEs without a record as pending statements', () => {
    const kevReport = reports.find((r) => r.source === 'kev')!;
    const waiting = kevIds.filter((id) => !recordIds.has(id)).length;
    expect(waiting).toBeGreaterThan(1000);
    expect(kevReport.counts.pending).toBe(waiting);
    expect(kevReport.counts.imported).toBe(0);
  });

  it('starts the default newest-updated list with records, dated by them', async () => {
    const list = (await get('/api/v2/cves?page_size=20')).json() as {
      results: { cve_id: string; description: string | null; updated_at: string }[];
    };
    for (const item of list.results) expect(item.description, item.cve_id).not.toBeNull();
    // No CVE is dated by its KEV listing: the newest is no later than the newest record modification.
    const { rows } = await sql<{ newest: Date }>`
      SELECT max(greatest((data->>'updated')::timestamptz, (data->>'created')::timestamptz)) AS newest
        FROM cve_source WHERE provider IN ('mitre', 'vulnrichment')`.execute(use().db);
    expect(new Date(list.results[0]!.updated_at).getTime()).toBeLessThanOrEqual(rows[0]!.newest.getTime());
  });
});
