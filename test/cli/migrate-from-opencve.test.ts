/**
 * `vulntrack migrate-from-opencve` against a fake OpenCVE 3.1 API v2 on loopback, serving answers
 * written from OpenCVE's serializers (test/fixtures/opencve-api/acme-sec.json): the projects,
 * subscriptions, notifications, automations and tracker state it copies are then read back through
 * our API v2 and services; a re-run skips what exists; bad URL, refused token and unreachable server
 * are said in words. Both databases.
 */
import { storeTestAliases } from '../helpers/aliases.ts';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_COMMANDS } from '../../src/cli/service-commands.ts';
import { EXIT } from '../../src/cli/output.ts';
import { sources } from '../../src/sources/index.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { runCli } from '../helpers/cli.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { NVD_FILES } from '../helpers/projects.ts';

const TOKEN = 'opencve-org-token-0123456789';
/** Lists are served two items a page, so the migration follows `next` links. */
const PAGE = 2;

type Json = Record<string, unknown>;

/** A fake OpenCVE API v2: the recorded answers, Bearer TOKEN required, DRF's paging and 404s. */
async function fakeOpenCve(ownerEmail: string) {
  const text = fs
    .readFileSync('test/fixtures/opencve-api/acme-sec.json', 'utf8')
    .replaceAll('{{OWNER_EMAIL}}', ownerEmail);
  const answers = JSON.parse(text) as Record<string, unknown>;
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(401, { detail: 'Invalid token.' });
    if (req.method !== 'GET') return send(405, { detail: `Method "${req.method}" not allowed.` });
    if (!url.pathname.startsWith('/api/v2/')) return send(404, { detail: 'Not found.' });
    const path = url.pathname.slice('/api/v2'.length);
    const page = Number(url.searchParams.get('page') ?? '1');
    url.searchParams.delete('page');
    url.searchParams.delete('page_size');
    const key = `${path}${url.searchParams.size ? `?${decodeURIComponent(url.searchParams.toString())}` : ''}`;
    let answer = answers[key];
    // A project's CVEs with a filter nothing matches: an empty list.
    if (answer === undefined && /\/projects\/[^/]+\/cves$/.test(path)) answer = [];
    if (answer === undefined) return send(404, { detail: 'Not found.' });
    if (!Array.isArray(answer)) return send(200, answer);
    const link = (p: number) => {
      const u = new URL(`http://${req.headers.host}${req.url}`);
      u.searchParams.set('page', String(p));
      return u.toString();
    };
    const results = answer.slice((page - 1) * PAGE, page * PAGE);
    return send(200, {
      count: answer.length,
      next: page * PAGE < answer.length ? link(page + 1) : null,
      previous: page > 1 ? link(page - 1) : null,
      results,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describeEachDatabase('vulntrack migrate-from-opencve', (use) => {
  let api: TestApi;
  let opencve: Awaited<ReturnType<typeof fakeOpenCve>>;
  let org: { id: string; name: string };
  let ownerEmail: string;
  let auth: { authorization: string };
  let lines: string[];
  let first: Awaited<ReturnType<typeof SERVICE_COMMANDS.migrateFromOpencve.run>>;
  const command = SERVICE_COMMANDS.migrateFromOpencve;
  const run = (args: { url?: string; token?: string; org?: string; fromOrg?: string }) => {
    const progress: string[] = [];
    const result = command.run(
      api.services,
      command.args({ url: opencve.url, token: TOKEN, org: org.name, ...args } as never),
      (line) => progress.push(line),
    );
    return { result, progress };
  };
  const get = async (url: string) => {
    const res = await api.app.inject({
      method: 'GET',
      url: `/api/v2/organizations/${org.name}${url}`,
      headers: auth,
    });
    expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
    return res.json<Json>();
  };

  beforeAll(async () => {
    api = await buildTestApi(use());
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(api.services.database.db);
    await api.services.imports.importInputs(sources.cve5, ['test/fixtures/cve5/cves']);
    await api.services.imports.importInputs(sources.nvd, NVD_FILES);
    const created = await createOrganization(api.services, 'acme');
    org = created.org;
    ownerEmail = created.user.email;
    auth = { authorization: (await createToken(api.services, org.id, created.actor)).header };
    opencve = await fakeOpenCve(ownerEmail);
    const { result, progress } = run({});
    first = await result;
    lines = progress;
  }, 120_000);
  afterAll(async () => {
    await opencve?.close();
    await api?.close();
  });

  it('prints progress lines and a summary (exit 0: every item copied or noted)', () => {
    expect(lines[0]).toBe(`reading OpenCVE organization acme-sec at ${opencve.url}/api/v2`);
    expect(lines).toContain('3 project(s) to copy into acme');
    expect(lines).toContain('project web: created with 2 subscription(s)');
    expect(lines).toContain('project mobile: created with 1 subscription(s)');
    expect(lines).toContain('project legacy-stuff: created with 0 subscription(s)');
    expect(first.text).toContain('from OpenCVE acme-sec');
    expect(first.text).toContain('projects: 3 created, 0 existing (skipped)');
    expect(first.text).toContain(
      'notifications: 3 created, 0 existing (skipped); created disabled: their secrets must be entered again',
    );
    expect(first.text).toContain('automations: 2 created, 0 existing (skipped)');
    expect(first.exitCode).toBe(EXIT.ok);
    // Paged lists were followed to their end (three projects, two a page).
    expect(
      opencve.requests.filter((r) => r.startsWith('GET /api/v2/organizations/acme-sec/projects?')),
    ).toHaveLength(2);
  });

  it('copies the projects with their description, active flag and the subscriptions the catalog knows', async () => {
    const list = await get('/projects');
    expect((list.results as Json[]).map((p) => p.name).sort()).toEqual(['legacy-stuff', 'mobile', 'web']);
    expect(await get('/projects/web')).toMatchObject({
      name: 'web',
      description: 'The web shop',
      active: true,
      subscriptions: { vendors: ['tukaani'], products: { apache: ['log4j2'] } },
    });
    expect(await get('/projects/mobile')).toMatchObject({
      active: false,
      subscriptions: { vendors: [], products: { google: ['android'] } },
    });
    expect(first.notes).toContainEqual(
      expect.stringContaining('project web: 1 subscription(s) not in the catalog, not copied'),
    );
    expect(first.notes).toContainEqual(expect.stringContaining('no_such_vendor_anywhere$PRODUCT$thing'));
  });

  it('creates every notification disabled and says which secrets to enter again', async () => {
    const list = await get('/projects/web/notifications');
    const byName = new Map((list.results as Json[]).map((n) => [n.name, n]));
    expect([...byName.keys()].sort()).toEqual(['chat', 'security-team', 'siem']);
    for (const n of byName.values()) expect(n.is_enabled).toBe(false);
    expect(byName.get('siem')).toMatchObject({ type: 'webhook' });
    expect(byName.get('chat')).toMatchObject({ type: 'slack' });
    expect(byName.get('security-team')).toMatchObject({
      type: 'email',
      configuration: { email: ownerEmail },
    });
    const siem = await api.services.notifications.get(org.id, 'web', 'siem');
    expect(JSON.stringify(siem.configuration)).toContain('siem.acme.example:8443');
    expect(first.notes).toContainEqual(
      "notification web/siem: created disabled; enter the webhook's URL again (OpenCVE shows its host only) and its headers X-Api-Key, then enable it",
    );
    expect(first.notes).toContainEqual(
      expect.stringContaining('notification web/chat: created disabled; enter the Slack webhook URL again'),
    );
    const data = first.data as { notifications: { needSecrets: string[] } };
    expect(data.notifications.needSecrets.sort()).toEqual(['web/chat', 'web/siem']);
  });

  it('copies the automations: triggers, conditions in our form, actions by notification name, the schedule', async () => {
    const list = await get('/projects/web/automations');
    expect((list.results as Json[]).map((a) => a.name).sort()).toEqual(['critical-alerts', 'weekly-report']);
    const alerts = await api.services.automations.get(org.id, 'web', 'critical-alerts');
    expect(alerts).toMatchObject({ is_enabled: true, trigger_type: 'alert' });
    expect(alerts.configuration).toEqual({
      triggers: ['cve_enters_project', 'cvss_increased', 'kev_added'],
      conditions: {
        operator: 'OR',
        children: [
          { type: 'cvss_gte', value: { version: '3.1', value: 9 } },
          {
            operator: 'AND',
            children: [
              { type: 'kev_present', value: true },
              { type: 'epss_gte', value: 0.5 },
            ],
          },
        ],
      },
      actions: [
        { type: 'send_notification', value: 'siem' },
        { type: 'change_status', value: 'to_evaluate' },
      ],
    });
    expect(first.notes).toContainEqual(
      expect.stringMatching(/^automation web\/critical-alerts: assign_user of user .* dropped/),
    );
    const weekly = await api.services.automations.get(org.id, 'web', 'weekly-report');
    expect(weekly).toMatchObject({
      trigger_type: 'report',
      frequency: 'weekly',
      schedule_time: '09:00',
      schedule_timezone: 'Europe/Paris',
      schedule_weekday: 1,
    });
    expect((weekly.configuration as { actions: unknown[] }).actions).toEqual([
      { type: 'generate_report' },
      { type: 'send_notification', value: 'security-team' },
    ]);
  });

  it('copies the tracker: status, and the assignee when a member here', async () => {
    const log4shell = await api.services.projectCves.getCve(org.id, 'web', 'CVE-2021-44228');
    expect(log4shell.tracker).toMatchObject({ status: 'analysis_in_progress', assignee: ownerEmail });
    const xz = await api.services.projectCves.getCve(org.id, 'web', 'CVE-2024-3094');
    expect(xz.tracker).toMatchObject({ status: 'resolved', assignee: null });
    expect(first.notes).toContain(
      'tracker web/CVE-2024-3094: ghost@elsewhere.example is not a member here; status copied, not the assignee',
    );
    const tracked = await get('/projects/web/cves?status=analysis_in_progress');
    expect((tracked.results as Json[]).map((c) => c.cve_id)).toEqual(['CVE-2021-44228']);
    // The invited (not joined) member's assignments were not asked for.
    expect(opencve.requests.some((r) => r.includes('invited%40elsewhere'))).toBe(false);
  });

  it('skips what exists on a re-run and says so', async () => {
    const audit = await api.app.inject({
      method: 'GET',
      url: `/api/v2/organizations/${org.name}/audit-logs?page_size=100`,
      headers: auth,
    });
    const before = audit.json<{ count: number }>().count;
    const { result, progress } = run({});
    const again = await result;
    expect(progress).toContain('project web: exists, skipped');
    expect(progress).toContain('notification web/siem: exists, skipped');
    expect(progress).toContain('automation web/weekly-report: exists, skipped');
    expect(again.text).toContain('projects: 0 created, 3 existing (skipped)');
    expect(again.text).toContain('notifications: 0 created, 3 existing (skipped)');
    expect(again.text).toContain('automations: 0 created, 2 existing (skipped)');
    expect(again.text).toContain('tracker: 0 moved, 2 already so');
    const after = await api.app.inject({
      method: 'GET',
      url: `/api/v2/organizations/${org.name}/audit-logs?page_size=100`,
      headers: auth,
    });
    expect(after.json<{ count: number }>().count).toBe(before);
  });

  describe('errors', () => {
    it('a refused token: 401 in words, nothing written', async () => {
      await expect(run({ token: 'wrong' }).result).rejects.toThrow(
        `OpenCVE refused the token (401 at ${opencve.url}/api/v2/organizations?page_size=100): give an organization token of OpenCVE with --token`,
      );
    });

    it('a bad URL', async () => {
      await expect(run({ url: 'ftp://opencve.example' }).result).rejects.toThrow(
        'ftp://opencve.example is not an http(s) URL',
      );
      await expect(run({ url: 'opencve example' }).result).rejects.toThrow('"opencve example" is not a URL');
    });

    it('an unreachable server', async () => {
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      await expect(run({ url: `http://127.0.0.1:${port}` }).result).rejects.toThrow(
        `cannot reach OpenCVE at http://127.0.0.1:${port}/api/v2 (ECONNREFUSED)`,
      );
    });

    it('a server that is not OpenCVE, an unknown source or target organization', async () => {
      await expect(run({ url: `${opencve.url}/elsewhere` }).result).rejects.toThrow(
        /not found at OpenCVE \(404 at /,
      );
      await expect(run({ fromOrg: 'nope' }).result).rejects.toThrow(
        `OpenCVE's token does not see an organization named "nope" (it sees: acme-sec)`,
      );
      await expect(run({ org: 'no-such-org' }).result).rejects.toThrow(
        'no organization named "no-such-org" here: create it first (vulntrack org create)',
      );
    });
  });
});

describe('vulntrack migrate-from-opencve, the command line', { timeout: 180_000 }, () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let opencve: Awaited<ReturnType<typeof fakeOpenCve>>;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-cli-migrate-'));
    env = { VULNTRACK_DATA_DIR: dataDir, DATABASE_URL: '', VULNTRACK_LOAD_SAMPLE: 'false' };
    opencve = await fakeOpenCve('owner@acme.example');
    for (const args of [
      [
        'user',
        'create',
        '--username',
        'owner',
        '--email',
        'owner@acme.example',
        '--password',
        'correct horse',
      ],
      ['org', 'create', 'acme', '--owner', 'owner'],
    ]) {
      const r = await runCli(args, env);
      expect({ args, code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    }
  });
  afterAll(async () => {
    await opencve?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints progress on stderr and the summary on stdout; a re-run skips what exists', async () => {
    const args = [
      'migrate-from-opencve',
      '--url',
      opencve.url,
      '--token',
      TOKEN,
      '--org',
      'acme',
      '--as',
      'owner',
    ];
    const r = await runCli(args, env);
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    expect(r.stderr).toContain('project web: created with 0 subscription(s)');
    // An empty catalog: the subscriptions and tracked CVEs wait for it, and say so.
    expect(r.stderr).toContain('project web: 3 subscription(s) not in the catalog, not copied');
    expect(r.stderr).toContain(
      'tracker web/CVE-2021-44228: not a CVE of the project here (is it in the catalog?)',
    );
    expect(r.stdout).toContain('projects: 3 created, 0 existing (skipped)');
    const again = await runCli(args, env);
    expect({ code: again.code, stderr: again.stderr }).toMatchObject({ code: 0 });
    expect(again.stderr).toContain('notification web/siem: exists, skipped');
    expect(again.stdout).toContain('automations: 0 created, 2 existing (skipped)');
  });

  it('says what went wrong, in one sentence, exit 1', async () => {
    const r = await runCli(
      ['migrate-from-opencve', '--url', opencve.url, '--token', 'not-the-token', '--org', 'acme'],
      env,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('OpenCVE refused the token (401 at');
    const usage = await runCli(['migrate-from-opencve', '--url', opencve.url, '--org', 'acme'], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("required option '--token <token>' not specified");
  });
});
