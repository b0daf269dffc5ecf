/**
 * The query language `q` (SPEC §5.1) compiled to SQL and run against real imported records: the exact
 * set of CVEs each query selects, on each database. Vendor terms use names that CPEs give (adobe,
 * tukaani, redhat) or `:` on a part of the name, not a CNA's free-text vendor spelling.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileCveQuery, resolveQueryProjects, type CveQueryContext } from '../../src/db/query-to-sql.ts';
import { AppError } from '../../src/domain/errors.ts';
import { parseQuery } from '../../src/domain/query-language.ts';
import { ImportService } from '../../src/services/import.service.ts';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { SAMPLE_RECORDS, storeAliasTable } from '../helpers/aliases.ts';

const fixture = (...parts: string[]) =>
  fileURLToPath(new URL(`../fixtures/${parts.join('/')}`, import.meta.url));

const ALL = [
  'CVE-2011-0611',
  'CVE-2019-25161',
  'CVE-2021-36593',
  'CVE-2021-44228',
  'CVE-2022-20698',
  'CVE-2023-4863',
  'CVE-2024-3094',
  'CVE-2024-31331',
  'CVE-2024-4577',
  'CVE-2024-6387',
];

/** Relative dates count back from here (the catalog's newest change is 2025-07-28). */
const NOW = new Date('2024-09-15T00:00:00Z');

