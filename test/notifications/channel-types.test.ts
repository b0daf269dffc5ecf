/**
 * The database's CHECK on `notification.type` (a migration's, so never derived from code) admits
 * exactly the registered channels: a channel added to the registry without its migration fails here.
 */
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { CHANNEL_TYPES } from '../../src/notifications/channel-registry.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

describeEachDatabase('notification.type', (use) => {
  it('admits exactly the channels of the registry', async () => {
    const { rows } = await sql<{ def: string }>`
      SELECT pg_get_constraintdef(c.oid) AS def
        FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
       WHERE t.relname = 'notification' AND c.conname = 'notification_type_check'`.execute(use().db);
    expect(rows).toHaveLength(1);
    const admitted = [...rows[0]!.def.matchAll(/'([^']+)'::text/g)].map((m) => m[1]);
    expect(admitted.sort()).toEqual([...CHANNEL_TYPES].sort());
  });
});
