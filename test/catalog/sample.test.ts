/**
 * The bundled sample (data/sample/, loaded on a first start) is what a newcomer searches first: it
 * holds the notable CVE records of the test fixtures (copies of ../shared/data/cve5/cves: Log4Shell,
 * the xz backdoor, regreSSHion, the WebP overflow…) unchanged, and `search=log4j`, `xz` and
 * `openssh` find them with their full records once it is loaded.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSample, SAMPLE_DIR } from '../../src/services/sample.service.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { SAMPLE_RECORDS, storeAliasTable } from '../helpers/aliases.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';

interface Cve5Record {
  cveMetadata: { cveId: string };
  containers: { cna: { descriptions?: { lang: string; value: string }[] } };
}

const NOTABLE_DIR = 'test/fixtures/cve5/cves';
const notable: Cve5Record[] = fs
  .readdirSync(NOTABLE_DIR, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(fs.readFileSync(path.join(NOTABLE_DIR, f), 'utf8')) as Cve5Record);

function sampleRecords(): Map<string, Cve5Record> {
  const text = zlib
    .gunzipSync(fs.readFileSync(path.join(SAMPLE_DIR, 'cve5-sample.jsonl.gz')))
    .toString('utf8');
  const records = text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Cve5Record);
  return new Map(records.map((r) => [r.cveMetadata.cveId, r]));
}

describe('the bundled sample', () => {
  it('holds every notable record, unchanged, among 6,258 records', () => {
    const sample = sampleRecords();
    expect(sample.size).toBe(6258);
    expect(notable.map((r) => r.cveMetadata.cveId).sort()).toEqual([
      'CVE-2011-0611',
      'CVE-2019-25161',
      'CVE-2021-36593',
      'CVE-2021-44228',
      'CVE-2023-4863',
      'CVE-2024-3094',
      'CVE-2024-31331',
      'CVE-2024-4577',
      'CVE-2024-6387',
    ]);
    for (const record of notable) expect(sample.get(record.cveMetadata.cveId)).toEqual(record);
  });
});

describeEachDatabase('the bundled sample, loaded', (use) => {
  let api: TestApi;
  let auth: string;
  const get = async (url: string) => {
    const res = await api.app.inject({ method: 'GET', url, headers: { authorization: auth } });
    expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
    return res.json();
  };

  beforeAll(async () => {
    api = await buildTestApi(use());
    await storeAliasTable(use().db, [SAMPLE_RECORDS]);
    await loadSample(api.services.imports, () => {});
    const { org, actor } = await createOrganization(api.services, 'newcomer');
    auth = (await createToken(api.services, org.id, actor, { mode: 'read' })).header;
  }, 300_000);
  afterAll(() => api.close());

  it.each([
    ['log4j', 'CVE-2021-44228'],
    ['Log4', 'CVE-2021-44228'],
    ['xz', 'CVE-2024-3094'],
    ['openssh', 'CVE-2024-6387'],
    ['webp', 'CVE-2023-4863'],
  ])('search=%s finds %s with its full record', async (search, cveId) => {
    const list = await get(`/api/v2/cves?search=${search}&page_size=100`);
    expect(list.results.map((r: { cve_id: string }) => r.cve_id)).toContain(cveId);

    const record = notable.find((r) => r.cveMetadata.cveId === cveId)!;
    const description = record.containers.cna.descriptions!.find((d) => d.lang.startsWith('en'))!.value;
    const detail = await get(`/api/v2/cves/${cveId}`);
    expect(detail.description).toBe(description);
    expect(detail.vendors.length).toBeGreaterThan(0);
    expect(Object.keys(detail.metrics).length).toBeGreaterThan(0);
  });
});
