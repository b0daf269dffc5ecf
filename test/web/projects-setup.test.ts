/**
 * The projects list, the onboarding (three steps, the draft in the session, everything created at
 * the end or nothing), project settings, subscriptions and the vendor page's subscribe controls.
 */
import { storeTestAliases } from '../helpers/aliases.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { sources } from '../../src/sources/index.ts';
import { ONBOARDING_NAMES } from '../../src/services/onboarding.service.ts';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { fixture } from '../helpers/catalog.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, type WebClient } from '../helpers/web.ts';

const PASSWORD = 'correct horse battery staple';
const HTMX = { 'hx-request': 'true' };

describeEachDatabase('web: projects list, onboarding, settings, subscriptions', (use) => {
  let api: TestApi;
  let acme: Awaited<ReturnType<typeof createOrganization>>;
  let owner: WebClient;
  let member: WebClient;

  const auditActions = async () =>
    (await api.services.auditLog.browse(acme.org.id, {}, { page: 1, pageSize: 100 })).items.map(
      (e) => e.action,
    );

  beforeAll(async () => {
    api = await buildTestApi(use());
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(api.services.database.db);
    await api.services.imports.importInputs(sources.cve5, [fixture('cve5', 'cves')]);
    acme = await createOrganization(api.services, 'acme');
    owner = await signedIn(api, acme.user.username, PASSWORD);
    const plain = await api.services.accounts.createUser({
      username: 'plain',
      email: 'plain@acme.example',
      password: PASSWORD,
    });
    await api.services.members.invite(acme.org.id, { email: 'plain@acme.example' }, acme.actor);
    await api.services.accounts.acceptInvitation(plain.id, 'acme');
    member = await signedIn(api, 'plain', PASSWORD);
  });
  afterAll(() => api.close());

  describe('projects list', () => {
    it('sends an owner of an organization without a project to the onboarding; a member reads why there is none', async () => {
      const list = await owner.get('/org/acme/projects');
      expect(list.status).toBe(303);
      expect(list.location).toBe('/org/acme/new-project');
      const forMember = await member.get('/org/acme/projects');
      expect(forMember.status).toBe(200);
      expect(forMember.text).toContain('acme has no project yet');
      expect(forMember.html.querySelector('a[href="/org/acme/new-project"]')).toBeNull();
      expect((await member.get('/org/acme/new-project')).status).toBe(403);
    });
  });

  describe('onboarding', () => {
    it('step 1 checks the name beside its field and keeps what was typed', async () => {
      const page = await owner.get('/org/acme/new-project');
      expect(page.status).toBe(200);
      expect(page.html.querySelector('ol.steps li[aria-current=step]')?.text).toContain('Name');
      const bad = await owner.post('/org/acme/new-project', { name: '-bad name!', description: 'kept' });
      expect(bad.status).toBe(400);
      expect(bad.html.querySelector('#f-name-error')?.text).toMatch(/starts with a letter or digit/);
      expect(bad.html.querySelector('#f-name')?.getAttribute('value')).toBe('-bad name!');
      expect(bad.html.querySelector('#f-description')?.text).toBe('kept');
      const reserved = await owner.post('/org/acme/new-project', { name: 'new' });
      expect(reserved.status).toBe(400);
      expect(reserved.html.querySelector('#f-name-error')?.text).toBeTruthy();
      const long = await owner.post('/org/acme/new-project', { name: 'ok', description: 'x'.repeat(2001) });
      expect(long.html.querySelector('#f-description-error')?.text).toMatch(/at most 2000 characters/);
      // Nothing was created by these.
      expect((await api.services.projects.list(acme.org.id, { page: 1, pageSize: 10 })).count).toBe(0);
    });

    it('step 2 searches as you type, with counts, and adds and removes vendors and products of the draft', async () => {
      const next = await owner.post('/org/acme/new-project', {
        name: 'Payments',
        description: 'Card payments',
      });
      expect(next.status).toBe(303);
      expect(next.location).toBe('/org/acme/new-project/vendors');

      const found = await owner.get('/org/acme/new-project/vendors?search=apa');
      expect(found.status).toBe(200);
      const rows = found.html.querySelectorAll('#candidates tbody tr');
      const apache = rows.find((r) => r.querySelector('td')?.text.trim() === 'Apache');
      expect(apache, found.text).toBeDefined();
      const { count: total } = await api.services.catalog
        .keyCounts(['apache'])
        .then(([c]) => ({ count: c!.cveCount }));
      expect(total).toBeGreaterThan(0);
      expect(apache!.querySelectorAll('td')[1]!.text).toBe(String(total));
      // htmx gets the candidates alone, which it swaps in.
      const fragment = await owner.get('/org/acme/new-project/vendors?search=apa', HTMX);
      expect(fragment.body).not.toContain('<html');
      expect(fragment.html.querySelector('#candidates')).not.toBeNull();
      // The search keeps working without JavaScript: a GET form.
      expect(found.html.querySelector('form[role=search]')?.getAttribute('method')).toBe('get');

      const unknown = await owner.post('/org/acme/new-project/vendors', {
        add: 'no_such_vendor',
        search: 'apa',
      });
      expect(unknown.status).toBe(400);
      expect(unknown.html.querySelector('#f-add-error')?.text).toMatch(/no such vendor or product/);

      const added = await owner.post('/org/acme/new-project/vendors', { add: 'apache', search: 'apa' });
      expect(added.status).toBe(303);
      expect(added.location).toBe('/org/acme/new-project/vendors?search=apa');
      await owner.post('/org/acme/new-project/vendors', { add: 'adobe' });
      let page = await owner.get('/org/acme/new-project/vendors');
      const chosen = () =>
        page.html.querySelectorAll('button[name=remove]').map((b) => b.getAttribute('value'));
      expect(chosen()).toEqual(['apache', 'adobe']);
      await owner.post('/org/acme/new-project/vendors', { remove: 'adobe' });
      page = await owner.get('/org/acme/new-project/vendors');
      expect(chosen()).toEqual(['apache']);
      // Keywords: refused ones beside the field with what was typed, then saved in the draft.
      const refused = await owner.post('/org/acme/new-project/keywords', { keywords: 'xz\n-' });
      expect(refused.status).toBe(400);
      expect(refused.html.querySelector('#f-keywords-error')?.text).toContain("'-' is too short");
      expect(refused.html.querySelector('textarea[name=keywords]')?.text).toBe('xz\n-');
      const saved = await owner.post('/org/acme/new-project/keywords', { keywords: ' XZ \n' });
      expect(saved.status).toBe(303);
      expect(saved.location).toBe('/org/acme/new-project/vendors#keywords');
      page = await owner.get('/org/acme/new-project/vendors');
      expect(page.html.querySelector('textarea[name=keywords]')?.text).toBe('xz');
      // Step 1 still holds what was typed.
      const back = await owner.get('/org/acme/new-project');
      expect(back.html.querySelector('#f-name')?.getAttribute('value')).toBe('Payments');
    });

    it('step 3 sends back to step 1 when the name was taken meanwhile', async () => {
      await api.services.projects.create(acme.org.id, { name: 'Payments' }, acme.actor);
      try {
        const taken = await owner.post('/org/acme/new-project/alerts', { alert: '' });
        expect(taken.status).toBe(400);
        expect(taken.text).toMatch(/name: .*not available|name: .*already/i);
        expect(taken.html.querySelector('main a[href="/org/acme/new-project"]')).not.toBeNull();
      } finally {
        await api.services.projects.delete(acme.org.id, 'Payments', acme.actor);
      }
    });

    it('step 3 checks the alert beside its field, keeps what was typed, and creates nothing on an error', async () => {
      const page = await owner.get('/org/acme/new-project/alerts');
      expect(page.status).toBe(200);
      expect(page.text).toContain('Apache'); // the summary names keys in words
      // This server has no SMTP_URL: email is offered as unavailable, with why, and refused if sent.
      expect(page.html.querySelector('input[name=alert][value=email]')?.hasAttribute('disabled')).toBe(true);
      expect(page.html.querySelector('#no-email-server')?.text).toContain('SMTP_URL is not set');
      const noSmtp = await owner.post('/org/acme/new-project/alerts', {
        alert: 'email',
        alert_target: 'security@acme.example',
      });
      expect(noSmtp.status).toBe(400);
      expect(noSmtp.html.querySelector('.form-problems, .error')?.text ?? noSmtp.text).toContain(
        'Email is not configured on this server',
      );
      const empty = await owner.post('/org/acme/new-project/alerts', { alert: 'email', alert_target: '' });
      expect(empty.status).toBe(400);
      expect(empty.html.querySelector('#f-alert_target-error')?.text).toMatch(/Type the email address/);
      const bad = await owner.post('/org/acme/new-project/alerts', {
        alert: 'webhook',
        alert_target: 'ftp://hooks.example.com/x',
        weekly_report: 'on',
      });
      expect(bad.status).toBe(400);
      expect(bad.html.querySelector('#f-alert_target-error')?.text).toBeTruthy();
      expect(bad.html.querySelector('#f-alert_target')?.getAttribute('value')).toBe(
        'ftp://hooks.example.com/x',
      );
      expect(bad.html.querySelector('input[name=alert][value=webhook]')?.hasAttribute('checked')).toBe(true);
      expect((await api.services.projects.list(acme.org.id, { page: 1, pageSize: 10 })).count).toBe(0);
    });

    it('creates the project, its subscriptions, a webhook alert and a weekly report, then shows its dashboard', async () => {
      const created = await owner.post('/org/acme/new-project/alerts', {
        alert: 'webhook',
        alert_target: 'https://hooks.example.com/vulntrack',
        weekly_report: 'on',
      });
      expect(created.status, created.text).toBe(303);
      expect(created.location).toBe('/org/acme/projects/Payments?done=created');
      const dashboard = await owner.follow(created);
      expect(dashboard.status).toBe(200);
      expect(dashboard.text).toContain('The project was created');

      const detail = await api.services.projects.get(acme.org.id, 'Payments');
      expect(detail.project.description).toBe('Card payments');
      expect(detail.subscriptions).toEqual({ vendors: ['apache'], products: {} });
      expect(await api.services.projectKeywords.get(acme.org.id, 'Payments')).toEqual(['xz']);
      const notification = await api.services.notifications.get(
        acme.org.id,
        'Payments',
        ONBOARDING_NAMES.notification,
      );
      expect(notification.type).toBe('webhook');
      const alert = await api.services.automations.get(acme.org.id, 'Payments', ONBOARDING_NAMES.alert);
      expect(alert.trigger_type).toBe('alert');
      expect(alert.configuration).toMatchObject({
        // A tracked CVE added to KEV or raised to critical alerts too, not only a CVE entering.
        triggers: ['cve_enters_project', 'kev_added', 'cvss_increased'],
        conditions: {
          operator: 'OR',
          children: [
            { type: 'cvss_gte', value: { version: '3.1', value: 9 } },
            { type: 'cvss_gte', value: { version: '4.0', value: 9 } },
            { type: 'kev_present', value: true },
          ],
        },
        actions: [{ type: 'send_notification', value: ONBOARDING_NAMES.notification }],
      });
      const report = await api.services.automations.get(acme.org.id, 'Payments', ONBOARDING_NAMES.report);
      expect(report).toMatchObject({ trigger_type: 'report', frequency: 'weekly', schedule_weekday: 1 });
      expect(report.configuration.actions).toEqual([
        { type: 'generate_report' },
        { type: 'send_notification', value: ONBOARDING_NAMES.notification },
      ]);
      // Audited like API v2's calls, the signed-in user as actor.
      expect(await auditActions()).toEqual(
        expect.arrayContaining([
          'project.create',
          'subscription.update',
          'keyword.update',
          'notification.create',
          'automation.create',
        ]),
      );
      // The draft is gone.
      const again = await owner.get('/org/acme/new-project');
      expect(again.html.querySelector('#f-name')?.getAttribute('value') ?? '').toBe('');
    });

    it('deletes the project again when a later part fails (nothing half made)', async () => {
      await expect(
        api.services.onboarding.createProject(
          acme.org.id,
          {
            name: 'Half made',
            description: '',
            subscriptions: ['apache'],
            alert: { type: 'webhook', target: 'https://hooks.example.com/x' },
            weeklyReport: true,
            timeZone: 'Not/AZone',
          },
          acme.actor,
        ),
      ).rejects.toMatchObject({ code: 'validation_error' });
      await expect(api.services.projects.find(acme.org.id, 'Half made')).rejects.toMatchObject({
        code: 'not_found',
      });
      const { rows } = await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM notification n JOIN project p ON p.id = n.project_id WHERE p.name = 'Half made'`.execute(
        api.services.database.db,
      );
      expect(rows[0]!.n).toBe(0);
    });
  });

  describe('projects list with projects', () => {
    it('lists each project with its subscriptions, CVEs and open triage; the New project button for owners', async () => {
      const page = await owner.get('/org/acme/projects');
      expect(page.status).toBe(200);
      const row = page.html.querySelectorAll('table.project-list tbody tr')[0]!;
      const cells = row.querySelectorAll('td').map((td) => td.text.trim());
      expect(cells[0]).toContain('Payments');
      expect(cells[1]).toBe('1');
      const tracker = await api.services.projectCves.listCves(
        acme.org.id,
        'Payments',
        { filters: {}, ordering: '-updated_at' } as never,
        { page: 1, pageSize: 1 },
      );
      expect(cells[2]).toBe(String(tracker.count));
      expect(cells[3]).toBe('0');
      expect(page.html.querySelector('a[href="/org/acme/new-project"]')).not.toBeNull();
      const forMember = await member.get('/org/acme/projects');
      expect(forMember.html.querySelector('a[href="/org/acme/new-project"]')).toBeNull();
      expect(forMember.text).toContain('Payments');
    });
  });

  describe('subscriptions', () => {
    it('shows the subscriptions with counts and links; a member reads them without controls', async () => {
      const page = await owner.get('/org/acme/projects/Payments/subscriptions');
      expect(page.status).toBe(200);
      expect(
        page.html.querySelector('a[href="/org/acme/projects/Payments/cves?vendor=apache"]'),
      ).not.toBeNull();
      expect(page.html.querySelector('a[href="/vendors/apache"]')).not.toBeNull();
      expect(page.html.querySelector('button[name=remove][value=apache]')).not.toBeNull();
      const forMember = await member.get('/org/acme/projects/Payments/subscriptions');
      expect(forMember.status).toBe(200);
      expect(forMember.text).toContain('Apache');
      expect(forMember.html.querySelector('button[name=remove]')).toBeNull();
      expect(forMember.html.querySelector('#candidates')).toBeNull();
      expect((await member.post('/org/acme/projects/Payments/subscriptions', { add: 'adobe' })).status).toBe(
        403,
      );
      expect(
        (await member.post('/org/acme/projects/Payments/subscriptions/remove', { remove: 'apache' })).status,
      ).toBe(403);
    });

    it('adds from the search and removes, audited; an unknown name is shown beside the search', async () => {
      const search = await owner.get('/org/acme/projects/Payments/subscriptions?search=ado');
      expect(search.html.querySelector('#candidates button[name=add][value=adobe]')).not.toBeNull();
      const unknown = await owner.post('/org/acme/projects/Payments/subscriptions', { add: 'adobee' });
      expect(unknown.status).toBe(400);
      expect(unknown.html.querySelector('#f-add-error')?.text).toMatch(/adobee/);
      expect(unknown.html.querySelector('#f-add-error')?.text).toMatch(/Did you mean 'adobe'/);
      const added = await owner.post('/org/acme/projects/Payments/subscriptions', {
        add: 'adobe',
        search: 'ado',
      });
      expect(added.status).toBe(303);
      expect(added.location).toBe('/org/acme/projects/Payments/subscriptions?search=ado&done=added');
      const after = await owner.follow(added);
      expect(after.text).toContain('Subscribed: the project now lists');
      expect(after.html.querySelector('button[name=remove][value=adobe]')).not.toBeNull();
      expect(after.html.querySelector('#candidates button[name=add][value=adobe]')).toBeNull();
      const removed = await owner.post('/org/acme/projects/Payments/subscriptions/remove', {
        remove: 'adobe',
      });
      expect(removed.status).toBe(303);
      expect((await api.services.projects.getSubscriptions(acme.org.id, 'Payments')).vendors).toEqual([
        'apache',
      ]);
      const entries = await api.services.auditLog.browse(acme.org.id, {}, { page: 1, pageSize: 5 });
      const changes = entries.items.filter((e) => e.action === 'subscription.update').map((e) => e.changes);
      expect(changes.slice(0, 2)).toEqual([
        { added: [], removed: ['adobe'] },
        { added: ['adobe'], removed: [] },
      ]);
    });

    it('edits the watched keywords: errors beside the field with what was typed, saved and audited, the CVEs listed', async () => {
      const url = '/org/acme/projects/Payments/subscriptions/keywords';
      const refused = await owner.post(url, { keywords: 'xz\nx' });
      expect(refused.status).toBe(400);
      expect(refused.html.querySelector('#f-keywords-error')?.text).toContain(
        "'x' is too short: a keyword has 2 to 100 characters.",
      );
      expect(refused.html.querySelector('textarea[name=keywords]')?.text).toBe('xz\nx');
      // As the onboarding left them.
      expect(await api.services.projectKeywords.get(acme.org.id, 'Payments')).toEqual(['xz']);
      const saved = await owner.post(url, { keywords: 'XZ\r\n\r\n  Log4j Core \n' });
      expect(saved.status).toBe(303);
      expect(saved.location).toBe('/org/acme/projects/Payments/subscriptions?done=keywords#keywords');
      const after = await owner.follow(saved);
      expect(after.text).toContain('Keywords saved');
      expect(after.html.querySelector('textarea[name=keywords]')?.text).toBe('log4j core\nxz');
      const entries = await api.services.auditLog.browse(acme.org.id, {}, { page: 1, pageSize: 5 });
      expect(entries.items.find((e) => e.action === 'keyword.update')?.changes).toEqual({
        added: ['log4j core'],
        removed: [],
      });
      const list = await owner.get('/org/acme/projects/Payments/cves');
      expect(
        list.html.querySelector('a[href="/org/acme/projects/Payments/cves/CVE-2024-3094"]'),
      ).not.toBeNull();
      const forMember = await member.get('/org/acme/projects/Payments/subscriptions');
      expect(forMember.html.querySelector('textarea[name=keywords]')).toBeNull();
      expect(forMember.html.querySelector('#keywords')?.text).toContain('log4j core');
      expect((await member.post(url, { keywords: 'openssh' })).status).toBe(403);
      await owner.post(url, { keywords: '' });
      expect(await api.services.projectKeywords.get(acme.org.id, 'Payments')).toEqual([]);
    });

    it('counts the CVEs of the last 30 days from the index, and warns on a noisy vendor', async () => {
      const db = api.services.database.db;
      const newest = await sql<{
        at: Date;
      }>`SELECT max(updated_at) AS at FROM cve_vendor WHERE vendor_key = 'apache'`.execute(db);
      const at = new Date(newest.rows[0]!.at);
      const [justAfter] = await api.services.catalog.keyCounts(
        ['apache'],
        new Date(at.getTime() + 86_400_000),
      );
      expect(justAfter!.recentCount).toBeGreaterThanOrEqual(1);
      const [longAfter] = await api.services.catalog.keyCounts(
        ['apache'],
        new Date(at.getTime() + 31 * 86_400_000),
      );
      expect(longAfter!.recentCount).toBe(0);
      // 101 recent rows of a vendor key (index rows only: the counts read nothing else).
      await sql`INSERT INTO cve_vendor (vendor_key, updated_at, cve_id)
                SELECT 'adobe', now() - interval '1 day', 'CVE-2099-' || (10000 + g) FROM generate_series(1, 101) g`.execute(
        db,
      );
      try {
        const page = await owner.get('/org/acme/projects/Payments/subscriptions?search=adob');
        const row = page.html.querySelectorAll('#candidates tbody tr')[0]!;
        expect(row.querySelectorAll('td')[2]!.text).toContain('101');
        expect(row.querySelector('.badge.noisy')).not.toBeNull();
      } finally {
        await sql`DELETE FROM cve_vendor WHERE cve_id LIKE 'CVE-2099-%'`.execute(db);
      }
    });
  });

  describe('vendor page', () => {
    it('subscribes a project to a vendor or a product, and back', async () => {
      const page = await owner.get('/vendors/adobe');
      expect(page.status).toBe(200);
      const vendorButton = page.html.querySelector('#subscribe button[value="subscribe:Payments"]');
      expect(vendorButton).not.toBeNull();
      const subscribed = await owner.post('/vendors/adobe/subscriptions', {
        org: 'acme',
        vendor: 'adobe',
        toggle: 'subscribe:Payments',
      });
      expect(subscribed.status).toBe(303);
      expect(subscribed.location).toBe('/vendors/adobe?done=subscribed');
      const after = await owner.follow(subscribed);
      expect(after.text).toContain('Subscribed');
      expect(after.html.querySelector('#subscribe button[aria-pressed=true]')?.getAttribute('value')).toBe(
        'unsubscribe:Payments',
      );
      await owner.post('/vendors/adobe/subscriptions', {
        org: 'acme',
        vendor: 'adobe',
        toggle: 'unsubscribe:Payments',
      });
      expect((await api.services.projects.getSubscriptions(acme.org.id, 'Payments')).vendors).toEqual([
        'apache',
      ]);
      // A product row's control subscribes the product alone.
      const productForm = page.html
        .querySelectorAll('#product-rows form')
        .find((f) => f.querySelector('button[value="subscribe:Payments"]'));
      const product = productForm?.querySelector('input[name=product]')?.getAttribute('value');
      expect(product).toBeTruthy();
      const viaProduct = await owner.post('/vendors/adobe/subscriptions', {
        org: 'acme',
        vendor: 'adobe',
        product: product!,
        toggle: 'subscribe:Payments',
      });
      expect(viaProduct.status).toBe(303);
      expect((await api.services.projects.getSubscriptions(acme.org.id, 'Payments')).products).toEqual({
        adobe: [product],
      });
      await owner.post('/vendors/adobe/subscriptions', {
        org: 'acme',
        vendor: 'adobe',
        product: product!,
        toggle: 'unsubscribe:Payments',
      });
      expect((await api.services.projects.getSubscriptions(acme.org.id, 'Payments')).products).toEqual({});
      const noToggle = await owner.post('/vendors/adobe/subscriptions', { org: 'acme', vendor: 'adobe' });
      expect(noToggle.status).toBe(400);
      expect(noToggle.text).toContain('Press a project’s button');
      // Another organization, or a project it does not have: 404.
      expect(
        (
          await owner.post('/vendors/adobe/subscriptions', {
            org: 'other',
            vendor: 'adobe',
            toggle: 'subscribe:Payments',
          })
        ).status,
      ).toBe(404);
      expect(
        (
          await owner.post('/vendors/adobe/subscriptions', {
            org: 'acme',
            vendor: 'adobe',
            toggle: 'subscribe:Nope',
          })
        ).status,
      ).toBe(404);
      // Subscriptions are an owner's to change: a member sees no controls (here or on a CVE page), and a POST is a 403.
      const cve = await member.get('/cves/CVE-2021-44228');
      expect(cve.status).toBe(200);
      expect(cve.html.querySelector('.subscribe-controls')).toBeNull();
      expect(
        (
          await member.post('/cves/CVE-2021-44228/subscriptions', {
            org: 'acme',
            vendor: 'apache',
            toggle: 'subscribe:Payments',
          })
        ).status,
      ).toBe(403);
      expect(
        (await owner.get('/cves/CVE-2021-44228')).html.querySelector('.subscribe-controls'),
      ).not.toBeNull();
      expect((await member.get('/vendors/adobe')).html.querySelector('#subscribe')).toBeNull();
      expect(
        (
          await member.post('/vendors/adobe/subscriptions', {
            org: 'acme',
            vendor: 'adobe',
            toggle: 'subscribe:Payments',
          })
        ).status,
      ).toBe(403);
    });
  });

  describe('settings', () => {
    it('lets a member read the settings, not change them', async () => {
      const page = await member.get('/org/acme/projects/Payments/settings');
      expect(page.status).toBe(200);
      expect(page.text).toContain('Card payments');
      expect(page.html.querySelector('form input[name=name]')).toBeNull();
      expect(page.html.querySelector('form[action$="/delete"]')).toBeNull();
      expect((await member.post('/org/acme/projects/Payments/settings', { name: 'x' })).status).toBe(403);
      expect(
        (await member.post('/org/acme/projects/Payments/settings/active', { active: 'false' })).status,
      ).toBe(403);
      expect(
        (await member.post('/org/acme/projects/Payments/settings/delete', { confirm: 'Payments' })).status,
      ).toBe(403);
    });

    it('renames with the rules beside the field, and moves to the new name', async () => {
      await api.services.projects.create(acme.org.id, { name: 'Other' }, acme.actor);
      const taken = await owner.post('/org/acme/projects/Payments/settings', {
        name: 'Other',
        description: 'd',
      });
      expect(taken.status).toBe(400);
      expect(taken.html.querySelector('#f-name-error')?.text).toBeTruthy();
      expect(taken.html.querySelector('#f-name')?.getAttribute('value')).toBe('Other');
      const renamed = await owner.post('/org/acme/projects/Payments/settings', {
        name: 'Payments EU',
        description: 'Card payments in the EU',
      });
      expect(renamed.status).toBe(303);
      expect(renamed.location).toBe('/org/acme/projects/Payments%20EU/settings?done=saved');
      const page = await owner.follow(renamed);
      expect(page.text).toContain('The project was saved');
      expect(page.html.querySelector('h1')?.text).toBe('Payments EU');
      expect((await owner.get('/org/acme/projects/Payments/settings')).status).toBe(404);
    });

    it('makes the project inactive (its settings still open, its other pages do not) and active again', async () => {
      const off = await owner.post('/org/acme/projects/Payments%20EU/settings/active', { active: 'false' });
      expect(off.status).toBe(303);
      const page = await owner.follow(off);
      expect(page.status).toBe(200);
      expect(page.text).toContain('This project is inactive');
      expect((await owner.get('/org/acme/projects/Payments%20EU/subscriptions')).status).toBe(404);
      const list = await owner.get('/org/acme/projects');
      expect(list.html.querySelector('table.project-list')?.text).toContain('inactive');
      const bad = await owner.post('/org/acme/projects/Payments%20EU/settings/active', { active: 'maybe' });
      expect(bad.status).toBe(400);
      const on = await owner.post('/org/acme/projects/Payments%20EU/settings/active', { active: 'true' });
      expect(on.status).toBe(303);
      expect((await owner.get('/org/acme/projects/Payments%20EU/subscriptions')).status).toBe(200);
    });

    it('deletes only with the name typed again', async () => {
      const wrong = await owner.post('/org/acme/projects/Payments%20EU/settings/delete', {
        confirm: 'payments eu',
      });
      expect(wrong.status).toBe(400);
      expect(wrong.html.querySelector('#f-confirm-error')?.text).toMatch(/Type the project's name exactly/);
      expect(wrong.html.querySelector('#f-confirm')?.getAttribute('value')).toBe('payments eu');
      const deleted = await owner.post('/org/acme/projects/Payments%20EU/settings/delete', {
        confirm: 'Payments EU',
      });
      expect(deleted.status).toBe(303);
      expect(deleted.location).toBe('/org/acme/projects?done=deleted');
      const list = await owner.follow(deleted);
      expect(list.text).toContain('The project was deleted');
      expect(list.text).not.toContain('Payments EU');
      expect(await auditActions()).toContain('project.delete');
    });
  });

  it('refuses the forms without the CSRF token', async () => {
    expect((await owner.post('/org/acme/new-project', { name: 'x', _csrf: 'forged' })).status).toBe(403);
    expect(
      (
        await owner.post('/vendors/adobe/subscriptions', {
          org: 'acme',
          vendor: 'adobe',
          toggle: 'subscribe:Other',
          _csrf: 'forged',
        })
      ).status,
    ).toBe(403);
  });
});
