import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server.ts';
import { parseConfig } from '../../src/config.ts';
import { sources } from '../../src/sources/index.ts';
import { servicesFor } from '../../src/main.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

describeEachDatabase('health endpoints', (use, backend) => {
  let app: Awaited<ReturnType<typeof buildApp>>;

  beforeAll(async () => {
    const database = use();
    const services = servicesFor(parseConfig({}), database, 'x'.repeat(32));
    app = await buildApp({ services, logger: false });
    await services.imports.importInputs(sources.cve5, ['test/fixtures/cve5/cves']);
  });
  afterAll(() => app.close());

  describe('GET /healthz', () => {
    it('answers 200 while the process runs', async () => {
      const res = await app.inject({ method: 'GET', url: '/healthz' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
    });
  });

  describe('GET /readyz', () => {
    it('reports the database, its migrations, the catalog size and the last import per source', async () => {
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.ready).toBe(true);
      expect(body.database).toEqual({ kind: backend, reachable: true, migrations: 'applied' });
      expect(body.catalog.cves).toBe(9);
      expect(body.sources).toHaveLength(1);
      expect(body.sources[0]).toMatchObject({ source: 'cve5', status: 'completed', counts: { imported: 9 } });
    });
  });

  describe('unknown routes', () => {
    it('answer 404 in the error envelope under /api, and a page elsewhere', async () => {
      const res = await app.inject({ method: 'GET', url: '/api/v2/no/such/thing' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: { code: 'not_found', message: 'Not found.' } });
      const page = await app.inject({ method: 'GET', url: '/no/such/thing' });
      expect(page.statusCode).toBe(404);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
    });
  });
});

describeEachDatabase('HTTP behaviour', (use) => {
  let app: Awaited<ReturnType<typeof buildApp>>;

  beforeAll(async () => {
    app = await buildApp({ services: servicesFor(parseConfig({}), use(), 'x'.repeat(32)), logger: false });
  });
  afterAll(() => app.close());

  it('answers 405 with Allow for a known path under another method', async () => {
    const res = await app.inject({ method: 'DELETE', url: '/api/v2/cves/CVE-2024-3094' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET');
    expect(res.json()).toEqual({ error: { code: 'method_not_allowed', message: 'Method not allowed.' } });
  });

  it('serves Swagger UI from its own assets and the OpenAPI document', async () => {
    const ui = await app.inject({ method: 'GET', url: '/api/v2/docs/' });
    expect(ui.statusCode).toBe(200);
    expect(ui.body).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs)/);
    const schema = await app.inject({ method: 'GET', url: '/api/v2/schema' });
    expect(schema.statusCode).toBe(200);
    expect(schema.json().openapi).toBe('3.1.0');
  });
});
