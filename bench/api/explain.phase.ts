/**
 * The SQL behind each endpoint, exactly as the server runs it: the same services called as the routes
 * call them, over a Kysely whose log hook records every compiled statement and its parameters. Each
 * statement then runs five times alone (the median is its time, round trip included; the first run
 * warms the cache, as under load) and once under `EXPLAIN (ANALYZE, BUFFERS)`, whose per-node timing
 * makes row-heavy plans look slower than they run. PostgreSQL only.
 */
import { Kysely, PostgresDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import type { CveFilters } from '../../src/db/cve-list-conditions.ts';
import type { DB } from '../../src/db/schema.ts';
import { TokenRepository } from '../../src/db/token.repository.ts';
import { AccountService } from '../../src/services/account.service.ts';
import { ListCache } from '../../src/services/list-cache.ts';
import { CatalogService } from '../../src/services/catalog.service.ts';
import { QueryCompiler } from '../../src/services/query-compiler.ts';
import { OrganizationService } from '../../src/services/organization.service.ts';
import { trackerServices } from '../../src/main.ts';
import type { ExplainedStatement, ExplainSpec } from './types.ts';
import { SEARCHES } from './endpoints.ts';

interface Captured {
  sql: string;
  parameters: unknown[];
}

/** Index names a plan reads, e.g. `cve_vendors_idx` from `Bitmap Index Scan on cve_vendors_idx`. */
export function indexesOf(plan: string): string[] {
  const found = new Set<string>();
  for (const m of plan.matchAll(/(?:Index(?: Only)? Scan(?: Backward)? using|Bitmap Index Scan on) (\w+)/g)) {
    if (m[1]) found.add(m[1]);
  }
  return [...found];
}

/** `count`, `page`, `anchors` or the table read: what a statement is for, in a table cell. */
function roleOf(text: string): string {
  if (/row_number\(\)/i.test(text)) return 'anchors';
  if (/count\(\*\)/i.test(text) && /from "?cve(_vendor)?"?\b/i.test(text) && !/limit/i.test(text))
    return 'count';
  if (/from "?cve(_vendor)?"?\b/i.test(text) && /limit/i.test(text) && /offset/i.test(text)) return 'page';
  const table = /from "?(\w+)"?/i.exec(text)?.[1] ?? '?';
  return `read ${table}`;
}

export async function explainPhase(spec: ExplainSpec): Promise<ExplainedStatement[]> {
  let captured: Captured[] = [];
  const log = (event: LogEvent) => {
    if (event.level === 'query')
      captured.push({ sql: event.query.sql, parameters: [...event.query.parameters] });
  };
  const pool = new pg.Pool({ connectionString: spec.url, max: 2 });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log });
  const client = new pg.Client({ connectionString: spec.url });
  await client.connect();
  try {
    const p = spec.params;
    const orgId = (await new AccountService(db).getOrganization(p.org)).id;
    // A cache that keeps nothing: every call runs (and shows) its count and anchors statements.
    const cache = new ListCache({ counts: 0, anchorTables: 0 });
    const catalog = new CatalogService(db, cache);
    const cveQuery = new QueryCompiler(db);
    const tracker = trackerServices(db, cache).projectCves;
    const page1 = { page: 1, pageSize: 20 };
    const list = (filters: CveFilters, page = page1) =>
      catalog.listCves(filters, '-updated_at', page, 'explain');
    const runs: [string, () => Promise<unknown>][] = [
      ['list', () => list({})],
      ['deep', () => list({}, { page: p.deepPage, pageSize: 20 })],
      ['search', () => list({ search: p.searchWord })],
      ...Object.entries(SEARCHES).map(([key, search]): [string, () => Promise<unknown>] => [
        key,
        () => list({ search }),
      ]),
      ['vendor', () => list({ vendor: p.vendor })],
      ['critical', () => list({ cvss: 'critical' })],
      ['q', async () => list(await cveQuery.compile(p.q, orgId))],
      ['detail', () => catalog.getCve(p.cveId)],
      ['project', () => tracker.listCves(orgId, p.project, { filters: {}, ordering: '-updated_at' }, page1)],
      [
        'token',
        async () => {
          // The token lookup of every request (an unknown id: the same statement), then the handler's read.
          await new TokenRepository(db).findByTokenId('AAAAAAAAAAAA');
          await new OrganizationService(db).get(orgId);
        },
      ],
    ];
    const out: ExplainedStatement[] = [];
    for (const [endpoint, run] of runs) {
      captured = [];
      await run();
      for (const statement of captured) {
        const times: number[] = [];
        for (let i = 0; i < 5; i++) {
          const started = performance.now();
          await client.query(statement.sql, statement.parameters);
          times.push(performance.now() - started);
        }
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`,
          statement.parameters,
        );
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        out.push({
          endpoint,
          role: roleOf(statement.sql),
          sql: statement.sql,
          parameters: statement.parameters.map((v) => (v instanceof Date ? v.toISOString() : v)),
          plan,
          ms: times.sort((a, b) => a - b)[2]!,
          explainMs: Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? NaN),
          indexes: indexesOf(plan),
        });
      }
    }
    return out;
  } finally {
    await client.end();
    await db.destroy();
  }
}
