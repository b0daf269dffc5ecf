/**
 * A CVE enters the catalog when a record provider (CVE Program record, NVD, OpenCVE KB) has published
 * it; a KEV entry about a CVE not published yet is kept and merged in, with its change, when the
 * record arrives. A CVE's dates are its record's: a KEV listing enriches it without moving
 * `updated_at`. A source that says nothing of a field never erases another source's value.
 * Real records throughout (test/fixtures, data/sample).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as publishedCves from '../../src/db/migrations/0013-published-cves.ts';
import { SAMPLE_DIR } from '../../src/services/sample.service.ts';
import { sources } from '../../src/sources/index.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { basic, HEARTBLEED_FEED, PASSWORD } from '../helpers/api-v1.ts';
import { changesOf, cveRow, fixture, mustCveRow, readJson, sourceRow, tempDir } from '../helpers/catalog.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { SAMPLE_RECORDS, storeAliasTable } from '../helpers/aliases.ts';

type Json = Record<string, unknown>;

const LOG4SHELL = 'CVE-2021-44228';
const LOG4SHELL_RECORD = fixture('cve5', 'cves', '2021', '44xxx', `${LOG4SHELL}.json`);
const KEV_EXCERPT = fixture('kev', 'known_exploited_vulnerabilities-excerpt.json');
const HEARTBLEED = 'CVE-2014-0160';
/** In the KEV catalog; its OpenCVE KB file has only a `kev` section. */
const N_CENTRAL = 'CVE-2025-8875';
/** Record updated 2024-08-29T19:27:52.649Z, listed in KEV on 2025-06-25. */
const DIR_859 = 'CVE-2024-0769';

/** A KEV catalog file of `entries` (real entries), named as the KEV source accepts it. */
async function kevFile(dir: string, name: string, entries: Json[]): Promise<string> {
  const excerpt = await readJson(KEV_EXCERPT);
  const file = path.join(dir, `known_exploited_vulnerabilities-${name}.json`);
  await fs.writeFile(file, JSON.stringify({ ...excerpt, count: entries.length, vulnerabilities: entries }));
  return file;
}

async function sampleKevEntry(cveId: string): Promise<Json> {
  const catalog = await readJson<{ vulnerabilities: Json[] }>(path.join(SAMPLE_DIR, 'kev.json'));
  return catalog.vulnerabilities.find((v) => v.cveID === cveId)!;
}

/** One record of the bundled CVE 5 sample, written alone to a JSON Lines file. */
async function sampleRecordFile(dir: string, cveId: string): Promise<string> {
  const lines = gunzipSync(await fs.readFile(path.join(SAMPLE_DIR, 'cve5-sample.jsonl.gz')))
    .toString('utf8')
    .split('\n');
  const line = lines.find((l) => l.includes(`"cveId":"${cveId}"`))!;
  const file = path.join(dir, `${cveId}.jsonl`);
  await fs.writeFile(file, `${line}\n`);
  return file;
}

