/**
 * Numbered migrations, applied in order. Kysely's migrator takes a PostgreSQL advisory lock for the
 * whole run, so several processes starting at once on one server apply each migration once.
 */
import { Migrator, type Kysely, type Migration, type MigrationResult } from 'kysely';
import * as m0001 from './migrations/0001-catalog.ts';
import * as m0002 from './migrations/0002-organizations.ts';
import * as m0003 from './migrations/0003-jobs.ts';
import * as m0004 from './migrations/0004-catalog-version.ts';
import * as m0005 from './migrations/0005-notifications.ts';
import * as m0006 from './migrations/0006-user-tags.ts';
import * as m0007 from './migrations/0007-cve-input.ts';
import * as m0008 from './migrations/0008-lean-fanout.ts';
import * as m0009 from './migrations/0009-cve-vendor.ts';
import * as m0010 from './migrations/0010-project-list-version.ts';
import * as m0011 from './migrations/0011-lz4-documents.ts';
import * as m0012 from './migrations/0012-import-run-lease.ts';
import * as m0013 from './migrations/0013-published-cves.ts';
import * as m0014 from './migrations/0014-substring-search.ts';
import * as m0015 from './migrations/0015-execution-cves.ts';
import * as m0016 from './migrations/0016-imported-changes.ts';
import * as m0017 from './migrations/0017-web-accounts.ts';
import * as m0018 from './migrations/0018-two-factor.ts';
import * as m0020 from './migrations/0020-saved-views.ts';
import * as m0021 from './migrations/0021-computed-statistics.ts';
import * as m0022 from './migrations/0022-score-orderings.ts';
import * as m0025 from './migrations/0025-comment-edits.ts';

import * as m0028 from './migrations/0028-project-dashboard.ts';
import * as m0029 from './migrations/0029-vendor-aliases.ts';
import * as m0030 from './migrations/0030-search-words.ts';
import * as m0031 from './migrations/0031-package-names.ts';
import * as m0032 from './migrations/0032-vendor-sources.ts';
import * as m0033 from './migrations/0033-search-trigrams-again.ts';
import * as m0034 from './migrations/0034-cna-names.ts';
import * as m0035 from './migrations/0035-disabled-accounts.ts';
import * as m0036 from './migrations/0036-account-mail.ts';
import * as m0037 from './migrations/0037-audit-order.ts';
import * as m0038 from './migrations/0038-sync-staleness.ts';
import * as m0039 from './migrations/0039-keyword-watches.ts';
import * as m0040 from './migrations/0040-oidc.ts';
import * as m0041 from './migrations/0041-inventories.ts';
import * as m0042 from './migrations/0042-inventory-event-project.ts';

const migrations: Record<string, Migration> = {
  '0001-catalog': m0001,
  '0002-organizations': m0002,
  '0003-jobs': m0003,
  '0004-catalog-version': m0004,
  '0005-notifications': m0005,
  '0006-user-tags': m0006,
  '0007-cve-input': m0007,
  '0008-lean-fanout': m0008,
  '0009-cve-vendor': m0009,
  '0010-project-list-version': m0010,
  '0011-lz4-documents': m0011,
  '0012-import-run-lease': m0012,
  '0013-published-cves': m0013,
  '0014-substring-search': m0014,
  '0015-execution-cves': m0015,
  '0016-imported-changes': m0016,
  '0017-web-accounts': m0017,
  '0018-two-factor': m0018,
  '0020-saved-views': m0020,
  '0021-computed-statistics': m0021,
  '0022-score-orderings': m0022,
  '0025-comment-edits': m0025,
  '0028-project-dashboard': m0028,
  '0029-vendor-aliases': m0029,
  '0030-search-words': m0030,
  '0031-package-names': m0031,
  '0032-vendor-sources': m0032,
  '0033-search-trigrams-again': m0033,
  '0034-cna-names': m0034,
  '0035-disabled-accounts': m0035,
  '0036-account-mail': m0036,
  '0037-audit-order': m0037,
  '0038-sync-staleness': m0038,
  '0039-keyword-watches': m0039,
  '0040-oidc': m0040,
  '0041-inventories': m0041,
  '0042-inventory-event-project': m0042,
};

export async function migrateToLatest(db: Kysely<unknown>): Promise<MigrationResult[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: () => Promise.resolve(migrations) } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return results ?? [];
}

/** True when every known migration has been applied. */
export async function migrationsApplied(db: Kysely<unknown>): Promise<boolean> {
  const migrator = new Migrator({ db, provider: { getMigrations: () => Promise.resolve(migrations) } });
  const all = await migrator.getMigrations();
  return all.every((m) => m.executedAt !== undefined);
}
