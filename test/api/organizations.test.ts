import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server.ts';
import { parseConfig } from '../../src/config.ts';
import { servicesFor } from '../../src/main.ts';
import type { Services } from '../../src/services/services.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import {
  bearer,
  createTestOrganization,
  expectInvalidToken,
  expectMissingScope,
  expectNotFound,
  expectReadOnly,
  expectValidationError,
  MICROS_Z,
  UUID,
  type TestOrganization,
} from '../helpers/organizations.ts';

describeEachDatabase('API v2 organizations', (use) => {
  let app: Awaited<ReturnType<typeof buildApp>>;
  let services: Services;
  let acme: TestOrganization;
  let other: TestOrganization;
  let readToken: string;
  let writeToken: string;

  beforeAll(async () => {
    services = servicesFor(parseConfig({}), use(), 'x'.repeat(32));
    app = await buildApp({ services, logger: false });
    acme = await createTestOrganization(services, 'orgs');
    other = await createTestOrganization(services, 'orgs');
    readToken = (await acme.token('read')).token;
    writeToken = (await acme.token('write')).token;
    // Two projects, and a pending invitation that members_count leaves out.
    await use()
      .db.insertInto('project')
      .values([
        { organization_id: acme.id, name: 'web' },
        { organization_id: acme.id, name: 'mobile' },
      ])
      .execute();
    await services.members.invite(
      acme.id,
      { email: 'pending@example.com' },
      { type: 'system', id: null, name: 'system' },
    );
  });
  afterAll(() => app.close());

  const get = (url: string, token?: string) =>
    app.inject({ method: 'GET', url, headers: token === undefined ? {} : bearer(token) });
  const patch = (url: string, token: string, payload: unknown) =>
    app.inject({ method: 'PATCH', url, headers: bearer(token), payload: payload as object });

  function expectOrganization(body: unknown, org: TestOrganization, counts = { members: 1, projects: 2 }) {
    expect(body).toEqual({
      id: org.id,
      created_at: expect.stringMatching(MICROS_Z),
      updated_at: expect.stringMatching(MICROS_Z),
      name: org.name,
      members_count: counts.members,
      projects_count: counts.projects,
    });
  }

  describe('authentication (every endpoint)', () => {
    const endpoints = () => [
      { method: 'GET' as const, url: '/api/v2/organizations' },
      { method: 'GET' as const, url: `/api/v2/organizations/${acme.name}` },
      { method: 'PATCH' as const, url: `/api/v2/organizations/${acme.name}`, payload: { name: 'x' } },
    ];

    it('answers 401 invalid_token with WWW-Authenticate: Bearer without a token', async () => {
      for (const e of endpoints()) expectInvalidToken(await app.inject(e));
    });

    it('answers 401 for a malformed token', async () => {
      for (const authorization of [
        'Bearer nope',
        'Basic dXNlcjpwYXNz',
        `Bearer ${writeToken}x`,
        writeToken,
      ]) {
        for (const e of endpoints())
          expectInvalidToken(await app.inject({ ...e, headers: { authorization } }));
      }
    });

    it('answers 401 for a well-formed token that does not exist', async () => {
      const forged = writeToken.replace(/\.[A-Za-z0-9]{32}$/, `.${'A'.repeat(32)}`);
      for (const e of endpoints()) expectInvalidToken(await app.inject({ ...e, headers: bearer(forged) }));
    });

    it('answers 401 for a revoked token', async () => {
      const { token, tokenId } = await acme.token('write');
      expect((await get('/api/v2/organizations', token)).statusCode).toBe(200);
      await services.tokens.revoke(acme.id, tokenId, { type: 'user', id: acme.owner.id, name: 'owner' });
      for (const e of endpoints()) expectInvalidToken(await app.inject({ ...e, headers: bearer(token) }));
    });
  });

  describe('GET /organizations', () => {
    it("lists the token's organization only, as a page of one", async () => {
      const res = await get('/api/v2/organizations', readToken);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(Object.keys(body)).toEqual(['count', 'next', 'previous', 'results']);
      expect(body).toMatchObject({ count: 1, next: null, previous: null });
      expect(body.results).toHaveLength(1);
      expectOrganization(body.results[0], acme);

      const theirs = await get('/api/v2/organizations', (await other.token('read')).token);
      expect(theirs.json().results.map((o: { name: string }) => o.name)).toEqual([other.name]);
    });

    it('answers 404 for a page past the last and 400 for bad paging values', async () => {
      expectNotFound(await get('/api/v2/organizations?page=2', readToken));
      for (const q of ['page=0', 'page=abc', 'page_size=0', 'page_size=101', 'page=-1']) {
        const details = expectValidationError(await get(`/api/v2/organizations?${q}`, readToken));
        expect(Object.keys(details)).toEqual([q.split('=')[0]]);
      }
    });

    it('ignores unknown query parameters', async () => {
      expect((await get('/api/v2/organizations?ordering=name', readToken)).statusCode).toBe(200);
    });

    it('needs org:read (org:write includes it)', async () => {
      const { token } = await acme.token('read', ['catalog:read']);
      expectMissingScope(await get('/api/v2/organizations', token), 'org:read');
      expect(
        (await get('/api/v2/organizations', (await acme.token('read', ['org:read'])).token)).statusCode,
      ).toBe(200);
      expect(
        (await get('/api/v2/organizations', (await acme.token('write', ['org:write'])).token)).statusCode,
      ).toBe(200);
    });
  });

  describe('GET /organizations/<org>', () => {
    it('returns the organization with joined members and projects counted', async () => {
      const res = await get(`/api/v2/organizations/${acme.name}`, readToken);
      expect(res.statusCode).toBe(200);
      expectOrganization(res.json(), acme);
    });

    it('answers 404 for another organization and for one that does not exist', async () => {
      expectNotFound(await get(`/api/v2/organizations/${other.name}`, readToken));
      expectNotFound(await get('/api/v2/organizations/no-such-org', readToken));
    });

    it('needs org:read', async () => {
      const { token } = await acme.token('write', ['members:write']);
      expectMissingScope(await get(`/api/v2/organizations/${acme.name}`, token), 'org:read');
    });
  });

  describe('PATCH /organizations/<org>', () => {
    it('renames the organization, moves its paths and records who changed what', async () => {
      const org = await createTestOrganization(services, 'rename');
      const { token, tokenId, name: tokenName } = await org.token('write', ['org:write', 'audit_logs:read']);
      const before = (await get(`/api/v2/organizations/${org.name}`, token)).json();
      const newName = `${org.name}-Renamed`;

      const res = await patch(`/api/v2/organizations/${org.name}`, token, { name: newName });
      expect(res.statusCode).toBe(200);
      expectOrganization(res.json(), { ...org, name: newName }, { members: 1, projects: 0 });
      expect(res.json().created_at).toBe(before.created_at);
      expect(res.json().updated_at > before.updated_at).toBe(true);

      expectNotFound(await get(`/api/v2/organizations/${org.name}`, token));
      expect((await get(`/api/v2/organizations/${newName}`, token)).json().name).toBe(newName);

      const log = await get(`/api/v2/organizations/${newName}/audit-logs?action=organization.update`, token);
      expect(log.json().results).toEqual([
        {
          id: expect.stringMatching(UUID),
          created_at: expect.stringMatching(MICROS_Z),
          actor: { type: 'token', id: tokenId, name: tokenName },
          action: 'organization.update',
          resource: { type: 'organization', id: org.id, name: newName },
          changes: { name: { old: org.name, new: newName } },
        },
      ]);
    });

    it('changes nothing and records nothing when the name is the current one', async () => {
      const org = await createTestOrganization(services, 'same');
      const { token } = await org.token('write');
      const before = (await get(`/api/v2/organizations/${org.name}`, token)).json();
      const res = await patch(`/api/v2/organizations/${org.name}`, token, { name: org.name });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(before);
      const log = await get(`/api/v2/organizations/${org.name}/audit-logs?action=organization.update`, token);
      expect(log.json().count).toBe(0);
    });

    it('answers 400 with details.name for a name that is not a slug or is taken', async () => {
      for (const name of ['has space', 'dots.not.allowed', '', 'ünïcode', 'a'.repeat(101)]) {
        const details = expectValidationError(
          await patch(`/api/v2/organizations/${acme.name}`, writeToken, { name }),
        );
        expect(Object.keys(details)).toEqual(['name']);
      }
      const taken = await patch(`/api/v2/organizations/${acme.name}`, writeToken, { name: other.name });
      expect(expectValidationError(taken)).toEqual({ name: ['This organization name is not available.'] });
      for (const name of ['add', 'Settings', 'invitations']) {
        const reserved = await patch(`/api/v2/organizations/${acme.name}`, writeToken, { name });
        expect(expectValidationError(reserved)).toEqual({ name: ['This organization is reserved.'] });
      }
    });

    it('answers 400 for unknown fields, a missing name, a wrong type or a body that is not an object', async () => {
      const url = `/api/v2/organizations/${acme.name}`;
      expect(expectValidationError(await patch(url, writeToken, { name: 'ok', plan: 'pro' }))).toEqual({
        plan: ['plan is not a known field; the known fields are name'],
      });
      expect(expectValidationError(await patch(url, writeToken, {}))).toEqual({
        name: ['name is required'],
      });
      for (const name of [{ first: 'x' }, ['a', 'b'], null]) {
        expect(Object.keys(expectValidationError(await patch(url, writeToken, { name })))).toEqual(['name']);
      }
      expectValidationError(await patch(url, writeToken, [1, 2]));
      const malformed = await app.inject({
        method: 'PATCH',
        url,
        headers: { ...bearer(writeToken), 'content-type': 'application/json' },
        payload: '{"name":',
      });
      expectValidationError(malformed);
      expect((await get(url, readToken)).json().name).toBe(acme.name);
    });

    it('answers 403 read_only_token for a read token, even one holding org:write', async () => {
      expectReadOnly(await patch(`/api/v2/organizations/${acme.name}`, readToken, { name: 'x' }));
      const { token } = await acme.token('read', ['org:write']);
      expectReadOnly(await patch(`/api/v2/organizations/${acme.name}`, token, { name: 'x' }));
    });

    it('answers 403 missing_scope without org:write', async () => {
      const { token } = await acme.token('write', ['org:read', 'members:write']);
      expectMissingScope(
        await patch(`/api/v2/organizations/${acme.name}`, token, { name: 'x' }),
        'org:write',
      );
    });

    it('answers 404 for another organization, before looking at the body', async () => {
      expectNotFound(await patch(`/api/v2/organizations/${other.name}`, writeToken, { name: 'stolen' }));
      expectNotFound(await patch(`/api/v2/organizations/${other.name}`, writeToken, { bad: true }));
      expect(
        (await get('/api/v2/organizations', (await other.token('read')).token)).json().results[0].name,
      ).toBe(other.name);
    });
  });
});