describeEachDatabase('A CVE enters the catalog with its record', (use) => {
  let api: TestApi;
  let auth: string;
  let legacy: TestApi;
  let legacyAuth: string;
  let orgName: string;
  /** A project of Log4j 2 (its vendor keys must be in the catalog). */
  let createProject: () => Promise<unknown>;
  let dir: string;
  let remove: () => Promise<void>;
  const get = (url: string, app = api, header = auth) =>
    app.app.inject({ method: 'GET', url, headers: { authorization: header } });

  beforeAll(async () => {
    ({ dir, remove } = await tempDir());
    api = await buildTestApi(use());
    await storeAliasTable(use().db, [SAMPLE_RECORDS]);
    legacy = await buildTestApi(use(), { API_V1_SHAPE: 'legacy' });
    const { org, user, actor } = await createOrganization(api.services, 'published');
    orgName = org.name;
    auth = (await createToken(api.services, org.id, actor, { mode: 'read' })).header;
    legacyAuth = basic(user.username, PASSWORD);
    createProject = () =>
      api.services.projects.create(org.id, { name: 'java' }, actor, { vendors: ['apache'] });
  });
  afterAll(async () => {
    await api.close();
    await legacy.close();
    await remove();
  });

  describe('a KEV entry before the record', () => {
    it('is kept as a statement, and the catalog does not list the CVE anywhere', async () => {
      const report = await api.services.imports.importInputs(sources.kev, [KEV_EXCERPT]);
      expect(report.counts).toMatchObject({ imported: 0, updated: 0, pending: 4 });
      expect(report.changes).toBe(0);
      expect(await sourceRow(use().db, LOG4SHELL, 'cisa')).toBeDefined();
      expect(await cveRow(use().db, LOG4SHELL)).toBeUndefined();
      expect(await changesOf(use().db, LOG4SHELL)).toEqual([]);

      const list = (await get('/api/v2/cves')).json();
      expect(list.count).toBe(0);
      expect((await get('/api/v2/cves?kev=true')).json().count).toBe(0);
      expect((await get(`/api/v2/cves/${LOG4SHELL}`)).statusCode).toBe(404);
      expect((await get('/api/v2/vendors')).json().count).toBe(0);
      expect((await get(`/api/cve/${LOG4SHELL}`, legacy, legacyAuth)).statusCode).toBe(404);
      expect((await get('/api/cve', legacy, legacyAuth)).json()).toEqual([]);
    });

    it('applies when the record arrives: listed with the KEV data, one change, the record dates', async () => {
      const report = await api.services.imports.importInputs(sources.cve5, [LOG4SHELL_RECORD]);
      expect(report.counts).toMatchObject({ imported: 1, pending: 0 });

      const detail = await get(`/api/v2/cves/${LOG4SHELL}`);
      expect(detail.statusCode).toBe(200);
      expect(detail.json().metrics.kev.provider).toBe('cisa');
      expect(detail.json().metrics.kev.data.dateAdded).toBe('2021-12-10T00:00:00Z');
      expect(detail.json().updated_at).toBe('2025-07-28T19:48:17Z');
      expect(detail.json().created_at).toBe('2021-12-10T00:00:00Z');

      const list = (await get('/api/v2/cves?kev=true')).json();
      expect(list.count).toBe(1);
      expect(list.results[0].cve_id).toBe(LOG4SHELL);
      expect((await get('/api/v2/vendors/apache/cves')).json().count).toBe(1);
      await createProject();
      expect((await get(`/api/v2/organizations/${orgName}/projects/java/cves`)).json().count).toBe(1);
      expect((await get(`/api/cve/${LOG4SHELL}`, legacy, legacyAuth)).statusCode).toBe(200);

      const changes = await changesOf(use().db, LOG4SHELL);
      expect(changes).toHaveLength(1);
      expect(changes[0]!.types).toEqual(['created', 'first_time']);
      expect((await get(`/api/v2/cves/${LOG4SHELL}/changes`)).json().count).toBe(1);
    });

    it('applies for a record from NVD too (Heartbleed, from an NVD 1.1 feed)', async () => {
      expect(await cveRow(use().db, HEARTBLEED)).toBeUndefined();
      await api.services.imports.importInputs(sources.nvd, [HEARTBLEED_FEED]);
      const row = await mustCveRow(use().db, HEARTBLEED);
      expect(row.metrics.kev.provider).toBe('cisa');
      expect(row.providers).toEqual(['nvd', 'cisa']);
      expect((await changesOf(use().db, HEARTBLEED)).map((c) => c.types[0])).toEqual(['created']);
    });
  });

  describe('a record, then its KEV entry', () => {
    it('keeps the record’s updated_at (CVE-2024-0769) and records the enrichment as a change', async () => {
      await api.services.imports.importInputs(sources.cve5, [await sampleRecordFile(dir, DIR_859)]);
      const before = await mustCveRow(use().db, DIR_859);
      expect(before.updated_at.toISOString()).toBe('2024-08-29T19:27:52.649Z');
      expect(before.created_at.toISOString()).toBe('2024-01-21T08:00:05.383Z');

      const entries = [...(await readJson<{ vulnerabilities: Json[] }>(KEV_EXCERPT)).vulnerabilities];
      await api.services.imports.importInputs(sources.kev, [
        await kevFile(dir, 'dir-859', [...entries, await sampleKevEntry(DIR_859)]),
      ]);
      const after = await mustCveRow(use().db, DIR_859);
      expect(after.kev).toBe(true);
      expect(after.updated_at.toISOString()).toBe('2024-08-29T19:27:52.649Z');
      expect(after.created_at.toISOString()).toBe('2024-01-21T08:00:05.383Z');
      const last = (await changesOf(use().db, DIR_859)).at(-1)!;
      expect(last.types).toEqual(['metrics']);
      expect((last.data as { details: { added: Json } }[])[0]!.details.added).toHaveProperty('kev');
    });
  });
});

