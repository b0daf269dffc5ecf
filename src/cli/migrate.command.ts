/** `vulntrack migrate`: applies pending migrations (serve and worker also do it on start). */
import { getConfig } from '../config.ts';
import { openDatabase } from '../db/client.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { EXIT, type Output } from './output.ts';
import type { Kysely } from 'kysely';

export async function migrateCommand(out: Output): Promise<number> {
  const config = getConfig();
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, migrate: false });
  try {
    const results = await migrateToLatest(database.db as unknown as Kysely<unknown>);
    const applied = results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
    out.result(applied.length ? `applied ${applied.join(', ')}` : 'the database is up to date', { applied });
    return EXIT.ok;
  } finally {
    await database.close();
  }
}
