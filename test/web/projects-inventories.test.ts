/**
 * The Inventory tab (docs/web-ui.md, "Projects: inventories"), both databases: an owner uploads an
 * SBOM file through the form (multipart, as a browser sends it), sees what the upload did, the
 * components and a component's findings; a newer SBOM resolves them; a broken file is refused with its
 * first problem and nothing stored; a member reads but cannot upload; another organization sees
 * nothing; a file on another form is refused.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import { SAMPLE_RECORDS, storeAliasTable } from '../helpers/aliases.ts';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { fixture } from '../helpers/catalog.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, WebClient } from '../helpers/web.ts';

const PASSWORD = 'correct horse battery staple';
const tab = '/org/acme/projects/web/inventories';
const sbom = (name: string) => readFile(fixture('sbom', name));
const FOUND = ['CVE-2014-0160', 'CVE-2021-44228', 'CVE-2024-3094'];

describeEachDatabase('web: project inventories', (use) => {
  let api: TestApi;
  let owner: WebClient;
  let member: WebClient;
  let stranger: WebClient;

  beforeAll(async () => {
    api = await buildTestApi(use());
    const acme = await createOrganization(api.services, 'acme');
    const other = await createOrganization(api.services, 'other');
    // A new install's alias table; Log4Shell and the xz backdoor from their CVE 5 records, Heartbleed
    // from NVD (as POST /match's SBOM test).
    await storeAliasTable(api.services.database.db, [SAMPLE_RECORDS]);
    await api.services.imports.importInputs(sources.cve5, [fixture('cve5', 'cves')]);
    await api.services.imports.importInputs(sources.nvd, [
      fixture('nvd', 'feed-1.1-heartbleed.json.gz'),
      fixture('nvd', 'CVE-2024-3094.json'),
    ]);
    await api.services.projects.create(acme.org.id, { name: 'web' }, acme.actor);
    owner = await signedIn(api, acme.user.username, PASSWORD);
    const plain = await api.services.accounts.createUser({
      username: 'plain',
      email: 'plain@acme.example',
      password: PASSWORD,
    });
    await api.services.members.invite(acme.org.id, { email: 'plain@acme.example' }, acme.actor);
    await api.services.accounts.acceptInvitation(plain.id, 'acme');
    member = await signedIn(api, 'plain', PASSWORD);
    stranger = await signedIn(api, other.user.username, PASSWORD);
  });
  afterAll(() => api.close());

  const trackerIds = async () =>
    (await owner.get('/org/acme/projects/web/cves')).html
      .querySelectorAll('td.cve-id a')
      .map((a) => a.text.trim());

  describe('an owner', () => {
    it('sees an empty tab with the upload form', async () => {
      const page = await owner.get(tab);
      expect(page.status).toBe(200);
      expect(page.text).toContain('No inventory yet.');
      expect(
        page.html.querySelector('form[enctype="multipart/form-data"] input[type=file][name=sbom]'),
      ).toBeTruthy();
    });

    it('uploads a CycloneDX file and lands on the inventory with what the upload did', async () => {
      await owner.get(tab);
      const posted = await owner.postFiles(
        tab,
        { name: 'backend' },
        {
          sbom: {
            name: 'bom.json',
            content: await sbom('cyclonedx-1.6-vulnerable.json'),
            type: 'application/json',
          },
        },
      );
      expect(posted.status).toBe(303);
      expect(posted.location).toBe(`${tab}/backend`);
      const page = await owner.get(posted.location!);
      const result = page.html.querySelector('.upload-result')!.text.replace(/\s+/g, ' ');
      expect(result).toContain('3 CVEs affect them');
      for (const id of FOUND) expect(result).toContain(id);
      // Shown once: the next visit has no notice.
      expect((await owner.get(posted.location!)).html.querySelector('.upload-result')).toBeNull();
      // The components, with their counts; the three CVEs are in the tracker.
      const rows = page.html.querySelectorAll('table.components tbody tr');
      expect(rows.map((r) => r.querySelector('td a')!.text.trim())).toEqual(
        expect.arrayContaining(['log4j-core', 'openssl', 'xz-utils']),
      );
      expect(await trackerIds()).toEqual(expect.arrayContaining(FOUND));
    });

    it('lists the inventory on the tab and filters components by name and by CVEs', async () => {
      const list = await owner.get(tab);
      const cells = list.html.querySelectorAll('table.data tbody tr td').map((td) => td.text.trim());
      expect(cells.slice(0, 4)).toEqual(['backend', 'CycloneDX 1.6', '3', '3']);
      const searched = await owner.get(`${tab}/backend?search=log4j`);
      expect(searched.html.querySelectorAll('table.components tbody tr')).toHaveLength(1);
      const affected = await owner.get(`${tab}/backend?affected=1`);
      const names = affected.html
        .querySelectorAll('table.components tbody tr')
        .map((r) => r.querySelector('td a')!.text);
      expect(names.sort()).toEqual(['log4j-core', 'openssl', 'xz-utils']);
    });

    it("opens a component's findings with the rule that matched, linked to the project's CVE page", async () => {
      const list = await owner.get(`${tab}/backend?search=log4j-core`);
      const href = list.html.querySelector('table.components tbody tr td a')!.getAttribute('href')!;
      const page = await owner.get(href);
      expect(page.status).toBe(200);
      const finding = page.html.querySelector('.finding')!;
      expect(finding.querySelector('a')!.getAttribute('href')).toBe(
        '/org/acme/projects/web/cves/CVE-2021-44228',
      );
      // Apache writes one range with steps (changes[]): the step that covers 2.14.1, up to the next.
      // The project's page of the CVE says why it is there, and has the triage form.
      const cve = await owner.get('/org/acme/projects/web/cves/CVE-2021-44228');
      const why = cve.html.querySelector('#why')!.text.replace(/\s+/g, ' ');
      expect(why).toContain('Why this CVE is in this project');
      expect(why).toContain('log4j-core 2.14.1 of the inventory backend');
      expect(cve.html.querySelector('form.triage-form')).toBeTruthy();
      expect(finding.querySelector('.rules')!.text).toContain(
        'The CNA (Apache Software Foundation · Apache Log4j2): affected from 2.13.0 up to before 2.15.0 (custom)',
      );
    });

    it('downloads the VEX in both formats', async () => {
      const cdx = await owner.get(`${tab}/backend/vex?format=cyclonedx`);
      expect(cdx.status).toBe(200);
      expect(cdx.headers['content-disposition']).toContain('attachment');
      const bom = JSON.parse(cdx.body) as { bomFormat: string; vulnerabilities: { id: string }[] };
      expect(bom.bomFormat).toBe('CycloneDX');
      expect(bom.vulnerabilities.map((v) => v.id).sort()).toEqual(FOUND);
      const open = JSON.parse((await owner.get(`${tab}/backend/vex?format=openvex`)).body) as {
        statements: { vulnerability: { name: string } }[];
      };
      expect(open.statements.map((s) => s.vulnerability.name).sort()).toEqual(FOUND);
      expect((await owner.get(`${tab}/backend/vex?format=pdf`)).status).toBe(400);
    });

    it('refuses a broken SBOM with its first problem and keeps the inventory as it was', async () => {
      await owner.get(tab);
      const refused = await owner.postFiles(
        tab,
        { name: 'backend' },
        { sbom: { name: 'bom.json', content: await sbom('broken-cyclonedx-1.6-bad-type.json') } },
      );
      expect(refused.status).toBe(400);
      const problem = refused.html.querySelector('.field .error, .notice.error')!.text;
      expect(problem).toContain('The SBOM cannot be read');
      expect(problem).toMatch(/\/components\//);
      // The name typed is kept; nothing changed.
      expect(refused.html.querySelector('input[name=name]')!.getAttribute('value')).toBe('backend');
      const page = await owner.get(`${tab}/backend?affected=1`);
      expect(page.html.querySelectorAll('table.components tbody tr')).toHaveLength(3);
    });

    it('asks for a file when none is chosen, and refuses a bad name', async () => {
      await owner.get(tab);
      const none = await owner.postFiles(tab, { name: 'backend' }, {});
      expect(none.status).toBe(400);
      expect(none.text).toContain('Choose an SBOM file to upload.');
      const badName = await owner.postFiles(
        tab,
        { name: '../etc' },
        { sbom: { name: 'bom.json', content: await sbom('cyclonedx-1.6-vulnerable.json') } },
      );
      expect(badName.status).toBe(400);
      expect(badName.html.querySelector('#f-name-error')!.text).toContain('An inventory name');
    });

    it('uploads the upgraded SPDX file: the three CVEs are resolved with the versions before and after', async () => {
      await owner.get(tab);
      const posted = await owner.postFiles(
        tab,
        { name: 'backend' },
        { sbom: { name: 'bom.spdx', content: await sbom('spdx-2.3-fixed.spdx'), type: 'text/plain' } },
      );
      expect(posted.status).toBe(303);
      const page = await owner.get(posted.location!);
      const result = page.html.querySelector('.upload-result')!.text.replace(/\s+/g, ' ');
      expect(result).toContain('No CVE affects these versions.');
      expect(result).toMatch(/CVE-2021-44228 resolved: log4j-core 2\.14\.1 → 2\.17\.1/);
      // Still the project's, resolved, with the comment and the why saying so.
      const tracker = await owner.get('/org/acme/projects/web/cves/CVE-2021-44228');
      expect(tracker.text).toMatch(/Resolved by inventory backend: log4j-core 2\.14\.1 → 2\.17\.1/);
      expect(tracker.html.querySelector('#why')!.text.replace(/\s+/g, ' ')).toContain(
        'Resolved by the inventory backend: log4j-core 2.14.1 → 2.17.1',
      );
      expect(tracker.html.querySelector('select[name=status] option[selected]')!.text).toBe('Resolved');
      expect(page.text).toContain('SPDX tag-value 2.3');
    });

    it('refuses a file sent to a form that takes none', async () => {
      await owner.get('/org/acme/projects/web/subscriptions');
      const res = await owner.postFiles(
        '/org/acme/projects/web/subscriptions/keywords',
        { keywords: 'xz' },
        { sbom: { name: 'bom.json', content: 'x' } },
      );
      expect(res.status).toBe(413);
      expect(res.text).toContain('This form takes no file');
    });
  });

  describe('others', () => {
    it('a member reads the inventory but has no upload form, and their upload is refused', async () => {
      const page = await member.get(tab);
      expect(page.status).toBe(200);
      expect(page.html.querySelector('a[href$="/inventories/backend"]')).toBeTruthy();
      expect(page.html.querySelector('input[type=file]')).toBeNull();
      const refused = await member.postFiles(
        tab,
        { name: 'sneaky' },
        { sbom: { name: 'bom.json', content: await sbom('cyclonedx-1.6-vulnerable.json') } },
      );
      expect(refused.status).toBe(403);
      expect((await member.post(`${tab}/backend/delete`)).status).toBe(403);
      expect((await member.get(`${tab}/sneaky`)).status).toBe(404);
    });

    it('another organization sees none of it', async () => {
      for (const url of [tab, `${tab}/backend`, `${tab}/backend/components/0`, `${tab}/backend/vex`])
        expect((await stranger.get(url)).status, url).toBe(404);
    });

    it('the owner deletes the inventory; the CVEs only it brought leave the list', async () => {
      await owner.get(`${tab}/backend`);
      const deleted = await owner.post(`${tab}/backend/delete`);
      expect(deleted.status).toBe(303);
      const list = await owner.follow(deleted);
      expect(list.text).toContain('Inventory deleted.');
      expect(list.text).toContain('No inventory yet.');
      const left = await trackerIds();
      for (const id of FOUND) expect(left).not.toContain(id);
    });
  });
});
