import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.ts';
import {
  buildProjectWorld,
  expectInvalidToken,
  expectMissingScope,
  expectNotFound,
  expectReadOnly,
  expectValidation,
  MICROS_Z,
  UUID_RE,
  type ProjectWorld,
} from '../helpers/projects.ts';

const timestamp = expect.stringMatching(MICROS_Z);
const NAME_RULE =
  'starts with a letter or digit; letters, digits, spaces and _ . - only; at most 100 characters';

describeEachDatabase('API v2 projects', (use) => {
  let w: ProjectWorld;
  let admin: string;
  let base: string;

  const auditOf = (resourceName: string) =>
    w.services.database.db
      .selectFrom('audit_log')
      .select(['action', 'resource_type', 'resource_name', 'actor_type', 'actor_name', 'changes'])
      .where('organization_id', '=', w.org.id)
      .where('resource_name', '=', resourceName)
      .orderBy('created_at')
      .execute();

  beforeAll(async () => {
    w = await buildProjectWorld(use(), 'proj');
    admin = await w.token({ mode: 'write', scopes: ['projects:write', 'subscriptions:write'] });
    base = `/api/v2/organizations/${w.org.name}/projects`;
  });
  afterAll(() => w.close());

  describe('POST /organizations/<org>/projects', () => {
    it('creates a project and answers 201 with its detail, audited with the token as actor', async () => {
      const res = await w.call('POST', base, admin, { name: 'Web shop', description: 'The storefront' });
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body).toEqual({
        id: expect.stringMatching(UUID_RE),
        created_at: timestamp,
        updated_at: timestamp,
        name: 'Web shop',
        description: 'The storefront',
        active: true,
        subscriptions_count: 0,
        subscriptions: { vendors: [], products: {} },
      });
      expect(body.updated_at).toBe(body.created_at);
      expect(await auditOf('Web shop')).toEqual([
        {
          action: 'project.create',
          resource_type: 'project',
          resource_name: 'Web shop',
          actor_type: 'token',
          actor_name: 'test',
          changes: {
            name: { old: null, new: 'Web shop' },
            description: { old: null, new: 'The storefront' },
            active: { old: null, new: true },
          },
        },
      ]);
    });

    it('takes active: false and defaults the description to empty', async () => {
      const res = await w.call('POST', base, admin, { name: 'archive', active: false });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ name: 'archive', description: '', active: false });
    });

    it('answers 400 for a name the organization already has', async () => {
      expectValidation(await w.call('POST', base, admin, { name: 'Web shop' }), {
        name: ['This project already exists.'],
      });
    });

    it('answers 400 for a name outside the naming rules', async () => {
      for (const name of ['-web', 'a/b', ' web', 'x'.repeat(101)]) {
        const res = await w.call('POST', base, admin, { name });
        expect(res.statusCode).toBe(400);
        if (name.length <= 100) expectValidation(res, { name: [NAME_RULE] });
      }
    });

    it('answers 400 for an unknown field, a missing name, a wrong type', async () => {
      expectValidation(await w.call('POST', base, admin, { name: 'x1', subscriptions: {} }), {
        subscriptions: ['subscriptions is not a known field; the known fields are name, description, active'],
      });
      expectValidation(await w.call('POST', base, admin, { description: 'no name' }), {
        name: ['name is required'],
      });
      const res = await w.call('POST', base, admin, { name: 'x1', active: 'maybe' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('validation_error');
    });

    it('answers 400 for a description with a NUL character, which PostgreSQL text cannot hold', async () => {
      expectValidation(await w.call('POST', base, admin, { name: 'nul', description: 'a\u0000b' }), {
        description: ['must not contain NUL characters'],
      });
    });

    it('answers 403 read_only_token to a read token, 403 missing_scope without projects:write', async () => {
      expectReadOnly(await w.call('POST', base, await w.token({ mode: 'read' }), { name: 'ro' }));
      const readScope = await w.token({ mode: 'write', scopes: ['projects:read', 'tracker:write'] });
      expectMissingScope(await w.call('POST', base, readScope, { name: 'ro' }), 'projects:write');
    });

    it('answers 401 without a valid token', async () => {
      expectInvalidToken(await w.call('POST', base, 'Bearer vtr_org.nope.nope', { name: 'x' }));
    });
  });

  describe('GET /organizations/<org>/projects', () => {
    it('lists the projects by name with their subscription counts', async () => {
      // An inactive project's nested routes are a 404 (as on OpenCVE): subscribe while it is active.
      expectNotFound(await w.call('PUT', `${base}/archive/subscriptions`, admin, { vendors: [] }));
      expect((await w.call('PATCH', `${base}/archive`, admin, { active: true })).statusCode).toBe(200);
      const put = await w.call('PUT', `${base}/archive/subscriptions`, admin, {
        vendors: ['tukaani'],
        products: { google: ['chrome', 'android'] },
      });
      expect(put.statusCode).toBe(200);
      expect((await w.call('PATCH', `${base}/archive`, admin, { active: false })).statusCode).toBe(200);
      const reader = await w.token({ mode: 'read', scopes: ['projects:read'] });
      const res = await w.call('GET', base, reader);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        count: 2,
        next: null,
        previous: null,
        results: [
          {
            id: expect.stringMatching(UUID_RE),
            created_at: timestamp,
            updated_at: timestamp,
            name: 'Web shop',
            description: 'The storefront',
            active: true,
            subscriptions_count: 0,
          },
          {
            id: expect.stringMatching(UUID_RE),
            created_at: timestamp,
            updated_at: timestamp,
            name: 'archive',
            description: '',
            active: false,
            subscriptions_count: 3,
          },
        ],
      });
    });

    it('pages with page_size and answers 404 past the last page', async () => {
      const res = await w.call('GET', `${base}?page_size=1&page=2`, admin);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        count: 2,
        next: null,
        previous: `http://localhost:80${base}?page_size=1&page=1`,
        results: [{ name: 'archive' }],
      });
      expectNotFound(await w.call('GET', `${base}?page=3&page_size=1`, admin));
    });

    it('answers 404 for another organization and 403 without projects:read', async () => {
      expectNotFound(await w.call('GET', `/api/v2/organizations/${w.other.name}/projects`, admin));
      expectNotFound(await w.call('GET', base, w.other.header));
      const catalogOnly = await w.token({ mode: 'read', scopes: ['catalog:read'] });
      expectMissingScope(await w.call('GET', base, catalogOnly), 'projects:read');
    });
  });

  describe('GET /organizations/<org>/projects/<project>', () => {
    it('answers the project with its subscriptions', async () => {
      const res = await w.call('GET', `${base}/archive`, admin);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        id: expect.stringMatching(UUID_RE),
        created_at: timestamp,
        updated_at: timestamp,
        name: 'archive',
        description: '',
        active: false,
        subscriptions_count: 3,
        subscriptions: { vendors: ['tukaani'], products: { google: ['android', 'chrome'] } },
      });
    });

    it('finds a name with a space (URL-encoded)', async () => {
      const res = await w.call('GET', `${base}/Web%20shop`, admin);
      expect(res.statusCode).toBe(200);
      expect(res.json().name).toBe('Web shop');
    });

    it('answers 404 for an unknown project, a name no project can have, another organization', async () => {
      expectNotFound(await w.call('GET', `${base}/nope`, admin));
      expectNotFound(await w.call('GET', `${base}/..%2Fetc`, admin));
      expectNotFound(await w.call('GET', `/api/v2/organizations/${w.other.name}/projects/archive`, admin));
    });
  });

  describe('PATCH /organizations/<org>/projects/<project>', () => {
    it('changes the fields given and audits old and new values', async () => {
      const before = (await w.call('GET', `${base}/Web%20shop`, admin)).json();
      const res = await w.call('PATCH', `${base}/Web%20shop`, admin, { name: 'shop', active: false });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toEqual({
        ...before,
        name: 'shop',
        active: false,
        updated_at: timestamp,
      });
      expect(body.updated_at > before.updated_at).toBe(true);
      expect(await auditOf('shop')).toEqual([
        {
          action: 'project.update',
          resource_type: 'project',
          resource_name: 'shop',
          actor_type: 'token',
          actor_name: 'test',
          changes: { name: { old: 'Web shop', new: 'shop' }, active: { old: true, new: false } },
        },
      ]);
      expectNotFound(await w.call('GET', `${base}/Web%20shop`, admin));
    });

    it('changes nothing, and audits nothing, when the values are the current ones', async () => {
      const before = (await w.call('GET', `${base}/shop`, admin)).json();
      const res = await w.call('PATCH', `${base}/shop`, admin, {
        name: 'shop',
        description: 'The storefront',
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(before);
      expect(await auditOf('shop')).toHaveLength(1);
    });

    it('answers 400 for a taken name, a bad name, an unknown field; 404 for an unknown project', async () => {
      expectValidation(await w.call('PATCH', `${base}/shop`, admin, { name: 'archive' }), {
        name: ['This project already exists.'],
      });
      expectValidation(await w.call('PATCH', `${base}/shop`, admin, { name: '.hidden' }), {
        name: [NAME_RULE],
      });
      expectValidation(await w.call('PATCH', `${base}/shop`, admin, { owner: 'x' }), {
        owner: ['owner is not a known field; the known fields are name, description, active'],
      });
      expectNotFound(await w.call('PATCH', `${base}/nope`, admin, { description: 'x' }));
    });

    it('answers 403 to a read token and to a token without projects:write', async () => {
      expectReadOnly(
        await w.call('PATCH', `${base}/shop`, await w.token({ mode: 'read' }), { active: true }),
      );
      const subsOnly = await w.token({ mode: 'write', scopes: ['subscriptions:write'] });
      expectMissingScope(await w.call('PATCH', `${base}/shop`, subsOnly, { active: true }), 'projects:write');
    });
  });

  describe('DELETE /organizations/<org>/projects/<project>', () => {
    it('answers 403 to a read token and 404 for an unknown project', async () => {
      expectReadOnly(await w.call('DELETE', `${base}/archive`, await w.token({ mode: 'read' })));
      expectNotFound(await w.call('DELETE', `${base}/nope`, admin));
    });

    it('deletes the project with its subscriptions, answers 204, and audits it', async () => {
      const res = await w.call('DELETE', `${base}/archive`, admin);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expectNotFound(await w.call('GET', `${base}/archive`, admin));
      const left = await w.services.database.db
        .selectFrom('project_subscription')
        .innerJoin('project', 'project.id', 'project_subscription.project_id')
        .select('vendor_key')
        .where('project.organization_id', '=', w.org.id)
        .execute();
      expect(left).toEqual([]);
      const audit = await auditOf('archive');
      expect(audit.map((e) => e.action)).toEqual([
        'project.create',
        'project.update',
        'subscription.update',
        'project.update',
        'project.delete',
      ]);
      expect(audit[4]).toEqual({
        action: 'project.delete',
        resource_type: 'project',
        resource_name: 'archive',
        actor_type: 'token',
        actor_name: 'test',
        changes: {
          name: { old: 'archive', new: null },
          description: { old: '', new: null },
          active: { old: false, new: null },
        },
      });
    });
  });
});
