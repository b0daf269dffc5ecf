/**
 * A body over the size limit (1 MiB) is a 413 in the shape of the API it was sent to: API v2's error
 * envelope on every /api/v2 path (a route's and an unmatched one), API v1's `{detail}` on API v1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

describeEachDatabase('a request body over the size limit', (use) => {
  let api: TestApi;
  let auth: string;
  const huge = JSON.stringify({ name: 'x', description: 'a'.repeat(1024 * 1024 + 1) });

  beforeAll(async () => {
    api = await buildTestApi(use());
    const { org, actor } = await createOrganization(api.services, 'bodylimit');
    auth = (await createToken(api.services, org.id, actor, { mode: 'write' })).header;
  });
  afterAll(() => api.close());

  const post = (url: string) =>
    api.app.inject({
      method: 'POST',
      url,
      headers: { authorization: auth, 'content-type': 'application/json' },
      payload: huge,
    });

  describe('on API v2', () => {
    it('answers 413 payload_too_large in the error envelope, on a route and on an unmatched path', async () => {
      for (const url of ['/api/v2/organizations/bodylimit/projects', '/api/v2/no-such-thing', '/api/v2']) {
        const res = await post(url);
        expect({ url, status: res.statusCode, body: res.json() }).toEqual({
          url,
          status: 413,
          body: { error: { code: 'payload_too_large', message: 'Request body too large.' } },
        });
      }
    });
  });

  it('answers malformed JSON on an unmatched API v2 path in the error envelope too', async () => {
    const res = await api.app.inject({
      method: 'POST',
      url: '/api/v2/no-such-thing',
      headers: { authorization: auth, 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('validation_error');
  });

  describe('on API v1', () => {
    it("keeps API v1's own shape", async () => {
      const res = await post('/api/projects');
      expect(res.statusCode).toBe(413);
      expect(res.json()).toEqual({ detail: expect.any(String) });
    });
  });
});
