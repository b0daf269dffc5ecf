/**
 * The project's automations pages: the list, the builder (a plain form, templates, nested groups read
 * back, the JSON view), validation messages beside the part of the form they concern, the dry run over
 * real imported CVEs, Run now and an execution's per-action results, enable/disable/delete, and who may.
 *
 * A form is posted as a browser would post it: every named field of the page's form with its value
 * (`formFields`), so "what the builder writes" is what the page shows, read back through API v2.
 */
import { storeTestAliases } from '../helpers/aliases.ts';
import { sql } from 'kysely';
import type { HTMLElement } from 'node-html-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { fixture } from '../helpers/catalog.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, type PageResponse, type WebClient } from '../helpers/web.ts';

const PASSWORD = 'correct horse battery staple';
const LOG4J = 'CVE-2021-44228'; // Apache, CVSS 3.1 10, KEV
const XZ = 'CVE-2024-3094'; // Red Hat, CVSS 3.1 10
const PHP = 'CVE-2024-4577'; // PHP Group, CVSS 3.1 9.8, KEV
const OPENSSH = 'CVE-2024-6387'; // Red Hat, CVSS 3.1 8.1
const BASE = '/org/acme/projects/web/automations';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The fields a browser would post from `form` (inputs, checked boxes, selected options, textareas;
 * not disabled ones).
 */
function formFields(form: HTMLElement | null, extra: Record<string, string> = {}) {
  if (!form) throw new Error('no form');
  const out: Record<string, string[]> = {};
  for (const el of form.querySelectorAll('input, select, textarea')) {
    const name = el.getAttribute('name');
    if (!name || el.hasAttribute('disabled')) continue;
    const tag = el.tagName.toLowerCase();
    const type = el.getAttribute('type') ?? 'text';
    let value: string | undefined;
    if (tag === 'select') {
      const option = el.querySelector('option[selected]') ?? el.querySelector('option');
      value = option?.getAttribute('value') ?? option?.text;
    } else if (tag === 'textarea') value = el.text;
    else if (type === 'checkbox')
      value = el.hasAttribute('checked') ? (el.getAttribute('value') ?? 'on') : undefined;
    else value = el.getAttribute('value') ?? '';
    if (value !== undefined) (out[name] ??= []).push(value);
  }
  for (const [k, v] of Object.entries(extra)) out[k] = [v];
  return out;
}

const builderForm = (page: PageResponse) => page.html.querySelector('form.ab-form');

