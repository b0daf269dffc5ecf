/**
 * The 300,000-CVE catalog the matching benchmarks share (`match`, `inventory`): the real CVE 5 corpus
 * and NVD's 1.1 feeds (so configurations exist) imported through the importers, then the real rows
 * replicated in SQL under synthetic ids with their CNA statements (bench/match/replicate.ts), so
 * every copy can be matched as its original.
 */
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import { parseConfig } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { servicesFor } from '../../src/main.ts';
import type { Services } from '../../src/services/services.ts';
import { sources } from '../../src/sources/index.ts';
import { corpusFile } from '../import/corpus.ts';
import { projectRoot } from '../lib/paths.ts';
import { createDatabase, DEFAULT_SERVER_URL, withDatabase } from '../lib/pg-admin.ts';
import { replicate } from './replicate.ts';

const NVD_FEEDS = ['2014', '2017', 'modified', 'recent'].map((f) =>
  path.resolve(projectRoot, `../shared/data/nvd/feed-1.1/nvdcve-1.1-${f}.json.gz`),
);

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(0);

/** Builds the catalog into an empty migrated database; returns one line per step, for the results. */
export async function buildMatchCatalog(services: Services, db: Kysely<DB>, size: number): Promise<string[]> {
  const build: string[] = [];
  let t = performance.now();
  const corpus = corpusFile();
  const imported = await services.imports.importInputs(sources.cve5, [corpus]);
  build.push(
    `CVE 5 corpus \`${path.relative(projectRoot, corpus)}\`: ${imported.counts.imported} records, ${seconds(t)} s`,
  );
  console.error(build.at(-1));
  t = performance.now();
  const nvd = await services.imports.importInputs(sources.nvd, NVD_FEEDS);
  build.push(`NVD 1.1 feeds (2014, 2017, modified, recent): ${nvd.counts.imported} records, ${seconds(t)} s`);
  console.error(build.at(-1));
  t = performance.now();
  const copied = await replicate(db, size);
  build.push(
    `replicated to ${copied.rows} CVEs (${copied.statements} CNA statements copied), ${seconds(t)} s`,
  );
  console.error(build.at(-1));
  t = performance.now();
  await sql`VACUUM ANALYZE cve, cve_vendor, cve_source`.execute(db);
  build.push(`VACUUM ANALYZE ${seconds(t)} s`);
  return build;
}

/** What the catalog holds, for the results. */
export async function catalogStats(db: Kysely<DB>): Promise<string> {
  const stats = (
    await sql<{ cves: number; with_nvd: number; with_cna: number; bytes: string }>`
      SELECT (SELECT count(*)::int FROM cve) AS cves,
             (SELECT count(*)::int FROM cve WHERE jsonb_typeof(nvd_configurations) = 'array') AS with_nvd,
             (SELECT count(*)::int FROM cve_source WHERE provider = 'mitre' AND data ? 'affected') AS with_cna,
             pg_database_size(current_database())::text AS bytes`.execute(db)
  ).rows[0]!;
  return `${stats.cves.toLocaleString('en-US')} CVEs, ${stats.with_nvd.toLocaleString('en-US')} with NVD configurations, ${stats.with_cna.toLocaleString('en-US')} CNA statements with \`affected\`; database ${(Number(stats.bytes) / 2 ** 30).toFixed(2)} GiB`;
}

/** An open catalog database with the services over it. */
export interface MatchCatalog {
  serverUrl: string;
  database: Database;
  services: Services;
  /** The build's steps (empty when reused). */
  build: string[];
}

/**
 * The catalog database `name` on the benchmark server (`BENCH_DATABASE_URL`): created and built, or
 * a kept one opened as it is (`reuse`); services configured by `env` over it.
 */
export async function openMatchCatalog(
  name: string,
  { reuse, size }: { reuse: boolean; size: number },
  env: Record<string, string>,
): Promise<MatchCatalog> {
  const serverUrl = process.env.BENCH_DATABASE_URL || DEFAULT_SERVER_URL;
  if (!reuse) await createDatabase(serverUrl, name);
  const database = await openDatabase({ url: withDatabase(serverUrl, name) });
  const services = servicesFor(parseConfig(env), database, 'bench-secret-'.padEnd(40, 'x'));
  try {
    const build = reuse ? [] : await buildMatchCatalog(services, database.db, size);
    return { serverUrl, database, services, build };
  } catch (e) {
    await database.close();
    throw e;
  }
}
