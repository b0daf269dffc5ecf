/**
 * The learned CNA-text alias table and the operator's overrides (migration 0029; docs/catalog.md,
 * "From CNA text to vendor keys").
 */
import { sql, type Kysely } from 'kysely';
import { JobRepository, type NewJob } from './job.repository.ts';
import { transact } from './transact.ts';
import type { DB } from './schema.ts';

export interface StoredAliasTable {
  aliases: Record<string, unknown>;
  origin: 'shipped' | 'learned';
  learnedFrom: number;
  learnedAt: Date;
  revision: string;
}

export interface StoredOverride {
  id: string;
  vendorText: string;
  productText: string | null;
  key: string;
  action: 'add' | 'veto';
  createdBy: string | null;
  createdAt: Date;
}

export interface NewOverride {
  vendorText: string;
  productText: string | null;
  key: string;
  action: 'add' | 'veto';
  lookup: string;
  createdBy: string | null;
}

export class VendorAliasRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** The revision of the table and overrides; '0' before any table was stored. */
  async revision(): Promise<string> {
    const row = await this.db
      .selectFrom('vendor_alias_table')
      .select('revision')
      .where('id', '=', 1)
      .executeTakeFirst();
    return row ? String(row.revision) : '0';
  }

  async table(): Promise<StoredAliasTable | undefined> {
    const row = await this.db
      .selectFrom('vendor_alias_table')
      .selectAll()
      .where('id', '=', 1)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      aliases: row.aliases,
      origin: row.origin,
      learnedFrom: row.learned_from,
      learnedAt: row.learned_at,
      revision: String(row.revision),
    };
  }

  /**
   * Stores a table in place of the one before (moving the revision). `onlyIfEmpty`: only when no table
   * is stored yet (the shipped table at first start never replaces a learned one); returns whether it
   * was stored.
   */
  async saveTable(
    table: { aliases: Record<string, unknown>; origin: 'shipped' | 'learned'; learnedFrom: number },
    onlyIfEmpty = false,
  ): Promise<boolean> {
    const values = {
      id: 1,
      aliases: JSON.stringify(table.aliases),
      origin: table.origin,
      learned_from: table.learnedFrom,
    };
    const insert = this.db.insertInto('vendor_alias_table').values(values);
    // Only the placeholder row an override created before any table counts as empty.
    const done = onlyIfEmpty
      ? await insert
          .onConflict((oc) =>
            oc
              .column('id')
              .doUpdateSet({
                aliases: values.aliases,
                origin: values.origin,
                learned_from: values.learned_from,
                learned_at: sql`now()`,
                revision: sql`vendor_alias_table.revision + 1`,
              })
              .where('vendor_alias_table.learned_from', '=', 0)
              .where(sql<boolean>`vendor_alias_table.aliases = '{}'::jsonb`),
          )
          .executeTakeFirst()
      : await insert
          .onConflict((oc) =>
            oc.column('id').doUpdateSet({
              aliases: values.aliases,
              origin: values.origin,
              learned_from: values.learned_from,
              learned_at: sql`now()`,
              revision: sql`vendor_alias_table.revision + 1`,
            }),
          )
          .executeTakeFirst();
    return Number(done.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async overrides(): Promise<StoredOverride[]> {
    const rows = await this.db
      .selectFrom('vendor_alias_override')
      .selectAll()
      // Made together (one transaction, one time): by text, then key.
      .orderBy('created_at')
      .orderBy('vendor_text')
      .orderBy(sql`product_text NULLS FIRST`)
      .orderBy('key')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      vendorText: r.vendor_text,
      productText: r.product_text,
      key: r.key,
      action: r.action,
      createdBy: r.created_by,
      createdAt: r.created_at,
    }));
  }

  /**
   * Adds an override, or changes the action of the one for the same text and key; moves the revision
   * (creating an empty table row when none exists, so the revision has somewhere to live) and
   * enqueues, in the same transaction, the jobs `then` gives for the new revision.
   */
  async saveOverride(override: NewOverride, then?: (revision: string) => NewJob[]): Promise<StoredOverride> {
    return (await this.saveOverrides([override], then))[0]!;
  }

  /**
   * `saveOverride` for several overrides in one transaction: one new revision, so one set of jobs
   * (the catalog's merges of a whole import re-map once, not once per text).
   */
  async saveOverrides(
    overrides: readonly NewOverride[],
    then?: (revision: string) => NewJob[],
  ): Promise<StoredOverride[]> {
    if (!overrides.length) return [];
    // Inside the caller's transaction when it holds one (an import remembering the merges it found).
    return transact(this.db, async (tx) => {
      const saved: StoredOverride[] = [];
      for (const override of overrides) {
        const row = await tx
          .insertInto('vendor_alias_override')
          .values({
            vendor_text: override.vendorText,
            product_text: override.productText,
            key: override.key,
            action: override.action,
            lookup: override.lookup,
            created_by: override.createdBy,
          })
          .onConflict((oc) =>
            oc.columns(['lookup', 'key']).doUpdateSet({
              action: override.action,
              vendor_text: override.vendorText,
              product_text: override.productText,
              created_by: override.createdBy,
              created_at: sql`now()`,
            }),
          )
          .returningAll()
          .executeTakeFirstOrThrow();
        saved.push({
          id: row.id,
          vendorText: row.vendor_text,
          productText: row.product_text,
          key: row.key,
          action: row.action,
          createdBy: row.created_by,
          createdAt: row.created_at,
        });
      }
      await bumpRevision(tx, then);
      return saved;
    });
  }

  /** Removes the override for this text and key (then as `saveOverride`); returns whether there was one. */
  async deleteOverride(lookup: string, key: string, then?: (revision: string) => NewJob[]): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const done = await tx
        .deleteFrom('vendor_alias_override')
        .where('lookup', '=', lookup)
        .where('key', '=', key)
        .executeTakeFirst();
      if (Number(done.numDeletedRows) === 0) return false;
      await bumpRevision(tx, then);
      return true;
    });
  }
}