describeEachDatabase('web: project automations', (use) => {
  let api: TestApi;
  let owner: WebClient;
  let member: WebClient;
  let outsider: WebClient;
  let token: string;
  let acme: Awaited<ReturnType<typeof createOrganization>>;

  const v2 = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    const res = await api.app.inject({
      method,
      url: `/api/v2/organizations/acme/projects/web${url}`,
      headers: { authorization: token },
      ...(payload ? { payload } : {}),
    });
    return { status: res.statusCode, body: res.json<Json>() };
  };
  const configOf = async (name: string) => {
    const res = await v2('GET', `/automations/${encodeURIComponent(name)}`);
    expect(res.status).toBe(200);
    return res.body.configuration as Json;
  };

  beforeAll(async () => {
    api = await buildTestApi(use());
    acme = await createOrganization(api.services, 'acme');
    const other = await createOrganization(api.services, 'intruder');
    owner = await signedIn(api, acme.user.username, PASSWORD);
    outsider = await signedIn(api, other.user.username, PASSWORD);
    const plain = await api.services.accounts.createUser({
      username: 'plain',
      email: 'plain@acme.example',
      password: PASSWORD,
    });
    await api.services.members.invite(acme.org.id, { email: 'plain@acme.example' }, acme.actor);
    await api.services.accounts.acceptInvitation(plain.id, 'acme');
    member = await signedIn(api, 'plain', PASSWORD);
    token = (await createToken(api.services, acme.org.id, acme.actor)).header;
    // A real catalog lists these vendors already; this one starts empty, so their rows are made here
    // and the CVEs arrive after the subscriptions (their entry is a recorded change of the project).
    for (const name of ['redhat', 'php_group', 'apache', 'google'])
      await sql`INSERT INTO vendor (name) VALUES (${name}) ON CONFLICT DO NOTHING`.execute(use().db);
    await api.services.projects.create(acme.org.id, { name: 'web' }, acme.actor, {
      vendors: ['redhat', 'php_group', 'apache', 'google'],
    });
    await api.services.notifications.create(
      acme.org.id,
      'web',
      { name: 'hook', type: 'webhook', configuration: { url: 'https://hooks.example.org/in' } },
      acme.actor,
    );
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(api.services.database.db);
    await api.services.imports.importInputs(sources.cve5, [fixture('cve5', 'cves')]);
    await api.services.imports.importInputs(sources.kev, [
      fixture('kev', 'known_exploited_vulnerabilities-excerpt.json'),
    ]);
  });
  afterAll(() => api.close());

  describe('the list', () => {
    it('starts empty, offering the templates and a New button to owners only', async () => {
      const page = await owner.get(BASE);
      expect(page.status).toBe(200);
      expect(page.html.querySelector('nav.tabs a[aria-current=page]')?.text).toBe('Automations');
      expect(page.text).toContain('No automation yet');
      expect(page.html.querySelectorAll(`a[href^="${BASE}/new?template="]`)).toHaveLength(4);
      expect(page.html.querySelector(`a[href="${BASE}/new"]`)).not.toBeNull();
      const asMember = await member.get(BASE);
      expect(asMember.status).toBe(200);
      expect(asMember.html.querySelector(`a[href="${BASE}/new"]`)).toBeNull();
      expect(asMember.html.querySelectorAll(`a[href^="${BASE}/new?template="]`)).toHaveLength(0);
    });
  });

  describe('templates', () => {
    const expected: Record<string, Json> = {
      critical: {
        triggers: ['cve_enters_project'],
        conditions: {
          operator: 'OR',
          children: [
            { type: 'cvss_gte', value: { version: '3.1', value: 9 } },
            { type: 'cvss_gte', value: { version: '4.0', value: 9 } },
          ],
        },
        actions: [{ type: 'send_notification', value: 'hook' }],
      },
      kev: {
        triggers: ['cve_enters_project', 'kev_added'],
        conditions: { operator: 'AND', children: [{ type: 'kev_present' }] },
        actions: [{ type: 'send_notification', value: 'hook' }],
      },
      weekly: {
        triggers: [],
        conditions: { operator: 'AND', children: [] },
        actions: [{ type: 'generate_report' }, { type: 'send_notification', value: 'hook' }],
      },
      triage: {
        triggers: ['cve_enters_project', 'kev_added'],
        conditions: { operator: 'AND', children: [{ type: 'kev_present' }, { type: 'cve_unassigned' }] },
        actions: [
          { type: 'change_status', value: 'to_evaluate' },
          { type: 'assign_user', value: 'OWNER_EMAIL' },
        ],
      },
    };

    for (const template of ['critical', 'kev', 'weekly', 'triage']) {
      it(`"${template}" pre-fills the builder and saves a valid automation, as API v2 reads it`, async () => {
        const page = await owner.get(`${BASE}/new?template=${template}`);
        expect(page.status).toBe(200);
        const form = builderForm(page);
        const saved = await owner.post(
          `${BASE}/new`,
          formFields(form, { name: `t-${template}`, intent: 'save' }),
        );
        expect(saved.status, saved.text.slice(0, 400)).toBe(303);
        expect(saved.location).toBe(`${BASE}/t-${template}?done=created`);
        expect(await configOf(`t-${template}`)).toEqual(
          JSON.parse(JSON.stringify(expected[template]).replace('OWNER_EMAIL', acme.user.email)),
        );
        const detail = await v2('GET', `/automations/t-${template}`);
        if (template === 'weekly')
          expect(detail.body).toMatchObject({
            trigger_type: 'report',
            frequency: 'weekly',
            schedule_weekday: 'monday',
            schedule_time: '08:00:00',
            schedule_timezone: 'UTC',
          });
        else expect(detail.body.trigger_type).toBe('alert');
      });
    }

    it('lists them with their trigger, enabled state and last execution', async () => {
      const page = await owner.get(BASE);
      const rows = page.html.querySelectorAll('table.data tbody tr');
      expect(rows.map((r) => r.querySelector('td a')?.text)).toEqual([
        't-critical',
        't-kev',
        't-triage',
        't-weekly',
      ]);
      expect(rows[0]!.text).toContain('On changes: A CVE enters the project');
      expect(rows[3]!.text).toContain('Report weekly on monday at 08:00 UTC');
      expect(rows[0]!.querySelector('.badge.ok')?.text).toBe('enabled');
      expect(rows[0]!.text).toContain('never');
    });
  });

  describe('the builder', () => {
    const nested = {
      triggers: ['cve_enters_project', 'cvss_increased'],
      conditions: {
        operator: 'AND',
        children: [
          { type: 'vendor_equals', value: 'apache' },
          {
            operator: 'OR',
            children: [
              { type: 'cvss_gte', value: { version: '3.1', value: 9.5 } },
              { operator: 'AND', children: [{ type: 'kev_present' }, { type: 'epss_gte', value: 0.2 }] },
              { type: 'kev_present', value: false },
            ],
          },
          { type: 'cve_status', value: 'no_status' },
          { type: 'cve_newer_than', value: 30 },
          { type: 'cve_unassigned' },
          { type: 'product_equals', value: 'log4j' },
        ],
      },
      actions: [
        { type: 'send_notification', value: 'hook' },
        { type: 'change_status', value: 'pending_review' },
        { type: 'assign_user', value: 'plain@acme.example' },
      ],
    };

    it('reads back a nested automation made through API v2, and saving it unchanged keeps it exactly', async () => {
      const made = await v2('POST', '/automations', {
        name: 'nested',
        trigger_type: 'alert',
        configuration: nested,
      });
      expect(made.status).toBe(201);
      const edit = await owner.get(`${BASE}/nested/edit`);
      expect(edit.status).toBe(200);
      const form = builderForm(edit)!;
      // The nested group is shown as a group inside the root group, its fields named by their place.
      expect(form.querySelector('select[name="cond.1.op"] option[selected]')?.getAttribute('value')).toBe(
        'OR',
      );
      expect(form.querySelector('select[name="cond.1.1.op"] option[selected]')?.getAttribute('value')).toBe(
        'AND',
      );
      expect(form.querySelector('input[name="cond.1.1.1.value"]')?.getAttribute('value')).toBe('0.2');
      const saved = await owner.post(`${BASE}/nested/edit`, formFields(form, { intent: 'save' }));
      expect(saved.status, saved.text.slice(0, 400)).toBe(303);
      expect(saved.location).toBe(`${BASE}/nested?done=saved`);
      expect(await configOf('nested')).toEqual(nested);
      // Nothing changed, so nothing was audited as a change.
      const audits = await api.services.database.db
        .selectFrom('audit_log')
        .select('action')
        .where('action', '=', 'automation.update')
        .execute();
      expect(audits).toHaveLength(0);
    });

    it('writes a flat list of conditions from a plain form (no script), blank rows left out', async () => {
      const page = await owner.get(`${BASE}/new`);
      const fields = formFields(builderForm(page), {
        name: 'plain form',
        intent: 'save',
        'cond.op': 'OR',
        'cond.0.type': 'cvss_gte',
        'cond.0.version': '4.0',
        'cond.0.value': '7',
        'cond.1.type': 'vendor_equals',
        'cond.1.value': ' redhat ',
        'act.0.type': 'generate_report',
      });
      fields.triggers = ['cve_enters_project', 'kev_added'];
      const saved = await owner.post(`${BASE}/new`, fields);
      expect(saved.status, saved.text.slice(0, 400)).toBe(303);
      expect(await configOf('plain form')).toEqual({
        triggers: ['cve_enters_project', 'kev_added'],
        conditions: {
          operator: 'OR',
          children: [
            { type: 'cvss_gte', value: { version: '4.0', value: 7 } },
            { type: 'vendor_equals', value: 'redhat' },
          ],
        },
        actions: [{ type: 'generate_report' }],
      });
    });

    it('shows the configuration as JSON, and saves JSON validated by the same rules', async () => {
      const json = await owner.get(`${BASE}/nested/edit?view=json`);
      expect(json.status).toBe(200);
      const textarea = json.html.querySelector('textarea[name=configuration]');
      expect(JSON.parse(textarea!.text)).toEqual(nested);
      // From the builder to the JSON view without saving: the same configuration.
      const edit = await owner.get(`${BASE}/nested/edit`);
      const switched = await owner.post(
        `${BASE}/nested/edit`,
        formFields(builderForm(edit), { intent: 'json' }),
      );
      expect(switched.status).toBe(200);
      expect(JSON.parse(switched.html.querySelector('textarea[name=configuration]')!.text)).toEqual(nested);
      // And back to the builder.
      const back = await owner.post(
        `${BASE}/nested/edit`,
        formFields(builderForm(switched), { intent: 'builder' }),
      );
      expect(back.status).toBe(200);
      expect(back.html.querySelector('select[name="cond.1.1.op"]')).not.toBeNull();

      const changed = { ...nested, actions: [{ type: 'generate_report' }] };
      const saved = await owner.post(
        `${BASE}/nested/edit`,
        formFields(builderForm(json), { configuration: JSON.stringify(changed), intent: 'save' }),
      );
      expect(saved.status, saved.text.slice(0, 400)).toBe(303);
      expect(await configOf('nested')).toEqual(changed);
    });

    it('puts each validation message beside the part of the form it concerns, keeping what was typed', async () => {
      const page = await owner.get(`${BASE}/new`);
      const fields = formFields(builderForm(page), {
        name: 'new',
        intent: 'save',
        'cond.op': 'AND',
        'cond.0.type': 'epss_gte',
        'cond.0.value': '0.5',
        'cond.1.op': 'OR',
        'cond.1.0.type': 'cvss_gte',
        'cond.1.0.version': '3.1',
        'cond.1.0.value': 'high',
        'act.0.type': 'send_notification',
        'act.0.value': 'nope',
        'act.1.type': 'change_status',
        'act.1.value': 'done',
      });
      fields.triggers = [];
      const bad = await owner.post(`${BASE}/new`, fields);
      expect(bad.status).toBe(400);
      expect(bad.html.querySelector('#f-name-error')?.text).toBe('This name is reserved.');
      expect(bad.html.querySelector('.ab-triggers .error')?.text).toMatch(/at least one trigger/);
      expect(bad.html.querySelector('#c-1-0-error')?.text).toBe('"CVSS at least" needs a score from 0 to 10');
      expect(bad.html.querySelector('#c-1-0-value')?.getAttribute('value')).toBe('high');
      expect(bad.html.querySelector('#c-0-error')).toBeNull();
      expect(bad.html.querySelector('#a-0-error')?.text).toMatch(/name of a notification of this project/);
      // A name that is not one of the project's notifications stays picked, marked as such.
      const picked = bad.html.querySelector('#a-0-value-notification option[selected]');
      expect(picked?.getAttribute('value')).toBe('nope');
      expect(picked?.text).toBe('nope (not one of these)');
      expect(bad.html.querySelector('#a-1-error')?.text).toMatch(
        /^"Set the status" needs one of To evaluate, Pending review/,
      );
      expect(bad.html.querySelector('#f-name')?.getAttribute('value')).toBe('new');
      // A report automation without a frequency: beside the frequency.
      const report = await owner.post(`${BASE}/new`, {
        name: 'r',
        trigger_type: 'report',
        frequency: '',
        'act.0.type': 'generate_report',
      });
      expect(report.status).toBe(400);
      const frequency = report.html.querySelector('#f-frequency')!.parentNode!;
      expect(frequency.querySelector('.error')?.text).toMatch(/daily or weekly/);
      // No action at all.
      const none = await owner.post(`${BASE}/new`, {
        name: 'r',
        trigger_type: 'alert',
        triggers: 'kev_added',
      });
      expect(none.status).toBe(400);
      expect(none.html.querySelector('.ab-actions > .error')?.text).toBe('at least one action');
    });

    it('answers the JSON view with what is wrong: not JSON, the wrong shape, a bad condition', async () => {
      const post = (configuration: string) =>
        owner.post(`${BASE}/new`, {
          mode: 'json',
          name: 'j',
          trigger_type: 'alert',
          configuration,
          intent: 'save',
        });
      const notJson = await post('{"triggers": [');
      expect(notJson.status).toBe(400);
      expect(notJson.html.querySelector('.ab-form .field.has-error .error')?.text).toMatch(
        /^This is not JSON/,
      );
      expect(notJson.html.querySelector('textarea[name=configuration]')?.text).toBe('{"triggers": [');
      const shape = await post('{"triggers": ["cve_enters_project", "sunrise"], "actions": 3}');
      expect(shape.status).toBe(400);
      const shapeText = shape.html.querySelector('.ab-form .field.has-error .error')!.text;
      expect(shapeText).toContain('triggers: unknown trigger "sunrise"');
      expect(shapeText).toContain('actions: must be a list');
      const deep = await post(
        JSON.stringify({
          triggers: ['kev_added'],
          conditions: {
            operator: 'AND',
            children: [{ operator: 'OR', children: [null, { type: 'kev_present', value: 3 }] }],
          },
          actions: [{ type: 'generate_report' }],
        }),
      );
      expect(deep.status).toBe(400);
      const deepText = deep.html.querySelector('.ab-form .field.has-error .error')!.text;
      expect(deepText).toContain('conditions.children[0].children[0]: must be a condition');
      expect(deepText).toContain('conditions.children[0].children[1]: kev_present needs a boolean');
      // API v2 gives the same answer for the same configuration (the same service code), not a 500.
      const apiAnswer = await v2('POST', '/automations', {
        name: 'j',
        trigger_type: 'alert',
        configuration: {
          triggers: ['kev_added'],
          conditions: { operator: 'AND', children: [{ operator: 'OR', children: [null] }] },
          actions: [{ type: 'generate_report' }],
        },
      });
      expect(apiAnswer.status).toBe(400);
      expect(JSON.stringify(apiAnswer.body)).toContain(
        'conditions.children[0].children[0]: must be a condition',
      );
    });

    it('is for owners: a member gets 403 on the builder and its form, another organization 404', async () => {
      expect((await member.get(`${BASE}/new`)).status).toBe(403);
      expect((await member.get(`${BASE}/nested/edit`)).status).toBe(403);
      await member.get(BASE);
      const post = await member.post(`${BASE}/nested/edit`, { name: 'nested', trigger_type: 'alert' });
      expect(post.status).toBe(403);
      expect(post.text).toContain('Only owners of acme');
      expect((await outsider.get(`${BASE}/nested`)).status).toBe(404);
      expect((await outsider.get(`${BASE}/new`)).status).toBe(404);
      const forged = await owner.post(`${BASE}/nested/delete`, { _csrf: 'forged' });
      expect(forged.status).toBe(403);
      expect((await v2('GET', '/automations/nested')).status).toBe(200);
    });
  });

  describe('dry run', () => {
    it('counts the real CVEs a saved automation would have matched over the last 7 days, and acts on none', async () => {
      const db = api.services.database.db;
      const count = async (table: 'automation_execution' | 'delivery' | 'tracker_entry') =>
        Number(
          (await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(db)).rows[0]!
            .n,
        );
      const before = [
        await count('automation_execution'),
        await count('delivery'),
        await count('tracker_entry'),
      ];
      const page = await member.get(`${BASE}/t-critical/dry-run`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Over the last 7 days this would have matched 3 CVEs');
      const ids = page.html.querySelectorAll('.ab-dry-run tbody tr td:first-child a').map((a) => a.text);
      expect(ids).toEqual([LOG4J, XZ, PHP]);
      const log4j = page.html.querySelectorAll('.ab-dry-run tbody tr')[0]!;
      expect(log4j.text).toContain('10.0 Critical');
      expect(log4j.text).toContain('A CVE enters the project');
      expect(log4j.text).toContain('matched Apache');
      // The KEV template: the two KEV CVEs.
      const kev = await owner.get(`${BASE}/t-kev/dry-run`);
      expect(
        kev.html
          .querySelectorAll('.ab-dry-run tbody tr td:first-child a')
          .map((a) => a.text)
          .sort(),
      ).toEqual([LOG4J, PHP].sort());
      expect([
        await count('automation_execution'),
        await count('delivery'),
        await count('tracker_entry'),
      ]).toEqual(before);
    });

    it('leaves out changes older than 7 days', async () => {
      const db = api.services.database.db;
      await sql`UPDATE cve_change SET created_at = now() - interval '8 days' WHERE cve_id = ${XZ}`.execute(
        db,
      );
      const page = await owner.get(`${BASE}/t-critical/dry-run`);
      expect(page.text).toContain('would have matched 2 CVEs');
      expect(page.text).not.toContain(XZ);
      await sql`UPDATE cve_change SET created_at = now() WHERE cve_id = ${XZ}`.execute(db);
    });

    it("runs the builder's unsaved configuration, showing the form again with the CVEs", async () => {
      const page = await owner.get(`${BASE}/new`);
      const fields = formFields(builderForm(page), {
        name: '',
        intent: 'dry-run',
        'cond.op': 'OR',
        'cond.0.type': 'vendor_equals',
        'cond.0.value': 'redhat',
        'cond.1.op': 'AND',
        'cond.1.0.type': 'kev_present',
        'cond.1.1.type': 'cvss_gte',
        'cond.1.1.version': '3.1',
        'cond.1.1.value': '9.9',
      });
      const run = await owner.post(`${BASE}/new`, fields);
      expect(run.status, run.text.slice(0, 300)).toBe(200);
      expect(run.text).toContain('would have matched 3 CVEs');
      const ids = run.html.querySelectorAll('.ab-dry-run tbody tr td:first-child a').map((a) => a.text);
      expect(ids).toEqual([LOG4J, XZ, OPENSSH]);
      // Nothing saved; the form keeps the nested group.
      expect(run.html.querySelector('select[name="cond.1.op"]')).not.toBeNull();
      expect((await v2('GET', '/automations?page_size=100')).body.count).toBe(6);
      // A configuration the service refuses is not run.
      const bad = await owner.post(`${BASE}/new`, { ...fields, 'cond.1.1.value': 'x' });
      expect(bad.status).toBe(400);
      expect(bad.html.querySelector('#c-1-1-error')?.text).toMatch(/^"CVSS at least" needs/);
      expect(bad.html.querySelector('.ab-dry-run')).toBeNull();
    });
  });

  describe('executions', () => {
    it('runs a report automation now and shows the execution with each action result', async () => {
      const page = await owner.get(`${BASE}/t-weekly`);
      expect(page.html.querySelector(`form[action="${BASE}/t-weekly/run"]`)).not.toBeNull();
      const ran = await owner.post(`${BASE}/t-weekly/run`);
      expect(ran.status).toBe(303);
      expect(ran.location).toMatch(new RegExp(`^${BASE}/t-weekly/executions/[0-9a-f-]{36}\\?done=ran$`));
      const execution = await owner.follow(ran);
      expect(execution.status).toBe(200);
      expect(execution.text).toContain('The report automation ran now');
      const results = execution.html
        .querySelectorAll('table.ab-results tbody tr')
        .map((r) => r.querySelectorAll('td').map((td) => td.text.trim()));
      expect(results.map((r) => [r[0], r[1]])).toEqual([
        ['Report generated', 'success'],
        ['Notification sent', 'success'],
      ]);
      expect(results[1]![2]).toContain('notification: hook');
      // The matched CVEs as they were, and the report.
      expect(execution.text).toContain(LOG4J);
      expect(execution.html.querySelector('a[href^="/org/acme/projects/web/reports/"]')).not.toBeNull();
      // The automation page lists it; the list shows it as the last execution.
      const detail = await member.get(`${BASE}/t-weekly`);
      expect(detail.html.querySelectorAll('table.data tbody tr')).toHaveLength(1);
      expect(detail.text).toContain('Report generated success');
      const list = await owner.get(BASE);
      const row = list.html.querySelectorAll('table.data tbody tr').find((r) => r.text.includes('t-weekly'))!;
      expect(row.querySelector(`a[href^="${BASE}/t-weekly/executions/"]`)).not.toBeNull();
      // Members read it too; an unknown execution is a 404.
      expect((await member.get(ran.location!.split('?')[0]!)).status).toBe(200);
      expect((await member.get(`${BASE}/t-weekly/executions/nope`)).status).toBe(404);
    });

    it('shows the results of an alert run by the event processor', async () => {
      await api.services.events.processPending();
      const detail = await owner.get(`${BASE}/t-triage`);
      const link = detail.html.querySelector(`a[href^="${BASE}/t-triage/executions/"]`);
      expect(link, detail.text.slice(0, 500)).not.toBeNull();
      const execution = await owner.get(link!.getAttribute('href')!);
      const results = execution.html
        .querySelectorAll('table.ab-results tbody tr')
        .map((r) => [r.querySelectorAll('td')[0]!.text, r.querySelectorAll('td')[1]!.text]);
      expect(results).toEqual([
        ['Status changed', 'success'],
        ['CVEs assigned', 'success'],
      ]);
    });

    it('lists each automation with its latest execution, whatever order they were stored in', async () => {
      // t-weekly ran once above; it runs again (the newest), then an older execution is stored last.
      const ran = await owner.post(`${BASE}/t-weekly/run`);
      expect(ran.status).toBe(303);
      const newest = ran.location!.split('?')[0]!;
      await sql`
        INSERT INTO automation_execution (automation_id, executed_at, window_start, window_end,
                                          matched_cves_count, results, cves)
        SELECT id, now() - interval '1 day', now() - interval '8 days', now() - interval '1 day',
               41, '[{"action": "generate_report", "status": "failed", "details": {}}]'::jsonb, '[]'::jsonb
          FROM automation WHERE name = 't-weekly'`.execute(api.services.database.db);
      const list = await owner.get(BASE);
      const rows = list.html.querySelectorAll('table.data tbody tr');
      const weekly = rows.find((r) => r.querySelector('td a')?.text === 't-weekly')!;
      expect(weekly.querySelector(`a[href^="${BASE}/t-weekly/executions/"]`)?.getAttribute('href')).toBe(
        newest,
      );
      expect(weekly.text).not.toContain('41 CVEs');
      expect(weekly.querySelector('.badge.danger')).toBeNull();
      // Every row: the execution its automation's page lists first, or never.
      for (const row of rows) {
        const name = row.querySelector('td a')!.text;
        const detail = await member.get(`${BASE}/${encodeURIComponent(name)}`);
        const first = detail.html.querySelector(`table.data tbody tr a[href*="/executions/"]`);
        const shown = row.querySelector(`a[href*="/executions/"]`);
        expect(shown?.getAttribute('href'), name).toBe(first?.getAttribute('href'));
        if (!first) expect(row.text).toContain('never');
      }
      // A page past the last of an automation's executions is not found (as on every numbered list).
      expect((await member.get(`${BASE}/t-weekly?page=2`)).status).toBe(404);
    });

    it('answers Run now on an alert automation with a sentence, not a 500', async () => {
      const res = await owner.post(`${BASE}/t-critical/run`);
      expect(res.status).toBe(400);
      expect(res.text).toContain('Only report automations run on demand');
    });
  });

  describe('enable, disable, delete', () => {
    it('disables and enables again (owners), audited', async () => {
      const off = await owner.post(`${BASE}/t-kev/enabled`, { enabled: 'false' });
      expect(off.status).toBe(303);
      expect(off.location).toBe(`${BASE}/t-kev?done=disabled`);
      expect((await v2('GET', '/automations/t-kev')).body.is_enabled).toBe(false);
      const page = await owner.follow(off);
      expect(page.html.querySelector('h2 .badge')?.text).toBe('disabled');
      expect((await member.post(`${BASE}/t-kev/enabled`, { enabled: 'true' })).status).toBe(403);
      expect((await v2('GET', '/automations/t-kev')).body.is_enabled).toBe(false);
      await owner.get(BASE);
      expect((await owner.post(`${BASE}/t-kev/enabled`, { enabled: 'true' })).status).toBe(303);
      expect((await v2('GET', '/automations/t-kev')).body.is_enabled).toBe(true);
      const audits = await api.services.database.db
        .selectFrom('audit_log')
        .select('changes')
        .where('action', '=', 'automation.update')
        .where('resource_name', '=', 'web/t-kev')
        .execute();
      expect(audits.map((a) => (a.changes as Json).is_enabled)).toEqual([
        { old: true, new: false },
        { old: false, new: true },
      ]);
    });

    it('deletes after asking (owners)', async () => {
      const list = await owner.get(BASE);
      const form = list.html.querySelector(`form[action="${BASE}/t-kev/delete"]`);
      expect(form?.getAttribute('data-confirm')).toMatch(/Delete the automation t-kev/);
      expect((await member.post(`${BASE}/t-kev/delete`)).status).toBe(403);
      const deleted = await owner.post(`${BASE}/t-kev/delete`);
      expect(deleted.status).toBe(303);
      expect(deleted.location).toBe(`${BASE}?done=deleted`);
      expect((await v2('GET', '/automations/t-kev')).status).toBe(404);
      expect((await owner.get(`${BASE}/t-kev`)).status).toBe(404);
    });
  });

  describe("people's words, not storage keys", () => {
    /** The one enabled control named `name` (a row's other value controls are disabled). */
    const control = (form: HTMLElement, name: string) => {
      const enabled = form.querySelectorAll(`[name="${name}"]`).filter((el) => !el.hasAttribute('disabled'));
      expect(enabled, name).toHaveLength(1);
      return enabled[0]!;
    };
    const words = {
      triggers: ['cve_enters_project'],
      conditions: {
        operator: 'AND',
        children: [
          { type: 'product_equals', value: 'microsoft$PRODUCT$exchange_server' },
          { type: 'cve_status', value: 'evaluated' },
          { type: 'kev_present', value: false },
        ],
      },
      actions: [
        { type: 'send_notification', value: 'hook' },
        { type: 'change_status', value: 'evaluated' },
      ],
    };

    it('shows products, statuses and KEV in words, picked from lists, and saves the same keys', async () => {
      expect(
        (await v2('POST', '/automations', { name: 'words', trigger_type: 'alert', configuration: words }))
          .status,
      ).toBe(201);
      const edit = await owner.get(`${BASE}/words/edit`);
      expect(edit.status).toBe(200);
      const form = builderForm(edit)!;
      const product = control(form, 'cond.0.value');
      expect(product.tagName).toBe('INPUT');
      expect(product.getAttribute('value')).toBe('Microsoft / Exchange Server');
      const status = control(form, 'cond.1.value');
      expect(status.tagName).toBe('SELECT');
      expect(status.querySelector('option[selected]')?.getAttribute('value')).toBe('evaluated');
      expect(status.querySelector('option[selected]')?.text).toBe('Evaluated');
      expect(status.querySelectorAll('option').map((o) => o.text)).toContain('No status');
      const kev = control(form, 'cond.2.value');
      expect(kev.tagName).toBe('SELECT');
      expect(kev.querySelectorAll('option').map((o) => [o.getAttribute('value'), o.text])).toEqual([
        ['yes', 'Yes'],
        ['no', 'No'],
      ]);
      expect(kev.querySelector('option[selected]')?.getAttribute('value')).toBe('no');
      // The notification is one of the project's, picked; the status in words.
      const notification = control(form, 'act.0.value');
      expect(notification.tagName).toBe('SELECT');
      expect(notification.querySelectorAll('option').map((o) => o.getAttribute('value'))).toEqual([
        '',
        'hook',
      ]);
      expect(notification.querySelector('option[selected]')?.getAttribute('value')).toBe('hook');
      const setStatus = control(form, 'act.1.value');
      expect(setStatus.tagName).toBe('SELECT');
      expect(setStatus.querySelector('option[selected]')?.text).toBe('Evaluated');
      expect(form.querySelector('datalist, input[list]')).toBeNull();
      // No storage key anywhere on the page; no snake_case status in what people read.
      expect(edit.body).not.toContain('$PRODUCT$');
      const visible = edit.html.querySelector('main')!.text;
      expect(visible).toContain('Microsoft / Exchange Server');
      for (const key of [
        'no_status',
        'to_evaluate',
        'pending_review',
        'analysis_in_progress',
        'not_applicable',
      ])
        expect(visible).not.toContain(key);
      // Saving what the page holds keeps the keys exactly.
      const saved = await owner.post(`${BASE}/words/edit`, formFields(form, { intent: 'save' }));
      expect(saved.status, saved.text.slice(0, 400)).toBe(303);
      expect(await configOf('words')).toEqual(words);
      // The automation's page reads the same in words.
      const page = await member.get(`${BASE}/words`);
      expect(page.body).not.toContain('$PRODUCT$');
      expect(page.text).toContain('Product is Microsoft / Exchange Server');
      expect(page.text).toContain('Status is Evaluated');
      expect(page.text).toContain('Not in KEV');
      expect(page.text).toContain('Set the status: Evaluated');
    });

    it('reads a product typed in words as its key, and a KEV or status picked from its list', async () => {
      const page = await owner.get(`${BASE}/new`);
      const fields = formFields(builderForm(page), {
        name: 'typed words',
        intent: 'save',
        'cond.0.type': 'product_equals',
        'cond.0.value': ' Microsoft / Exchange Server ',
        'cond.1.type': 'kev_present',
        'cond.1.value': 'no',
        'cond.2.type': 'cve_status',
        'cond.2.value': 'no_status',
        'act.0.type': 'change_status',
        'act.0.value': 'risk_accepted',
      });
      const saved = await owner.post(`${BASE}/new`, fields);
      expect(saved.status, saved.text.slice(0, 400)).toBe(303);
      expect((await configOf('typed words')).conditions).toEqual({
        operator: 'AND',
        children: [
          { type: 'product_equals', value: 'microsoft$PRODUCT$exchange_server' },
          { type: 'kev_present', value: false },
          { type: 'cve_status', value: 'no_status' },
        ],
      });
    });

    it('names matched products in words on a dry run, with its conditions and actions', async () => {
      const vendors = (
        await sql<{ vendors: string[] }>`SELECT vendors FROM cve WHERE cve_id = ${LOG4J}`.execute(
          api.services.database.db,
        )
      ).rows[0]!.vendors;
      const key = vendors.find((k) => k.startsWith('apache$PRODUCT$'))!;
      expect(key, vendors.join(' ')).toBeDefined();
      const made = await v2('POST', '/automations', {
        name: 'product words',
        trigger_type: 'alert',
        configuration: {
          triggers: ['cve_enters_project'],
          conditions: { operator: 'AND', children: [{ type: 'product_equals', value: key }] },
          actions: [{ type: 'change_status', value: 'evaluated' }],
        },
      });
      expect(made.status).toBe(201);
      const run = await member.get(`${BASE}/product%20words/dry-run`);
      expect(run.status).toBe(200);
      expect(run.body).not.toContain('$PRODUCT$');
      const product = key.split('$PRODUCT$')[1]!;
      const label = `Apache / ${product
        .split('_')
        .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
        .join(' ')}`;
      expect(run.text).toContain(`Product is ${label}`);
      expect(run.text).toContain('Set the status: Evaluated');
      expect(run.html.querySelectorAll('.ab-dry-run tbody tr td:first-child a').map((a) => a.text)).toContain(
        LOG4J,
      );
      expect(run.html.querySelector('.ab-dry-run tbody')!.text).toContain('matched Apache');
    });

    it('shows statuses in words on the audit log', async () => {
      const moved = await api.app.inject({
        method: 'PATCH',
        url: `/api/v2/organizations/acme/projects/web/cves/${PHP}`,
        headers: { authorization: token },
        payload: { status: 'evaluated' },
      });
      expect(moved.statusCode, moved.body).toBe(200);
      const audit = await owner.get('/org/acme/audit?resource=tracker_entry');
      expect(audit.status).toBe(200);
      const shown = [...audit.html.querySelectorAll('table.data del, table.data ins')].map((n) => n.text);
      expect(shown).toContain('Evaluated');
      expect(shown).not.toContain('evaluated');
      const table = audit.html.querySelector('table.data')!.text;
      for (const key of ['to_evaluate', 'no_status', 'pending_review']) expect(table).not.toContain(key);
    });
  });
});
