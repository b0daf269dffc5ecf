/**
 * The fan-out benchmark's starting point, built once and cached as a PostgreSQL template database:
 * the real CVE 5 corpus imported as the CLI does it, then 10,000 projects in 100 organizations,
 * each with 5–50 subscriptions drawn from the catalog's real vendor and product keys (and one in
 * `keywordEvery` with keywords: product names as people type them, matched over the catalog), one signed
 * webhook notification (sealed with SecretBox as NotificationService does) and one alert
 * automation. Setup is plain SQL in bulk: it is not what is measured.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { parseConfig, type Config } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import type { DB } from '../../src/db/schema.ts';
import { SecretBox } from '../../src/domain/secret-box.ts';
import { servicesFor } from '../../src/main.ts';
import { newSigningSecret } from '../../src/notifications/channel-sender.ts';
import { sources } from '../../src/sources/index.ts';
import { KeywordRepository, type KeywordMatchRow } from '../../src/db/keyword.repository.ts';
import { KeywordMatcher } from '../../src/domain/keywords.ts';
import { createDatabase, withDatabase } from '../lib/pg-admin.ts';
import { projectRoot } from '../lib/paths.ts';

export const SECRET = 'bench-notifications-secret-0123456789abcdef';
const PRODUCT_SEPARATOR = '$PRODUCT$';

/** Every alert trigger a real user watching for news would tick (EPSS moves excluded: no EPSS import here). */
export const TRIGGERS = [
  'cve_enters_project',
  'cvss_increased',
  'kev_added',
  'new_vendor',
  'new_product',
  'description_changed',
  'title_changed',
  'new_reference',
  'new_weakness',
];

export interface SetupSpec {
  corpus: string;
  organizations: number;
  projects: number;
  minSubscriptions: number;
  maxSubscriptions: number;
  /** The webhook receiver's port: it is part of every sealed URL. */
  receiverPort: number;
  /** One project in this many watches keywords (issue 30's keyword watches). */
  keywordEvery: number;
  /** How many keywords each of those projects watches. */
  keywordsPerProject: number;
}

export interface SetupInfo {
  cves: number;
  subscriptions: number;
  distinctKeys: number;
  /** Vendor keys in the draw, and how the draw weighs them. */
  candidateKeys: number;
  /** The most subscribed keys: share of projects subscribed. */
  popular: { key: string; projects: number; cves: number }[];
  /** Projects watching keywords, their keywords, the distinct ones, and the CVEs they match. */
  keywords: { projects: number; watches: number; distinct: number; matches: number; examples: string[] };
  /** How long the build took (0 when the cached template was reused). */
  buildSeconds: number;
  importSeconds: number;
  reused: boolean;
}

/** Configuration for the benchmark's services: PostgreSQL at `url`, loopback receivers allowed. */
export function benchConfig(url: string, extra: NodeJS.ProcessEnv = {}): Config {
  return parseConfig({
    DATABASE_URL: url,
    VULNTRACK_SECRET: SECRET,
    OUTBOUND_ALLOW_PRIVATE: 'true',
    SYNC_SOURCES: 'none',
    LOG_LEVEL: 'warn',
    ...extra,
  });
}