async function bumpRevision(db: Kysely<DB>, then?: (revision: string) => NewJob[]): Promise<void> {
  const { revision } = await db
    .insertInto('vendor_alias_table')
    .values({ id: 1, aliases: '{}', origin: 'learned', learned_from: 0 })
    .onConflict((oc) => oc.column('id').doUpdateSet({ revision: sql`vendor_alias_table.revision + 1` }))
    .returning('revision')
    .executeTakeFirstOrThrow();
  const jobs = then?.(String(revision)) ?? [];
  if (jobs.length) await new JobRepository(db).enqueue(jobs);
}

/** One CVE's statements that teach aliases: the CNA's (`mitre`), CISA-ADP's and NVD's documents. */
export interface TeachingStatements {
  cveId: string;
  documents: Partial<Record<TeachingProvider, Record<string, unknown>>>;
}

export const TEACHING_PROVIDERS = ['mitre', 'vulnrichment', 'nvd'] as const;
export type TeachingProvider = (typeof TEACHING_PROVIDERS)[number];

/**
 * Every CVE's teaching statements, in CVE id order, `batch` CVEs at a time (keyset on the statements'
 * primary key, so each read is an index range however large the catalog).
 */
export async function* teachingStatements(
  db: Kysely<DB>,
  batch = 2_000,
): AsyncGenerator<TeachingStatements[]> {
  let after = '';
  // A page holds at least two CVEs' statements (three at most each), so a cut page never comes back empty.
  batch = Math.max(2, batch);
  for (;;) {
    const rows = await db
      .selectFrom('cve_source')
      .select(['cve_id', 'provider', 'data'])
      .where('provider', 'in', [...TEACHING_PROVIDERS])
      .where('cve_id', '>', after)
      .orderBy('cve_id')
      .orderBy('provider')
      .limit(batch * TEACHING_PROVIDERS.length)
      .execute();
    if (rows.length === 0) return;
    const full = rows.length === batch * TEACHING_PROVIDERS.length;
    // A full page may end inside a CVE's statements: that CVE starts the next page.
    const last = rows.at(-1)!.cve_id;
    const kept = full ? rows.filter((r) => r.cve_id !== last) : rows;
    const out: TeachingStatements[] = [];
    for (const row of kept) {
      if (out.at(-1)?.cveId !== row.cve_id) out.push({ cveId: row.cve_id, documents: {} });
      out.at(-1)!.documents[row.provider as TeachingProvider] = row.data;
    }
    yield out;
    after = out.at(-1)!.cveId;
    if (!full) return;
  }
}
