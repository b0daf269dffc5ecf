/**
 * Prepared statements (src/db/prepared.ts): the lookups every request makes answer exactly as
 * ordinary queries, on the server (named statements) and embedded (PREPARE / EXECUTE with literals),
 * whatever the text values hold.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { ProjectRepository } from '../../src/db/project.repository.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

describeEachDatabase('prepared statements', (use, backend) => {
  let orgId: string;
  const NAMES = ["o'k", 'back\\slash', "x' OR '1'='1", '', 'plain'];

  beforeAll(async () => {
    const db = use().db;
    const org = await sql<{
      id: string;
    }>`INSERT INTO organization (name) VALUES ('prepared') RETURNING id`.execute(db);
    orgId = org.rows[0]!.id;
    for (const name of NAMES.filter((n) => !n.includes(' OR ')))
      await sql`INSERT INTO project (organization_id, name) VALUES (${orgId}, ${name})`.execute(db);
  });

  describe('a lookup by text values', () => {
    it('finds each name exactly, quotes and backslashes included, many times over', async () => {
      const projects = new ProjectRepository(use().db);
      for (let round = 0; round < 3; round++) {
        for (const name of NAMES) {
          const found = await projects.listed(orgId, name);
          if (name.includes(' OR ')) expect(found).toBeUndefined();
          else expect(found, name).toMatchObject({ keys: [], listVersion: 0 });
        }
      }
      expect(await projects.listed('00000000-0000-0000-0000-000000000000', 'plain')).toBeUndefined();
    });

    it('are prepared in the session (embedded: PREPARE, then EXECUTE)', async () => {
      if (backend !== 'embedded') return;
      const { rows } = await sql<{ statement: string }>`
        SELECT statement FROM pg_prepared_statements WHERE name LIKE 'vt_prepared_%'`.execute(use().db);
      expect(rows.some((r) => r.statement.includes('project_subscription'))).toBe(true);
    });

    it('answers inside a transaction as outside', async () => {
      await use()
        .db.transaction()
        .execute(async (tx) => {
          expect(await new ProjectRepository(tx).listed(orgId, "o'k")).toBeDefined();
        });
    });
  });
});
