/**
 * From a real upstream change to the right receivers, end to end: the cve5 history fixture (real
 * vulnrichment commits) is imported, the event processor matches the changes to projects, alert
 * automations queue deliveries, a real job worker delivers them to real receivers on loopback (a
 * webhook receiver verifying Standard Webhooks signatures, Slack- and Teams-shaped receivers, an SMTP
 * sink), retries the failing ones and gives up on a dead one.
 *
 * Commit 7 of the fixture (4a97479e) adds CVE-2024-9380 (Ivanti CSA) to CISA KEV; commit 2
 * (e04d8d93) changes the description of CVE-2024-28125 (FitNesse) and adds CWE-78.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { parse } from 'csv-parse/sync';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobs } from '../../src/main.ts';
import { sources } from '../../src/sources/index.ts';
import type { JobRuntime } from '../../src/jobs/runtime.ts';
import type { NotificationPayload } from '../../src/notifications/payload.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { loadHistory, type HistoryCommit, type Json } from '../helpers/cve5-history.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { storeTestAliases } from '../helpers/aliases.ts';
import { startReceiver, type Receiver } from './receivers.ts';
import { startSink, type Sink } from './smtp-sink.ts';

const { base, commits } = await loadHistory();

async function writeJsonl(dir: string, name: string, records: Json[]): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

const commitRecords = (c: HistoryCommit) => c.lines.map((l) => l.record);

/** Polls `check` until it returns a value (or fails after `ms`). */
async function waitFor<T>(check: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describeEachDatabase('notifications end to end', (use) => {
  let api: TestApi;
  let dir: string;
  let runtime: JobRuntime | undefined;
  let webhook: Receiver;
  let slack: Receiver;
  let teams: Receiver;
  let flaky: Receiver;
  let down: Receiver;
  let sink: Sink;
  let auth: { authorization: string };
  let ownerEmail: string;
  let signingSecret: string;
  let flakyCalls = 0;
  const org = `e2e-${Math.random().toString(36).slice(2, 8)}`;

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    api.app.inject({
      method,
      url: `/api/v2/organizations/${org}${url}`,
      headers: auth,
      ...(payload ? { payload } : {}),
    });

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vulntrack-e2e-'));
    webhook = await startReceiver();
    slack = await startReceiver();
    teams = await startReceiver();
    flaky = await startReceiver(() => (++flakyCalls <= 3 ? { status: 500, body: 'busy' } : { status: 200 }));
    down = await startReceiver(() => ({ status: 503, body: 'down' }));
    sink = await startSink();
    api = await buildTestApi(use(), {
      OUTBOUND_ALLOW_PRIVATE: 'true',
      DELIVERY_RETRY_BASE_SECONDS: '0',
      DELIVERY_ATTEMPTS: '5',
      SMTP_URL: sink.url,
      VULNTRACK_BASE_URL: 'https://vulntrack.example.org',
      SYNC_SOURCES: 'none',
      JOB_POLL_INTERVAL_MS: '50',
    });
    const { services } = api;
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(use().db);

    // The catalog before: the base and the first upstream commit; their changes are processed now
    // (no automation exists yet, so they notify nobody).
    await services.imports.importInputs(sources.cve5, [
      await writeJsonl(dir, 'base.jsonl', base),
      await writeJsonl(dir, 'c001.jsonl', commitRecords(commits[0]!)),
    ]);
    await services.events.processPending();

    const owner = await createOrganization(services, org);
    ownerEmail = owner.user.email;
    auth = { authorization: (await createToken(services, owner.org.id, owner.actor)).header };
    await services.projects.create(owner.org.id, { name: 'ivanti' }, owner.actor, { vendors: ['ivanti'] });
    await services.projects.create(owner.org.id, { name: 'fitnesse' }, owner.actor, {
      vendors: ['fitnesse'],
    });

    const created = await call('POST', '/projects/ivanti/notifications', {
      name: 'hook',
      type: 'webhook',
      configuration: { url: `${webhook.base}/hooks/vulntrack`, headers: { 'X-Team': 'secops' } },
    });
    expect(created.statusCode).toBe(201);
    signingSecret = created.json<{ signing_secret: string }>().signing_secret;
    for (const body of [
      { name: 'chat', type: 'slack', configuration: { webhook_url: `${slack.base}/services/T0/B0/x` } },
      { name: 'teams', type: 'teams', configuration: { webhook_url: `${teams.base}/workflows/1` } },
      { name: 'owner', type: 'email', configuration: { email: ownerEmail } },
      { name: 'outsider', type: 'email', configuration: { email: 'auditor@elsewhere.example' } },
    ]) {
      expect((await call('POST', '/projects/ivanti/notifications', body)).statusCode).toBe(201);
    }
    const automation = await call('POST', '/projects/ivanti/automations', {
      name: 'kev',
      trigger_type: 'alert',
      configuration: {
        triggers: ['kev_added'],
        conditions: { operator: 'AND', children: [{ type: 'vendor_equals', value: 'ivanti' }] },
        actions: [
          { type: 'send_notification', value: 'hook' },
          { type: 'send_notification', value: 'chat' },
          { type: 'send_notification', value: 'teams' },
          { type: 'send_notification', value: 'owner' },
          { type: 'send_notification', value: 'outsider' },
          { type: 'change_status', value: 'to_evaluate' },
          { type: 'assign_user', value: ownerEmail },
        ],
      },
    });
    expect(automation.statusCode).toBe(201);

    for (const [name, receiver] of [
      ['flaky', flaky],
      ['down', down],
    ] as const) {
      const r = await call('POST', '/projects/fitnesse/notifications', {
        name,
        type: 'webhook',
        configuration: { url: `${receiver.base}/in` },
      });
      expect(r.statusCode).toBe(201);
    }
    expect(
      (
        await call('POST', '/projects/fitnesse/automations', {
          name: 'text',
          trigger_type: 'alert',
          configuration: {
            triggers: ['description_changed', 'new_weakness'],
            actions: [
              { type: 'send_notification', value: 'flaky' },
              { type: 'send_notification', value: 'down' },
            ],
          },
        })
      ).statusCode,
    ).toBe(201);

    runtime = await startJobs(services, pino({ level: 'silent' }));
    // Commits 2 to 7, each imported as sync would (one import per commit, in order).
    for (const [i, c] of commits.slice(1, 7).entries()) {
      await services.imports.importInputs(sources.cve5, [
        await writeJsonl(dir, `c${i + 2}.jsonl`, commitRecords(c)),
      ]);
    }
    // Every delivery settles: succeeded, failed or dead.
    await waitFor(async () => {
      const rows = await use().db.selectFrom('delivery').select('status').execute();
      // Six: the outsider's address awaits its confirmation, so that notification is disabled.
      return rows.length === 6 && rows.every((r) => r.status !== 'pending') ? rows : undefined;
    });
  }, 120_000);

  afterAll(async () => {
    await runtime?.stop();
    await api?.close();
    await Promise.all([webhook, slack, teams, flaky, down].map((r) => r?.close()));
    await sink?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('delivers the KEV addition once to the webhook, signed (Standard Webhooks), with the SPEC §7 payload', () => {
    expect(webhook.requests).toHaveLength(1);
    const [request] = webhook.requests;
    expect(request!.path).toBe('/hooks/vulntrack');
    expect(request!.headers['x-team']).toBe('secops');
    // An independent verifier: throws on a bad signature.
    const verified = new Webhook(signingSecret).verify(request!.body, {
      'webhook-id': String(request!.headers['webhook-id']),
      'webhook-timestamp': String(request!.headers['webhook-timestamp']),
      'webhook-signature': String(request!.headers['webhook-signature']),
    }) as NotificationPayload;
    expect(() =>
      new Webhook(`whsec_${Buffer.from('another secret, 32 bytes long...').toString('base64')}`).verify(
        request!.body,
        request!.headers as Record<string, string>,
      ),
    ).toThrow();
    expect(verified.id).toBe(request!.headers['webhook-id']);
    expect(verified).toMatchObject({
      type: 'alert',
      organization: org,
      project: 'ivanti',
      notification: 'hook',
    });
    expect(verified.changes).toHaveLength(1);
    const [change] = verified.changes;
    expect(change!.cve).toMatchObject({ cve_id: 'CVE-2024-9380', kev: true, cvss31: 7.2 });
    expect(change!.cve.vendors).toContain('ivanti');
    // Beside the keys, the same vendors and products in people's words, in the same order.
    expect(change!.cve.display?.vendors).toHaveLength(change!.cve.vendors.length);
    change!.cve.vendors.forEach((key, i) => {
      const [vendor, product] = key.split('$PRODUCT$');
      const words = (name: string) =>
        name
          .split('_')
          .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
          .join(' ');
      expect(change!.cve.display!.vendors[i]).toBe(
        product === undefined ? words(vendor!) : `${words(vendor!)} / ${words(product)}`,
      );
    });
    expect(change!.cve.display?.vendors).toContain('Ivanti');
    expect(JSON.stringify(change!.cve.display)).not.toContain('$PRODUCT$');
    expect(change!.events).toEqual([
      {
        type: 'kev_added',
        details: {
          dateAdded: '2024-10-09',
          reference: 'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json',
        },
      },
    ]);
  });

  it('delivers once to Slack (Block Kit) and Teams (Adaptive Card)', () => {
    expect(slack.requests).toHaveLength(1);
    const slackBody = JSON.parse(slack.requests[0]!.body) as { text: string; blocks: unknown[] };
    expect(JSON.stringify(slackBody.blocks)).toContain('CVE-2024-9380');
    expect(JSON.stringify(slackBody.blocks)).toContain('https://vulntrack.example.org/cves/CVE-2024-9380');
    // The message names vendors as people do.
    expect(JSON.stringify(slackBody.blocks)).toContain('Vendors: Ivanti');
    expect(JSON.stringify(slackBody.blocks)).not.toContain('$PRODUCT$');
    expect(teams.requests).toHaveLength(1);
    const card = JSON.parse(teams.requests[0]!.body) as {
      type: string;
      attachments: { contentType: string; content: { type: string } }[];
    };
    expect(card.type).toBe('message');
    expect(card.attachments[0]!.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(JSON.stringify(card.attachments[0]!.content)).toContain('CVE-2024-9380');
  });

  it('emails a member at once; an outside address gets only the confirmation until it confirms', async () => {
    const toOwner = sink.messages.filter((m) => m.to.includes(ownerEmail));
    expect(toOwner).toHaveLength(1);
    expect(toOwner[0]!.mail.text).toContain('CVE-2024-9380');
    const unsubscribe =
      /https:\/\/vulntrack\.example\.org\/notifications\/unsubscribe\?token=[A-Za-z0-9_-]+/.exec(
        toOwner[0]!.mail.text ?? '',
      );
    expect(unsubscribe).not.toBeNull();
    // Headers may be folded over several lines.
    expect(toOwner[0]!.raw.replace(/\r?\n[ \t]+/g, ' ')).toContain(`List-Unsubscribe: <${unsubscribe![0]}>`);
    const toOutsider = sink.messages.filter((m) => m.to.includes('auditor@elsewhere.example'));
    expect(toOutsider).toHaveLength(1);
    expect(toOutsider[0]!.mail.subject).toBe('Confirm your vulntrack notifications');
    const link = /https:\/\/vulntrack\.example\.org\/notifications\/confirm\?token=([A-Za-z0-9_-]+)/.exec(
      toOutsider[0]!.mail.text ?? '',
    );
    expect(link).not.toBeNull();

    // Disabled until confirmed (as on OpenCVE): the automation skipped it, nothing was queued.
    const outsider = await call('GET', '/projects/ivanti/notifications/outsider/deliveries');
    expect(outsider.json<{ count: number }>().count).toBe(0);

    // A GET of the link changes nothing (mail scanners follow links); the form's POST confirms.
    const question = await api.app.inject({ method: 'GET', url: `/notifications/confirm?token=${link![1]}` });
    // An ordinary web page, with the headers of every page (its CSP among them).
    expect(question.statusCode).toBe(200);
    expect(question.headers['content-security-policy']).toContain("script-src 'self'");
    expect(question.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(question.body).toContain('Receive vulntrack notifications at this address?');
    expect(question.body).toContain(`name="token" value="${link![1]}"`);
    expect(question.body).not.toMatch(/style="/);
    expect((await call('GET', '/projects/ivanti/notifications/outsider')).json()).toMatchObject({
      is_enabled: false,
      configuration: { status: 'pending' },
      is_pending_email_confirmation: true,
    });
    const confirmed = await api.app.inject({
      method: 'POST',
      url: '/notifications/confirm',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `token=${link![1]}`,
    });
    expect(confirmed.statusCode).toBe(200);
    // Confirming enables it.
    expect((await call('GET', '/projects/ivanti/notifications/outsider')).json()).toMatchObject({
      is_enabled: true,
      configuration: { email: 'auditor@elsewhere.example', status: 'confirmed' },
      is_pending_email_confirmation: false,
    });
    const bogus = await api.app.inject({
      method: 'POST',
      url: '/notifications/confirm',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    });
    expect(bogus.statusCode).toBe(404);
    expect(bogus.body).toContain('This link is not valid (any more). Nothing was changed.');
    expect(bogus.headers['content-security-policy']).toContain("default-src 'self'");
  });

  it('unsubscribes with the one-click POST of the email (RFC 8058): nothing more is sent there', async () => {
    const text = sink.messages.find((m) => m.to.includes(ownerEmail))!.mail.text ?? '';
    const url = new URL(
      /https:\/\/vulntrack\.example\.org\/notifications\/unsubscribe\?token=[A-Za-z0-9_-]+/.exec(text)![0],
    );
    const res = await api.app.inject({
      method: 'POST',
      url: `${url.pathname}${url.search}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(res.statusCode).toBe(200);
    expect((await call('GET', '/projects/ivanti/notifications/owner')).json()).toMatchObject({
      configuration: { status: 'unsubscribed' },
    });
    const test = await call('POST', '/projects/ivanti/notifications/owner/test');
    expect(test.json()).toMatchObject({
      kind: 'test',
      status: 'failed',
      attempts: [{ error: 'The recipient unsubscribed.' }],
    });
  });

  it('records the delivery and its attempt in the API, never a secret', async () => {
    const res = await call('GET', '/projects/ivanti/notifications/hook/deliveries');
    expect(res.statusCode).toBe(200);
    const body = res.json<{
      count: number;
      results: { status: string; attempts: { status_code: number }[]; payload_id: string }[];
    }>();
    expect(body.count).toBe(1);
    expect(body.results[0]).toMatchObject({ status: 'succeeded', attempts: [{ status_code: 200 }] });
    expect(body.results[0]!.payload_id).toBe(webhook.requests[0]!.headers['webhook-id']);
    const detail = await call('GET', '/projects/ivanti/notifications/hook');
    const text = detail.body;
    expect(detail.json()).toMatchObject({
      configuration: {
        url_configured: true,
        headers_configured: true,
        host: webhook.base.slice(7),
        header_names: ['X-Team'],
      },
    });
    expect(text).not.toContain('/hooks/vulntrack');
    expect(text).not.toContain('secops');
    expect(text).not.toContain('whsec_');
  });

  it('runs the tracker actions with audit entries, and records the execution', async () => {
    const tracked = await call('GET', '/projects/ivanti/cves/CVE-2024-9380');
    expect(tracked.json()).toMatchObject({
      tracker: { status: 'to_evaluate', assignee: { email: ownerEmail } },
    });
    const audit = await api.app.inject({
      method: 'GET',
      url: `/api/v2/organizations/${org}/audit-logs?resource=tracker_entry`,
      headers: auth,
    });
    const entries = audit.json<{
      results: { actor: { type: string; name: string }; resource: { name: string } }[];
    }>().results;
    expect(entries.some((e) => e.actor.type === 'system' && e.actor.name === 'automation:kev')).toBe(true);

    const executions = await call('GET', '/projects/ivanti/automations/kev/executions');
    const list = executions.json<{ count: number; results: { id: string; matched_cves_count: number }[] }>();
    expect(list.count).toBe(1);
    expect(list.results[0]!.matched_cves_count).toBe(1);
    const detail = await call('GET', `/projects/ivanti/automations/kev/executions/${list.results[0]!.id}`);
    expect(
      detail
        .json<{ results: { action: string; status: string }[] }>()
        .results.map((r) => `${r.action}:${r.status}`),
    ).toEqual([
      'send_notification:success',
      'send_notification:success',
      'send_notification:success',
      'send_notification:success',
      // The outsider's address awaits its confirmation: disabled until then.
      'send_notification:skipped',
      'change_status:success',
      'assign_user:success',
    ]);
  });

  it('retries a receiver that fails three times: one delivery, four attempts', async () => {
    expect(flaky.requests).toHaveLength(4);
    // Every attempt carries the same delivery id: the receiver can drop duplicates.
    expect(new Set(flaky.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const res = await call('GET', '/projects/fitnesse/notifications/flaky/deliveries');
    const [delivery] = res.json<{
      results: { status: string; attempts: { status_code: number; error: string | null }[] }[];
    }>().results;
    expect(delivery!.status).toBe('succeeded');
    expect(delivery!.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 200]);
    expect(delivery!.attempts[0]!.error).toMatch(/500/);
    const payload = JSON.parse(flaky.requests[3]!.body) as NotificationPayload;
    expect(payload.changes.map((c) => c.cve.cve_id)).toEqual(['CVE-2024-28125']);
    expect(payload.changes[0]!.events.map((e) => e.type)).toEqual(['description_changed', 'new_weakness']);
  });

  it('ends a delivery to a receiver that always fails as dead after its attempts, visible in the API', async () => {
    expect(down.requests).toHaveLength(5);
    const res = await call('GET', '/projects/fitnesse/notifications/down/deliveries');
    const [delivery] = res.json<{ results: { status: string; attempts: unknown[] }[] }>().results;
    expect(delivery!.status).toBe('dead');
    expect(delivery!.attempts).toHaveLength(5);
  });

  it('counts delivery attempts by channel and outcome in /metrics, and no change waits for matching', async () => {
    const text = (await api.app.inject({ method: 'GET', url: '/metrics' })).body;
    // hook and flaky succeeded; flaky retried 3 times and down 4 times before its 5th attempt, dead.
    expect(text).toContain('vulntrack_delivery_attempts_total{channel="webhook",outcome="succeeded"} 2');
    expect(text).toContain('vulntrack_delivery_attempts_total{channel="webhook",outcome="retry"} 7');
    expect(text).toContain('vulntrack_delivery_attempts_total{channel="webhook",outcome="dead"} 1');
    expect(text).toContain('vulntrack_delivery_attempts_total{channel="slack",outcome="succeeded"} 1');
    // The outsider's disabled email notification queued no delivery, so no email attempt failed.
    expect(text).not.toContain('vulntrack_delivery_attempts_total{channel="email",outcome="failed"}');
    expect(text).toContain('vulntrack_events_pending 0');
  });

  it('reports what changed (run now), as JSON and as a CSV download', async () => {
    const created = await call('POST', '/projects/ivanti/automations', {
      name: 'daily',
      trigger_type: 'report',
      frequency: 'daily',
      schedule_time: '07:30',
      schedule_timezone: 'Europe/Paris',
      configuration: { actions: [{ type: 'generate_report' }] },
    });
    expect(created.statusCode).toBe(201);
    const run = await call('POST', '/projects/ivanti/automations/daily/run');
    expect(run.statusCode).toBe(200);
    const execution = run.json<{ report_id: string; matched_cves_count: number }>();
    expect(execution.matched_cves_count).toBe(1);
    const report = await call('GET', `/projects/ivanti/reports/${execution.report_id}`);
    expect(report.json()).toMatchObject({
      automation: 'daily',
      cves_count: 1,
      highest_cvss: 7.2,
      severity_counts: { critical: 0, high: 1, medium: 0, low: 0, none: 0 },
      cves: [
        { cve_id: 'CVE-2024-9380', kev: true, event_types: ['kev_added'], changes: [{ types: ['metrics'] }] },
      ],
    });
    const csv = await call('GET', `/projects/ivanti/reports/${execution.report_id}?format=csv`);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(
      /^attachment; filename="report-ivanti-[A-Z0-9]{12}\.csv"$/,
    );
    const rows = parse(csv.body, { columns: true }) as Record<string, string>[];
    expect(rows).toEqual([
      {
        cve_id: 'CVE-2024-9380',
        title: expect.any(String) as string,
        highest_cvss: '7.2',
        severity: 'high',
        cvss31: '7.2',
        kev: 'true',
        epss: '',
        matched: 'ivanti',
        events: 'kev_added',
        changes: '1',
        change_types: 'metrics',
      },
    ]);
  });

  it('sends a signed sample of a real CVE of the project on "send test", and logs it', async () => {
    const res = await call('POST', '/projects/ivanti/notifications/hook/test');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      kind: 'test',
      status: 'succeeded',
      attempts: [{ status_code: 200, error: null }],
    });
    const request = webhook.requests.at(-1)!;
    const payload = new Webhook(signingSecret).verify(request.body, {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    }) as NotificationPayload;
    expect(payload.type).toBe('test');
    expect(payload.id).toBe(res.json<{ payload_id: string }>().payload_id);
    expect(payload.changes).toHaveLength(1);
    expect(payload.changes[0]!.cve.vendors).toContain('ivanti');
    expect(payload.changes[0]!.events[0]!.type).toBe('cve_enters_project');
    const log = await call('GET', '/projects/ivanti/notifications/hook/deliveries');
    expect(log.json<{ results: { kind: string }[] }>().results[0]!.kind).toBe('test');
  });

  it('notifies nobody again when the same records are imported and processed again', async () => {
    const again = await api.services.imports.importInputs(sources.cve5, [
      await writeJsonl(dir, 'again.jsonl', commitRecords(commits[6]!)),
    ]);
    expect(again.changes).toBe(0);
    await api.services.events.processPending();
    const rows = await use().db.selectFrom('delivery').select('id').where('kind', '!=', 'test').execute();
    expect(rows).toHaveLength(6);
  });
});

describe('the pipeline fixture', () => {
  it('has the upstream commits the test relies on', () => {
    expect(commits[1]!.commit.startsWith('e04d8d93')).toBe(true);
    expect(commits[6]!.commit.startsWith('4a97479e')).toBe(true);
  });
});
