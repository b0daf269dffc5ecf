/** API v2's answer to "why is this CVE (not) in this project?" (`…/cves/<cve_id>/match`). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.ts';
import {
  buildProjectWorld,
  expectMissingScope,
  expectNotFound,
  MICROS_Z,
  type ProjectWorld,
} from '../helpers/projects.ts';

describeEachDatabase('API v2 project match', (use) => {
  let w: ProjectWorld;
  let reader: string;
  const base = () => `/api/v2/organizations/${w.org.name}/projects`;
  const match = (cve: string) => `${base()}/web/cves/${cve}/match`;

  beforeAll(async () => {
    w = await buildProjectWorld(use(), 'matcher');
    const admin = await w.token({ mode: 'write' });
    expect((await w.call('POST', base(), admin, { name: 'web' })).statusCode).toBe(201);
    const subs = await w.call('PUT', `${base()}/web/subscriptions`, admin, {
      vendors: ['tukaani'],
      products: { google: ['chrome'] },
    });
    expect(subs.statusCode).toBe(200);
    reader = await w.token({ mode: 'read', scopes: ['tracker:read'] });
  });
  afterAll(() => w.close());

  describe('GET …/cves/<cve_id>/match', () => {
    it('names the matched key, its sources and when the CVE entered the project', async () => {
      const res = await w.call('GET', match('CVE-2024-3094'), reader);
      expect(res.statusCode).toBe(200);
      const body = res.json() as Record<string, unknown> & {
        matched: { key: string; sources: { provider: string; via: string; cpe?: string }[] }[];
      };
      expect(body).toMatchObject({
        cve_id: 'CVE-2024-3094',
        project: 'web',
        in_project: true,
        outcome: 'matched',
        entered: { at: expect.stringMatching(MICROS_Z), key: 'tukaani', cause: 'subscribed' },
        near: [],
        subscriptions_count: 2,
      });
      expect(body.matched.map((k) => k.key)).toEqual(['tukaani']);
      expect(body.matched[0]!.sources).toContainEqual({
        provider: 'nvd',
        via: 'cpe',
        source: 'cpe:nvd',
        cpe: expect.stringMatching(/^cpe:2\.3:a:tukaani:xz:/),
        count: expect.any(Number),
      });
      expect((body.keys as { key: string }[]).map((k) => k.key)).toContain('tukaani$PRODUCT$xz');
    });

    it('answers 200 with why not for a CVE outside the project, and the nearest subscription', async () => {
      const res = await w.call('GET', match('CVE-2024-31331'), reader);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        in_project: false,
        outcome: 'no_subscribed_key',
        matched: [],
        entered: null,
        near: [{ subscribed: 'google$PRODUCT$chrome', cve_key: 'google', relation: 'same_vendor' }],
        keys: [
          { key: 'google', vendor: 'google', product: null },
          { key: 'google$PRODUCT$android', vendor: 'google', product: 'android' },
        ],
      });
    });

    it('answers 404 for a CVE the catalog does not list (saying so), another organization, a missing project', async () => {
      expectNotFound(
        await w.call('GET', match('CVE-2098-77777'), reader),
        'CVE-2098-77777 is not in the catalog: not published yet, or its record not imported.',
      );
      expectNotFound(await w.call('GET', match('CVE-2024-3094'), w.other.header));
      expectNotFound(await w.call('GET', `${base()}/nope/cves/CVE-2024-3094/match`, reader));
      const catalogOnly = await w.token({ mode: 'read', scopes: ['catalog:read'] });
      expectMissingScope(await w.call('GET', match('CVE-2024-3094'), catalogOnly), 'tracker:read');
    });
  });
});
