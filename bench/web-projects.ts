/**
 * The project pages' part of the web benchmark (issue 19's targets): a project subscribed to the 20
 * busiest vendors of the benchmark catalog, made again on every run, with 3,000 of its CVEs triaged
 * by bulk edits of 1,000 (each edit timed: target under 2 s), then its tracker and dashboard pages
 * measured like the other pages.
 */
import { sql } from 'kysely';
import { openDatabase } from '../src/db/client.ts';
import { ListCache } from '../src/services/list-cache.ts';
import { ProjectService } from '../src/services/project.service.ts';
import { trackerServices } from '../src/main.ts';
import type { Actor } from '../src/domain/actor.ts';
import { withDatabase } from './lib/pg-admin.ts';

export const PROJECT = 'web-bench-20';
const BUSY_VENDORS = 20;
const BULK = 1000;
const BULK_EDITS = 3;

export interface ProjectBench {
  project: string;
  vendors: string[];
  /** The project's CVE count. */
  cves: number;
  /** Each bulk edit of 1,000 CVEs, in ms. */
  bulkMs: number[];
  assignee: string;
}

export async function prepareProjectBench(
  serverUrl: string,
  database: string,
  org: string,
  username: string,
): Promise<ProjectBench> {
  const { db, close } = await openDatabase({ url: withDatabase(serverUrl, database) });
  try {
    const owner = await db
      .selectFrom('app_user')
      .select(['id', 'email'])
      .where('username', '=', username)
      .executeTakeFirstOrThrow();
    const { id: orgId } = await db
      .selectFrom('organization')
      .select('id')
      .where('name', '=', org)
      .executeTakeFirstOrThrow();
    const actor: Actor = { type: 'user', id: owner.id, name: username };
    const projects = new ProjectService(db);
    const { tracker } = trackerServices(db, new ListCache());
    const existing = await db
      .selectFrom('project')
      .select('id')
      .where('organization_id', '=', orgId)
      .where('name', '=', PROJECT)
      .executeTakeFirst();
    if (existing) await projects.delete(orgId, PROJECT, actor);
    const vendors = (
      await sql<{ vendor_key: string }>`
        SELECT vendor_key FROM cve_vendor WHERE strpos(vendor_key, '$PRODUCT$') = 0
        GROUP BY vendor_key ORDER BY count(*) DESC, vendor_key LIMIT ${BUSY_VENDORS}`.execute(db)
    ).rows.map((r) => r.vendor_key);
    await projects.create(orgId, { name: PROJECT, description: 'web benchmark' }, actor, { vendors });
    const ids = (
      await sql<{ cve_id: string }>`
        SELECT DISTINCT cve_id FROM cve_vendor WHERE vendor_key = ANY(${vendors}::text[])`.execute(db)
    ).rows.map((r) => r.cve_id);
    const bulkMs: number[] = [];
    // Every 7th CVE of the project, so the triaged ones spread over the whole list.
    const spread = ids.filter((_, i) => i % 7 === 0);
    for (let i = 0; i < BULK_EDITS; i++) {
      const chunk = spread.slice(i * BULK, (i + 1) * BULK);
      const started = performance.now();
      await tracker.bulkUpdate(
        orgId,
        PROJECT,
        chunk,
        { status: i === 0 ? 'analysis_in_progress' : 'to_evaluate', assignee: owner.email },
        actor,
      );
      bulkMs.push(performance.now() - started);
    }
    return { project: PROJECT, vendors, cves: ids.length, bulkMs, assignee: owner.email };
  } finally {
    await close();
  }
}

/** The project pages measured (their URLs as the pages make them). */
export function projectPages(org: string, bench: ProjectBench): { name: string; url: string }[] {
  const base = `/org/${encodeURIComponent(org)}/projects/${encodeURIComponent(bench.project)}`;
  return [
    { name: `tracker, ${bench.project} (${BUSY_VENDORS} busy vendors)`, url: `${base}/cves` },
    { name: 'tracker, status = analysis_in_progress', url: `${base}/cves?status=analysis_in_progress` },
    { name: 'tracker, highest CVSS first', url: `${base}/cves?ordering=-cvss` },
    // Counted on every request (a status or assignee filter is not cached by catalog version).
    { name: 'tracker, no status', url: `${base}/cves?status=no_status` },
    { name: 'tracker, nobody assigned', url: `${base}/cves?assignee=none` },
    { name: 'project dashboard', url: base },
    // After the dashboard: its visit is what "changed since your visit" counts from.
    { name: 'organization home', url: `/org/${encodeURIComponent(org)}/overview` },
  ];
}
