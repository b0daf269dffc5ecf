/**
 * The catalog's hot read after a large import: CVEs of one vendor, newest first. Plans are taken
 * after ANALYZE, as autovacuum would have done within a minute of the import in production; a plan
 * from an unanalyzed table says nothing about the steady state.
 */
import pg from 'pg';
import { peakRssMiB } from '../lib/child.ts';
import type { ExplainedQuery, ExplainResult } from './types.ts';

/** Index names a plan reads, e.g. `cve_vendors_idx` from `Bitmap Index Scan on cve_vendors_idx`. */
export function indexesOf(plan: string): string[] {
  const found = new Set<string>();
  for (const m of plan.matchAll(/(?:Index(?: Only)? Scan(?: Backward)? using|Bitmap Index Scan on) (\w+)/g)) {
    if (m[1]) found.add(m[1]);
  }
  return [...found];
}

async function explain(client: pg.Client, sql: string): Promise<ExplainedQuery> {
  const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`);
  const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
  const ms = Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? NaN);
  return { sql, plan, indexes: indexesOf(plan), ms };
}

export async function explainPhase(spec: { url: string; vendor: string }): Promise<ExplainResult> {
  const client = new pg.Client({ connectionString: spec.url });
  await client.connect();
  try {
    const analyzing = performance.now();
    await client.query('ANALYZE cve');
    const analyzeMs = performance.now() - analyzing;
    const vendor = spec.vendor.replace(/'/g, "''");
    const lookup = await explain(
      client,
      `SELECT cve_id FROM cve WHERE vendors @> ARRAY['${vendor}'] ORDER BY updated_at DESC, cve_id DESC LIMIT 20`,
    );
    const countSql = `SELECT count(*)::int AS n FROM cve WHERE vendors @> ARRAY['${vendor}']`;
    const count = await explain(client, countSql);
    const value = (await client.query<{ n: number }>(countSql)).rows[0]?.n ?? 0;
    const stats = await client.query<{ rows: number; bytes: string }>(
      'SELECT (SELECT count(*)::int FROM cve) AS rows, pg_database_size(current_database())::text AS bytes',
    );
    return {
      rows: stats.rows[0]?.rows ?? 0,
      databaseMiB: Number(stats.rows[0]?.bytes ?? 0) / 2 ** 20,
      analyzeMs,
      lookup,
      count: { ...count, value },
      peakRssMiB: peakRssMiB(),
    };
  } finally {
    await client.end();
  }
}