describeEachDatabase('compileCveQuery', (use) => {
  let tmp: string;
  let projects: Map<string, string[]>;
  let organizationId: string;

  beforeAll(async () => {
    const { db } = use();
    await storeAliasTable(db, [SAMPLE_RECORDS]);
    const importer = new ImportService(db);
    await importer.importInputs(sources.cve5, [fixture('cve5', 'cves')]);
    await importer.importInputs(
      sources.nvd,
      ['CVE-2022-20698', 'CVE-2023-4863', 'CVE-2024-3094'].map((id) => fixture('nvd', `${id}.json`)),
    );
    // Weakness names, for `cwe:` on names.
    await importer.importInputs(sources.cwe, [
      fixture('cwe', 'cwec_v4.14-excerpt.xml'),
      fixture('cwe', 'cwe_v4.14_view_1000-excerpt.csv.gz'),
    ]);
    // No EPSS fixture: a small file in the FIRST format, scores made up for the test.
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'vt-query-to-sql-'));
    const epss = path.join(tmp, 'epss.csv');
    await fs.writeFile(
      epss,
      [
        '#model_version:v2023.03.01,score_date:2024-09-14T00:00:00+0000',
        'cve,epss,percentile',
        'CVE-2021-44228,0.97565,0.99996',
        'CVE-2024-4577,0.95711,0.99512',
        'CVE-2024-3094,0.12,0.9',
        'CVE-2023-4863,0.5,0.98',
      ].join('\n'),
    );
    await importer.importInputs(sources.epss, [epss]);

    const org = await db
      .insertInto('organization')
      .values({ name: 'acme' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const other = await db
      .insertInto('organization')
      .values({ name: 'other' })
      .returning('id')
      .executeTakeFirstOrThrow();
    organizationId = org.id;
    const project = async (organization: string, name: string, keys: string[]) => {
      const p = await db
        .insertInto('project')
        .values({ organization_id: organization, name })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (keys.length) {
        await db
          .insertInto('project_subscription')
          .values(keys.map((vendor_key) => ({ project_id: p.id, vendor_key })))
          .execute();
      }
    };
    await project(org.id, 'Build chain', ['tukaani$PRODUCT$xz', 'adobe']);
    await project(org.id, 'empty', []);
    await project(other.id, 'secret', ['google']);
    projects = await resolveQueryProjects(
      db,
      organizationId,
      parseQuery('project="Build chain" OR project=empty'),
    );
  });

  afterAll(async () => {
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  async function select(q: string, context: CveQueryContext = { projects }): Promise<string[]> {
    const node = parseQuery(q, { now: NOW });
    const rows = await use()
      .db.selectFrom('cve')
      .select('cve_id')
      .where((eb) => compileCveQuery(node, eb, context))
      .orderBy('cve_id')
      .execute();
    return rows.map((r) => r.cve_id);
  }

  it('imported the fixture catalog', async () => {
    expect(await select('cvss31>=0 OR cvss31!=0')).toEqual(ALL);
  });

  it.each([
    // vendors and products
    ['vendor=tukaani AND cvss31>=9', ['CVE-2024-3094']],
    ['vendor=adobe', ['CVE-2011-0611']],
    ['vendor=adob', []],
    ['vendor:apache AND cvss31>=9', ['CVE-2021-44228']],
    ['vendor:ADOBE', ['CVE-2011-0611']],
    ['vendor=google cvss31<8', ['CVE-2024-31331']],
    [
      'vendor!=red_hat AND vendor!=redhat AND cvss31>=8',
      ['CVE-2011-0611', 'CVE-2021-44228', 'CVE-2023-4863', 'CVE-2024-4577'],
    ],
    ['product=xz', ['CVE-2024-3094']],
    ['product=debian_linux', ['CVE-2022-20698', 'CVE-2023-4863']],
    ['product:enterprise_linux', ['CVE-2024-3094', 'CVE-2024-6387']],
    ['product="Enterprise Linux"', ['CVE-2024-3094', 'CVE-2024-6387']],
    // Log4Shell's CNA names "Apache Log4j2", a product no CPE of the learning data names: the key is
    // minted from the name without the vendor's prefix and its version, `log4j` (issue 30).
    ['product:log4j', ['CVE-2021-44228']],
    [
      'product!=debian_linux AND cvss31>=8.8',
      ['CVE-2011-0611', 'CVE-2021-44228', 'CVE-2024-3094', 'CVE-2024-4577'],
    ],
    // weaknesses
    ['cwe=CWE-502 OR cwe=CWE-20', ['CVE-2021-44228', 'CVE-2022-20698']],
    ['cwe=78', ['CVE-2024-4577']],
    ['cwe!=CWE-20 AND kev=true', ['CVE-2011-0611', 'CVE-2023-4863', 'CVE-2024-4577']],
    ['cwe:malicious', ['CVE-2024-3094']],
    ['cwe:"Type Confusion" OR cwe:deserialization', ['CVE-2011-0611', 'CVE-2021-44228']],
    // scores, KEV, EPSS
    ['kev=true', ['CVE-2011-0611', 'CVE-2021-44228', 'CVE-2023-4863', 'CVE-2024-4577']],
    ['kev:false AND cvss31>=9', ['CVE-2024-3094']],
    ['kev!=false AND cvss31<10', ['CVE-2011-0611', 'CVE-2023-4863', 'CVE-2024-4577']],
    ['cvss31=9.8', ['CVE-2024-4577']],
    ['cvss31>8.8 AND cvss31<=10', ['CVE-2021-44228', 'CVE-2024-3094', 'CVE-2024-4577']],
    ['cvss20=5', ['CVE-2022-20698']],
    ['cvss20>=0', ['CVE-2022-20698']],
    ['cvss40>=0 OR cvss30>=0', []],
    ['epss>=0.9', ['CVE-2021-44228', 'CVE-2024-4577']],
    ['epss<0.5', ['CVE-2024-3094']],
    // dates: a calendar date is its whole UTC day
    ['(vendor=tukaani OR vendor:apache) AND created>=2024-01-01', ['CVE-2024-3094']],
    ['created=2024-03-29', ['CVE-2024-3094']],
    ['created>2024-03-29 AND created<=2024-06-09', ['CVE-2024-4577']],
    ['created<2021-12-10', ['CVE-2011-0611', 'CVE-2021-36593']],
    ['created<=2021-12-10', ['CVE-2011-0611', 'CVE-2021-36593', 'CVE-2021-44228']],
    ['created>=2024-07-01 AND created!=2024-07-09', ['CVE-2024-6387']],
    ['created>=0001-01-01 AND created<=9999-12-31', ALL],
    // relative dates count back from NOW (2024-09-15)
    ['updated>=1m AND updated<2024-10-01', ['CVE-2024-4577', 'CVE-2024-6387']],
    ['updated>=2w AND updated<2024-10-01', ['CVE-2024-6387']],
    ['created>=1y AND cvss31>=9', ['CVE-2024-3094', 'CVE-2024-4577']],
    // text: substrings of the id, title, description and vendor and product names
    ['log4j', ['CVE-2021-44228']],
    ['Log4j JNDI', ['CVE-2021-44228']],
    ['xz OR openssh', ['CVE-2024-3094', 'CVE-2024-6387']],
    ['"remote attacker"', ['CVE-2011-0611', 'CVE-2022-20698', 'CVE-2023-4863', 'CVE-2024-6387']],
    ['"attacker remote"', []],
    ['CVE-2024-6387', ['CVE-2024-6387']],
    // pieces of words, in any case, and of vendor and product names (as `search`)
    ['LOG4', ['CVE-2021-44228']],
    ['ukaan', ['CVE-2024-3094']],
    ['description:"malicious code"', ['CVE-2024-3094']],
    ['description:WEBP', ['CVE-2023-4863']],
    ['description:"50%"', []],
    ['description:"CVE Numbering Authority"', ['CVE-2019-25161']],
    ['title:ssh', ['CVE-2024-6387']],
    ['title="Argument Injection in PHP-CGI"', ['CVE-2024-4577']],
    ['title="argument injection in php-cgi"', []],
    [
      'title!="Argument Injection in PHP-CGI" AND kev=true',
      ['CVE-2011-0611', 'CVE-2021-44228', 'CVE-2023-4863'],
    ],
    // CVE ids
    ['cve:2024-3', ['CVE-2024-3094', 'CVE-2024-31331']],
    ['cve=CVE-2021-44228', ['CVE-2021-44228']],
    ['cve=2021-44228 OR cve=cve-2024-3094', ['CVE-2021-44228', 'CVE-2024-3094']],
    ['cve!=CVE-2021-44228 AND kev=true', ['CVE-2011-0611', 'CVE-2023-4863', 'CVE-2024-4577']],
    // projects: the CVEs of the subscribed vendors and products
    ['project="Build chain"', ['CVE-2011-0611', 'CVE-2024-3094']],
    ['project="Build chain" AND kev=true', ['CVE-2011-0611']],
    ['project=empty', []],
    ['project!="Build chain" AND cvss31>=9', ['CVE-2021-44228', 'CVE-2024-4577']],
    // precedence: AND binds tighter than OR
    [
      'kev=true OR vendor=tukaani AND cvss31>=9',
      ['CVE-2011-0611', 'CVE-2021-44228', 'CVE-2023-4863', 'CVE-2024-3094', 'CVE-2024-4577'],
    ],
    ['(kev=true OR vendor=tukaani) AND created>=2024-01-01', ['CVE-2024-3094', 'CVE-2024-4577']],
  ])('%s', async (q, expected) => {
    expect(await select(q)).toEqual(expected);
  });

  it('treats a missing score as never =, <, > and always !=', async () => {
    const unscored = ['CVE-2019-25161', 'CVE-2021-36593'];
    expect(await select('cvss31<=10')).toEqual(ALL.filter((id) => !unscored.includes(id)));
    expect(await select('cvss31>=0')).toEqual(ALL.filter((id) => !unscored.includes(id)));
    expect(await select('cvss31=10')).toEqual(['CVE-2021-44228', 'CVE-2024-3094']);
    expect(await select('cvss31!=10')).toEqual(
      ALL.filter((id) => id !== 'CVE-2021-44228' && id !== 'CVE-2024-3094'),
    );
  });

  it('runs odd but valid queries without a database error', async () => {
    for (const q of [
      `"'; DROP TABLE cve; --"`,
      '"a & b | !c:*"',
      'description:"\\\\"',
      "title:'",
      'description:"%_"',
      'vendor:%',
      'product:_',
      'cwe:%',
      'cve:%',
      'über',
      '"the a of"',
      'epss<=0 OR cvss40<=0.0000001',
      'updated>=2000y',
    ]) {
      await expect(select(q), q).resolves.toBeInstanceOf(Array);
    }
    expect(await select('vendor:%')).toEqual([]);
  });

  it('counts relative dates back from the current time by default', async () => {
    const node = parseQuery('updated<=0d AND created>=100y');
    const rows = await use()
      .db.selectFrom('cve')
      .select('cve_id')
      .where((eb) => compileCveQuery(node, eb, { projects }))
      .execute();
    expect(rows).toHaveLength(ALL.length);
  });

  describe('resolveQueryProjects', () => {
    it("resolves the organization's projects the query names, with their vendor keys", async () => {
      expect(projects).toEqual(
        new Map([
          ['Build chain', ['adobe', 'tukaani$PRODUCT$xz']],
          ['empty', []],
        ]),
      );
    });

    it("leaves out other organizations' projects and unknown names", async () => {
      const resolved = await resolveQueryProjects(
        use().db,
        organizationId,
        parseQuery('project=secret OR project=nope'),
      );
      expect(resolved).toEqual(new Map());
    });

    it('queries nothing when the query names no project', async () => {
      expect(await resolveQueryProjects(use().db, organizationId, parseQuery('kev=true'))).toEqual(new Map());
    });
  });

  it('rejects a project the context does not know with a validation error naming it', async () => {
    const resolved = await resolveQueryProjects(
      use().db,
      organizationId,
      parseQuery('kev=true OR project=secret'),
    );
    await expect(select('kev=true OR project=secret', { projects: resolved })).rejects.toMatchObject({
      code: 'validation_error',
      details: { q: ['unknown project "secret" at position 12'] },
    });
    await expect(select('project=secret', { projects: resolved })).rejects.toBeInstanceOf(AppError);
  });

  it('uses the GIN indexes for vendor, product, weakness, project and word terms', async () => {
    const plan = async (q: string) =>
      use()
        .db.transaction()
        .execute(async (trx) => {
          await sql`SET LOCAL enable_seqscan = off`.execute(trx);
          const node = parseQuery(q, { now: NOW });
          const rows = await trx
            .selectFrom('cve')
            .select('cve_id')
            .where((eb) => compileCveQuery(node, eb, { projects }))
            .explain();
          return rows.map((r) => Object.values(r).join(' ')).join('\n');
        });
    expect(await plan('vendor=tukaani')).toContain('cve_vendors_idx');
    expect(await plan('vendor:tukaani')).toContain('cve_vendors_idx');
    expect(await plan('product=xz')).toContain('cve_vendors_idx');
    expect(await plan('project="Build chain"')).toContain('cve_vendors_idx');
    expect(await plan('cwe=CWE-79')).toContain('cve_weaknesses_idx');
    expect(await plan('log4j OR "remote attacker"')).toContain('cve_search_text_idx');
  });
});
