/**
 * The fan-out of real upstream changes (the first commits of the cve5 history fixture, one chunk) to many projects:
 * the set-based match in SQL agrees with the domain's reading of each change for each project;
 * deliveries that carry the same CVE entry share one stored copy, and every receiver still gets its
 * whole, signed payload; deliveries expire with their entries after DELIVERY_RETENTION_DAYS; a
 * delivery stored whole (before entries existed) is still sent as it was stored.
 */
import { storeTestAliases } from '../helpers/aliases.ts';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import { EventRepository, type StreamItem } from '../../src/db/event.repository.ts';
import { keyFlags, projectView } from '../../src/domain/project-events.ts';
import type { NotificationPayload } from '../../src/notifications/payload.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { loadHistory, type Json } from '../helpers/cve5-history.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { startReceiver, type Receiver } from './receivers.ts';

const { base, commits } = await loadHistory();

describeEachDatabase('fan-out to many projects', (use) => {
  let api: TestApi;
  let dir: string;
  let receiver: Receiver;
  let auth: { authorization: string };
  let orgId: string;
  const secrets = new Map<string, string>();
  /** The items recorded by the commits under test, as the processor reads them. */
  let items: StreamItem[];
  /** Project name → subscribed keys. */
  const projects = new Map<string, string[]>();
  const org = `fan-${Math.random().toString(36).slice(2, 8)}`;

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    api.app.inject({
      method,
      url: `/api/v2/organizations/${org}${url}`,
      headers: auth,
      ...(payload ? { payload: payload as object } : {}),
    });

  async function importLines(name: string, records: Json[]) {
    const file = path.join(dir, name);
    await fs.writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(api.services.database.db);
    await api.services.imports.importInputs(sources.cve5, [file]);
  }

  const projectIdOf = async (name: string) =>
    (
      await use()
        .db.selectFrom('project')
        .select('id')
        .where('name', '=', name)
        .where('organization_id', '=', orgId)
        .executeTakeFirstOrThrow()
    ).id;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vulntrack-fanout-'));
    receiver = await startReceiver();
    api = await buildTestApi(use(), { OUTBOUND_ALLOW_PRIVATE: 'true', SYNC_SOURCES: 'none' });
    await importLines('base.jsonl', [...base, ...commits[0]!.lines.map((l) => l.record)]);
    await api.services.events.processPending();
    const cursor = Number(
      (await sql<{ seq: string }>`SELECT seq FROM event_cursor WHERE stream = 'changes'`.execute(use().db))
        .rows[0]!.seq,
    );
    // Upstream commits, in order, while they stay within one processor chunk (1,000 items).
    let lines = 0;
    for (const [i, c] of commits.slice(1).entries()) {
      if (lines + c.lines.length > 900) break;
      lines += c.lines.length;
      await importLines(
        `c${i}.jsonl`,
        c.lines.map((l) => l.record),
      );
    }
    items = await new EventRepository(use().db).readChunk('changes', cursor, 10_000);
    // One chunk of the processor (1,000 items): one delivery per project.
    expect(items.length).toBeGreaterThan(100);
    expect(items.length).toBeLessThan(1000);

    // Subscriptions drawn from the changed CVEs' keys, the busiest first, so projects overlap.
    const counts = new Map<string, number>();
    for (const item of items) for (const k of item.cve.vendors) counts.set(k, (counts.get(k) ?? 0) + 1);
    const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([k]) => k);
    const vendors = ranked.filter((k) => !k.includes('$PRODUCT$'));
    const product = ranked.find((k) => k.includes('$PRODUCT$'))!;
    expect(vendors.length).toBeGreaterThan(6);
    projects.set('twin-a', [vendors[0]!, vendors[1]!]);
    projects.set('twin-b', [vendors[0]!, vendors[1]!]);
    projects.set('single', [vendors[0]!]);
    projects.set('product', [product]);
    projects.set('wide', vendors.slice(2, 7));
    projects.set('silent', [vendors[0]!]); // no automation
    projects.set('inactive', [vendors[0]!]); // archived

    const owner = await createOrganization(api.services, org);
    orgId = owner.org.id;
    auth = { authorization: (await createToken(api.services, owner.org.id, owner.actor)).header };
    for (const [name, keys] of projects) {
      const [vendor, prod] = [
        keys.filter((k) => !k.includes('$PRODUCT$')),
        keys.filter((k) => k.includes('$PRODUCT$')),
      ];
      const productMap: Record<string, string[]> = {};
      for (const k of prod) {
        const [v, p] = k.split('$PRODUCT$') as [string, string];
        (productMap[v] ??= []).push(p);
      }
      await api.services.projects.create(owner.org.id, { name }, owner.actor, {
        vendors: vendor,
        products: productMap,
      });
      if (name === 'silent') continue;
      const hook = await call('POST', `/projects/${name}/notifications`, {
        name: 'hook',
        type: 'webhook',
        configuration: { url: `${receiver.base}/${name}` },
      });
      expect(hook.statusCode, hook.body).toBe(201);
      secrets.set(name, hook.json<{ signing_secret: string }>().signing_secret);
      const automation = await call('POST', `/projects/${name}/automations`, {
        name: 'everything',
        trigger_type: 'alert',
        configuration: {
          triggers: [
            'cve_enters_project',
            'description_changed',
            'new_reference',
            'cvss_increased',
            'kev_added',
          ],
          actions: [{ type: 'send_notification', value: 'hook' }],
        },
      });
      expect(automation.statusCode, automation.body).toBe(201);
    }
    await sql`UPDATE project SET active = false WHERE id = ${await projectIdOf('inactive')}`.execute(
      use().db,
    );
  });

  afterAll(async () => {
    await api?.close();
    await receiver?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('matches in SQL exactly what the domain says each change brings to each project', async () => {
    const matches = await new EventRepository(use().db).alertMatches(
      items.map((i) => ({ seq: i.seq, flags: keyFlags(i) })),
    );
    const byProject = new Map(matches.map((m) => [m.projectId, m]));
    let pairs = 0;
    for (const [name, keys] of projects) {
      const got = byProject.get(await projectIdOf(name));
      if (name === 'silent' || name === 'inactive') {
        expect(got, name).toBeUndefined();
        continue;
      }
      const expected = items.flatMap((item) => {
        const view = projectView(item, new Set(keys));
        return view ? [{ seq: item.seq, enters: view.enters }] : [];
      });
      expect(expected.length, name).toBeGreaterThan(0);
      expect(got, name).toBeDefined();
      expect(
        got!.seqs.map((seq, i) => ({ seq, enters: got!.enters[i] })),
        name,
      ).toEqual(expected);
      pairs += expected.length;
    }
    expect(pairs).toBeGreaterThan(0);
    // Both kinds occur: a CVE entering a project, and a change to one already in it.
    expect(matches.some((m) => m.enters.includes(true))).toBe(true);
    expect(matches.some((m) => m.enters.includes(false))).toBe(true);
  });

  it('stores each CVE entry once for the deliveries that carry it, and sends each whole', async () => {
    const report = await api.services.events.processPending();
    expect(report.deliveries).toBe(5);
    const deliveries = await sql<{ project: string; id: string; entries: string[] }>`
      SELECT p.name AS project, d.id, d.entries FROM delivery d
        JOIN notification n ON n.id = d.notification_id JOIN project p ON p.id = n.project_id
       WHERE p.organization_id = ${orgId}`.execute(use().db);
    const byProject = new Map(deliveries.rows.map((d) => [d.project, d]));
    expect([...byProject.keys()].sort()).toEqual(['product', 'single', 'twin-a', 'twin-b', 'wide']);
    // The twins see the same changes: one set of stored entries for both.
    expect(byProject.get('twin-a')!.entries).toEqual(byProject.get('twin-b')!.entries);
    const referenced = new Set(deliveries.rows.flatMap((d) => d.entries));
    const stored = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM delivery_entry WHERE id = ANY(${[...referenced]}::bigint[])`.execute(
      use().db,
    );
    expect(stored.rows[0]!.n).toBe(referenced.size);
    expect(referenced.size).toBeLessThan(deliveries.rows.reduce((n, d) => n + d.entries.length, 0));

    for (const d of deliveries.rows) await api.services.deliveries.attempt(d.id);
    expect(receiver.requests).toHaveLength(5);
    const payloads = new Map<string, NotificationPayload>();
    for (const request of receiver.requests) {
      const name = request.path.slice(1);
      const payload = new Webhook(secrets.get(name)!).verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      }) as NotificationPayload;
      expect(payload).toMatchObject({
        id: byProject.get(name)!.id,
        type: 'alert',
        organization: org,
        project: name,
        notification: 'hook',
      });
      expect(payload.changes).toHaveLength(byProject.get(name)!.entries.length);
      for (const change of payload.changes) {
        expect(Object.keys(change.cve).sort()).toEqual(
          ['cve_id', 'cvss31', 'description', 'display', 'epss', 'kev', 'title', 'vendors'].sort(),
        );
        // `display` only adds people's words beside the keys, one for one.
        expect(change.cve.display?.vendors).toHaveLength(change.cve.vendors.length);
        expect(change.events.length).toBeGreaterThan(0);
        expect(change.cve.vendors.some((k) => projects.get(name)!.includes(k))).toBe(true);
      }
      payloads.set(name, payload);
    }
    expect(payloads.get('twin-a')!.changes).toEqual(payloads.get('twin-b')!.changes);
    expect(payloads.get('twin-a')!.changes.length).toBeGreaterThan(payloads.get('product')!.changes.length);
  });

  it('sends a delivery stored whole (written before entries existed) as it was stored', async () => {
    const notification = await use()
      .db.selectFrom('notification')
      .select('id')
      .where('project_id', '=', await projectIdOf('single'))
      .executeTakeFirstOrThrow();
    const id = randomUUID();
    const payload = {
      id,
      type: 'alert',
      organization: org,
      project: 'single',
      notification: 'hook',
      title: 'stored whole',
      period: { start: '2024-10-01T00:00:00.000Z', end: '2024-10-01T01:00:00.000Z' },
      changes: [{ cve: { cve_id: 'CVE-2024-0001' }, events: [{ type: 'kev_added', details: {} }] }],
    };
    await sql`
      INSERT INTO delivery (id, notification_id, kind, payload)
      VALUES (${id}, ${notification.id}, 'alert', ${JSON.stringify(payload)}::jsonb)`.execute(use().db);
    const before = receiver.requests.length;
    const row = await api.services.deliveries.attempt(id);
    expect(row?.status).toBe('succeeded');
    const request = receiver.requests[before]!;
    expect(JSON.parse(request.body)).toEqual(payload);
  });

  it('deletes deliveries and their entries after DELIVERY_RETENTION_DAYS, and keeps the newer ones', async () => {
    const all = await sql<{ id: string; entries: string[] | null }>`
      SELECT d.id, d.entries FROM delivery d JOIN notification n ON n.id = d.notification_id
        JOIN project p ON p.id = n.project_id WHERE p.organization_id = ${orgId}`.execute(use().db);
    const old = all.rows.filter((d) => d.entries !== null);
    const oldEntries = [...new Set(old.flatMap((d) => d.entries!))];
    // The fan-out's deliveries and entries were made 91 days ago; the stored-whole one is recent.
    const then = new Date(Date.now() - 91 * 86_400_000);
    await sql`UPDATE delivery SET created_at = ${then} WHERE id = ANY(${old.map((d) => d.id)}::uuid[])`.execute(
      use().db,
    );
    await sql`UPDATE delivery_entry SET created_at = ${then} WHERE id = ANY(${oldEntries}::bigint[])`.execute(
      use().db,
    );
    expect(await api.services.deliveries.purgeExpired()).toBeGreaterThanOrEqual(old.length);
    const left = await sql<{ id: string }>`
      SELECT id FROM delivery WHERE id = ANY(${all.rows.map((d) => d.id)}::uuid[])`.execute(use().db);
    expect(left.rows.map((r) => r.id)).toEqual(all.rows.filter((d) => d.entries === null).map((d) => d.id));
    const entriesLeft = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM delivery_entry WHERE id = ANY(${oldEntries}::bigint[])`.execute(
      use().db,
    );
    expect(entriesLeft.rows[0]!.n).toBe(0);
  });
});
