/**
 * Writes of more rows than one statement's bind parameters allow (65,535 on PostgreSQL's protocol,
 * counted in 16 bits): an inventory upgrade that resolves 50,000 CVEs wrote that many tracker rows,
 * comments and audit entries in one statement each, and the server refused it ("bind message has
 * … parameter formats but 0 parameters"). The repositories split such writes; every row arrives.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AuditRepository } from '../../src/db/audit.repository.ts';
import { TrackerRepository } from '../../src/db/tracker.repository.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { buildTestApi, type TestApi } from '../helpers/api.ts';
import { createTestOrganization, type TestOrganization } from '../helpers/organizations.ts';

/** 5 parameters a tracker row: 13,200 rows are 66,000 parameters, over the limit in one statement. */
const CVES = 13_200;

describeEachDatabase('writes over one statement’s parameter limit', (use) => {
  let api: TestApi;
  let org: TestOrganization;
  let projectId: string;
  const ids = Array.from({ length: CVES }, (_, i) => `CVE-2099-${String(10000 + i)}`);

  beforeAll(async () => {
    api = await buildTestApi(use());
    org = await createTestOrganization(api.services, 'large');
    const actor = { type: 'user' as const, id: org.owner.id, name: org.owner.username };
    projectId = (await api.services.projects.create(org.id, { name: 'big' }, actor)).project.id;
    await sql`
      INSERT INTO cve (cve_id, created_at, updated_at, metrics)
      SELECT id, now(), now(), '{}'::jsonb FROM unnest(${ids}::text[]) AS id`.execute(use().db);
  });
  afterAll(() => api.close());

  it('writes 13,200 tracker entries, their comments and audit entries, every one', async () => {
    const db = use().db;
    await db.transaction().execute(async (tx) => {
      const tracker = new TrackerRepository(tx);
      await tracker.upsert(
        projectId,
        ids.map((cve_id) => ({ cve_id, status: 'resolved', assignee_id: null, assigned_at: null })),
        tx,
      );
      await tracker.addComments(
        ids.map((cveId) => ({
          projectId,
          cveId,
          authorType: 'user' as const,
          authorId: org.owner.id,
          authorName: org.owner.username,
          body: 'Resolved by inventory backend: widget 1.0 → 2.0.',
        })),
        tx,
      );
      await new AuditRepository(tx).recordMany(
        ids.map((cveId) => ({
          organizationId: org.id,
          actor: { type: 'user' as const, id: org.owner.id, name: org.owner.username },
          action: 'tracker_entry.create',
          resourceType: 'tracker_entry',
          resourceId: cveId,
          resourceName: `big/${cveId}`,
          changes: { status: { old: null, new: 'resolved' } },
        })),
        tx,
      );
    });
    const count = async (query: ReturnType<typeof sql<{ n: number }>>) =>
      (await query.execute(db)).rows[0]!.n;
    expect(
      await count(
        sql`SELECT count(*)::int AS n FROM tracker_entry WHERE project_id = ${projectId} AND status = 'resolved'`,
      ),
    ).toBe(CVES);
    expect(
      await count(sql`SELECT count(*)::int AS n FROM tracker_comment WHERE project_id = ${projectId}`),
    ).toBe(CVES);
    expect(
      await count(
        sql`SELECT count(*)::int AS n FROM audit_log WHERE organization_id = ${org.id} AND resource_type = 'tracker_entry'`,
      ),
    ).toBe(CVES);
  });
});
