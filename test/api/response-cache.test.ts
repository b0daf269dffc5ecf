/**
 * API v2's response cache (src/api/v2/response-cache.ts): an answer is served again while its
 * versions hold, and never once an import, a tracker move, a subscription change or an assignee's new
 * email could have changed it; never across organizations; off with API_RESPONSE_CACHE_MB=0.
 *
 * A write made in SQL without moving any version (which no code path does) is how these tests see
 * that an answer came from the cache.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { buildProjectWorld, type ProjectWorld } from '../helpers/projects.ts';

const CVE = 'CVE-2024-3094';
const RECORD = 'test/fixtures/cve5/cves/2024/3xxx/CVE-2024-3094.json';

/** Writes `description` into CVE's row in SQL, moving no version: only an uncached answer shows it. */
async function quietlyDescribe(api: TestApi, description: string): Promise<void> {
  await sql`UPDATE cve SET description = ${description} WHERE cve_id = ${CVE}`.execute(
    api.services.database.db,
  );
}

/** Imports CVE's real record with another description: an import batch, so a new catalog version. */
async function importDescription(api: TestApi, description: string): Promise<void> {
  const record = JSON.parse(fs.readFileSync(RECORD, 'utf8')) as {
    containers: { cna: { descriptions: { lang: string; value: string }[] } };
  };
  record.containers.cna.descriptions = [{ lang: 'en', value: description }];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-cache-'));
  try {
    fs.writeFileSync(path.join(dir, `${CVE}.json`), JSON.stringify(record));
    await api.services.imports.importInputs(sources.cve5, [dir]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describeEachDatabase('API v2 response cache', (use) => {
  let w: ProjectWorld;
  let auth: string;
  let base: string;
  const get = async (url: string, header = auth) => {
    const res = await w.call('GET', url, header);
    expect(res.statusCode, res.body).toBe(200);
    return res;
  };
  const descriptionIn = async (url: string) => {
    const body = (await get(url)).json<{
      description?: string;
      results?: { cve_id: string; description: string }[];
    }>();
    return body.description ?? body.results!.find((r) => r.cve_id === CVE)?.description;
  };

  beforeAll(async () => {
    w = await buildProjectWorld(use(), 'cache');
    auth = await w.token({ mode: 'write' });
    base = `/api/v2/organizations/${w.org.name}/projects`;
    expect((await w.call('POST', base, auth, { name: 'web' })).statusCode).toBe(201);
    const subs = await w.call('PUT', `${base}/web/subscriptions`, auth, { vendors: ['tukaani'] });
    expect(subs.statusCode).toBe(200);
  });
  afterAll(() => w.close());

  for (const [label, url] of [
    ['a CVE list page', '/api/v2/cves?page_size=50'],
    ['a vendor list', `/api/v2/cves?vendor=tukaani`],
    ['a CVE', `/api/v2/cves/${CVE}`],
    ['a project list', '/api/v2/organizations/cache/projects/web/cves'],
  ] as const) {
    it(`serves ${label} again until an import changes the catalog`, async () => {
      await importDescription(w, `imported before ${label}`);
      expect(await descriptionIn(url)).toBe(`imported before ${label}`);
      await quietlyDescribe(w, 'written without a version');
      expect(await descriptionIn(url)).toBe(`imported before ${label}`);
      await importDescription(w, `imported after ${label}`);
      expect(await descriptionIn(url)).toBe(`imported after ${label}`);
    });
  }

  describe("a project's list", () => {
    const list = () =>
      get(`${base}/web/cves`).then((r) =>
        r.json<{
          count: number;
          results: {
            cve_id: string;
            tracker: { status: string | null; assignee: { email: string } | null };
          }[];
        }>(),
      );

    it('is read again after a tracker move, a subscription change and an assignee changing email', async () => {
      const before = await list();
      expect(before.results.map((r) => r.cve_id)).toEqual([CVE]);
      expect(before.results[0]!.tracker.status).toBeNull();

      const moved = await w.call('PATCH', `${base}/web/cves/${CVE}`, auth, {
        status: 'resolved',
        assignee: w.member.email,
      });
      expect(moved.statusCode).toBe(200);
      const after = await list();
      expect(after.results[0]!.tracker).toMatchObject({
        status: 'resolved',
        assignee: { email: w.member.email },
      });

      await sql`UPDATE app_user SET email = 'bob.new@cache.example' WHERE id = ${w.member.id}`.execute(
        w.services.database.db,
      );
      expect((await list()).results[0]!.tracker.assignee).toEqual({ email: 'bob.new@cache.example' });

      const subs = await w.call('PUT', `${base}/web/subscriptions`, auth, { vendors: ['tukaani', 'google'] });
      expect(subs.statusCode).toBe(200);
      const wider = await list();
      expect(wider.count).toBeGreaterThan(1);
      expect(wider.results.map((r) => r.cve_id)).toContain(CVE);
    });
  });

  it('keeps answers per organization', async () => {
    const cache = w.app.responseCache;
    const url = '/api/v2/cves?page_size=3&ordering=cve_id';
    await get(url);
    const hits = cache.hits;
    await get(url);
    expect(cache.hits).toBe(hits + 1);
    // The same URL for another organization is its own entry (a miss), then a hit of its own.
    await get(url, w.other.header);
    expect(cache.hits).toBe(hits + 1);
    await get(url, w.other.header);
    expect(cache.hits).toBe(hits + 2);
  });

  it('never caches a list whose q names a project, nor a CSV download', async () => {
    const cache = w.app.responseCache;
    const hits = cache.hits;
    for (let i = 0; i < 2; i++) {
      await get(`/api/v2/cves?q=${encodeURIComponent('project=web')}`);
      await get('/api/v2/cves?format=csv');
    }
    expect(cache.hits).toBe(hits);
  });
});

describeEachDatabase('API v2 response cache off', (use) => {
  let api: TestApi;
  let auth: string;

  beforeAll(async () => {
    api = await buildTestApi(use(), { API_RESPONSE_CACHE_MB: '0' });
    await api.services.imports.importInputs(sources.cve5, ['test/fixtures/cve5/cves']);
    const { org, actor } = await createOrganization(api.services, 'nocache');
    auth = (await createToken(api.services, org.id, actor, { mode: 'read' })).header;
  });
  afterAll(() => api.close());

  it('reads every answer (API_RESPONSE_CACHE_MB=0)', async () => {
    const get = async (url: string) =>
      (await api.app.inject({ method: 'GET', url, headers: { authorization: auth } })).json<{
        description: string;
      }>();
    expect(api.app.responseCache.enabled).toBe(false);
    await get(`/api/v2/cves/${CVE}`);
    await quietlyDescribe(api, 'seen at once');
    expect((await get(`/api/v2/cves/${CVE}`)).description).toBe('seen at once');
  });
});
