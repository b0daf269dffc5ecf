import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApi, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

describeEachDatabase('every answer has the security headers', (use) => {
  let api: TestApi;

  beforeAll(async () => {
    api = await buildTestApi(use());
  });
  afterAll(() => api.close());

  describe('HTML that is not a page of the web plugin', () => {
    it('the 404 page of a path no route serves has the strict policy', async () => {
      const res = await api.app.inject({ url: '/no/such/page' });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('same-origin');
    });

    it('Swagger UI has a policy of its own: no inline script but its own hashed ones', async () => {
      const res = await api.app.inject({ url: '/api/v2/docs/' });
      expect(res.statusCode).toBe(200);
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).not.toContain("'unsafe-inline'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });
  });

  describe('pages and the API', () => {
    it('a page and an API answer carry the same headers', async () => {
      for (const url of ['/login', '/api/v2/cves', '/readyz']) {
        const res = await api.app.inject({ url });
        expect([url, res.headers['content-security-policy']]).toEqual([
          url,
          expect.stringContaining("default-src 'self'"),
        ]);
        expect(res.headers['x-content-type-options']).toBe('nosniff');
      }
    });
  });
});
