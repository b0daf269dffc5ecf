/**
 * The benchmark's catalog: the real CVE 5 corpus imported as the CLI does it, then replicated in SQL
 * under synthetic ids (`CVE-9001-2024…`) up to the wanted size, then VACUUM ANALYZE. A PostgreSQL
 * database built from the same migrations, corpus and size (its fingerprint) is reused as it is.
 *
 * Also creates the benchmark's user and organization, chooses the endpoints' vendor, word, CVE and
 * subscriptions from the catalog, and counts each list endpoint's rows with hand-written SQL.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/client.ts';
import type { DB } from '../../src/db/schema.ts';
import { AccountService } from '../../src/services/account.service.ts';
import { ImportService } from '../../src/services/import.service.ts';
import { sources } from '../../src/sources/index.ts';
import { createDatabase, withDatabase } from '../lib/pg-admin.ts';
import { projectRoot } from '../lib/paths.ts';
import { countSql, deepPageOf, qOf } from './endpoints.ts';
import type { CatalogBuild, CatalogInfo, CatalogSpec, EndpointParams } from './types.ts';

const PRODUCT_SEPARATOR = '$PRODUCT$';
const SEARCH_WORD = 'overflow';
const PROJECT = 'api-bench-50';
/** The project's 50 subscriptions: the 40 most frequent vendors and 10 products of other vendors. */
const SUBSCRIBED_VENDORS = 40;
const SUBSCRIBED_PRODUCTS = 10;

/** Columns copied by the replication: everything but the id and the bookkeeping dates. */
const COLUMNS = [
  'state',
  'title',
  'description',
  'metrics',
  'cvss20',
  'cvss30',
  'cvss31',
  'cvss40',
  'kev',
  'epss',
  'vendors',
  'weaknesses',
  'cpes',
  '"references"',
  'nvd_configurations',
  'providers',
];

async function query<T>(db: Kysely<DB>, text: string): Promise<T[]> {
  return (await sql.raw<T>(text).execute(db)).rows;
}

async function countRows(db: Kysely<DB>): Promise<number> {
  return (await query<{ n: number }>(db, 'SELECT count(*)::int AS n FROM cve'))[0]?.n ?? 0;
}

/**
 * What a cached catalog must have been built from: the migrations' source (a migration edited in
 * place changes the schema without a new name), this file (the replication), the corpus and the size.
 * Kept as the database's comment.
 */
function fingerprint(spec: CatalogSpec): string {
  const hash = createHash('sha256');
  const migrations = path.join(projectRoot, 'src', 'db', 'migrations');
  for (const file of fs.readdirSync(migrations).sort())
    hash.update(fs.readFileSync(path.join(migrations, file)));
  hash.update(fs.readFileSync(fileURLToPath(import.meta.url)));
  const corpus = fs.statSync(spec.corpus);
  hash.update(`${spec.corpus} ${corpus.size} ${corpus.mtimeMs} ${spec.size}`);
  return `vt-bench-api ${hash.digest('hex').slice(0, 16)}`;
}

/** A cached database is reused when its fingerprint matches and it still holds `size` CVEs. */
async function cachedCatalogFits(serverUrl: string, database: string, spec: CatalogSpec): Promise<boolean> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, database) });
  try {
    await client.connect();
  } catch {
    return false; // no such database
  }
  try {
    const comment = await client.query<{ comment: string | null }>(
      `SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = current_database()`,
    );
    if (comment.rows[0]?.comment !== fingerprint(spec)) return false;
    const rows = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM cve');
    return rows.rows[0]?.n === spec.size;
  } catch {
    return false;
  } finally {
    await client.end();
  }
}

/**
 * Copies of the real rows (ids below CVE-9000) under `CVE-<9000+k>-<year><number>`, each copy's
 * dates an hour earlier per copy so that the copies interleave with the originals in date order.
 * The last copy is partial, its rows picked in md5 order (not the oldest ids).
 */