describeEachDatabase('An OpenCVE KB folder beside the KEV catalog', (use) => {
  let api: TestApi;
  let dir: string;
  let remove: () => Promise<void>;
  let kev: string;
  let kevEntry: Json;

  beforeAll(async () => {
    ({ dir, remove } = await tempDir());
    api = await buildTestApi(use());
    kevEntry = await sampleKevEntry(N_CENTRAL);
    const entries = (await readJson<{ vulnerabilities: Json[] }>(KEV_EXCERPT)).vulnerabilities;
    kev = await kevFile(dir, 'with-n-central', [...entries, kevEntry]);
    await api.services.imports.importInputs(sources.cve5, [LOG4SHELL_RECORD]);
    await api.services.imports.importInputs(sources.kev, [kev]);
    await api.services.imports.importInputs(sources['opencve-kb'], [fixture('opencve-kb')]);
  });
  afterAll(async () => {
    await api.close();
    await remove();
  });

  it('keeps what the KEV import said of a CVE whose KB file has only a kev section', async () => {
    expect(await cveRow(use().db, N_CENTRAL)).toBeUndefined();
    expect(await changesOf(use().db, N_CENTRAL)).toEqual([]);
    const statement = (await sourceRow(use().db, N_CENTRAL, 'cisa'))!.data as Json & { metrics: Json };
    expect(statement.title).toBe(kevEntry.vulnerabilityName);
    expect(statement.description).toBe(kevEntry.shortDescription);
    expect(statement.metrics.kev).toMatchObject({
      dateAdded: '2025-08-13T00:00:00Z',
      dueDate: '2025-08-20T00:00:00Z',
      requiredAction: kevEntry.requiredAction,
    });
  });

  it('keeps the KEV entry of a CVE whose KB file has no kev section (Log4Shell)', async () => {
    const row = await mustCveRow(use().db, LOG4SHELL);
    expect(row.metrics.kev.provider).toBe('cisa');
    expect(row.metrics.kev.data).toHaveProperty('requiredAction');
    for (const change of await changesOf(use().db, LOG4SHELL)) {
      expect(JSON.stringify(change.data)).not.toContain('"removed":{"kev"');
    }
  });

  it('records no change when the KEV catalog is imported again: no flip-flop', async () => {
    const statement = await sourceRow(use().db, N_CENTRAL, 'cisa');
    const log4shellChanges = (await changesOf(use().db, LOG4SHELL)).length;
    // (The KB's CVE-2025-48543 was listed in KEV after this catalog's snapshot, which keeps it: docs/catalog.md.)
    await api.services.imports.importInputs(sources.kev, [kev]);
    await api.services.imports.importInputs(sources['opencve-kb'], [fixture('opencve-kb')]);
    expect(await changesOf(use().db, N_CENTRAL)).toEqual([]);
    expect((await sourceRow(use().db, N_CENTRAL, 'cisa'))!.hash).toBe(statement!.hash);
    expect(await changesOf(use().db, LOG4SHELL)).toHaveLength(log4shellChanges);
  });
});

describeEachDatabase('Migration 0013 on a catalog written before', (use) => {
  let api: TestApi;

  beforeAll(async () => {
    api = await buildTestApi(use());
    await api.services.imports.importInputs(sources.cve5, [LOG4SHELL_RECORD]);
    await api.services.imports.importInputs(sources.kev, [KEV_EXCERPT]);
    const { db } = use();
    // What the catalog held before: Heartbleed listed from its KEV entry alone, dated by it, with its
    // history and a user's tag; Log4Shell's updated_at moved to a KEV date.
    await sql`
      INSERT INTO cve (cve_id, title, created_at, updated_at, metrics, kev, providers)
      VALUES (${HEARTBLEED}, 'OpenSSL Information Disclosure Vulnerability', '2022-05-04', '2022-05-04',
              '{}'::jsonb, true, '{cisa}')`.execute(db);
    await sql`
      INSERT INTO cve_change (cve_id, types, data)
      VALUES (${HEARTBLEED}, '{created}', '[{"type":"created","details":{"state":"PUBLISHED"}}]')`.execute(
      db,
    );
    const { user } = await createOrganization(api.services, 'tagger');
    await sql`INSERT INTO user_cve_tag (user_id, cve_id, tag) VALUES (${user.id}, ${HEARTBLEED}, 'urgent')`.execute(
      db,
    );
    await sql`UPDATE cve SET updated_at = '2026-01-01' WHERE cve_id = ${LOG4SHELL}`.execute(db);
    await publishedCves.up(db as never);
  });
  afterAll(() => api.close());

  it('removes the merged row and history of a CVE without a record, keeping its statement and tags', async () => {
    expect(await cveRow(use().db, HEARTBLEED)).toBeUndefined();
    expect(await changesOf(use().db, HEARTBLEED)).toEqual([]);
    expect(await sourceRow(use().db, HEARTBLEED, 'cisa')).toBeDefined();
    const tags = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM user_cve_tag WHERE cve_id = ${HEARTBLEED}`.execute(use().db);
    expect(tags.rows[0]!.n).toBe(1);
  });

  it('gives a CVE with a record its record’s dates again', async () => {
    expect((await mustCveRow(use().db, LOG4SHELL)).updated_at.toISOString()).toBe('2025-07-28T19:48:17.130Z');
  });

  it('lets the record bring the CVE back, with its KEV entry and one change', async () => {
    await api.services.imports.importInputs(sources.nvd, [HEARTBLEED_FEED]);
    expect((await mustCveRow(use().db, HEARTBLEED)).metrics.kev.provider).toBe('cisa');
    expect((await changesOf(use().db, HEARTBLEED)).map((c) => c.types[0])).toEqual(['created']);
  });
});
