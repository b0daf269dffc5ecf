import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.ts';
import {
  buildProjectWorld,
  expectError,
  expectMissingScope,
  expectNotFound,
  expectReadOnly,
  expectValidation,
  type ProjectWorld,
} from '../helpers/projects.ts';

describeEachDatabase('API v2 subscriptions', (use) => {
  let w: ProjectWorld;
  let admin: string;
  let base: string;
  let subs: string;

  const auditEntries = () =>
    w.services.database.db
      .selectFrom('audit_log')
      .select(['action', 'resource_type', 'resource_name', 'actor_name', 'changes'])
      .where('organization_id', '=', w.org.id)
      .where('resource_type', '=', 'subscription')
      .orderBy('created_at')
      .execute();

  const current = async () => (await w.call('GET', subs, admin)).json();

  beforeAll(async () => {
    w = await buildProjectWorld(use(), 'subs');
    admin = await w.token({ mode: 'write', scopes: [] });
    base = `/api/v2/organizations/${w.org.name}/projects`;
    subs = `${base}/web/subscriptions`;
    expect((await w.call('POST', base, admin, { name: 'web' })).statusCode).toBe(201);
  });
  afterAll(() => w.close());

  describe('the seed example (§4.2, §5.7): a subscription-sync token', () => {
    let sync: string;

    beforeAll(async () => {
      sync = await w.token({ mode: 'write', scopes: ['projects:read', 'subscriptions:write'] });
      const res = await w.call('PUT', subs, admin, {
        vendors: ['adobe'],
        products: { mozilla: ['firefox'] },
      });
      expect(res.statusCode).toBe(200);
    });

    it('replaces the whole set with PUT, prior subscriptions not in the body removed, and gets the new set back', async () => {
      const res = await w.call('PUT', subs, sync, {
        vendors: ['tukaani', 'google'],
        products: { debian: ['debian_linux'], mozilla: ['thunderbird', 'firefox_esr'] },
      });
      expect(res.statusCode).toBe(200);
      const expected = {
        vendors: ['google', 'tukaani'],
        products: { debian: ['debian_linux'], mozilla: ['firefox_esr', 'thunderbird'] },
      };
      expect(res.json()).toEqual(expected);
      const stored = await w.services.database.db
        .selectFrom('project_subscription')
        .innerJoin('project', 'project.id', 'project_subscription.project_id')
        .select('vendor_key')
        .where('project.name', '=', 'web')
        .where('project.organization_id', '=', w.org.id)
        .orderBy('vendor_key')
        .execute();
      expect(stored.map((r) => r.vendor_key)).toEqual([
        'debian$PRODUCT$debian_linux',
        'google',
        'mozilla$PRODUCT$firefox_esr',
        'mozilla$PRODUCT$thunderbird',
        'tukaani',
      ]);
    });

    it('reads them back with projects:read (GET subscriptions and the project detail)', async () => {
      const expected = {
        vendors: ['google', 'tukaani'],
        products: { debian: ['debian_linux'], mozilla: ['firefox_esr', 'thunderbird'] },
      };
      const res = await w.call('GET', subs, sync);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(expected);
      const detail = await w.call('GET', `${base}/web`, sync);
      expect(detail.json()).toMatchObject({ subscriptions_count: 5, subscriptions: expected });
    });

    it('audits the change with what was added and removed, and the token as actor', async () => {
      const entries = await auditEntries();
      expect(entries.at(-1)).toEqual({
        action: 'subscription.update',
        resource_type: 'subscription',
        resource_name: 'web',
        actor_name: 'test',
        changes: {
          added: [
            'debian$PRODUCT$debian_linux',
            'google',
            'mozilla$PRODUCT$firefox_esr',
            'mozilla$PRODUCT$thunderbird',
            'tukaani',
          ],
          removed: ['adobe', 'mozilla$PRODUCT$firefox'],
        },
      });
    });

    it('is refused the catalog: 403 missing_scope naming catalog:read on GET /api/v2/cves', async () => {
      expectMissingScope(await w.call('GET', '/api/v2/cves', sync), 'catalog:read');
    });

    it('is refused project writes: 403 missing_scope naming projects:write', async () => {
      expectMissingScope(await w.call('PATCH', `${base}/web`, sync, { description: 'x' }), 'projects:write');
    });
  });

  describe('PUT …/subscriptions', () => {
    it('answers 403 read_only_token to a read token (even one holding subscriptions:write), and changes nothing', async () => {
      const before = await current();
      expectReadOnly(await w.call('PUT', subs, await w.token({ mode: 'read' }), { vendors: [] }));
      expectReadOnly(
        await w.call('PUT', subs, await w.token({ mode: 'read', scopes: ['subscriptions:write'] }), {
          vendors: [],
        }),
      );
      expect(await current()).toEqual(before);
    });

    it('answers 403 missing_scope naming subscriptions:write to a token with projects:write only', async () => {
      const projectsWrite = await w.token({ mode: 'write', scopes: ['projects:write'] });
      expectMissingScope(await w.call('PUT', subs, projectsWrite, { vendors: [] }), 'subscriptions:write');
    });

    it('answers 400 with one details.vendors message per unknown vendor, and changes nothing (atomic)', async () => {
      const before = await current();
      const audited = (await auditEntries()).length;
      const res = await w.call('PUT', subs, admin, {
        vendors: ['tukaani', 'no_such_vendor', 'initech', 'no_such_vendor'],
        products: { debian: ['debian_linux'] },
      });
      expectValidation(res, { vendors: ['unknown vendor "no_such_vendor"', 'unknown vendor "initech"'] });
      expect(await current()).toEqual(before);
      expect(await auditEntries()).toHaveLength(audited);
    });

    it('answers 400 with details.products for unknown products and for products of an unknown vendor', async () => {
      const before = await current();
      const res = await w.call('PUT', subs, admin, {
        vendors: ['nobody'],
        products: { google: ['chrome', 'glass'], acme: ['anvil', 'rocket'], tukaani: ['xz'] },
      });
      expectValidation(res, {
        vendors: ['unknown vendor "nobody"'],
        products: ['unknown product "glass" of vendor "google"', 'unknown vendor "acme"'],
      });
      expect(await current()).toEqual(before);
    });

    it('takes a missing vendors or products as empty: the set is exactly the body', async () => {
      let res = await w.call('PUT', subs, admin, { vendors: ['php_group'] });
      expect(res.json()).toEqual({ vendors: ['php_group'], products: {} });
      res = await w.call('PUT', subs, admin, { products: { tukaani: ['xz'], google: [] } });
      expect(res.json()).toEqual({ vendors: [], products: { tukaani: ['xz'] } });
      res = await w.call('PUT', subs, admin, {});
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ vendors: [], products: {} });
      expect((await w.call('GET', `${base}/web`, admin)).json().subscriptions_count).toBe(0);
    });

    it('ignores duplicates, and a PUT of the current set changes nothing and audits nothing', async () => {
      const body = { vendors: ['tukaani', 'tukaani'], products: { google: ['chrome', 'chrome'] } };
      expect((await w.call('PUT', subs, admin, body)).json()).toEqual({
        vendors: ['tukaani'],
        products: { google: ['chrome'] },
      });
      const project = (await w.call('GET', `${base}/web`, admin)).json();
      const audited = (await auditEntries()).length;
      expect((await w.call('PUT', subs, admin, body)).statusCode).toBe(200);
      expect(await auditEntries()).toHaveLength(audited);
      expect((await w.call('GET', `${base}/web`, admin)).json()).toEqual(project);
    });

    it('moves the project updated_at when the set changes', async () => {
      const before = (await w.call('GET', `${base}/web`, admin)).json();
      await w.call('PUT', subs, admin, { vendors: ['tukaani', 'google'] });
      const after = (await w.call('GET', `${base}/web`, admin)).json();
      expect(after.updated_at > before.updated_at).toBe(true);
      expect(after.subscriptions_count).toBe(2);
    });

    it('is all or nothing when the database fails half-way', async () => {
      const db = w.services.database.db;
      const before = await current();
      await sql`CREATE FUNCTION refuse_webmproject() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'refused'; END $$`.execute(db);
      await sql`CREATE TRIGGER refuse_webmproject BEFORE INSERT ON project_subscription
        FOR EACH ROW WHEN (NEW.vendor_key = 'webmproject') EXECUTE FUNCTION refuse_webmproject()`.execute(db);
      try {
        // The DELETE of tukaani and google runs before the failing INSERT; it must be rolled back.
        const res = await w.call('PUT', subs, admin, { vendors: ['adobe', 'webmproject'] });
        expectError(res, 500, { code: 'internal_error', message: 'Internal server error.' });
      } finally {
        await sql`DROP TRIGGER refuse_webmproject ON project_subscription`.execute(db);
        await sql`DROP FUNCTION refuse_webmproject()`.execute(db);
      }
      expect(await current()).toEqual(before);
    });

    it('reads names in any case and suggests the nearest known name for an unknown one', async () => {
      const before = await current();
      const res = await w.call('PUT', subs, admin, {
        vendors: ['Tukaani'],
        products: { Debian: ['Debian_Linux'], GOOGLE: ['Chrome'] },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect((await w.call('GET', subs, admin)).json()).toEqual({
        vendors: ['tukaani'],
        products: { debian: ['debian_linux'], google: ['chrome'] },
      });
      expectValidation(
        await w.call('PUT', subs, admin, { vendors: ['tukani', 'zzqx'], products: { google: ['chrom'] } }),
        {
          vendors: ['unknown vendor "tukani" (did you mean "tukaani"?)', 'unknown vendor "zzqx"'],
          products: ['unknown product "chrom" of vendor "google" (did you mean "chrome"?)'],
        },
      );
      expect((await w.call('PUT', subs, admin, before)).statusCode).toBe(200);
    });

    it('answers 400 for an unknown field or a wrong type', async () => {
      expectValidation(await w.call('PUT', subs, admin, { vendors: [], cwes: [] }), {
        cwes: ['cwes is not a known field; the known fields are vendors, products'],
      });
      const res = await w.call('PUT', subs, admin, { vendors: 'tukaani', products: ['x'] });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('validation_error');
    });

    it('answers 404 for an unknown project and for another organization', async () => {
      expectNotFound(await w.call('PUT', `${base}/nope/subscriptions`, admin, { vendors: [] }));
      expectNotFound(
        await w.call(
          'PUT',
          `/api/v2/organizations/${w.org.name}/projects/web/subscriptions`,
          w.other.header,
          {
            vendors: [],
          },
        ),
      );
    });
  });

  describe('GET …/subscriptions', () => {
    it('is allowed with subscriptions:read alone', async () => {
      const res = await w.call('GET', subs, await w.token({ mode: 'read', scopes: ['subscriptions:read'] }));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ vendors: ['google', 'tukaani'], products: {} });
    });

    it('answers 403 missing_scope naming subscriptions:read without it or projects:read', async () => {
      const trackerOnly = await w.token({ mode: 'read', scopes: ['tracker:read'] });
      expectMissingScope(await w.call('GET', subs, trackerOnly), 'subscriptions:read');
    });

    it('answers 404 for an unknown project', async () => {
      expectNotFound(await w.call('GET', `${base}/nope/subscriptions`, admin));
    });
  });

  describe('POST …/subscriptions/items', () => {
    const items = () => `${subs}/items`;

    it('adds a vendor or a product and answers with the new set, audited', async () => {
      let res = await w.call('POST', items(), admin, { vendor: 'php_group' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ vendors: ['google', 'php_group', 'tukaani'], products: {} });
      res = await w.call('POST', items(), admin, { vendor: 'debian', product: 'debian_linux' });
      expect(res.json()).toEqual({
        vendors: ['google', 'php_group', 'tukaani'],
        products: { debian: ['debian_linux'] },
      });
      expect((await auditEntries()).slice(-2).map((e) => e.changes)).toEqual([
        { added: ['php_group'], removed: [] },
        { added: ['debian$PRODUCT$debian_linux'], removed: [] },
      ]);
    });

    it('changes nothing for one already subscribed', async () => {
      const audited = (await auditEntries()).length;
      const res = await w.call('POST', items(), admin, { vendor: 'php_group' });
      expect(res.statusCode).toBe(200);
      expect(res.json().vendors).toEqual(['google', 'php_group', 'tukaani']);
      expect(await auditEntries()).toHaveLength(audited);
    });

    it('answers 400 for an unknown vendor or product, or a malformed item', async () => {
      expectValidation(await w.call('POST', items(), admin, { vendor: 'acme' }), {
        vendors: ['unknown vendor "acme"'],
      });
      expectValidation(await w.call('POST', items(), admin, { vendor: 'google', product: 'glass' }), {
        products: ['unknown product "glass" of vendor "google"'],
      });
      expectValidation(await w.call('POST', items(), admin, { product: 'xz' }), {
        vendor: ['vendor is required'],
      });
      expectValidation(await w.call('POST', items(), admin, { vendor: 'tukaani', products: ['xz'] }), {
        products: ['products is not a known field; the known fields are vendor, product'],
      });
    });

    it('answers 403 to a read token and to a token without subscriptions:write', async () => {
      expectReadOnly(await w.call('POST', items(), await w.token({ mode: 'read' }), { vendor: 'adobe' }));
      const projectsWrite = await w.token({ mode: 'write', scopes: ['projects:write'] });
      expectMissingScope(
        await w.call('POST', items(), projectsWrite, { vendor: 'adobe' }),
        'subscriptions:write',
      );
    });
  });

  describe('DELETE …/subscriptions/items', () => {
    const items = () => `${subs}/items`;

    it('removes a vendor or a product and answers with the new set, audited', async () => {
      let res = await w.call('DELETE', items(), admin, { vendor: 'debian', product: 'debian_linux' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ vendors: ['google', 'php_group', 'tukaani'], products: {} });
      res = await w.call('DELETE', items(), admin, { vendor: 'php_group' });
      expect(res.json()).toEqual({ vendors: ['google', 'tukaani'], products: {} });
      expect((await auditEntries()).at(-1)!.changes).toEqual({ added: [], removed: ['php_group'] });
    });

    it('answers 404 for a known vendor or product the project does not subscribe to', async () => {
      expectNotFound(
        await w.call('DELETE', items(), admin, { vendor: 'adobe' }),
        'This project has no such subscription.',
      );
      expectNotFound(
        await w.call('DELETE', items(), admin, { vendor: 'google', product: 'chrome' }),
        'This project has no such subscription.',
      );
    });

    it('answers 400 for a vendor or product unknown to the catalog', async () => {
      expectValidation(await w.call('DELETE', items(), admin, { vendor: 'acme' }), {
        vendors: ['unknown vendor "acme"'],
      });
      expectValidation(await w.call('DELETE', items(), admin, { vendor: 'acme', product: 'anvil' }), {
        products: ['unknown vendor "acme"'],
      });
    });

    it('answers 403 to a read token, 404 for an unknown project', async () => {
      expectReadOnly(await w.call('DELETE', items(), await w.token({ mode: 'read' }), { vendor: 'google' }));
      expectNotFound(await w.call('DELETE', `${base}/nope/subscriptions/items`, admin, { vendor: 'google' }));
    });
  });
});
