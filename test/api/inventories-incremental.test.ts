/**
 * Inventories kept current (issue 33 item 2): after an SBOM is uploaded, a CVE 5 record imported
 * later whose CNA range covers a stored component (the xz backdoor, CVE-2024-3094, by its CNA's
 * `packageName` and `collectionURL`; no NVD data) is found by the event processor through the
 * component's keys, enters the project's tracker, and is sent by the project's alert automation on
 * the new trigger `cve_affects_component` to a real webhook receiver on loopback, signed (Standard
 * Webhooks) and naming the component. Both databases.
 */
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startJobs } from '../../src/main.ts';
import { sources } from '../../src/sources/index.ts';
import type { JobRuntime } from '../../src/jobs/runtime.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { storeTestAliases } from '../helpers/aliases.ts';
import { startReceiver, type Receiver } from '../notifications/receivers.ts';

const XZ = 'CVE-2024-3094';
const XZ_RECORD = 'test/fixtures/cve5/cves/2024/3xxx/CVE-2024-3094.json';

const SBOM = {
  bomFormat: 'CycloneDX',
  specVersion: '1.6',
  version: 1,
  components: [
    { type: 'library', name: 'zlib', version: '1.3.1', purl: 'pkg:generic/zlib@1.3.1' },
    { type: 'library', name: 'xz', version: '5.6.1', purl: 'pkg:github/tukaani-project/xz@5.6.1' },
  ],
};

async function waitFor<T>(check: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describeEachDatabase('inventories kept current by the event processor', (use) => {
  let api: TestApi;
  let runtime: JobRuntime | undefined;
  let hook: Receiver;
  let auth: string;
  let secret: string;
  const org = `invinc-${Math.random().toString(36).slice(2, 8)}`;
  const base = `/api/v2/organizations/${org}/projects`;

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    api.app.inject({
      method,
      url: `${base}${url}`,
      headers: { authorization: auth, 'content-type': 'application/json' },
      ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
    });

  beforeAll(async () => {
    hook = await startReceiver();
    api = await buildTestApi(use(), {
      OUTBOUND_ALLOW_PRIVATE: 'true',
      SYNC_SOURCES: 'none',
      JOB_POLL_INTERVAL_MS: '50',
    });
    await storeTestAliases(use().db);
    const owner = await createOrganization(api.services, org);
    auth = (await createToken(api.services, owner.org.id, owner.actor)).header;
    expect((await call('POST', '', { name: 'firmware' })).statusCode).toBe(201);
    const created = await call('POST', '/firmware/notifications', {
      name: 'hook',
      type: 'webhook',
      configuration: { url: `${hook.base}/hooks/vulntrack` },
    });
    expect(created.statusCode, created.body).toBe(201);
    secret = created.json<{ signing_secret: string }>().signing_secret;
    const automation = await call('POST', '/firmware/automations', {
      name: 'components',
      trigger_type: 'alert',
      configuration: {
        triggers: ['cve_affects_component'],
        actions: [{ type: 'send_notification', value: 'hook' }],
      },
    });
    expect(automation.statusCode, automation.body).toBe(201);
    // The inventory first: the catalog does not know the xz backdoor yet.
    const upload = await call('PUT', '/firmware/inventories/main', SBOM);
    expect(upload.statusCode, upload.body).toBe(200);
    expect(upload.json()).toMatchObject({ cves: 0 });
    // Two more projects: the same components (matched once for both), and xz at a fixed version.
    for (const [project, xz] of [
      ['appliance', '5.6.1'],
      ['legacy', '5.4.6'],
    ] as const) {
      expect((await call('POST', '', { name: project })).statusCode).toBe(201);
      const sbom = structuredClone(SBOM);
      sbom.components[1] = {
        ...sbom.components[1]!,
        version: xz,
        purl: `pkg:github/tukaani-project/xz@${xz}`,
      };
      expect((await call('PUT', `/${project}/inventories/main`, sbom)).statusCode).toBe(200);
    }
    runtime = await startJobs(api.services, pino({ level: 'silent' }));
    // Then the CVE 5 record alone (no NVD data), as a sync would import it.
    await api.services.imports.importInputs(sources.cve5, [XZ_RECORD]);
    await api.services.events.processPending();
    await waitFor(async () => (hook.requests.length ? hook.requests : undefined));
  });
  afterAll(async () => {
    await runtime?.stop();
    await hook.close();
    await api.close();
  });

  it('finds the new CVE for the stored component by its CNA range, and it enters the tracker', async () => {
    const list = await call('GET', '/firmware/cves');
    expect((list.json() as { results: { cve_id: string }[] }).results.map((r) => r.cve_id)).toEqual([XZ]);
    const component = await call('GET', '/firmware/inventories/main/components/1');
    expect(component.json()).toMatchObject({
      component: { name: 'xz', version: '5.6.1', findings: 1 },
      findings: [{ cve_id: XZ, rules: [expect.objectContaining({ source: 'cna', package_name: 'xz' })] }],
    });
    const inventories = await call('GET', '/firmware/inventories');
    expect(inventories.json()).toMatchObject({ results: [{ name: 'main', cve_count: 1 }] });
  });

  it('finds it in every project listing the same component, and not at a fixed version', async () => {
    const cves = async (project: string) =>
      ((await call('GET', `/${project}/cves`)).json() as { results: { cve_id: string }[] }).results.map(
        (r) => r.cve_id,
      );
    expect(await cves('appliance')).toEqual([XZ]);
    expect(await cves('legacy')).toEqual([]);
    const component = await call('GET', '/appliance/inventories/main/components/1');
    expect(component.json()).toMatchObject({ component: { name: 'xz', version: '5.6.1', findings: 1 } });
  });

  it('sends one signed webhook naming the component, on the cve_affects_component trigger', () => {
    expect(hook.requests).toHaveLength(1);
    const request = hook.requests[0]!;
    const payload = new Webhook(secret).verify(request.body, {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    }) as {
      changes: { cve: { id?: string; cve_id?: string }; events: { type: string; details: unknown }[] }[];
    };
    expect(JSON.stringify(payload)).toContain(XZ);
    const events = payload.changes.flatMap((c) => c.events);
    expect(events.map((e) => e.type)).toEqual(['cve_enters_project', 'cve_affects_component']);
    expect(events[1]!.details).toMatchObject({
      inventory: 'main',
      component: { name: 'xz', version: '5.6.1', purl: 'pkg:github/tukaani-project/xz@5.6.1' },
    });
  });

  it('does not find it again when the same record is processed again', async () => {
    await api.services.imports.importInputs(sources.cve5, [XZ_RECORD]);
    await api.services.events.processPending();
    await new Promise((r) => setTimeout(r, 500));
    expect(hook.requests).toHaveLength(1);
  });
});
