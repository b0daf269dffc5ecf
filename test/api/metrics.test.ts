/** GET /metrics: Prometheus text format, HTTP metrics by route pattern, jobs, sync and catalog gauges. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

describeEachDatabase('GET /metrics', (use) => {
  let api: TestApi;
  let auth: string;
  beforeAll(async () => {
    api = await buildTestApi(use(), { SYNC_SOURCES: 'cve5,nvd' });
    const { org, actor } = await createOrganization(api.services, 'metrics-org');
    auth = (await createToken(api.services, org.id, actor)).header;
    await use()
      .db.insertInto('job')
      .values([
        { name: 'sync', payload: JSON.stringify({ source: 'nvd' }), status: 'pending' },
        {
          name: 'sync',
          payload: JSON.stringify({ source: 'kev' }),
          status: 'succeeded',
          started_at: new Date(Date.now() - 3000),
          finished_at: new Date(),
        },
      ])
      .execute();
  });
  afterAll(async () => {
    await api?.close();
  });

  describe('scrape', () => {
    it('answers in the Prometheus text format with HTTP metrics labelled by route pattern, not URL', async () => {
      await api.app.inject({ method: 'GET', url: '/healthz' });
      await api.app.inject({
        method: 'GET',
        url: '/api/v2/cves/CVE-2099-0001',
        headers: { authorization: auth },
      });
      await api.app.inject({ method: 'GET', url: '/no/such/path' });
      const response = await api.app.inject({ method: 'GET', url: '/metrics' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = response.body;
      expect(text).toContain('# TYPE vulntrack_http_requests_total counter');
      expect(text).toContain('vulntrack_http_requests_total{method="GET",route="/healthz",status="200"} 1');
      expect(text).toContain(
        'vulntrack_http_requests_total{method="GET",route="/api/v2/cves/:cve_id",status="404"} 1',
      );
      expect(text).toContain('vulntrack_http_requests_total{method="GET",route="unmatched",status="404"} 1');
      expect(text).not.toContain('CVE-2099-0001');
      expect(text).toContain('# TYPE vulntrack_http_request_duration_seconds histogram');
      expect(text).toMatch(
        /vulntrack_http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/healthz",status="200"\} 1/,
      );
      expect(text).toMatch(/vulntrack_process_cpu_seconds_total \d/);
    });

    it('reports jobs by status, sync per configured source and the catalog size', async () => {
      const text = (await api.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(text).toContain('vulntrack_jobs{name="sync",status="pending"} 1');
      expect(text).toContain('vulntrack_jobs{name="sync",status="succeeded"} 1');
      expect(text).toMatch(/vulntrack_jobs_run_seconds\{name="sync",status="succeeded"\} (2\.9|3)/);
      expect(text).toContain('# TYPE vulntrack_job_duration_seconds histogram');
      expect(text).toMatch(/vulntrack_sync_lag_seconds\{source="cve5"\} \d/);
      expect(text).toMatch(/vulntrack_sync_lag_seconds\{source="nvd"\} \d/);
      expect(text).not.toMatch(/vulntrack_sync_lag_seconds\{source="kev"\}/);
      expect(text).toContain('vulntrack_sync_consecutive_failures{source="cve5"} 0');
      expect(text).toContain('# TYPE vulntrack_sync_rounds_total counter');
      expect(text).toMatch(/vulntrack_catalog_cves \d+/);
    });
  });

  describe('with METRICS_TOKEN set', () => {
    const TOKEN = 'scrape-me-please-0123456789';
    let guarded: TestApi;
    beforeAll(async () => {
      guarded = await buildTestApi(use(), { METRICS_TOKEN: TOKEN });
    });
    afterAll(() => guarded?.close());
    const scrape = (authorization?: string) =>
      guarded.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });

    it('answers the bearer token only', async () => {
      const ok = await scrape(`Bearer ${TOKEN}`);
      expect(ok.statusCode).toBe(200);
      expect(ok.body).toContain('# TYPE vulntrack_http_requests_total counter');
    });

    it('refuses no token, another token and an organization token with 401 and nothing of the metrics', async () => {
      const { org, actor } = await createOrganization(guarded.services, 'metrics-guarded');
      const orgToken = (await createToken(guarded.services, org.id, actor)).header;
      for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, orgToken]) {
        const res = await scrape(authorization);
        expect(res.statusCode).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
        expect(res.json()).toEqual({
          error: { code: 'invalid_token', message: 'GET /metrics needs the METRICS_TOKEN bearer token.' },
        });
        expect(res.body).not.toContain('vulntrack_');
      }
    });
  });
});
