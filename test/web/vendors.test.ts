/**
 * Vendors, products and weaknesses pages over a real small catalog: CVE and product counts, search as
 * you type (an htmx fragment, and the same URL as a whole page), keyset "Load more", links into the
 * filtered CVE list, weakness counts kept by the triggers of migration 0020.
 */
import { storeTestAliases } from '../helpers/aliases.ts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { signedIn, WebClient, type PageResponse } from '../helpers/web.ts';

const PASSWORD = 'correct horse battery staple';

/** The table's rows as [first cell, …] texts. */
const rows = (page: PageResponse) =>
  page.html
    .querySelectorAll('.table-wrap tbody tr:not(.load-more)')
    .map((tr) => tr.querySelectorAll('td').map((td) => td.text.trim()));
const more = (page: PageResponse) =>
  page.html.querySelector('tr.load-more a')?.getAttribute('href')?.replace(/&amp;/g, '&');

describeEachDatabase('web: vendors, products, weaknesses', (use) => {
  let api: TestApi;
  let browser: WebClient;

  beforeAll(async () => {
    api = await buildTestApi(use());
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(api.services.database.db);
    await api.services.imports.importInputs(sources.cve5, ['test/fixtures/cve5/cves']);
    await api.services.imports.importInputs(sources.cwe, ['test/fixtures/cwe/cwec_v4.14-excerpt.xml']);
    // 60 vendors without CVEs: more than a page (50) of one search.
    await sql`INSERT INTO vendor (name) SELECT format('zz-vendor-%s', lpad(g::text, 2, '0')) FROM generate_series(1, 60) g`.execute(
      api.services.database.db,
    );
    const { user } = await createOrganization(api.services, 'browsers');
    browser = await signedIn(api, user.username, PASSWORD);
  }, 120_000);
  afterAll(() => api.close());

  describe('/vendors', () => {
    it('lists vendors by name with product and CVE counts linking to their CVE list', async () => {
      const page = await browser.get('/vendors');
      expect(page.status).toBe(200);
      const byName = new Map(rows(page).map(([name, products, cves]) => [name, [products, cves]]));
      expect(byName.get('apache')).toEqual(['1', '1']);
      expect(byName.get('redhat')?.[1]).toBe('2');
      // The product count is the vendor page's number of products.
      expect(Number(byName.get('redhat')?.[0])).toBe(rows(await browser.get('/vendors/redhat')).length);
      expect(page.html.querySelector('a[href="/cves?vendor=redhat"]')?.text).toBe('2');
      expect(page.html.querySelector('a[href="/vendors/redhat"]')).toBeTruthy();
      expect(rows(page)).toHaveLength(50);
    });

    it('searches as you type: htmx gets the table alone, the same URL without JS the whole page', async () => {
      const input = (await browser.get('/vendors')).html.querySelector('#f-search');
      expect(input?.getAttribute('hx-get')).toBe('/vendors');
      expect(input?.getAttribute('hx-trigger')).toContain('input changed delay:250ms');
      const fragment = await browser.get('/vendors?search=red', { 'hx-request': 'true' });
      expect(fragment.body).not.toContain('<html');
      expect(fragment.html.querySelector('#vendor-rows')).toBeTruthy();
      expect(rows(fragment).map((r) => r[0])).toEqual(['redhat']);
      const whole = await browser.get('/vendors?search=red');
      expect(whole.body).toContain('<html');
      expect(whole.html.querySelector('#f-search')?.getAttribute('value')).toBe('red');
      expect(rows(whole).map((r) => r[0])).toEqual(['redhat']);
      const none = await browser.get('/vendors?search=nothing-like-this');
      expect(none.text).toContain('Nothing matches "nothing-like-this".');
    });

    it('loads more after the last name shown (keyset), in place with htmx or as a next page', async () => {
      const first = await browser.get('/vendors?search=zz-vendor');
      expect(rows(first).map((r) => r[0])).toEqual(
        Array.from({ length: 50 }, (_, i) => `zz-vendor-${String(i + 1).padStart(2, '0')}`),
      );
      const next = more(first)!;
      expect(next).toBe('/vendors?search=zz-vendor&after=zz-vendor-50');
      const link = first.html.querySelector('tr.load-more a');
      expect(link?.getAttribute('hx-swap')).toBe('outerHTML');
      const appended = await browser.get(next, { 'hx-request': 'true' });
      expect(appended.body).not.toContain('<html');
      expect(rows(appended).map((r) => r[0])).toEqual(
        Array.from({ length: 10 }, (_, i) => `zz-vendor-${51 + i}`),
      );
      expect(more(appended)).toBeUndefined();
      const plain = await browser.get(next);
      expect(rows(plain)).toHaveLength(10);
    });
  });

  describe('/vendors/:vendor', () => {
    it('shows the vendor’s CVE count and its products with theirs, linking into the CVE list', async () => {
      const page = await browser.get('/vendors/adobe');
      expect(page.status).toBe(200);
      expect(page.html.querySelector('h1')?.text).toBe('adobe');
      expect(page.html.querySelector('#vendor-cves')?.getAttribute('href')).toBe('/cves?vendor=adobe');
      expect(page.html.querySelector('#vendor-cves')?.text).toBe('1 CVEs');
      expect(rows(page)).toEqual([
        ['acrobat', '1'],
        ['air', '1'],
        ['flash_player', '1'],
        ['reader', '1'],
      ]);
      expect(page.html.querySelector('a[href="/cves?vendor=adobe&product=flash_player"]')).toBeTruthy();
      const searched = await browser.get('/vendors/adobe?search=read', { 'hx-request': 'true' });
      expect(rows(searched)).toEqual([['reader', '1']]);
    });

    it('answers 404 for a vendor the catalog lacks', async () => {
      expect((await browser.get('/vendors/no-such-vendor')).status).toBe(404);
    });
  });

  describe('/weaknesses', () => {
    it('lists weaknesses with names and CVE counts, most CVEs first, linking into the CVE list', async () => {
      const page = await browser.get('/weaknesses');
      expect(page.status).toBe(200);
      const byId = new Map(rows(page).map(([id, name, n]) => [id, [name, n]]));
      expect(byId.get('CWE-843')).toEqual([
        "Access of Resource Using Incompatible Type ('Type Confusion')",
        '1',
      ]);
      expect(page.html.querySelector('a[href="/cves?weakness=CWE-843"]')?.text).toBe('1');
      const counts = rows(page).map((r) => Number(r[2]));
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
    });

    it('finds weaknesses by CWE id or by name', async () => {
      expect(rows(await browser.get('/weaknesses?search=Type%20Confusion')).map((r) => r[0])).toEqual([
        'CWE-843',
      ]);
      const byId = rows(await browser.get('/weaknesses?search=CWE-78', { 'hx-request': 'true' })).map(
        (r) => r[0],
      );
      expect(byId).toContain('CWE-78');
      expect(byId.every((id) => id?.startsWith('CWE-78'))).toBe(true);
    });

    it('keeps the counts as CVEs come and go (triggers, not a count per request)', async () => {
      const db = api.services.database.db;
      const count = async () =>
        (await browser.get('/weaknesses?search=CWE-843')).html.querySelector(
          'a[href="/cves?weakness=CWE-843"]',
        )?.text;
      expect(await count()).toBe('1');
      await sql`
        INSERT INTO cve (cve_id, state, created_at, updated_at, metrics, weaknesses)
        VALUES ('CVE-2097-0001', 'PUBLISHED', now(), now(), '{}', ARRAY['CWE-843', 'CWE-843']),
               ('CVE-2097-0002', 'PUBLISHED', now(), now(), '{}', ARRAY['CWE-843'])`.execute(db);
      expect(await count()).toBe('3');
      await sql`UPDATE cve SET weaknesses = ARRAY['CWE-20'] WHERE cve_id = 'CVE-2097-0002'`.execute(db);
      expect(await count()).toBe('2');
      await sql`DELETE FROM cve WHERE cve_id LIKE 'CVE-2097-%'`.execute(db);
      expect(await count()).toBe('1');
    });

    it('loads more after the last row shown', async () => {
      await sql`INSERT INTO weakness (cwe_id, name) SELECT format('CWE-%s', 90000 + g), 'synthetic weakness ' || g FROM generate_series(1, 55) g`.execute(
        api.services.database.db,
      );
      const first = await browser.get('/weaknesses?search=synthetic');
      expect(rows(first)).toHaveLength(50);
      const second = await browser.get(more(first)!);
      expect(rows(second)).toHaveLength(5);
      const all = [...rows(first), ...rows(second)].map((r) => r[0]);
      expect(new Set(all).size).toBe(55);
    });
  });

  it('sends visitors to sign in first', async () => {
    expect((await new WebClient(api.app).get('/vendors')).location).toBe('/login?next=%2Fvendors');
  });
});