async function replicate(db: Kysely<DB>, base: number, size: number): Promise<void> {
  if (size < base) {
    await sql`DELETE FROM cve WHERE cve_id IN (SELECT cve_id FROM cve ORDER BY md5(cve_id) OFFSET ${size})`.execute(
      db,
    );
    return;
  }
  const cols = COLUMNS.join(', ');
  for (let k = 1; base * k < size; k++) {
    const rows = Math.min(base, size - base * k);
    const started = performance.now();
    await sql
      .raw(
        `INSERT INTO cve (cve_id, created_at, updated_at, ${cols})
         SELECT 'CVE-' || ${9000 + k} || '-' || substr(cve_id, 5, 4) || substr(cve_id, 10),
                created_at - interval '${k} hours', updated_at - interval '${k} hours', ${cols}
         FROM (SELECT *, row_number() OVER (ORDER BY md5(cve_id)) AS rn FROM cve WHERE cve_id < 'CVE-9000') c
         WHERE rn <= ${rows}`,
      )
      .execute(db);
    console.error(
      `  copy ${k}: ${rows.toLocaleString('en-US')} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
}

async function build(db: Kysely<DB>, spec: CatalogSpec): Promise<CatalogBuild> {
  const importing = performance.now();
  const report = await new ImportService(db).importInputs(sources.cve5, [spec.corpus], {
    progressEveryMs: 10_000,
    onProgress: (p) =>
      console.error(
        `  import: ${p.records.toLocaleString('en-US')} records, ${(p.elapsedMs / 1000).toFixed(0)} s`,
      ),
  });
  const importMs = performance.now() - importing;
  if (report.counts.imported === 0) throw new Error(`nothing imported from ${spec.corpus}`);
  // The catalog's own history is not news: the event processor starts after it (as on an existing
  // install), so the server under test does not match 44,130 changes against the benchmark's project
  // during the first loads (on the embedded database that held the only session for seconds).
  await sql`UPDATE event_cursor SET seq = (SELECT coalesce(max(seq), 0) FROM cve_change) WHERE stream = 'changes'`.execute(
    db,
  );
  await sql`DELETE FROM job`.execute(db);
  const base = await countRows(db);
  const replicating = performance.now();
  await replicate(db, base, spec.size);
  const replicateMs = performance.now() - replicating;
  const vacuuming = performance.now();
  // As autovacuum would have done soon after: statistics, visibility map, GIN pending lists flushed
  // (cve_vendor is written by triggers on cve, in the same statements).
  await sql`VACUUM ANALYZE cve, cve_vendor`.execute(db);
  return { importMs, imported: report.counts.imported, replicateMs, vacuumMs: performance.now() - vacuuming };
}

async function ensureAccount(db: Kysely<DB>, spec: CatalogSpec): Promise<void> {
  const accounts = new AccountService(db);
  if (!(await accounts.findUser(spec.username))) {
    await accounts.createUser({
      username: spec.username,
      email: `${spec.username}@example.com`,
      password: 'api-bench-password',
    });
  }
  try {
    await accounts.getOrganization(spec.org);
  } catch {
    await accounts.createOrganization(spec.org, spec.username);
  }
}

/** The endpoints' parameters, from the catalog's most frequent vendor keys. */
async function chooseParams(db: Kysely<DB>, spec: CatalogSpec, rows: number): Promise<EndpointParams> {
  const ranked = await query<{ key: string }>(
    db,
    `SELECT key FROM cve, unnest(vendors) AS key GROUP BY key ORDER BY count(*) DESC, key LIMIT 2000`,
  );
  // The subscriptions API takes names the vendor and product tables know.
  const known = new Set(
    (
      await query<{ key: string }>(
        db,
        `SELECT name AS key FROM vendor
         UNION ALL SELECT v.name || '${PRODUCT_SEPARATOR}' || p.name FROM product p JOIN vendor v ON v.id = p.vendor_id`,
      )
    ).map((r) => r.key),
  );
  const keys = ranked.map((r) => r.key).filter((k) => known.has(k));
  const vendors = keys.filter((k) => !k.includes(PRODUCT_SEPARATOR)).slice(0, SUBSCRIBED_VENDORS);
  const productKeys = keys
    .filter((k) => k.includes(PRODUCT_SEPARATOR) && !vendors.includes(k.split(PRODUCT_SEPARATOR)[0]!))
    .slice(0, SUBSCRIBED_PRODUCTS);
  const products: Record<string, string[]> = {};
  for (const key of productKeys) {
    const [vendor, product] = key.split(PRODUCT_SEPARATOR) as [string, string];
    (products[vendor] ??= []).push(product);
  }
  const vendor = vendors[0];
  if (!vendor) throw new Error('the catalog has no vendors');
  const [recent] = await query<{ cve_id: string }>(
    db,
    `SELECT cve_id FROM cve WHERE cve_id < 'CVE-9000' ORDER BY updated_at DESC, cve_id DESC LIMIT 1`,
  );
  return {
    org: spec.org,
    project: PROJECT,
    vendor,
    searchWord: SEARCH_WORD,
    q: qOf(vendor),
    cveId: recent!.cve_id,
    deepPage: deepPageOf(rows),
    subscriptions: { vendors, products },
    subscriptionKeys: [...vendors, ...productKeys].sort(),
  };
}

export async function catalogPhase(spec: CatalogSpec): Promise<CatalogInfo> {
  const { target } = spec;
  let reused = false;
  if (target.kind === 'postgres') {
    reused = !spec.rebuild && (await cachedCatalogFits(target.serverUrl, target.database, spec));
    if (!reused) await createDatabase(target.serverUrl, target.database);
  }
  const opening = performance.now();
  const database: Database = await openDatabase(
    target.kind === 'postgres'
      ? { url: withDatabase(target.serverUrl, target.database) }
      : { dataDir: target.dataDir },
  );
  const openMs = performance.now() - opening;
  try {
    const { db } = database;
    const build = reused ? undefined : await buildCatalog(db, spec);
    if (build && target.kind === 'postgres') {
      const name = target.database.replace(/"/g, '""');
      await sql.raw(`COMMENT ON DATABASE "${name}" IS '${fingerprint(spec)}'`).execute(db);
    }
    await ensureAccount(db, spec);
    const rows = await countRows(db);
    const params = await chooseParams(db, spec, rows);
    const expectedSql = countSql(params);
    const expected: Record<string, number> = {};
    for (const [key, text] of Object.entries(expectedSql)) {
      expected[key] = (await query<{ n: number }>(db, text))[0]?.n ?? -1;
    }
    const [size] = await query<{ bytes: string }>(
      db,
      'SELECT pg_database_size(current_database())::text AS bytes',
    );
    return {
      rows,
      reused,
      ...(build ? { build } : {}),
      openMs,
      databaseMiB: Number(size?.bytes ?? 0) / 2 ** 20,
      params,
      expected,
      expectedSql,
    };
  } finally {
    await database.close();
  }
}

async function buildCatalog(db: Kysely<DB>, spec: CatalogSpec): Promise<CatalogBuild> {
  const existing = await countRows(db);
  if (existing !== 0) throw new Error(`expected an empty catalog to build into, found ${existing} CVEs`);
  const result = await build(db, spec);
  const rows = await countRows(db);
  if (rows !== spec.size) throw new Error(`built ${rows} CVEs instead of ${spec.size}`);
  return result;
}