/** Small, fast, seeded PRNG (mulberry32): the same projects on every build. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fingerprint(spec: SetupSpec): string {
  const hash = createHash('sha256');
  const migrations = path.join(projectRoot, 'src', 'db', 'migrations');
  for (const file of fs.readdirSync(migrations).sort())
    hash.update(fs.readFileSync(path.join(migrations, file)));
  hash.update(fs.readFileSync(fileURLToPath(import.meta.url)));
  const corpus = fs.statSync(spec.corpus);
  hash.update(`${spec.corpus} ${corpus.size} ${corpus.mtimeMs} ${JSON.stringify(spec)}`);
  return `vt-bench-notifications ${hash.digest('hex').slice(0, 16)}`;
}

async function cachedFits(serverUrl: string, database: string, spec: SetupSpec): Promise<boolean> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, database) });
  try {
    await client.connect();
  } catch {
    return false;
  }
  try {
    const comment = await client.query<{ comment: string | null }>(
      `SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = current_database()`,
    );
    return comment.rows[0]?.comment === fingerprint(spec);
  } catch {
    return false;
  } finally {
    await client.end();
  }
}

async function rows<T>(db: Kysely<DB>, text: string): Promise<T[]> {
  return (await sql.raw<T>(text).execute(db)).rows;
}

/** Inserts `items` through jsonb_to_recordset, `per` rows a statement. */
async function bulk(db: Kysely<DB>, items: unknown[], per: number, insert: (json: string) => string) {
  for (let i = 0; i < items.length; i += per) {
    await sql.raw(insert(JSON.stringify(items.slice(i, i + per)).replace(/'/g, "''"))).execute(db);
  }
}

/**
 * Draws each project's subscriptions. A key's weight is its CVE count to the power 0.75: the big
 * vendors (linux, microsoft, google…) land in many projects, as they do in reality, while a long
 * tail of products keeps most subscriptions specific. Two keys in three are vendor keys, one in three
 * a product key (`vendor$PRODUCT$product`).
 */
function drawSubscriptions(
  spec: SetupSpec,
  keys: { key: string; cves: number }[],
): { project: number; key: string }[] {
  const random = rng(20241024);
  const pools = [
    keys.filter((k) => !k.key.includes(PRODUCT_SEPARATOR)),
    keys.filter((k) => k.key.includes(PRODUCT_SEPARATOR)),
  ].map((pool) => {
    const cumulative: number[] = [];
    let total = 0;
    for (const k of pool) cumulative.push((total += k.cves ** 0.75));
    return { pool, cumulative, total };
  });
  const pick = (p: (typeof pools)[number]) => {
    const r = random() * p.total;
    let lo = 0;
    let hi = p.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (p.cumulative[mid]! < r) lo = mid + 1;
      else hi = mid;
    }
    return p.pool[lo]!.key;
  };
  const out: { project: number; key: string }[] = [];
  for (let project = 0; project < spec.projects; project++) {
    const n =
      spec.minSubscriptions + Math.floor(random() * (spec.maxSubscriptions - spec.minSubscriptions + 1));
    const chosen = new Set<string>();
    while (chosen.size < n) chosen.add(pick(random() < 2 / 3 ? pools[0]! : pools[1]!));
    for (const key of chosen) out.push({ project, key });
  }
  return out;
}

/**
 * Draws the keywords of one project in `spec.keywordEvery`: product names of the catalog as a person
 * types them (`log4j`, `http server`: the key's product part, underscores as blanks), drawn like the
 * subscriptions (∝ CVEs^0.75), so popular products are watched by many projects.
 */
function drawKeywords(
  spec: SetupSpec,
  keys: { key: string; cves: number }[],
): { project: number; keyword: string }[] {
  const random = rng(20260415);
  const names = new Map<string, number>();
  for (const k of keys) {
    const at = k.key.indexOf(PRODUCT_SEPARATOR);
    if (at < 0) continue;
    const name = k.key.slice(at + PRODUCT_SEPARATOR.length).replace(/_/g, ' ');
    if (name.length < 2 || name.length > 100 || !/[a-z0-9]/.test(name)) continue;
    names.set(name, (names.get(name) ?? 0) + k.cves);
  }
  const pool = [...names];
  const cumulative: number[] = [];
  let total = 0;
  for (const [, cves] of pool) cumulative.push((total += cves ** 0.75));
  const pick = () => {
    const r = random() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < r) lo = mid + 1;
      else hi = mid;
    }
    return pool[lo]![0];
  };
  const out: { project: number; keyword: string }[] = [];
  if (spec.keywordEvery <= 0) return out;
  for (let project = 0; project < spec.projects; project += spec.keywordEvery) {
    const chosen = new Set<string>();
    while (chosen.size < spec.keywordsPerProject) chosen.add(pick());
    for (const keyword of chosen) out.push({ project, keyword });
  }
  return out;
}

/**
 * The catalog's matches of every watched keyword, as the keywords PUT stores them: all CVE texts read
 * once and matched by one KeywordMatcher (the PUT scans per keyword; in bulk this is the same result).
 */
