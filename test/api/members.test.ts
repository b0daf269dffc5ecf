import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server.ts';
import { parseConfig } from '../../src/config.ts';
import { servicesFor } from '../../src/main.ts';
import type { Services } from '../../src/services/services.ts';
import { AppError } from '../../src/domain/errors.ts';
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

interface Member {
  id: string;
  email: string;
  username: string | null;
  role: 'owner' | 'member';
  date_invited: string;
  date_joined: string | null;
  is_invited: boolean;
}

describeEachDatabase('API v2 members', (use) => {
  let app: Awaited<ReturnType<typeof buildApp>>;
  let services: Services;
  let acme: TestOrganization;
  let other: TestOrganization;
  let readToken: string;
  let writeToken: string;
  let writeTokenId: string;
  let writeTokenName: string;
  let otherMemberId: string;
  let users = 0;

  beforeAll(async () => {
    services = servicesFor(parseConfig({}), use(), 'x'.repeat(32));
    app = await buildApp({ services, logger: false });
    acme = await createTestOrganization(services, 'members');
    other = await createTestOrganization(services, 'members');
    readToken = (await acme.token('read')).token;
    ({ token: writeToken, tokenId: writeTokenId, name: writeTokenName } = await acme.token('write'));
    const invited = await services.members.invite(other.id, { email: 'theirs@example.com' }, tokenActor());
    otherMemberId = invited.id;
  });
  afterAll(() => app.close());

  const tokenActor = () => ({ type: 'token' as const, id: 'setup', name: 'setup' });
  const membersUrl = (org: TestOrganization) => `/api/v2/organizations/${org.name}/members`;
  const get = (url: string, token: string) => app.inject({ method: 'GET', url, headers: bearer(token) });
  const post = (url: string, token: string, payload?: unknown) =>
    app.inject({ method: 'POST', url, headers: bearer(token), payload: payload as object });
  const patch = (url: string, token: string, payload: unknown) =>
    app.inject({ method: 'PATCH', url, headers: bearer(token), payload: payload as object });
  const del = (url: string, token: string) => app.inject({ method: 'DELETE', url, headers: bearer(token) });

  async function newUser(prefix = 'user') {
    const n = ++users;
    return services.accounts.createUser({
      username: `${prefix}${n}`,
      email: `${prefix}${n}@example.com`,
      password: 'correct horse battery',
    });
  }

  async function auditOf(org: TestOrganization, query = '') {
    const { token } = await org.token('read', ['audit_logs:read']);
    return (await get(`/api/v2/organizations/${org.name}/audit-logs?page_size=100${query}`, token)).json()
      .results as { action: string; actor: unknown; resource: { id: string }; changes: unknown }[];
  }

  /** An organization whose owner is its only joined owner, with a write token. */
  async function freshOrganization(prefix: string) {
    const org = await createTestOrganization(services, prefix);
    const { token } = await org.token('write', ['members:write']);
    const members = (await get(membersUrl(org), token)).json().results as Member[];
    return { org, token, ownerId: members[0]!.id };
  }

  describe('authentication (every endpoint)', () => {
    const endpoints = () => [
      { method: 'GET' as const, url: membersUrl(acme) },
      { method: 'POST' as const, url: membersUrl(acme), payload: { email: 'a@example.com' } },
      { method: 'PATCH' as const, url: `${membersUrl(acme)}/${otherMemberId}`, payload: { role: 'owner' } },
      { method: 'DELETE' as const, url: `${membersUrl(acme)}/${otherMemberId}` },
    ];

    it('answers 401 without a token, with a malformed one, and with an unknown one', async () => {
      const forged = writeToken.replace(/\.[A-Za-z0-9]{32}$/, `.${'B'.repeat(32)}`);
      for (const e of endpoints()) {
        expectInvalidToken(await app.inject(e));
        expectInvalidToken(
          await app.inject({ ...e, headers: { authorization: 'Bearer vtr_org.short.secret' } }),
        );
        expectInvalidToken(await app.inject({ ...e, headers: { authorization: `Token ${writeToken}` } }));
        expectInvalidToken(await app.inject({ ...e, headers: bearer(forged) }));
      }
    });

    it('answers 401 for a revoked token', async () => {
      const { token, tokenId } = await acme.token('write');
      await services.tokens.revoke(acme.id, tokenId, tokenActor());
      for (const e of endpoints()) expectInvalidToken(await app.inject({ ...e, headers: bearer(token) }));
    });

    it('answers 404 for another organization whatever the token may do', async () => {
      for (const e of endpoints()) {
        expectNotFound(
          await app.inject({ ...e, url: e.url.replace(acme.name, other.name), headers: bearer(writeToken) }),
        );
      }
    });
  });

  describe('GET /organizations/<org>/members', () => {
    it('lists members and pending invitations in the order they were invited', async () => {
      const { org, token } = await freshOrganization('list');
      const user = await newUser();
      await post(membersUrl(org), token, { email: 'someone@example.com' });
      await post(membersUrl(org), token, { email: user.email, role: 'owner' });

      const res = await get(membersUrl(org), (await org.token('read', ['members:read'])).token);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toEqual({
        count: 3,
        next: null,
        previous: null,
        results: [
          {
            id: expect.stringMatching(UUID),
            email: org.owner.email,
            username: org.owner.username,
            role: 'owner',
            date_invited: expect.stringMatching(MICROS_Z),
            date_joined: expect.stringMatching(MICROS_Z),
            is_invited: false,
          },
          {
            id: expect.stringMatching(UUID),
            email: 'someone@example.com',
            username: null,
            role: 'member',
            date_invited: expect.stringMatching(MICROS_Z),
            date_joined: null,
            is_invited: true,
          },
          {
            id: expect.stringMatching(UUID),
            email: user.email,
            username: null,
            role: 'owner',
            date_invited: expect.stringMatching(MICROS_Z),
            date_joined: null,
            is_invited: true,
          },
        ],
      });
    });

    it('pages with page and page_size, keeping them in next and previous', async () => {
      const { org, token } = await freshOrganization('paging');
      await post(membersUrl(org), token, { email: 'p1@example.com' });
      await post(membersUrl(org), token, { email: 'p2@example.com' });
      const first = (await get(`${membersUrl(org)}?page_size=2`, token)).json();
      expect(first.count).toBe(3);
      expect(first.results).toHaveLength(2);
      expect(first.previous).toBeNull();
      expect(first.next).toBe(`http://localhost:80${membersUrl(org)}?page_size=2&page=2`);
      const second = (await get(`${membersUrl(org)}?page_size=2&page=2`, token)).json();
      expect(second.results.map((m: Member) => m.email)).toEqual(['p2@example.com']);
      expect(second.next).toBeNull();
      expect(second.previous).toBe(`http://localhost:80${membersUrl(org)}?page_size=2&page=1`);
      expectNotFound(await get(`${membersUrl(org)}?page_size=2&page=3`, token));
    });

    it('answers 400 for bad paging values', async () => {
      for (const q of ['page=0', 'page=x', 'page_size=1000', 'page_size=1.5']) {
        const details = expectValidationError(await get(`${membersUrl(acme)}?${q}`, readToken));
        expect(Object.keys(details)).toEqual([q.split('=')[0]]);
      }
    });

    it('needs members:read (members:write includes it)', async () => {
      expectMissingScope(
        await get(membersUrl(acme), (await acme.token('read', ['org:read'])).token),
        'members:read',
      );
      expect(
        (await get(membersUrl(acme), (await acme.token('read', ['members:write'])).token)).statusCode,
      ).toBe(200);
    });
  });

  describe('POST /organizations/<org>/members', () => {
    it('invites an email as member by default, pending, and records it', async () => {
      const res = await post(membersUrl(acme), writeToken, { email: '  New.Person@Example.COM ' });
      expect(res.statusCode).toBe(201);
      const member = res.json();
      expect(member).toEqual({
        id: expect.stringMatching(UUID),
        email: 'new.person@example.com',
        username: null,
        role: 'member',
        date_invited: expect.stringMatching(MICROS_Z),
        date_joined: null,
        is_invited: true,
      });
      const entry = (await auditOf(acme, '&action=member.create')).find((e) => e.resource.id === member.id);
      expect(entry).toEqual({
        id: expect.stringMatching(UUID),
        created_at: expect.stringMatching(MICROS_Z),
        actor: { type: 'token', id: writeTokenId, name: writeTokenName },
        action: 'member.create',
        resource: { type: 'member', id: member.id, name: 'new.person@example.com' },
        changes: { email: { old: null, new: 'new.person@example.com' }, role: { old: null, new: 'member' } },
      });
    });

    it('keeps the invitation of an existing user pending until they accept it', async () => {
      const user = await newUser();
      const res = await post(membersUrl(acme), writeToken, { email: user.email, role: 'owner' });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({
        email: user.email,
        username: null,
        role: 'owner',
        is_invited: true,
      });
      expect(res.json().date_joined).toBeNull();
      const org = (await get(`/api/v2/organizations/${acme.name}`, writeToken)).json();
      expect(org.members_count).toBe(1);
    });

    it("answers 400 with details.email for an email already invited or a member (any case), in OpenCVE's words", async () => {
      await post(membersUrl(acme), writeToken, { email: 'twice@example.com' });
      for (const email of ['twice@example.com', 'TWICE@example.com']) {
        expect(expectValidationError(await post(membersUrl(acme), writeToken, { email }))).toEqual({
          email: ['An invitation has already been sent to this email address'],
        });
      }
      expect(
        expectValidationError(await post(membersUrl(acme), writeToken, { email: acme.owner.email })),
      ).toEqual({ email: ['Member already exist'] });
    });

    it('answers 400 for an invalid email, an unknown role, unknown fields and a missing or wrong body', async () => {
      const url = membersUrl(acme);
      expect(expectValidationError(await post(url, writeToken, { email: 'not-an-email' }))).toEqual({
        email: ['not an email address'],
      });
      expect(Object.keys(expectValidationError(await post(url, writeToken, { email: 'x' })))).toEqual([
        'email',
      ]);
      expect(
        expectValidationError(await post(url, writeToken, { email: 'r@example.com', role: 'admin' })),
      ).toEqual({
        role: ['"admin" is not a valid choice. It must be one of: owner, member.'],
      });
      expect(
        expectValidationError(await post(url, writeToken, { email: 'r@example.com', name: 'R' })),
      ).toEqual({
        name: ['name is not a known field; the known fields are email, role'],
      });
      expect(expectValidationError(await post(url, writeToken, { role: 'member' }))).toEqual({
        email: ['email is required'],
      });
      expect(expectValidationError(await post(url, writeToken))).toEqual({
        body: ['the request body must be an object'],
      });
      expect(
        Object.keys(expectValidationError(await post(url, writeToken, { email: { address: 'a@b.c' } }))),
      ).toEqual(['email']);
      expect(
        Object.keys(expectValidationError(await post(url, writeToken, { email: `${'a'.repeat(320)}@x.io` }))),
      ).toEqual(['email']);
      const emails = ((await get(`${url}?page_size=100`, readToken)).json().results as Member[]).map(
        (m) => m.email,
      );
      expect(emails).not.toContain('r@example.com');
    });

    it('answers 403 read_only_token for a read token and missing_scope without members:write', async () => {
      expectReadOnly(await post(membersUrl(acme), readToken, { email: 'ro@example.com' }));
      expectReadOnly(
        await post(membersUrl(acme), (await acme.token('read', ['members:write'])).token, {
          email: 'ro@example.com',
        }),
      );
      const { token } = await acme.token('write', ['members:read', 'org:write']);
      expectMissingScope(await post(membersUrl(acme), token, { email: 'ro@example.com' }), 'members:write');
    });
  });

  describe('PATCH /organizations/<org>/members/<id>', () => {
    it('changes the role and records old and new', async () => {
      const invited = (await post(membersUrl(acme), writeToken, { email: 'promote@example.com' })).json();
      const res = await patch(`${membersUrl(acme)}/${invited.id}`, writeToken, { role: 'owner' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ...invited, role: 'owner' });
      const entries = (await auditOf(acme, '&action=member.update')).filter(
        (e) => e.resource.id === invited.id,
      );
      expect(entries).toEqual([
        {
          id: expect.stringMatching(UUID),
          created_at: expect.stringMatching(MICROS_Z),
          actor: { type: 'token', id: writeTokenId, name: writeTokenName },
          action: 'member.update',
          resource: { type: 'member', id: invited.id, name: 'promote@example.com' },
          changes: { role: { old: 'member', new: 'owner' } },
        },
      ]);
    });

    it('changes nothing and records nothing when the role is the current one', async () => {
      const invited = (await post(membersUrl(acme), writeToken, { email: 'same-role@example.com' })).json();
      const res = await patch(`${membersUrl(acme)}/${invited.id}`, writeToken, { role: 'member' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(invited);
      expect(
        (await auditOf(acme, '&action=member.update')).filter((e) => e.resource.id === invited.id),
      ).toEqual([]);
    });

    it('refuses to demote the last joined owner (pending owners do not count)', async () => {
      const { org, token, ownerId } = await freshOrganization('demote');
      await post(membersUrl(org), token, { email: 'pending-owner@example.com', role: 'owner' });
      expect(
        expectValidationError(await patch(`${membersUrl(org)}/${ownerId}`, token, { role: 'member' })),
      ).toEqual({
        role: ['You cannot demote the only owner of the organization.'],
      });
      const owner = (await get(membersUrl(org), token)).json().results[0];
      expect(owner.role).toBe('owner');
    });

    it('demotes an owner when another joined owner remains', async () => {
      const { org, token, ownerId } = await freshOrganization('two-owners');
      const user = await newUser();
      await post(membersUrl(org), token, { email: user.email, role: 'owner' });
      await services.accounts.acceptInvitation(user.id, org.name);
      const res = await patch(`${membersUrl(org)}/${ownerId}`, token, { role: 'member' });
      expect(res.statusCode).toBe(200);
      expect(res.json().role).toBe('member');
      const members = (await get(membersUrl(org), token)).json().results as Member[];
      expect(members.map((m) => [m.username, m.role])).toEqual([
        [org.owner.username, 'member'],
        [user.username, 'owner'],
      ]);
    });

    it('lets only one of two concurrent demotions of the last two owners through', async () => {
      const { org, token, ownerId } = await freshOrganization('race');
      const user = await newUser();
      const second = (await post(membersUrl(org), token, { email: user.email, role: 'owner' })).json();
      await services.accounts.acceptInvitation(user.id, org.name);
      const results = await Promise.all(
        [ownerId, second.id].map((id) => patch(`${membersUrl(org)}/${id}`, token, { role: 'member' })),
      );
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400]);
      const owners = ((await get(membersUrl(org), token)).json().results as Member[]).filter(
        (m) => m.role === 'owner',
      );
      expect(owners).toHaveLength(1);
    });

    it('answers 400 for a malformed id, a bad role, unknown fields and a missing role', async () => {
      const target = `${membersUrl(acme)}/${(await post(membersUrl(acme), writeToken, { email: 'bad-patch@example.com' })).json().id}`;
      expect(
        expectValidationError(await patch(`${membersUrl(acme)}/not-a-uuid`, writeToken, { role: 'owner' })),
      ).toEqual({
        id: ['id must be a UUID'],
      });
      expect(expectValidationError(await patch(target, writeToken, { role: 'admin' }))).toEqual({
        role: ['"admin" is not a valid choice. It must be one of: owner, member.'],
      });
      expect(
        expectValidationError(await patch(target, writeToken, { role: 'owner', email: 'x@y.z' })),
      ).toEqual({
        email: ['email is not a known field; the known fields are role'],
      });
      expect(expectValidationError(await patch(target, writeToken, {}))).toEqual({
        role: ['role is required'],
      });
      expect(
        (await get(membersUrl(acme) + '?page_size=100', readToken))
          .json()
          .results.find((m: Member) => m.email === 'bad-patch@example.com').role,
      ).toBe('member');
    });

    it("answers 404 for an unknown id and for another organization's member", async () => {
      expectNotFound(
        await patch(`${membersUrl(acme)}/00000000-0000-4000-8000-000000000000`, writeToken, {
          role: 'owner',
        }),
      );
      expectNotFound(await patch(`${membersUrl(acme)}/${otherMemberId}`, writeToken, { role: 'owner' }));
      const theirs = (await get(membersUrl(other), (await other.token('read')).token)).json()
        .results as Member[];
      expect(theirs.find((m) => m.id === otherMemberId)?.role).toBe('member');
    });

    it('answers 403 read_only_token for a read token and missing_scope without members:write', async () => {
      const url = `${membersUrl(acme)}/00000000-0000-4000-8000-000000000000`;
      expectReadOnly(await patch(url, readToken, { role: 'owner' }));
      expectMissingScope(
        await patch(url, (await acme.token('write', ['members:read'])).token, { role: 'owner' }),
        'members:write',
      );
    });
  });

  describe('DELETE /organizations/<org>/members/<id>', () => {
    it('removes a member, answers 204 with no body, and records what was removed', async () => {
      const invited = (
        await post(membersUrl(acme), writeToken, { email: 'leaving@example.com', role: 'owner' })
      ).json();
      const res = await del(`${membersUrl(acme)}/${invited.id}`, writeToken);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      const emails = (
        (await get(`${membersUrl(acme)}?page_size=100`, readToken)).json().results as Member[]
      ).map((m) => m.email);
      expect(emails).not.toContain('leaving@example.com');
      expectNotFound(await del(`${membersUrl(acme)}/${invited.id}`, writeToken));
      const entries = (await auditOf(acme, '&action=member.delete')).filter(
        (e) => e.resource.id === invited.id,
      );
      expect(entries).toEqual([
        {
          id: expect.stringMatching(UUID),
          created_at: expect.stringMatching(MICROS_Z),
          actor: { type: 'token', id: writeTokenId, name: writeTokenName },
          action: 'member.delete',
          resource: { type: 'member', id: invited.id, name: 'leaving@example.com' },
          changes: { email: { old: 'leaving@example.com', new: null }, role: { old: 'owner', new: null } },
        },
      ]);
    });

    it('refuses to remove the last joined owner, and allows it once another owner has joined', async () => {
      const { org, token, ownerId } = await freshOrganization('remove-owner');
      expect(expectValidationError(await del(`${membersUrl(org)}/${ownerId}`, token))).toEqual({
        id: ['Cannot remove the last owner.'],
      });
      const user = await newUser();
      await post(membersUrl(org), token, { email: user.email, role: 'owner' });
      expect((await del(`${membersUrl(org)}/${ownerId}`, token)).statusCode).toBe(400);
      await services.accounts.acceptInvitation(user.id, org.name);
      expect((await del(`${membersUrl(org)}/${ownerId}`, token)).statusCode).toBe(204);
      // The removed owner created the token used here: it stops working with them.
      expect((await get(membersUrl(org), token)).statusCode).toBe(401);
      const actor = { type: 'user' as const, id: user.id, name: user.username };
      const theirs = await services.tokens.create(
        org.id,
        { name: 'new-owner', mode: 'read', scopes: [] },
        actor,
      );
      const members = (await get(membersUrl(org), theirs.token)).json();
      expect(members.count).toBe(1);
      expect(members.results[0]).toMatchObject({ username: user.username, role: 'owner', is_invited: false });
    });

    it("revokes the tokens the removed member created, each audited, and no one else's", async () => {
      const { org, token } = await freshOrganization('remove-tokens');
      const leaving = await newUser('leaving');
      await post(membersUrl(org), token, { email: leaving.email, role: 'owner' });
      await services.accounts.acceptInvitation(leaving.id, org.name);
      const actor = { type: 'user' as const, id: leaving.id, name: leaving.username };
      const theirs = await services.tokens.create(
        org.id,
        { name: 'their-ci', mode: 'write', scopes: [] },
        actor,
      );
      const members = (await get(membersUrl(org), theirs.token)).json().results as Member[];
      expect(members).toHaveLength(2);
      const leavingId = members.find((m) => m.email === leaving.email)!.id;

      expect((await del(`${membersUrl(org)}/${leavingId}`, token)).statusCode).toBe(204);
      // Their write token could otherwise invite them back as owner.
      expect((await get(membersUrl(org), theirs.token)).statusCode).toBe(401);
      expect(
        (await post(membersUrl(org), theirs.token, { email: leaving.email, role: 'owner' })).statusCode,
      ).toBe(401);
      expect((await get(membersUrl(org), token)).statusCode).toBe(200);
      const revoked = (await auditOf(org, '&action=token.revoke')).filter(
        (e) => e.resource.id === theirs.record.tokenId,
      );
      expect(revoked).toEqual([
        expect.objectContaining({
          action: 'token.revoke',
          resource: { type: 'token', id: theirs.record.tokenId, name: 'their-ci' },
          changes: { revoked: { old: null, new: `its creator ${leaving.email} was removed` } },
        }),
      ]);
    });

    it("answers 400 for a malformed id and 404 for an unknown id or another organization's member", async () => {
      expect(expectValidationError(await del(`${membersUrl(acme)}/123`, writeToken))).toEqual({
        id: ['id must be a UUID'],
      });
      expectNotFound(await del(`${membersUrl(acme)}/00000000-0000-4000-8000-000000000000`, writeToken));
      expectNotFound(await del(`${membersUrl(acme)}/${otherMemberId}`, writeToken));
      const theirs = (await get(membersUrl(other), (await other.token('read')).token)).json()
        .results as Member[];
      expect(theirs.map((m) => m.id)).toContain(otherMemberId);
    });

    it('answers 403 read_only_token for a read token and missing_scope without members:write', async () => {
      const url = `${membersUrl(acme)}/00000000-0000-4000-8000-000000000000`;
      expectReadOnly(await del(url, readToken));
      expectMissingScope(
        await del(url, (await acme.token('write', ['members:read', 'org:write'])).token),
        'members:write',
      );
    });
  });

  describe('MemberService.findByEmail', () => {
    it('finds a joined member or a pending invitation by email, in any case and with spaces around it', async () => {
      const { org, ownerId } = await freshOrganization('by-email');
      const invited = await services.members.invite(org.id, { email: 'Pending@Example.com' }, tokenActor());

      expect(await services.members.findByEmail(org.id, ` ${org.owner.email.toUpperCase()} `)).toMatchObject({
        id: ownerId,
        username: org.owner.username,
      });
      expect(await services.members.findByEmail(org.id, 'PENDING@example.COM')).toMatchObject({
        id: invited.id,
        email: 'pending@example.com',
        date_joined: null,
      });
    });

    it("answers undefined for an unknown email and for another organization's invitation", async () => {
      const { org } = await freshOrganization('by-email');
      expect(await services.members.findByEmail(org.id, 'nobody@example.com')).toBeUndefined();
      expect(await services.members.findByEmail(org.id, 'theirs@example.com')).toBeUndefined();
    });
  });

  describe('AccountService.acceptInvitation', () => {
    it('joins an invited existing user, records it with the user as actor, and is idempotent', async () => {
      const { org, token } = await freshOrganization('accept');
      const user = await newUser();
      const invited = (await post(membersUrl(org), token, { email: user.email })).json();

      const joined = await services.accounts.acceptInvitation(user.id, org.name);
      expect(joined).toMatchObject({
        id: invited.id,
        user_id: user.id,
        username: user.username,
        role: 'member',
      });
      expect(joined.date_joined).toBeInstanceOf(Date);

      const listed = ((await get(membersUrl(org), token)).json().results as Member[]).find(
        (m) => m.id === invited.id,
      );
      expect(listed).toEqual({
        ...invited,
        username: user.username,
        date_joined: expect.stringMatching(MICROS_Z),
        is_invited: false,
      });
      expect(
        (await get(`/api/v2/organizations/${org.name}`, (await org.token('read')).token)).json()
          .members_count,
      ).toBe(2);

      const entries = await auditOf(org, '&action=member.join');
      expect(entries).toEqual([
        {
          id: expect.stringMatching(UUID),
          created_at: expect.stringMatching(MICROS_Z),
          actor: { type: 'user', id: user.id, name: user.username },
          action: 'member.join',
          resource: { type: 'member', id: invited.id, name: user.email },
          changes: {
            username: { old: null, new: user.username },
            date_joined: { old: null, new: joined.date_joined!.toISOString() },
          },
        },
      ]);

      const again = await services.accounts.acceptInvitation(user.id, org.name);
      expect(again).toEqual(joined);
      expect(await auditOf(org, '&action=member.join')).toHaveLength(1);
    });

    it('links an invitation sent before the user registered, by email', async () => {
      const { org, token } = await freshOrganization('later');
      await post(membersUrl(org), token, { email: 'Late.Comer@example.com', role: 'owner' });
      const user = await services.accounts.createUser({
        username: 'latecomer',
        email: 'late.comer@example.com',
        password: 'correct horse battery',
      });
      const joined = await services.accounts.acceptInvitation(user.id, org.name);
      expect(joined).toMatchObject({ user_id: user.id, role: 'owner', email: 'late.comer@example.com' });
    });

    it('answers not_found without an invitation, an organization or a user', async () => {
      const { org } = await freshOrganization('none');
      const stranger = await newUser('stranger');
      const notFound = expect.objectContaining({ code: 'not_found' }) as unknown as AppError;
      await expect(services.accounts.acceptInvitation(stranger.id, org.name)).rejects.toEqual(notFound);
      await expect(services.accounts.acceptInvitation(stranger.id, 'no-such-org')).rejects.toEqual(notFound);
      await expect(
        services.accounts.acceptInvitation('00000000-0000-4000-8000-000000000000', org.name),
      ).rejects.toEqual(notFound);
      // An invitation of another organization does not admit the user here.
      await services.members.invite(other.id, { email: stranger.email }, tokenActor());
      await expect(services.accounts.acceptInvitation(stranger.id, org.name)).rejects.toEqual(notFound);
    });
  });
});
