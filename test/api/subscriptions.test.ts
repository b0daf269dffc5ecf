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
      expectValidation(res, {
        vendors: ["Vendor does not exist: 'no_such_vendor'.", "Vendor does not exist: 'initech'."],
      });
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
        vendors: ["Vendor does not exist: 'nobody'."],
        products: ["Product does not exist: google / 'glass'.", "Vendor does not exist: 'acme'."],
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
          vendors: [
            "Vendor does not exist: 'tukani'. Did you mean 'tukaani'?",
            "Vendor does not exist: 'zzqx'.",
          ],
          products: ["Product does not exist: google / 'chrom'. Did you mean 'chrome'?"],
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

  // OpenCVE 3.1's routes and ours of before (`…/items`, the item in the body) answer alike.
  describe.each([
    {
      routes: "OpenCVE's POST …/subscriptions and DELETE …/subscriptions?vendor=…",
      add: (item: Item) => w.call('POST', subs, admin, item),
      remove: (item: Item, header = admin) =>
        w.call('DELETE', `${subs}?${new URLSearchParams(item as Record<string, string>)}`, header),
      removeAt: (project: string, item: Item) =>
        w.call(
          'DELETE',
          `${base}/${project}/subscriptions?${new URLSearchParams(item as Record<string, string>)}`,
          admin,
        ),
      path: () => subs,
    },
    {
      routes: 'the aliases POST and DELETE …/subscriptions/items',
      add: (item: Item) => w.call('POST', `${subs}/items`, admin, item),
      remove: (item: Item, header = admin) => w.call('DELETE', `${subs}/items`, header, item),
      removeAt: (project: string, item: Item) =>
        w.call('DELETE', `${base}/${project}/subscriptions/items`, admin, item),
      path: () => `${subs}/items`,
    },
  ])('adding and removing one item: $routes', ({ add, remove, removeAt, path }) => {
    beforeAll(async () => {
      expect((await w.call('PUT', subs, admin, { vendors: ['google', 'tukaani'] })).statusCode).toBe(200);
    });

    it('adds a vendor or a product and answers with the new set, audited', async () => {
      let res = await add({ vendor: 'php_group' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ vendors: ['google', 'php_group', 'tukaani'], products: {} });
      res = await add({ vendor: 'Debian', product: 'debian_linux' });
      expect(res.json()).toEqual({
        vendors: ['google', 'php_group', 'tukaani'],
        products: { debian: ['debian_linux'] },
      });
      expect((await auditEntries()).slice(-2).map((e) => e.changes)).toEqual([
        { added: ['php_group'], removed: [] },
        { added: ['debian$PRODUCT$debian_linux'], removed: [] },
      ]);
    });

    it('changes nothing for one already subscribed (an empty product is the whole vendor)', async () => {
      const audited = (await auditEntries()).length;
      const res = await add({ vendor: 'php_group', product: '' });
      expect(res.statusCode).toBe(200);
      expect(res.json().vendors).toEqual(['google', 'php_group', 'tukaani']);
      expect(await auditEntries()).toHaveLength(audited);
    });

    it("answers 400 for an unknown vendor or product, with OpenCVE's sentences, or a malformed item", async () => {
      expectValidation(await add({ vendor: 'acme' }), { vendors: ["Vendor does not exist: 'acme'."] });
      expectValidation(await add({ vendor: 'google', product: 'glass' }), {
        products: ["Product does not exist: google / 'glass'."],
      });
      expectValidation(await add({ product: 'xz' } as Item), { vendor: ['vendor is required'] });
    });

    it('removes a vendor or a product and answers with the new set, audited', async () => {
      let res = await remove({ vendor: 'debian', product: 'debian_linux' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ vendors: ['google', 'php_group', 'tukaani'], products: {} });
      res = await remove({ vendor: 'PHP_Group' });
      expect(res.json()).toEqual({ vendors: ['google', 'tukaani'], products: {} });
      expect((await auditEntries()).at(-1)!.changes).toEqual({ added: [], removed: ['php_group'] });
    });

    it('is idempotent: removing one the project does not have (or the catalog does not know) is a 200 changing nothing', async () => {
      const audited = (await auditEntries()).length;
      for (const item of [
        { vendor: 'adobe' },
        { vendor: 'google', product: 'chrome' },
        { vendor: 'acme' },
        { vendor: 'acme', product: 'anvil' },
      ]) {
        const res = await remove(item);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({ vendors: ['google', 'tukaani'], products: {} });
      }
      expect(await auditEntries()).toHaveLength(audited);
    });

    it('answers 400 without a vendor, 403 to a read token or without subscriptions:write, 404 for an unknown project', async () => {
      expectValidation(await remove({} as Item), { vendor: ['vendor is required'] });
      expectReadOnly(await remove({ vendor: 'google' }, await w.token({ mode: 'read' })));
      const projectsWrite = await w.token({ mode: 'write', scopes: ['projects:write'] });
      expectMissingScope(await remove({ vendor: 'google' }, projectsWrite), 'subscriptions:write');
      expectReadOnly(await w.call('POST', path(), await w.token({ mode: 'read' }), { vendor: 'adobe' }));
      expectNotFound(await removeAt('nope', { vendor: 'google' }));
    });
  });
});

type Item = { vendor: string; product?: string };