async function matchKeywords(db: Kysely<DB>): Promise<void> {
  const repo = new KeywordRepository(db);
  const matcher = new KeywordMatcher(await repo.watched());
  const ids = (await rows<{ cve_id: string }>(db, 'SELECT cve_id FROM cve ORDER BY cve_id')).map(
    (r) => r.cve_id,
  );
  for await (const texts of repo.texts(ids, db)) {
    const found: KeywordMatchRow[] = [];
    for (const t of texts)
      for (const [keyword, fields] of matcher.match(t)) found.push({ keyword, cveId: t.cveId, fields });
    await repo.insertMatches(found, db);
  }
}

async function build(url: string, spec: SetupSpec, log: (line: string) => void): Promise<number> {
  const database = await openDatabase({ url, poolSize: 2 });
  const services = servicesFor(benchConfig(url), database, SECRET);
  const db = database.db;
  try {
    const importing = performance.now();
    const report = await services.imports.importInputs(sources.cve5, [spec.corpus]);
    const importSeconds = (performance.now() - importing) / 1000;
    log(`  catalog: ${report.counts.imported.toLocaleString('en-US')} CVEs in ${importSeconds.toFixed(1)} s`);
    // The catalog's own history is not news: the processor starts after it (as on an existing
    // install, where migration 0005 put the cursor at the end), and the import's jobs go.
    await sql`UPDATE event_cursor SET seq = (SELECT coalesce(max(seq), 0) FROM cve_change) WHERE stream = 'changes'`.execute(
      db,
    );
    await sql`TRUNCATE job`.execute(db);

    const keys = await rows<{ key: string; cves: number }>(
      db,
      `SELECT k AS key, count(*)::int AS cves FROM cve, unnest(vendors) k
        WHERE state = 'PUBLISHED' GROUP BY k ORDER BY k`,
    );
    await rows(
      db,
      `INSERT INTO organization (name)
       SELECT 'bench-org-' || lpad(g::text, 3, '0') FROM generate_series(1, ${spec.organizations}) g`,
    );
    const perOrg = Math.ceil(spec.projects / spec.organizations);
    await rows(
      db,
      `INSERT INTO project (organization_id, name)
       SELECT o.id, 'project-' || lpad(p::text, 5, '0')
         FROM (SELECT id, row_number() OVER (ORDER BY name) - 1 AS n FROM organization) o,
              generate_series(o.n * ${perOrg}, least(o.n * ${perOrg} + ${perOrg}, ${spec.projects}) - 1) p`,
    );
    const projects = (
      await rows<{ id: string; name: string }>(db, 'SELECT id, name FROM project ORDER BY name')
    ).map((p) => p.id);
    const subscriptions = drawSubscriptions(spec, keys).map((s) => ({
      project_id: projects[s.project],
      vendor_key: s.key,
    }));
    await bulk(
      db,
      subscriptions,
      20_000,
      (json) => `INSERT INTO project_subscription (project_id, vendor_key)
        SELECT project_id, vendor_key FROM jsonb_to_recordset('${json}'::jsonb) AS x(project_id uuid, vendor_key text)`,
    );

    const keywords = drawKeywords(spec, keys).map((k) => ({
      project_id: projects[k.project],
      keyword: k.keyword,
    }));
    await bulk(
      db,
      keywords,
      20_000,
      (json) => `INSERT INTO project_keyword (project_id, keyword)
        SELECT project_id, keyword FROM jsonb_to_recordset('${json}'::jsonb) AS x(project_id uuid, keyword text)`,
    );
    await matchKeywords(db);

    // One webhook per project, sealed as NotificationService.create seals it.
    const box = new SecretBox(SECRET);
    const receiver = `127.0.0.1:${spec.receiverPort}`;
    const notifications = projects.map((id, i) => {
      const url = `http://${receiver}/hooks/${i}`;
      return {
        project_id: id,
        configuration: { url_host: receiver, header_names: [] },
        secrets: box.seal({ url, headers: {}, signing_secret: newSigningSecret() }),
      };
    });
    await bulk(
      db,
      notifications,
      5_000,
      (json) => `INSERT INTO notification (project_id, name, type, is_enabled, configuration, secrets)
        SELECT project_id, 'hook', 'webhook', true, configuration, secrets
          FROM jsonb_to_recordset('${json}'::jsonb) AS x(project_id uuid, configuration jsonb, secrets text)`,
    );
    const configuration = JSON.stringify({
      triggers: TRIGGERS,
      conditions: { operator: 'AND', children: [] },
      actions: [{ type: 'send_notification', value: 'hook' }],
    });
    await rows(
      db,
      `INSERT INTO automation (project_id, name, trigger_type, configuration)
       SELECT id, 'alerts', 'alert', '${configuration}'::jsonb FROM project`,
    );
    await rows(db, 'VACUUM ANALYZE');
    return importSeconds;
  } finally {
    await services.close();
  }
}

