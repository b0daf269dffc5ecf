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
  expectValidationError,
  MICROS_Z,
  UUID,
  type TestOrganization,
} from '../helpers/organizations.ts';

interface Entry {
  id: string;
  created_at: string;
  actor: { type: string; id: string | null; name: string | null };
  action: string;
  resource: { type: string; id: string | null; name: string | null };
  changes: Record<string, unknown>;
}

describeEachDatabase('API v2 audit logs', (use) => {
  let app: Awaited<ReturnType<typeof buildApp>>;
  let services: Services;
  let acme: TestOrganization;
  let other: TestOrganization;
  let auditToken: string;
  let write: { token: string; tokenId: string; name: string };
  let invitedId: string;
  let originalName: string;
  let ownerMemberId: string;

  const url = () => `/api/v2/organizations/${acme.name}/audit-logs`;
  const get = (path: string, token: string) =>
    app.inject({ method: 'GET', url: path, headers: bearer(token) });

  beforeAll(async () => {
    services = servicesFor(parseConfig({}), use(), 'x'.repeat(32));
    app = await buildApp({ services, logger: false });
    acme = await createTestOrganization(services, 'audit');
    other = await createTestOrganization(services, 'audit');
    originalName = acme.name;
    auditToken = (await acme.token('read', ['audit_logs:read'])).token;
    write = await acme.token('write', ['org:write', 'members:write']);
    const h = bearer(write.token);
    const membersUrl = `/api/v2/organizations/${acme.name}/members`;
    invitedId = (
      await app.inject({ method: 'POST', url: membersUrl, headers: h, payload: { email: 'ann@example.com' } })
    ).json().id;
    await app.inject({
      method: 'PATCH',
      url: `${membersUrl}/${invitedId}`,
      headers: h,
      payload: { role: 'owner' },
    });
    await app.inject({ method: 'DELETE', url: `${membersUrl}/${invitedId}`, headers: h });
    await app.inject({
      method: 'PATCH',
      url: `/api/v2/organizations/${acme.name}`,
      headers: h,
      payload: { name: `${acme.name}-new` },
    });
    acme = { ...acme, name: `${acme.name}-new` };
    const members = await services.members.list(acme.id, { page: 1, pageSize: 1 });
    ownerMemberId = members.items[0]!.id;
  });
  afterAll(() => app.close());

  describe('GET /organizations/<org>/audit-logs', () => {
    it('lists every change of the organization, newest first, with actor, resource and changed fields', async () => {
      const res = await get(url(), auditToken);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(Object.keys(body)).toEqual(['count', 'next', 'previous', 'results']);
      expect(body).toMatchObject({ count: 8, next: null, previous: null });
      const tokenActor = { type: 'token', id: write.tokenId, name: write.name };
      const ownerActor = { type: 'user', id: acme.owner.id, name: acme.owner.username };
      const member = (name: string) => ({ type: 'member', id: invitedId, name });
      const entries = (body.results as Entry[]).map(({ id, created_at, ...rest }) => {
        expect(id).toMatch(UUID);
        expect(created_at).toMatch(MICROS_Z);
        return rest;
      });
      const tokenEntry = (name: string) => ({
        actor: ownerActor,
        action: 'token.create',
        resource: { type: 'token', id: expect.any(String), name },
        changes: expect.any(Object),
      });
      expect(entries).toEqual([
        {
          actor: tokenActor,
          action: 'organization.update',
          resource: { type: 'organization', id: acme.id, name: acme.name },
          changes: { name: { old: originalName, new: acme.name } },
        },
        {
          actor: tokenActor,
          action: 'member.delete',
          resource: member('ann@example.com'),
          changes: { email: { old: 'ann@example.com', new: null }, role: { old: 'owner', new: null } },
        },
        {
          actor: tokenActor,
          action: 'member.update',
          resource: member('ann@example.com'),
          changes: { role: { old: 'member', new: 'owner' } },
        },
        {
          actor: tokenActor,
          action: 'member.create',
          resource: member('ann@example.com'),
          changes: { email: { old: null, new: 'ann@example.com' }, role: { old: null, new: 'member' } },
        },
        tokenEntry(write.name),
        tokenEntry('read-audit_logs:read-1'),
        {
          actor: ownerActor,
          action: 'member.create',
          resource: { type: 'member', id: ownerMemberId, name: acme.owner.email },
          changes: { email: { old: null, new: acme.owner.email }, role: { old: null, new: 'owner' } },
        },
        {
          actor: ownerActor,
          action: 'organization.create',
          resource: { type: 'organization', id: acme.id, name: originalName },
          changes: { name: { old: null, new: originalName } },
        },
      ]);
    });

    it('filters by action, by resource type and since an instant', async () => {
      const actions = async (query: string) =>
        ((await get(`${url()}?${query}`, auditToken)).json().results as Entry[]).map((e) => e.action);
      expect(await actions('action=member.update')).toEqual(['member.update']);
      expect(await actions('action=project.create')).toEqual([]);
      expect(await actions('resource=member')).toEqual([
        'member.delete',
        'member.update',
        'member.create',
        'member.create',
      ]);
      expect(await actions('resource=organization&action=organization.create')).toEqual([
        'organization.create',
      ]);
      // Inclusive: from the instant of the first change made through the API.
      const all = (await get(url(), auditToken)).json().results as Entry[];
      const since = all.find((e) => e.action === 'member.create' && e.resource.id === invitedId)!.created_at;
      expect(await actions(`since=${since}`)).toEqual([
        'organization.update',
        'member.delete',
        'member.update',
        'member.create',
      ]);
      expect(await actions(`since=${since}&resource=member`)).toEqual([
        'member.delete',
        'member.update',
        'member.create',
      ]);
      expect(await actions('since=2999-01-01')).toEqual([]);
      expect((await actions('since=2000-01-01')).length).toBe(8);
      expect((await actions('since=2000-01-01T00:00')).length).toBe(8);
      expect(await actions(`since=${encodeURIComponent('2999-01-01T00:00:00.123456+02:00')}`)).toEqual([]);
      expect(await actions('since=2999-01-01T00:00:00.5Z')).toEqual([]);
    });

    it('answers 400 for an invalid since, action or resource', async () => {
      const form = 'since must be a date (YYYY-MM-DD) or an ISO 8601 date-time such as 2024-03-29T16:51:12Z';
      const impossible = (since: string) =>
        `since is not a real date: "${since}" does not exist in the calendar`;
      const range = 'since is out of range: dates run from 0001-01-01 to 9999-12-31';
      for (const [since, message] of [
        ['yesterday', form],
        ['2024-02-30', impossible('2024-02-30')],
        ['2023-02-29', impossible('2023-02-29')],
        ['2024-13-01', impossible('2024-13-01')],
        ['2024-01-01T25:00', impossible('2024-01-01T25:00')],
        ['2024-01-01T10:00+25:00', form],
        ['', form],
        ['2024-1-1', form],
        ['0000-01-01', range],
        ['0001-01-01T00:00+01:00', range],
      ]) {
        const details = expectValidationError(
          await get(`${url()}?since=${encodeURIComponent(since!)}`, auditToken),
        );
        expect(details).toEqual({ since: [message] });
      }
      for (const query of ['action=DROP%20TABLE', 'action=member', 'resource=Member', 'resource=a.b']) {
        expect(Object.keys(expectValidationError(await get(`${url()}?${query}`, auditToken)))).toEqual([
          query.split('=')[0],
        ]);
      }
    });

    it('pages with page and page_size and answers 404 past the last page, 400 for bad paging values', async () => {
      const first = (await get(`${url()}?page_size=4&resource=member`, auditToken)).json();
      expect(first.count).toBe(4);
      expect(first.next).toBeNull();
      const page = (await get(`${url()}?page_size=3&page=2&resource=member`, auditToken)).json();
      expect(page.results.map((e: Entry) => e.action)).toEqual(['member.create']);
      expect(page.previous).toBe(`http://localhost:80${url()}?page_size=3&page=1&resource=member`);
      expectNotFound(await get(`${url()}?page=3&page_size=5`, auditToken));
      expect((await get(`${url()}?page=1&since=2999-01-01`, auditToken)).json()).toEqual({
        count: 0,
        next: null,
        previous: null,
        results: [],
      });
      for (const q of ['page=0', 'page_size=101', 'page=two']) {
        expect(Object.keys(expectValidationError(await get(`${url()}?${q}`, auditToken)))).toEqual([
          q.split('=')[0],
        ]);
      }
    });

    it('ignores unknown query parameters', async () => {
      expect((await get(`${url()}?ordering=-created_at&keyword=x`, auditToken)).json().count).toBe(8);
    });

    it('shows one organization only: another organization is not found, its entries never appear', async () => {
      expectNotFound(await get(`/api/v2/organizations/${other.name}/audit-logs`, auditToken));
      const theirs = (
        await get(`/api/v2/organizations/${other.name}/audit-logs`, (await other.token('read')).token)
      ).json();
      expect(
        (theirs.results as Entry[]).every((e) => e.resource.id !== acme.id && e.resource.id !== invitedId),
      ).toBe(true);
    });

    it('answers 404 under the old name after a rename', async () => {
      expectNotFound(await get(`/api/v2/organizations/${originalName}/audit-logs`, auditToken));
    });

    it('needs audit_logs:read; a read token may read it', async () => {
      expectMissingScope(await get(url(), write.token), 'audit_logs:read');
      expectMissingScope(
        await get(url(), (await acme.token('read', ['org:read', 'members:read'])).token),
        'audit_logs:read',
      );
      expect((await get(url(), (await acme.token('read')).token)).statusCode).toBe(200);
    });

    it('answers 401 without a token, with a malformed, unknown or revoked one', async () => {
      expectInvalidToken(await app.inject({ method: 'GET', url: url() }));
      expectInvalidToken(await get(url(), 'vtr_org.abc'));
      expectInvalidToken(await get(url(), auditToken.replace(/\.[A-Za-z0-9]{12}\./, '.AAAAAAAAAAAA.')));
      const { token, tokenId } = await acme.token('read');
      await services.tokens.revoke(acme.id, tokenId, { type: 'system', id: null, name: 'system' });
      expectInvalidToken(await get(url(), token));
    });
  });
});
