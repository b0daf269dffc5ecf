/**
 * KEV, EPSS and CWE sync from a local server: conditional downloads (ETag → 304, or the same content
 * hash) skip the import; failures (500, connection refused, a truncated gzip) are retried, recorded
 * in sync_state and shown by /readyz and /metrics, and the other sources go on.
 */
import fs from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncSourceName } from '../../src/config.ts';
import { SyncStateRepository } from '../../src/db/sync-state.repository.ts';
import { sources } from '../../src/sources/index.ts';
import { buildTestApi, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { startUpstream, type UpstreamServer } from '../helpers/upstream-server.ts';

const fixturePath = (p: string) => fileURLToPath(new URL(`../fixtures/${p}`, import.meta.url));
const fixture = (p: string) => fs.readFile(fixturePath(p));
const kev = await fixture('kev/known_exploited_vulnerabilities-excerpt.json');
const cwe = await fixture('cwe/cwe_v4.14_view_1000-excerpt.csv.gz');
/** FIRST's daily layout with illustrative scores (no real EPSS file is in the fixtures; see their README). */
const epss = (score: string) =>
  zlib.gzipSync(
    [
      '#model_version:v2025.03.14,score_date:2025-08-25T00:00:00+0000',
      'cve,epss,percentile',
      `CVE-2021-44228,${score},0.99990`,
      'CVE-2014-0160,0.94420,0.99950',
    ].join('\n') + '\n',
  );

type Mode = 'ok' | '500' | 'truncated';
const modes: Record<string, Mode> = {};
let epssBody = epss('0.97565');
let kevBody = kev;

let server: UpstreamServer;
beforeAll(async () => {
  server = await startUpstream((url, request) => {
    const body =
      url.pathname === '/kev/known_exploited_vulnerabilities.json'
        ? kevBody
        : url.pathname === '/epss/epss_scores-current.csv.gz'
          ? epssBody
          : url.pathname === '/cwe/1000.csv.gz'
            ? cwe
            : undefined;
    if (!body) return { status: 404 };
    const mode = modes[url.pathname] ?? 'ok';
    if (mode === '500') return { status: 500, body: 'upstream broken' };
    if (mode === 'truncated') return { status: 200, body: body.subarray(0, Math.floor(body.length / 2)) };
    // Only KEV has an ETag here: EPSS and CWE are skipped by their content hash.
    if (url.pathname.startsWith('/kev/')) {
      const etag = `"${createHash('sha1').update(body).digest('hex')}"`;
      if (request.headers['if-none-match'] === etag) return { status: 304 };
      return { status: 200, headers: { etag, 'content-type': 'application/json' }, body };
    }
    return { status: 200, body };
  });
});
afterAll(async () => {
  await server?.close();
});

describeEachDatabase('SyncService (KEV, EPSS, CWE downloads)', (use) => {
  let api: TestApi;
  beforeAll(async () => {
    // The server is shared by the backends' runs: each starts from a healthy upstream.
    for (const key of Object.keys(modes)) delete modes[key];
    epssBody = epss('0.97565');
    kevBody = kev;
    api = await buildTestApi(use(), {
      KEV_URL: `${server.base}/kev/known_exploited_vulnerabilities.json`,
      EPSS_URL: `${server.base}/epss/epss_scores-current.csv.gz`,
      CWE_URL: `${server.base}/cwe/1000.csv.gz`,
      SYNC_SOURCES: 'kev,epss,cwe',
      SYNC_HTTP_ATTEMPTS: '2',
      SYNC_RETRY_BASE_MS: '20',
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  const runAll = async (sources: SyncSourceName[]) => {
    const outcomes: Record<string, string> = {};
    for (const s of sources) {
      outcomes[s] = await api.services.sync.run(s).then(
        (r) =>
          `ok ${r.imports} import${r.imports === 1 ? '' : 's'}${r.notes.length ? `: ${r.notes.join('; ')}` : ''}`,
        (err: Error) => `failed: ${err.message}`,
      );
    }
    return outcomes;
  };

  describe('run', () => {
    it('imports each download once and skips unchanged content on the next round', async () => {
      expect(await runAll(['kev', 'epss', 'cwe'])).toEqual({
        kev: 'ok 1 import',
        epss: 'ok 1 import',
        cwe: 'ok 1 import',
      });
      const weaknesses = await use().db.selectFrom('weakness').select('cwe_id').orderBy('cwe_id').execute();
      expect(weaknesses.map((w) => w.cwe_id)).toEqual(
        expect.arrayContaining(['CWE-125', 'CWE-400', 'CWE-502', 'CWE-79']),
      );
      const statements = await use().db.selectFrom('cve_source').select(['provider']).execute();
      expect(statements.filter((s) => s.provider === 'cisa')).toHaveLength(4);
      expect(statements.filter((s) => s.provider === 'first')).toHaveLength(2);

      expect(await runAll(['kev', 'epss', 'cwe'])).toEqual({
        kev: 'ok 0 imports: unchanged upstream (HTTP 304)',
        epss: 'ok 0 imports: unchanged content since the last import',
        cwe: 'ok 0 imports: unchanged content since the last import',
      });
      const kevRequests = server.log.filter((r) => r.url.pathname.startsWith('/kev/'));
      expect(kevRequests.at(-1)!.headers['if-none-match']).toMatch(/^"[0-9a-f]+"$/);
    });

    it('imports again when the content changed', async () => {
      epssBody = epss('0.97000');
      const report = await api.services.sync.run('epss');
      expect(report.counts).toMatchObject({ imported: 0, skipped: 0 });
      expect(report.imports).toBe(1);
    });

    it('takes a KEV entry CISA removed off the catalog on the next round', async () => {
      // The catalog lists (and flags) a CVE once its record is in: Log4Shell's CVE 5 record, Heartbleed's NVD item.
      await api.services.imports.importInputs(sources.cve5, [
        fixturePath('cve5/cves/2021/44xxx/CVE-2021-44228.json'),
      ]);
      await api.services.imports.importInputs(sources.nvd, [fixturePath('nvd/feed-1.1-heartbleed.json.gz')]);
      const kevFlag = async (cveId: string) =>
        (await use().db.selectFrom('cve').select('kev').where('cve_id', '=', cveId).executeTakeFirstOrThrow())
          .kev;
      expect(await kevFlag('CVE-2014-0160')).toBe(true);
      const catalog = JSON.parse(kev.toString('utf8')) as {
        count: number;
        vulnerabilities: { cveID: string }[];
      };
      // Heartbleed: its NVD item has no copy of the KEV entry to fall back to.
      const kept = catalog.vulnerabilities.filter((v) => v.cveID !== 'CVE-2014-0160');
      kevBody = Buffer.from(JSON.stringify({ ...catalog, count: kept.length, vulnerabilities: kept }));
      try {
        const report = await api.services.sync.run('kev');
        expect(report.counts).toMatchObject({ updated: 1, unchanged: 3, skipped: 0 });
        expect(await kevFlag('CVE-2014-0160')).toBe(false);
        expect(await kevFlag('CVE-2021-44228')).toBe(true);
      } finally {
        kevBody = kev;
      }
      expect((await api.services.sync.run('kev')).counts).toMatchObject({ updated: 1, unchanged: 3 });
      expect(await kevFlag('CVE-2014-0160')).toBe(true);
    });

    it('records failures (500, connection refused, truncated gzip) and the other sources go on', async () => {
      modes['/kev/known_exploited_vulnerabilities.json'] = '500';
      modes['/epss/epss_scores-current.csv.gz'] = 'truncated';
      // A port that was just free: nothing listens there.
      const closed = await startUpstream(() => ({ status: 200 }));
      await closed.close();
      const refused = await buildTestApi(use(), {
        SYNC_SOURCES: 'kev,epss,cwe',
        CWE_URL: `${closed.base}/cwe/1000.csv.zip`,
        SYNC_HTTP_ATTEMPTS: '2',
        SYNC_RETRY_BASE_MS: '20',
      });
      const outcomes = await runAll(['kev', 'epss']);
      const cweOutcome = await refused.services.sync.run('cwe').then(
        () => 'ok',
        (err: Error) => err.message,
      );
      await refused.close();
      expect(outcomes.kev).toMatch(/failed: .*HTTP 500 \(after 2 attempts\)/);
      expect(outcomes.epss).toMatch(/failed: .*truncated or corrupt gzip/);
      expect(cweOutcome).toMatch(/ECONNREFUSED \(after 2 attempts\)/);
      // Each was tried twice.
      expect(
        server.log
          .filter((r) => r.url.pathname.startsWith('/kev/'))
          .slice(-2)
          .map((r) => r.status),
      ).toEqual([500, 500]);

      // KEV is back; EPSS still truncated: KEV syncs, EPSS fails again.
      modes['/kev/known_exploited_vulnerabilities.json'] = 'ok';
      expect((await runAll(['kev', 'epss'])).kev).toMatch(/^ok/);

      const states = new SyncStateRepository(use().db);
      expect(await states.get('kev')).toMatchObject({ consecutiveFailures: 0 });
      expect(await states.get('epss')).toMatchObject({ consecutiveFailures: 2 });
      expect(await states.get('cwe')).toMatchObject({ consecutiveFailures: 1 });

      const ready = await api.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      const sync = (ready.json() as { sync: { source: string }[] }).sync;
      expect(sync.map((s) => s.source)).toEqual(['kev', 'epss', 'cwe']);
      const epssState = sync.find((s) => s.source === 'epss') as Record<string, unknown>;
      expect(epssState).toMatchObject({
        consecutive_failures: 2,
        last_error: expect.stringMatching(/truncated/),
      });
      expect(typeof epssState.lag_seconds).toBe('number');
      expect(typeof epssState.last_error_at).toBe('string');
      expect(sync.find((s) => s.source === 'cwe')).toMatchObject({
        consecutive_failures: 1,
        last_error: expect.stringMatching(/ECONNREFUSED/),
      });

      const metrics = (await api.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toContain('vulntrack_sync_consecutive_failures{source="epss"} 2');
      expect(metrics).toContain('vulntrack_sync_consecutive_failures{source="kev"} 0');
      expect(metrics).toContain('vulntrack_sync_consecutive_failures{source="cwe"} 1');
      expect(metrics).toContain('vulntrack_sync_up{source="epss"} 0');
      expect(metrics).toContain('vulntrack_sync_up{source="kev"} 1');
      expect(metrics).toMatch(/vulntrack_sync_rounds_total\{source="epss",outcome="failed"\} 2/);
      expect(metrics).toMatch(/vulntrack_sync_lag_seconds\{source="kev"\} \d/);
    });
  });
});
