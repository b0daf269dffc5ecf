/**
 * Server time of the web UI's list pages on a 300,000-CVE PostgreSQL catalog: the CVE list (default,
 * a `q` query, a vendor filter, a deep keyset page, an export refused past 10,000), vendors (first
 * page, search as you type, a vendor's products), weaknesses, the global search and its suggestions.
 *
 * The catalog is synthetic, made in SQL (fast to build, no corpus needed): 300,000 CVEs with 1–3
 * vendors each from 20,000 (skewed: a few vendors hold most CVEs, as Microsoft or Linux do), a
 * product of each, a weakness of 300 (skewed), CVSS 3.1 on 80 %, KEV on 0.4 %, EPSS on all. Each page
 * is requested through `app.inject` (routing, session, the service, SQL, rendering; no socket) by a
 * signed-in user, 5 times to warm up, then 40 times; p50 and p95 of those. "first" is the first
 * request, before the list's capped count is cached for the catalog's version.
 *
 *   node --import tsx bench/web-lists.ts [--size N] [--keep]
 * BENCH_DATABASE_URL names the server (default postgres://postgres@127.0.0.1:5432/test); the
 * database `vt_bench_web_lists` is created, and dropped at the end unless --keep.
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../src/db/client.ts';
import { parseConfig } from '../src/config.ts';
import { servicesFor } from '../src/main.ts';
import { buildApp } from '../src/api/app.ts';
import { DEFAULT_SERVER_URL, withDatabase } from './lib/pg-admin.ts';

const { values } = parseArgs({ options: { size: { type: 'string' }, keep: { type: 'boolean' } } });
const SIZE = Number(values.size ?? 300_000);
const NAME = 'vt_bench_web_lists';
const server = process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL;

async function admin(query: string) {
  const c = new pg.Client({ connectionString: server });
  await c.connect();
  await c.query(query);
  await c.end();
}

await admin(`DROP DATABASE IF EXISTS ${NAME} WITH (FORCE)`);
await admin(`CREATE DATABASE ${NAME}`);
const database = await openDatabase({ url: withDatabase(server, NAME) });
const db = database.db;
const services = servicesFor(parseConfig({}), database, 'bench-secret-'.padEnd(40, 'x'));
const app = await buildApp({ services, logger: false });

const started = Date.now();
await sql`INSERT INTO vendor (name) SELECT 'vendor' || g FROM generate_series(0, 19999) g`.execute(db);
await sql`INSERT INTO product (vendor_id, name) SELECT id, 'product' || substr(name, 7) FROM vendor`.execute(
  db,
);
await sql`INSERT INTO weakness (cwe_id, name) SELECT 'CWE-' || g, 'Weakness number ' || g FROM generate_series(1, 300) g`.execute(
  db,
);
// In batches of 10,000, as imports write (the triggers of cve_vendor and weakness counts run per statement).
for (let from = 0; from < SIZE; from += 10_000) {
  await sql`
    INSERT INTO cve (cve_id, state, title, description, created_at, updated_at, metrics, cvss31, kev, epss, vendors, weaknesses)
    SELECT format('CVE-%s-%s', 2000 + g % 25, lpad((10000 + g)::text, 6, '0')), 'PUBLISHED',
           'Synthetic title ' || g, 'A synthetic description of vulnerability ' || g || ' with some words',
           timestamptz '2000-01-01' + (g * interval '37 minutes'),
           timestamptz '2010-01-01' + (g * interval '23 minutes') + (g % 997) * interval '1 day',
           '{}',
           CASE WHEN g % 5 = 0 THEN NULL ELSE round((random() * 10)::numeric, 1)::float8 END,
           g % 250 = 0, random() ^ 4,
           (SELECT array_agg(DISTINCT k) FROM (
              SELECT 'vendor' || v AS k FROM (SELECT floor(20000 * random() ^ 3)::int AS v FROM generate_series(1, 1 + g % 3) WHERE g >= 0) x
              UNION ALL
              SELECT 'vendor' || v || '$PRODUCT$product' || v FROM (SELECT floor(20000 * random() ^ 3 + g * 0)::int AS v) y) z),
           ARRAY['CWE-' || (1 + floor(300 * random() ^ 3)::int)]
    FROM generate_series(${from}::int, ${Math.min(from + 10_000, SIZE) - 1}::int) g`.execute(db);
}
await sql`ANALYZE`.execute(db);
await sql`VACUUM ANALYZE cve_vendor`.execute(db);
console.log(`catalog of ${SIZE} CVEs built in ${((Date.now() - started) / 1000).toFixed(0)} s`);

const owner = await services.accounts.createUser({
  username: 'bench',
  email: 'bench@example.com',
  password: 'correct horse battery staple',
});
await services.accounts.createOrganization('bench', owner.username);

// Sign in: the CSRF cookie and token of the sign-in page, then the session cookie.
const cookies = new Map<string, string>();
const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
const keep = (res: Awaited<ReturnType<typeof app.inject>>) => {
  for (const c of res.cookies) cookies.set(c.name, c.value);
};
const login = await app.inject({ method: 'GET', url: '/login' });
keep(login);
const csrf = /name="_csrf" value="([^"]+)"/.exec(login.body)![1]!;
keep(
  await app.inject({
    method: 'POST',
    url: '/login',
    payload: new URLSearchParams({
      login: 'bench',
      password: 'correct horse battery staple',
      _csrf: csrf,
    }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader() },
  }),
);

const get = (url: string) => app.inject({ method: 'GET', url, headers: { cookie: cookieHeader() } });
const deepAfter = await (async () => {
  // A cursor 2,000 rows into the vendor list: walk there with Next links.
  let url = '/cves?vendor=vendor1&size=100';
  for (let i = 0; i < 20; i++) {
    const body = (await get(url)).body;
    url = /href="(\/cves\?[^"]*after=[^"]+)" rel="next"/.exec(body)![1]!.replace(/&amp;/g, '&');
  }
  return url;
})();

const pages: [string, string, number][] = [
  ['CVE list, default', '/cves', 200],
  ['CVE list, q=kev=true AND cvss31>=9', `/cves?q=${encodeURIComponent('kev=true AND cvss31>=9')}`, 200],
  ['CVE list, vendor=vendor1 (large)', '/cves?vendor=vendor1', 200],
  ['CVE list, vendor=vendor15000 (small)', '/cves?vendor=vendor15000', 200],
  ['CVE list, cvss=critical, by published', '/cves?cvss=critical&ordering=-created_at', 200],
  ['CVE list, vendor1 page 21 (keyset)', deepAfter, 200],
  ['CVE list, weakness=CWE-1', '/cves?weakness=CWE-1', 200],
  ['CSV export refused (> 10,000)', '/cves/export.csv?cvss=critical', 400],
  ['Vendors, first page', '/vendors', 200],
  ['Vendors, search "vendor1" (htmx)', '/vendors?search=vendor1', 200],
  ['Vendor vendor1 with products', '/vendors/vendor1', 200],
  ['Weaknesses', '/weaknesses', 200],
  ['Global search, vendor name', '/search?q=vendor42', 302],
  ['Search suggestions "vendor12"', '/search/suggest?q=vendor12', 200],
];

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
console.log(`| Page | URL | first ms | p50 ms | p95 ms | bytes |\n| --- | --- | ---: | ---: | ---: | ---: |`);
for (const [label, url, status] of pages) {
  const times: number[] = [];
  let first = 0;
  let bytes = 0;
  for (let i = 0; i < 45; i++) {
    const t = process.hrtime.bigint();
    const res = await get(url);
    if (res.statusCode !== status) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    if (i === 0) first = ms(t);
    if (i >= 5) times.push(ms(t));
    bytes = res.body.length;
  }
  const shown = url.length > 60 ? `${url.slice(0, 57)}…` : url;
  console.log(
    `| ${label} | \`${shown}\` | ${first.toFixed(1)} | ${pct(times, 50).toFixed(1)} | ${pct(times, 95).toFixed(1)} | ${bytes} |`,
  );
}

await app.close();
await database.close();
if (!values.keep) await admin(`DROP DATABASE IF EXISTS ${NAME} WITH (FORCE)`);
