import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSecondsZ } from '../../src/domain/timestamps.ts';
import { TRIAGE_STATUSES } from '../../src/domain/triage.ts';
import { AccountRepository } from '../../src/db/account.repository.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import {
  buildProjectWorld,
  expectMissingScope,
  expectNotFound,
  expectReadOnly,
  expectValidation,
  MICROS_Z,
  REJECTED_GOOGLE_CVE,
  UUID_RE,
  type ProjectWorld,
} from '../helpers/projects.ts';

const timestamp = expect.stringMatching(MICROS_Z);
const UNTRACKED = { status: null, assignee: null, assigned_at: null, updated_at: null };

/**
 * The project subscribes to tukaani and google, and to debian's debian_linux: in the fixtures that is
 * CVE-2024-3094 (tukaani xz), CVE-2023-4863 (google chrome, debian_linux), CVE-2024-31331 (google
 * android), CVE-2022-20698 (debian_linux), newest update first. The REJECTED google CVE is not one.
 */
const PROJECT_CVES = ['CVE-2024-3094', 'CVE-2022-20698', 'CVE-2024-31331', 'CVE-2023-4863'];

describeEachDatabase('API v2 tracker', (use) => {
  let w: ProjectWorld;
  let admin: string;
  let base: string;
  let cves: string;
  /** The catalog list item of each CVE, as GET /cves/<id> shows its fields. */
  const catalog = new Map<
    string,
    { cve_id: string; description: string; created_at: string; updated_at: string }
  >();

  const item = (cveId: string, tracker: Record<string, unknown> = UNTRACKED) => ({
    ...catalog.get(cveId)!,
    tracker,
  });

  const trackerAudit = () =>
    w.services.database.db
      .selectFrom('audit_log')
      .select([
        'action',
        'resource_type',
        'resource_id',
        'resource_name',
        'actor_type',
        'actor_name',
        'changes',
      ])
      .where('organization_id', '=', w.org.id)
      .where('resource_type', '=', 'tracker_entry')
      .orderBy('created_at')
      .execute();

  beforeAll(async () => {
    w = await buildProjectWorld(use(), 'tracker');
    admin = await w.token({ mode: 'write' });
    base = `/api/v2/organizations/${w.org.name}/projects`;
    cves = `${base}/web/cves`;
    expect((await w.call('POST', base, admin, { name: 'web' })).statusCode).toBe(201);
    const subs = await w.call('PUT', `${base}/web/subscriptions`, admin, {
      vendors: ['tukaani', 'google'],
      products: { debian: ['debian_linux'] },
    });
    expect(subs.statusCode).toBe(200);
    const rows = await w.services.database.db
      .selectFrom('cve')
      .select(['cve_id', 'description', 'created_at', 'updated_at'])
      .execute();
    for (const r of rows) {
      catalog.set(r.cve_id, {
        created_at: toSecondsZ(r.created_at),
        updated_at: toSecondsZ(r.updated_at),
        cve_id: r.cve_id,
        description: r.description ?? '',
      });
    }
  });
  afterAll(() => w.close());

  describe('GET …/projects/<project>/cves', () => {
    it('lists exactly the catalog CVEs matching the subscriptions, untracked, newest update first', async () => {
      const reader = await w.token({ mode: 'read', scopes: ['tracker:read'] });
      const res = await w.call('GET', cves, reader);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        count: 4,
        next: null,
        previous: null,
        results: PROJECT_CVES.map((id) => item(id)),
      });
    });

    it('leaves out a REJECTED CVE even though it names a subscribed vendor', async () => {
      const rejected = await w.services.database.db
        .selectFrom('cve')
        .select(['state', 'vendors'])
        .where('cve_id', '=', REJECTED_GOOGLE_CVE)
        .executeTakeFirstOrThrow();
      expect(rejected.state).toBe('REJECTED');
      expect(rejected.vendors).toContain('google');
      const ids = (await w.call('GET', `${cves}?page_size=100`, admin))
        .json()
        .results.map((r: { cve_id: string }) => r.cve_id);
      expect(ids).not.toContain(REJECTED_GOOGLE_CVE);
      expectNotFound(await w.call('GET', `${cves}/${REJECTED_GOOGLE_CVE}`, admin));
    });

    it('takes the /cves filters, ordering and paging', async () => {
      const ids = async (query: string) => {
        const res = await w.call('GET', `${cves}?${query}`, admin);
        expect(res.statusCode).toBe(200);
        return res.json().results.map((r: { cve_id: string }) => r.cve_id);
      };
      expect(await ids('vendor=google')).toEqual(['CVE-2024-31331', 'CVE-2023-4863']);
      expect(await ids('vendor=debian&product=debian_linux&ordering=cve_id')).toEqual([
        'CVE-2022-20698',
        'CVE-2023-4863',
      ]);
      // Filters narrow the project's CVEs, never widen them: adobe is not subscribed.
      expect(await ids('vendor=adobe')).toEqual([]);
      expect(await ids('search=CVE-2024')).toEqual(['CVE-2024-3094', 'CVE-2024-31331']);
      expect(await ids('q=' + encodeURIComponent('cve:CVE-2024 OR vendor=debian'))).toEqual(PROJECT_CVES);
      expect(await ids('updated_gte=2024-09-01')).toEqual(['CVE-2024-3094', 'CVE-2022-20698']);
      const page = await w.call('GET', `${cves}?ordering=cve_id&page_size=3`, admin);
      expect(page.json()).toEqual({
        count: 4,
        next: `http://localhost:80${cves}?ordering=cve_id&page_size=3&page=2`,
        previous: null,
        // cve_id orders as text, as on /cves.
        results: ['CVE-2022-20698', 'CVE-2023-4863', 'CVE-2024-3094'].map((id) => item(id)),
      });
      expectNotFound(await w.call('GET', `${cves}?page=3&page_size=3`, admin));
    });

    it('answers 400 for a bad filter value', async () => {
      expect((await w.call('GET', `${cves}?status=fixed`, admin)).statusCode).toBe(400);
      expect((await w.call('GET', `${cves}?cvss=huge`, admin)).statusCode).toBe(400);
      const q = await w.call('GET', `${cves}?q=${encodeURIComponent('((')}`, admin);
      expect(q.statusCode).toBe(400);
      expect(q.json().error.code).toBe('validation_error');
    });

    it('answers 404 for an unknown project or another organization, 403 without tracker:read', async () => {
      expectNotFound(await w.call('GET', `${base}/nope/cves`, admin));
      expectNotFound(await w.call('GET', cves, w.other.header));
      const projectsOnly = await w.token({ mode: 'read', scopes: ['projects:read', 'catalog:read'] });
      expectMissingScope(await w.call('GET', cves, projectsOnly), 'tracker:read');
    });
  });

  describe('GET …/cves/<cve_id>', () => {
    it('answers one CVE of the project with its tracker', async () => {
      const res = await w.call('GET', `${cves}/CVE-2024-31331`, admin);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(item('CVE-2024-31331'));
    });

    it('answers 404 for a CVE outside the project or not in the catalog, 400 for a malformed id', async () => {
      expectNotFound(await w.call('GET', `${cves}/CVE-2011-0611`, admin));
      expectNotFound(await w.call('GET', `${cves}/CVE-2030-12345`, admin));
      expect((await w.call('GET', `${cves}/not-a-cve`, admin)).statusCode).toBe(400);
    });
  });

  describe('PATCH …/cves/<cve_id>', () => {
    const url = () => `${cves}/CVE-2024-3094`;

    it('sets a status, creating the entry, and audits old and new values', async () => {
      const res = await w.call('PATCH', url(), admin, { status: 'to_evaluate' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(
        item('CVE-2024-3094', {
          status: 'to_evaluate',
          assignee: null,
          assigned_at: null,
          updated_at: timestamp,
        }),
      );
      expect(await trackerAudit()).toEqual([
        {
          action: 'tracker_entry.create',
          resource_type: 'tracker_entry',
          resource_id: 'CVE-2024-3094',
          resource_name: 'web/CVE-2024-3094',
          actor_type: 'token',
          actor_name: 'test',
          changes: { status: { old: null, new: 'to_evaluate' } },
        },
      ]);
    });

    it('assigns a joined member by email (any case, blanks around), stamping assigned_at', async () => {
      const res = await w.call('PATCH', url(), admin, { assignee: ` ${w.member.email.toUpperCase()} ` });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toEqual(
        item('CVE-2024-3094', {
          status: 'to_evaluate',
          // OpenCVE 3.1's shape: the assignee is an object.
          assignee: { email: w.member.email },
          assigned_at: timestamp,
          updated_at: timestamp,
        }),
      );
      expect((await trackerAudit()).at(-1)).toMatchObject({
        action: 'tracker_entry.update',
        changes: { assignee: { old: null, new: w.member.email } },
      });
      expect((await w.call('GET', url(), admin)).json()).toEqual(body);
    });

    it('moves from any status to any other, each move one audit entry with old and new', async () => {
      const order = [...TRIAGE_STATUSES].reverse(); // backwards too: no order is imposed
      let previous = 'to_evaluate';
      const before = (await trackerAudit()).length;
      for (const status of [...order, 'pending_review', 'resolved', 'to_evaluate']) {
        const res = await w.call('PATCH', url(), admin, { status });
        expect(res.statusCode).toBe(200);
        expect(res.json().tracker.status).toBe(status);
        const last = (await trackerAudit()).at(-1)!;
        if (status !== previous) expect(last.changes).toEqual({ status: { old: previous, new: status } });
        previous = status;
      }
      // Every step changed the status, so every step is one entry.
      expect((await trackerAudit()).length - before).toBe(order.length + 3);
    });

    it('changes nothing, and audits nothing, when the values are the current ones', async () => {
      const current = (await w.call('GET', url(), admin)).json();
      const audited = (await trackerAudit()).length;
      const res = await w.call('PATCH', url(), admin, { status: 'to_evaluate', assignee: w.member.email });
      expect(res.json()).toEqual(current);
      expect(await w.call('PATCH', url(), admin, {}).then((r) => r.json())).toEqual(current);
      expect(await trackerAudit()).toHaveLength(audited);
    });

    it('answers 400 for an assignee who is not a joined member, and changes nothing', async () => {
      const current = (await w.call('GET', url(), admin)).json();
      for (const email of [w.outsider.email, w.invitedEmail, 'nobody@example.com', 'not an email']) {
        expectValidation(await w.call('PATCH', url(), admin, { status: 'resolved', assignee: email }), {
          assignee: [`${email} is not a member of this organization`],
        });
      }
      expect((await w.call('GET', url(), admin)).json()).toEqual(current);
    });

    it('answers 400 for an unknown status, an unknown field', async () => {
      // OpenCVE 3.1's sentence for a bad choice.
      expectValidation(await w.call('PATCH', url(), admin, { status: 'investigating' }), {
        status: [
          `"investigating" is not a valid choice. It must be one of: to_evaluate, pending_review, analysis_in_progress, remediation_in_progress, evaluated, resolved, not_applicable, risk_accepted (or null).`,
        ],
      });
      expectValidation(await w.call('PATCH', url(), admin, { priority: 'high' }), {
        priority: ['priority is not a known field; the known fields are status, assignee'],
      });
    });

    it('clears status and assignee with null, audited', async () => {
      const res = await w.call('PATCH', url(), admin, { status: null, assignee: null });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(
        item('CVE-2024-3094', { status: null, assignee: null, assigned_at: null, updated_at: timestamp }),
      );
      expect((await trackerAudit()).at(-1)).toMatchObject({
        action: 'tracker_entry.update',
        changes: { status: { old: 'to_evaluate', new: null }, assignee: { old: w.member.email, new: null } },
      });
    });

    it('answers 404 for a CVE outside the project, an unknown project; 403 to read-only and unscoped tokens', async () => {
      expectNotFound(await w.call('PATCH', `${cves}/CVE-2011-0611`, admin, { status: 'resolved' }));
      expectNotFound(await w.call('PATCH', `${base}/nope/cves/CVE-2024-3094`, admin, { status: 'resolved' }));
      expectReadOnly(await w.call('PATCH', url(), await w.token({ mode: 'read' }), { status: 'resolved' }));
      const reader = await w.token({ mode: 'write', scopes: ['tracker:read', 'projects:write'] });
      expectMissingScope(await w.call('PATCH', url(), reader, { status: 'resolved' }), 'tracker:write');
    });
  });

  describe('PATCH …/cves (bulk)', () => {
    it('moves several CVEs at once, one audit entry listing every CVE that moved, in the order given', async () => {
      await w.call('PATCH', `${cves}/CVE-2023-4863`, admin, { status: 'analysis_in_progress' });
      const audited = (await trackerAudit()).length;
      const ids = ['CVE-2024-31331', 'CVE-2023-4863', 'CVE-2022-20698', 'CVE-2024-31331'];
      const res = await w.call('PATCH', cves, admin, {
        cve_ids: ids,
        status: 'analysis_in_progress',
        assignee: w.member.email,
      });
      expect(res.statusCode).toBe(200);
      const moved = {
        status: 'analysis_in_progress',
        assignee: { email: w.member.email },
        assigned_at: timestamp,
        updated_at: timestamp,
      };
      expect(res.json()).toEqual({
        changed: 3,
        results: ['CVE-2024-31331', 'CVE-2023-4863', 'CVE-2022-20698'].map((id) => item(id, moved)),
      });
      // One entry for the whole move, listing each CVE that moved with its old and new values.
      const entries = (await trackerAudit()).slice(audited);
      expect(entries.map((e) => [e.action, e.resource_id, e.resource_name, e.actor_name, e.changes])).toEqual(
        [
          [
            'tracker_entry.bulk_update',
            null,
            'web',
            'test',
            {
              count: 3,
              cves: {
                'CVE-2022-20698': {
                  status: { old: null, new: 'analysis_in_progress' },
                  assignee: { old: null, new: w.member.email },
                },
                'CVE-2023-4863': { assignee: { old: null, new: w.member.email } },
                'CVE-2024-31331': {
                  status: { old: null, new: 'analysis_in_progress' },
                  assignee: { old: null, new: w.member.email },
                },
              },
            },
          ],
        ],
      );
    });

    it('answers 400 naming every CVE outside the project, and moves none (atomic)', async () => {
      const before = (await w.call('GET', cves, admin)).json();
      const audited = (await trackerAudit()).length;
      const res = await w.call('PATCH', cves, admin, {
        cve_ids: ['CVE-2024-3094', 'CVE-2011-0611', REJECTED_GOOGLE_CVE, 'CVE-2030-12345'],
        status: 'resolved',
      });
      expectValidation(res, {
        cve_ids: [
          'CVE-2011-0611 is not a CVE of this project',
          `${REJECTED_GOOGLE_CVE} is not a CVE of this project`,
          'CVE-2030-12345 is not a CVE of this project',
        ],
      });
      expect((await w.call('GET', cves, admin)).json()).toEqual(before);
      expect(await trackerAudit()).toHaveLength(audited);
    });

    it('answers 400 for a non-member assignee, an empty or oversized list, a malformed id', async () => {
      expectValidation(
        await w.call('PATCH', cves, admin, { cve_ids: ['CVE-2024-3094'], assignee: w.outsider.email }),
        {
          assignee: [`${w.outsider.email} is not a member of this organization`],
        },
      );
      for (const cve_ids of [
        [],
        Array.from({ length: 1001 }, (_, i) => `CVE-2024-${10000 + i}`),
        ['CVE-24-1'],
      ]) {
        const res = await w.call('PATCH', cves, admin, { cve_ids, status: 'resolved' });
        expect(res.statusCode).toBe(400);
        expect(res.json().error.code).toBe('validation_error');
      }
      expectValidation(await w.call('PATCH', cves, admin, { status: 'resolved' }), {
        cve_ids: ['cve_ids is required'],
      });
    });

    it('answers 403 to a read token, 404 for an unknown project', async () => {
      expectReadOnly(
        await w.call('PATCH', cves, await w.token({ mode: 'read' }), { cve_ids: ['CVE-2024-3094'] }),
      );
      expectNotFound(await w.call('PATCH', `${base}/nope/cves`, admin, { cve_ids: ['CVE-2024-3094'] }));
    });
  });

  describe('the tracker filters of the list', () => {
    const ids = async (query: string) => {
      const res = await w.call('GET', `${cves}?${query}`, admin);
      expect(res.statusCode).toBe(200);
      return res.json().results.map((r: { cve_id: string }) => r.cve_id);
    };

    it('filters by status, no_status (untracked or cleared) and assignee', async () => {
      expect(await ids('status=analysis_in_progress')).toEqual([
        'CVE-2022-20698',
        'CVE-2024-31331',
        'CVE-2023-4863',
      ]);
      expect(await ids('status=resolved')).toEqual([]);
      // CVE-2024-3094 has an entry whose status was cleared.
      expect(await ids('status=no_status')).toEqual(['CVE-2024-3094']);
      expect(await ids(`assignee=${encodeURIComponent(w.member.email)}`)).toEqual([
        'CVE-2022-20698',
        'CVE-2024-31331',
        'CVE-2023-4863',
      ]);
      expect(
        await ids(`assignee=${encodeURIComponent(w.member.email)}&status=analysis_in_progress&vendor=google`),
      ).toEqual(['CVE-2024-31331', 'CVE-2023-4863']);
      expect(await ids(`assignee=${encodeURIComponent(w.member.email)}&status=no_status`)).toEqual([]);
      expect(await ids(`assignee=${encodeURIComponent(w.owner.email)}`)).toEqual([]);
      expect(await ids('assignee=nobody%40example.com')).toEqual([]);
    });

    it('shows each tracker in the list', async () => {
      const res = await w.call('GET', `${cves}?vendor=tukaani`, admin);
      expect(res.json().results).toEqual([
        item('CVE-2024-3094', { status: null, assignee: null, assigned_at: null, updated_at: timestamp }),
      ]);
    });
  });

  describe('comments', () => {
    const url = () => `${cves}/CVE-2024-3094/comments`;

    it('adds a comment (201) with the token as author, and lists them oldest first', async () => {
      const writer = await w.token({ mode: 'write', scopes: ['tracker:write'], name: 'triage-bot' });
      const first = await w.call('POST', url(), writer, { body: 'Backdoor confirmed in 5.6.0 and 5.6.1.' });
      expect(first.statusCode).toBe(201);
      expect(first.json()).toEqual({
        id: expect.stringMatching(UUID_RE),
        created_at: timestamp,
        edited_at: null,
        author: { type: 'token', name: 'triage-bot' },
        body: 'Backdoor confirmed in 5.6.0 and 5.6.1.',
      });
      const long = 'x'.repeat(10_000);
      const second = await w.call('POST', url(), admin, { body: long });
      expect(second.statusCode).toBe(201);
      const reader = await w.token({ mode: 'read', scopes: ['tracker:read'] });
      const list = await w.call('GET', url(), reader);
      expect(list.statusCode).toBe(200);
      expect(list.json()).toEqual({
        count: 2,
        next: null,
        previous: null,
        results: [first.json(), second.json()],
      });
      const paged = await w.call('GET', `${url()}?page_size=1&page=2`, reader);
      expect(paged.json()).toMatchObject({ count: 2, next: null, results: [second.json()] });
      expectNotFound(await w.call('GET', `${url()}?page=3`, reader));
    });

    it('lists no comments of a CVE nobody commented on', async () => {
      const res = await w.call('GET', `${cves}/CVE-2024-31331/comments`, admin);
      expect(res.json()).toEqual({ count: 0, next: null, previous: null, results: [] });
    });

    it('answers 400 for a blank, missing, oversized body or an unknown field', async () => {
      expectValidation(await w.call('POST', url(), admin, { body: '   ' }), { body: ['must not be blank'] });
      expectValidation(await w.call('POST', url(), admin, { body: '' }), {
        body: ['body must not be empty'],
      });
      expectValidation(await w.call('POST', url(), admin, { body: 'x'.repeat(10_001) }), {
        body: ['body must be at most 10000 characters'],
      });
      expectValidation(await w.call('POST', url(), admin, {}), {
        body: ['body is required'],
      });
      expectValidation(await w.call('POST', url(), admin, { body: 'x', author: 'me' }), {
        author: ['author is not a known field; the known fields are body'],
      });
    });

    it('answers 404 for a CVE outside the project, 403 to read-only and unscoped tokens', async () => {
      expectNotFound(await w.call('GET', `${cves}/CVE-2011-0611/comments`, admin));
      expectNotFound(await w.call('POST', `${cves}/CVE-2011-0611/comments`, admin, { body: 'x' }));
      expectReadOnly(await w.call('POST', url(), await w.token({ mode: 'read' }), { body: 'x' }));
      const catalogOnly = await w.token({ mode: 'read', scopes: ['catalog:read'] });
      expectMissingScope(await w.call('GET', url(), catalogOnly), 'tracker:read');
    });
  });

  describe('editing and deleting comments', () => {
    const url = () => `${cves}/CVE-2024-3094/comments`;
    const comments = () =>
      w.services.database.db
        .selectFrom('audit_log')
        .select(['action', 'actor_name', 'resource_name', 'changes'])
        .where('organization_id', '=', w.org.id)
        .where('resource_type', '=', 'tracker_comment')
        .orderBy('created_at')
        .execute();

    it('lets the token that wrote a comment edit it (edited_at set) and delete it (204), both audited', async () => {
      const bot = await w.token({ mode: 'write', scopes: ['tracker:write'], name: 'edit-bot' });
      const created = (await w.call('POST', url(), bot, { body: 'draft' })).json() as { id: string };
      const edited = await w.call('PATCH', `${url()}/${created.id}`, bot, { body: 'final' });
      expect(edited.statusCode).toBe(200);
      expect(edited.json()).toMatchObject({ id: created.id, body: 'final', edited_at: timestamp });
      const list = (await w.call('GET', url(), bot)).json() as { results: { id: string; body: string }[] };
      expect(list.results.find((c) => c.id === created.id)?.body).toBe('final');
      const deleted = await w.call('DELETE', `${url()}/${created.id}`, bot);
      expect(deleted.statusCode).toBe(204);
      expectNotFound(await w.call('PATCH', `${url()}/${created.id}`, bot, { body: 'again' }));
      const audit = (await comments()).filter((a) => a.actor_name === 'edit-bot');
      expect(audit.map((a) => [a.action, a.changes])).toEqual([
        ['tracker_comment.create', {}],
        ['tracker_comment.update', { body: { old: 'draft', new: 'final' } }],
        ['tracker_comment.delete', { body: { old: 'final', new: null }, author: 'edit-bot' }],
      ]);
      expect(audit[0]!.resource_name).toBe('web/CVE-2024-3094');
    });

    it('refuses another token (403) and leaves the comment as it was', async () => {
      const author = await w.token({ mode: 'write', scopes: ['tracker:write'], name: 'author-bot' });
      const created = (await w.call('POST', url(), author, { body: 'keep me' })).json() as { id: string };
      const stranger = await w.token({ mode: 'write', scopes: ['tracker:write'], name: 'stranger' });
      const edit = await w.call('PATCH', `${url()}/${created.id}`, stranger, { body: 'changed' });
      expect(edit.statusCode).toBe(403);
      expect((edit.json() as { error: { message: string } }).error.message).toBe(
        'Only its author can edit a comment.',
      );
      expect((await w.call('DELETE', `${url()}/${created.id}`, stranger)).statusCode).toBe(403);
      const list = (await w.call('GET', url(), author)).json() as { results: { id: string; body: string }[] };
      expect(list.results.find((c) => c.id === created.id)?.body).toBe('keep me');
    });

    it('answers 400 for a bad body or id, 404 for an unknown comment or one of another CVE, 403 to read-only tokens', async () => {
      const author = await w.token({ mode: 'write', scopes: ['tracker:write'], name: 'rules-bot' });
      const created = (await w.call('POST', url(), author, { body: 'x' })).json() as { id: string };
      expectValidation(await w.call('PATCH', `${url()}/${created.id}`, author, { body: '  ' }), {
        body: ['must not be blank'],
      });
      expectValidation(await w.call('PATCH', `${url()}/${created.id}`, author, { body: 'x', extra: 1 }), {
        extra: ['extra is not a known field; the known fields are body'],
      });
      expect((await w.call('PATCH', `${url()}/not-a-uuid`, author, { body: 'x' })).statusCode).toBe(400);
      expectNotFound(
        await w.call('PATCH', `${url()}/00000000-0000-4000-8000-000000000000`, author, { body: 'x' }),
      );
      expectNotFound(await w.call('DELETE', `${cves}/CVE-2024-31331/comments/${created.id}`, author));
      expectReadOnly(await w.call('DELETE', `${url()}/${created.id}`, await w.token({ mode: 'read' })));
    });
  });

  describe('subscriptions and the tracker', () => {
    it('drops a CVE from the list when its subscription goes, and shows its entry again when it returns', async () => {
      const subs = `${base}/web/subscriptions`;
      await w.call('PUT', subs, admin, { vendors: ['google'], products: { debian: ['debian_linux'] } });
      expect((await w.call('GET', cves, admin)).json().count).toBe(3);
      expectNotFound(await w.call('GET', `${cves}/CVE-2024-3094`, admin));
      await w.call('PUT', subs, admin, {
        vendors: ['tukaani', 'google'],
        products: { debian: ['debian_linux'] },
      });
      const res = await w.call('GET', `${cves}/CVE-2022-20698`, admin);
      expect(res.json().tracker).toMatchObject({
        status: 'analysis_in_progress',
        assignee: { email: w.member.email },
      });
    });

    it('lists nothing for a project without subscriptions', async () => {
      expect((await w.call('POST', base, admin, { name: 'empty' })).statusCode).toBe(201);
      const res = await w.call('GET', `${base}/empty/cves`, admin);
      expect(res.json()).toEqual({ count: 0, next: null, previous: null, results: [] });
    });
  });

  describe('a member leaves', () => {
    it('unassigns their CVEs in every project of the organization, each move audited', async () => {
      const user = await w.services.accounts.createUser({
        username: `${w.org.name}-dan`,
        email: `dan@${w.org.name}.example`,
        password: 'correct horse battery staple',
      });
      await new AccountRepository(w.services.database.db).addMembership({
        organizationId: w.org.id,
        userId: user.id,
        email: user.email,
        role: 'member',
        joined: true,
      });
      const cve = `${cves}/CVE-2024-31331`;
      expect(
        (await w.call('PATCH', cve, admin, { status: 'pending_review', assignee: user.email })).statusCode,
      ).toBe(200);
      const members = (
        await w.call('GET', `/api/v2/organizations/${w.org.name}/members?page_size=100`, admin)
      ).json<{
        results: { id: string; email: string }[];
      }>().results;
      const membership = members.find((m) => m.email === user.email)!;
      expect(
        (await w.call('DELETE', `/api/v2/organizations/${w.org.name}/members/${membership.id}`, admin))
          .statusCode,
      ).toBe(204);
      // The status stays; only the assignment goes.
      expect((await w.call('GET', cve, admin)).json().tracker).toMatchObject({
        status: 'pending_review',
        assignee: null,
        assigned_at: null,
      });
      expect((await trackerAudit()).at(-1)).toMatchObject({
        action: 'tracker_entry.update',
        resource_name: 'web/CVE-2024-31331',
        changes: { assignee: { old: user.email, new: null } },
      });
    });
  });
});
