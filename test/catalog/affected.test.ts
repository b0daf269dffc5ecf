/**
 * Affected products and versions (issue 30, item 4): what the CNA and CISA-ADP state is affected, in
 * API v2's CVE detail, on the catalog and project CVE pages, and as `affected` changes in the history.
 * Real records: Log4Shell (one range with five status changes) and CVE-2024-36971 (the Linux kernel
 * CNA's git and version ranges, and CISA-ADP's entries with CPEs).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import { storeTestAliases } from '../helpers/aliases.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { changesOf, fixture, readJson, tempDir } from '../helpers/catalog.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, type WebClient } from '../helpers/web.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const LOG4SHELL = 'CVE-2021-44228';
const KERNEL = 'CVE-2024-36971';
const LOG4J_RANGE = {
  version: '2.0-beta9',
  status: 'affected',
  lessThan: 'log4j-core*',
  versionType: 'custom',
  changes: [
    { at: '2.3.1', status: 'unaffected' },
    { at: '2.4', status: 'affected' },
    { at: '2.12.2', status: 'unaffected' },
    { at: '2.13.0', status: 'affected' },
    { at: '2.15.0', status: 'unaffected' },
  ],
};

describeEachDatabase('affected products and versions', (use) => {
  let api: TestApi;
  let auth: string;
  let web: WebClient;
  let dir: string;
  let removeDir: () => Promise<void>;
  const get = (url: string) => api.app.inject({ method: 'GET', url, headers: { authorization: auth } });
  const text = (html: { text: string } | null | undefined) => (html?.text ?? '').replace(/\s+/g, ' ');

  /** Imports Log4Shell's record as `edit` leaves it, from a folder of its own. */
  async function importLog4Shell(edit: (record: Json) => void) {
    const record = await readJson<Json>(fixture('cve5', 'cves', '2021', '44xxx', `${LOG4SHELL}.json`));
    edit(record);
    const folder = await fs.mkdtemp(path.join(dir, 'log4shell-'));
    await fs.writeFile(path.join(folder, `${LOG4SHELL}.json`), JSON.stringify(record));
    await api.services.imports.importInputs(sources.cve5, [folder]);
  }

  beforeAll(async () => {
    api = await buildTestApi(use());
    ({ dir, remove: removeDir } = await tempDir());
    await storeTestAliases(api.services.database.db);
    await api.services.imports.importInputs(sources.cve5, [
      fixture('cve5', 'cves'),
      fixture('cve5', 'affected', `${KERNEL}.jsonl`),
    ]);
    const acme = await createOrganization(api.services, 'acme');
    auth = (await createToken(api.services, acme.org.id, acme.actor, { mode: 'read' })).header;
    await api.services.projects.create(acme.org.id, { name: 'web' }, acme.actor, { vendors: ['apache'] });
    web = await signedIn(api, acme.user.username, 'correct horse battery staple');
  });
  afterAll(async () => {
    await api.close();
    await removeDir();
  });

  describe('GET /api/v2/cves/:cve_id', () => {
    it("gives Log4Shell's CNA entry with its range and status changes, beside the seed's fields", async () => {
      const res = await get(`/api/v2/cves/${LOG4SHELL}`);
      expect(res.statusCode).toBe(200);
      const cve = res.json();
      expect(cve.affected).toEqual([
        {
          source: 'cna',
          provider: 'apache',
          entries: [
            { vendor: 'Apache Software Foundation', product: 'Apache Log4j2', versions: [LOG4J_RANGE] },
          ],
        },
      ]);
      expect(cve.vendors).toContain('apache');
    });

    it("gives the kernel CNA's ranges and CISA-ADP's entries with their CPEs", async () => {
      const cve = (await get(`/api/v2/cves/${KERNEL}`)).json();
      expect(cve.affected.map((s: Json) => [s.source, s.provider, s.entries.length])).toEqual([
        ['cna', 'Linux', 2],
        ['adp', 'CISA-ADP', 11],
      ]);
      const [cna, adp] = cve.affected;
      expect(cna.entries[1].defaultStatus).toBe('affected');
      expect(cna.entries[1].versions).toContainEqual({
        version: '6.1.94',
        status: 'unaffected',
        lessThanOrEqual: '6.1.*',
        versionType: 'custom',
      });
      expect(cna.entries[0].versions[0]).toEqual({
        version: 'a87cb3e48ee8',
        status: 'affected',
        lessThan: '051c0bde9f04',
        versionType: 'git',
      });
      expect(adp.entries[0]).toEqual({
        vendor: 'linux',
        product: 'linux_kernel',
        defaultStatus: 'affected',
        versions: [{ version: '4.6', status: 'affected' }],
        cpes: ['cpe:2.3:o:linux:linux_kernel:4.6:*:*:*:*:*:*:*'],
      });
    });
  });

  describe('the CVE pages', () => {
    it('shows the table near the top of the catalog page, in plain words, beside NVD’s configurations', async () => {
      const page = await web.get(`/cves/${LOG4SHELL}`);
      expect(page.status).toBe(200);
      const section = page.html.querySelector('#affected')!;
      const cna = section.querySelector('.affected-source[data-source=cna]')!;
      expect(text(cna.querySelector('h3'))).toBe('CNA (apache)');
      const rows = cna.querySelectorAll('table.affected tbody tr');
      expect(rows).toHaveLength(1);
      const row = text(rows[0]);
      expect(row).toContain('Apache Software Foundation · Apache Log4j2');
      expect(row).toContain('affected from 2.0-beta9 before 2.3.1');
      expect(row).toContain('unaffected from 2.12.2 before 2.13.0');
      expect(row).toContain('affected from 2.13.0 before 2.15.0');
      expect(row).toContain('not stated'); // no default status
      expect(section.querySelector('#configurations')).not.toBeNull();
      // First, above the description (a kernel record's fills the screen) and the CVSS vectors.
      const ids = page.html.querySelectorAll('.cve-detail section[id]').map((s) => s.id);
      expect(ids.slice(0, 3)).toEqual(['affected', 'description', 'cvss']);
    });

    it("folds the versions of an entry with many ranges, and the ADP's entries under the CNA's", async () => {
      const page = await web.get(`/cves/${KERNEL}`);
      const cna = page.html.querySelector('#affected .affected-source[data-source=cna]')!;
      expect(text(cna.querySelector('h3'))).toBe('CNA (Linux)');
      const rows = cna.querySelectorAll('table.affected tbody tr').map(text);
      expect(rows).toHaveLength(2);
      expect(rows[0]).toContain('affected from a87cb3e48ee8 before 051c0bde9f04 (git)');
      expect(rows[1]).toContain('unaffected before 4.6');
      expect(rows[1]).toContain('unaffected from 4.19.316 through 4.19.*');
      expect(rows[1]).toContain('2 more'); // 10 version statements, 8 shown
      expect(rows[1]).toContain('unaffected from 6.10 on');
      const adp = page.html.querySelector('#affected details.affected-source[data-source=adp]')!;
      expect(text(adp.querySelector('summary'))).toBe('ADP (CISA-ADP) 11 entries with CPEs');
      const adpRows = adp.querySelectorAll('table.affected tbody tr').map(text);
      expect(adpRows).toHaveLength(11);
      expect(adpRows[0]).toContain('cpe:2.3:o:linux:linux_kernel:4.6:*:*:*:*:*:*:*');
    });

    it('shows the same table on the project CVE page', async () => {
      const page = await web.get(`/org/acme/projects/web/cves/${LOG4SHELL}`);
      expect(page.status).toBe(200);
      const row = text(page.html.querySelector('#affected table.affected tbody tr'));
      expect(row).toContain('affected from 2.13.0 before 2.15.0');
      expect(page.html.querySelector('#affected #configurations')).not.toBeNull();
    });
  });

  describe('history', () => {
    it('records exactly one affected change when the record gains a range, and shows it', async () => {
      const before = await changesOf(api.services.database.db, LOG4SHELL);
      const added = { version: '3.0.0', status: 'affected', lessThan: '3.0.1', versionType: 'semver' };
      await importLog4Shell((r) => r.containers.cna.affected[0].versions.push(added));
      const after = await changesOf(api.services.database.db, LOG4SHELL);
      expect(after).toHaveLength(before.length + 1);
      const change = after.at(-1)!;
      expect(change.types).toEqual(['affected']);
      const details = (change.data as { type: string; details: Json }[])[0]!.details;
      expect(details.old[0].entries[0].versions).toEqual([LOG4J_RANGE]);
      expect(details.new[0].entries[0].versions).toEqual([LOG4J_RANGE, added]);

      // The same record again records nothing.
      await importLog4Shell((r) => r.containers.cna.affected[0].versions.push(added));
      expect(await changesOf(api.services.database.db, LOG4SHELL)).toHaveLength(after.length);

      // API v2's changes, and the CVE page's history.
      const list = (await get(`/api/v2/cves/${LOG4SHELL}/changes`)).json();
      expect(list.results.map((c: Json) => c.types)).toContainEqual(['affected']);
      const detail = (await get(`/api/v2/cves/${LOG4SHELL}/changes/${change.id}`)).json();
      expect(detail.types).toEqual(['affected']);
      expect(detail.data[0].details.new[0].entries[0].versions).toContainEqual(added);
      const page = await web.get(`/cves/${LOG4SHELL}`);
      const history = text(page.html.querySelector('#history'));
      expect(history).toContain('Affected products and versions');
      expect(history).toContain('CNA (apache): entries or ranges changed');
      expect(history).toContain('affected from 3.0.0 before 3.0.1');
    });

    it('records none against a statement an older parser stored (it lacked the fields kept now)', async () => {
      const before = await changesOf(api.services.database.db, LOG4SHELL);
      // As parser cve5/3 left it: no affectedComplete (nor platforms, ADP entries, cpeApplicability).
      await sql`UPDATE cve_source SET data = data - 'affectedComplete'
                 WHERE cve_id = ${LOG4SHELL} AND provider = 'mitre'`.execute(api.services.database.db);
      await importLog4Shell((r) => {
        r.containers.cna.affected[0].platforms = ['x86_64'];
        r.containers.cna.affected[0].versions.push({ version: '3.1.0', status: 'affected' });
      });
      expect(await changesOf(api.services.database.db, LOG4SHELL)).toHaveLength(before.length);
      // The entries shown are the new statement's.
      const cve = (await get(`/api/v2/cves/${LOG4SHELL}`)).json();
      expect(cve.affected[0].entries[0].platforms).toEqual(['x86_64']);
    });
  });

  describe('the automation builder', () => {
    it('offers the trigger "Affected versions changed"', async () => {
      const page = await web.get('/org/acme/projects/web/automations/new');
      expect(page.status).toBe(200);
      const box = page.html.querySelector('input[name=triggers][value=affected_changed]');
      expect(text(box?.parentNode).trim()).toBe('Affected versions changed');
    });
  });
});