async function describe(url: string): Promise<Omit<SetupInfo, 'buildSeconds' | 'importSeconds' | 'reused'>> {
  const database = await openDatabase({ url, poolSize: 1, migrate: false });
  try {
    const db = database.db;
    const [counts] = await rows<{ cves: number; subscriptions: number; keys: number; candidates: number }>(
      db,
      `SELECT (SELECT count(*)::int FROM cve) AS cves,
              (SELECT count(*)::int FROM project_subscription) AS subscriptions,
              (SELECT count(DISTINCT vendor_key)::int FROM project_subscription) AS keys,
              (SELECT count(DISTINCT k)::int FROM cve, unnest(vendors) k WHERE state = 'PUBLISHED') AS candidates`,
    );
    const popular = await rows<{ key: string; projects: number; cves: number }>(
      db,
      `SELECT s.vendor_key AS key, count(*)::int AS projects,
              (SELECT count(*)::int FROM cve WHERE vendors @> ARRAY[s.vendor_key]) AS cves
         FROM project_subscription s GROUP BY s.vendor_key ORDER BY count(*) DESC, s.vendor_key LIMIT 12`,
    );
    const [kw] = await rows<{ projects: number; watches: number; distinct: number; matches: number }>(
      db,
      `SELECT (SELECT count(DISTINCT project_id)::int FROM project_keyword) AS projects,
              (SELECT count(*)::int FROM project_keyword) AS watches,
              (SELECT count(DISTINCT keyword)::int FROM project_keyword) AS distinct,
              (SELECT count(*)::int FROM cve_keyword) AS matches`,
    );
    const examples = await rows<{ keyword: string }>(
      db,
      `SELECT keyword FROM project_keyword GROUP BY keyword ORDER BY count(*) DESC, keyword LIMIT 12`,
    );
    return {
      keywords: { ...kw!, examples: examples.map((e) => e.keyword) },
      cves: counts!.cves,
      subscriptions: counts!.subscriptions,
      distinctKeys: counts!.keys,
      candidateKeys: counts!.candidates,
      popular,
    };
  } finally {
    await database.close();
  }
}

/**
 * Makes sure the template database `base` holds the setup of `spec` (building it when missing or
 * stale), then copies it to `target` (CREATE DATABASE … TEMPLATE: seconds, not a rebuild).
 */
export async function prepare(
  serverUrl: string,
  base: string,
  target: string,
  spec: SetupSpec,
  options: { rebuild: boolean; log: (line: string) => void },
): Promise<{ url: string; info: SetupInfo }> {
  let buildSeconds = 0;
  let importSeconds = 0;
  const reused = !options.rebuild && (await cachedFits(serverUrl, base, spec));
  if (!reused) {
    options.log(
      `setup: building ${base} (catalog import, ${spec.projects.toLocaleString('en-US')} projects)…`,
    );
    const started = performance.now();
    const url = await createDatabase(serverUrl, base);
    importSeconds = await build(url, spec, options.log);
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`COMMENT ON DATABASE "${base}" IS '${fingerprint(spec)}'`);
    await admin.end();
    buildSeconds = (performance.now() - started) / 1000;
    options.log(`setup: built in ${buildSeconds.toFixed(1)} s`);
  } else {
    options.log(`setup: reusing the cached template ${base}`);
  }
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${target}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${target}" TEMPLATE "${base}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(serverUrl, target);
  return { url, info: { ...(await describe(url)), buildSeconds, importSeconds, reused } };
}
