/**
 * Writes to the catalog in batches: per-provider statements, merged CVE rows, changes, vendors,
 * products and weaknesses. Each batch is one transaction under a catalog-wide advisory lock, so two
 * importers (several workers, or an import beside a sync) never merge from a stale read.
 */
import { sql, type ControlledTransaction, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';
import { scoreOf, type MergedCve, type Provider, type SourceDocument } from '../domain/cve.ts';
import type { ImportedChange, CveChange } from '../domain/cve-change.ts';
import type { WeaknessRecord } from '../sources/source.ts';

/** Any stable 64-bit number: the lock every catalog write batch takes. */
const CATALOG_WRITE_LOCK = 7_352_901_004;
/** Another: held while the search index is dropped or built. */
const SEARCH_INDEX_LOCK = 7_352_901_005;

export interface StoredSource {
  provider: Provider;
  hash: string;
}

export interface EpssMove {
  cveId: string;
  oldScore: number | null;
  newScore: number;
}

export interface SourceUpsert {
  cveId: string;
  provider: Provider;
  doc: SourceDocument;
  /** `doc` and `raw` already serialized (once, for the hash): the SQL payload reuses the text. */
  docJson: string;
  rawJson: string | undefined;
  hash: string;
}

/** A raw record's fingerprint and the statements it produced (see migration 0007). */
export interface InputFingerprint {
  source: string;
  cveId: string;
  fingerprint: string;
  /** Providers the record speaks for, sorted; `hashes` has each one's statement hash, '' for none. */
  providers: string[];
  hashes: string[];
}

export interface CatalogBatchWrite {
  sourceUpserts: SourceUpsert[];
  sourceDeletes: { cveId: string; provider: Provider }[];
  cves: MergedCve[];
  changes: CveChange[];
  /** EPSS moves worth an EPSS trigger (see ImportService). */
  epssMoves?: EpssMove[];
  vendorKeys: string[];
  weaknessIds: string[];
  /** Fingerprints of the raw records behind this batch, new or changed. */
  inputs?: InputFingerprint[];
  /**
   * Changes recorded elsewhere (OpenCVE's KB history), kept with their ids and dates; one already
   * stored is left as it is, and only CVEs the catalog lists get theirs.
   */
  importedChanges?: { cveId: string; change: ImportedChange }[];
}

const json = (value: unknown) => JSON.stringify(value);

/** The trigram index serving substring search (src/db/cve-search.ts; migrations 0014, 0033). */
const SEARCH_INDEX = 'cve_search_text_idx';

async function searchIndexState(db: Kysely<DB>): Promise<{ empty: boolean; missing: boolean }> {
  const { rows } = await sql<{ empty: boolean; missing: boolean }>`
    SELECT NOT EXISTS (SELECT 1 FROM cve) AS empty, to_regclass(${SEARCH_INDEX}) IS NULL AS missing`.execute(
    db,
  );
  return rows[0]!;
}

/** A write transaction left open for its owner to commit or roll back (see startWriteTransaction). */
export interface OpenWriteTransaction {
  tx: CatalogWriteTransaction;
  /** The transaction itself, for other repositories whose rows must commit with the catalog's. */
  db: Kysely<DB>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/** Which CVEs a re-map reads (`cveIdsAfter`). */
export type CveScope = 'all' | 'legacy' | { keys: readonly string[] };

export class CatalogWriteRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Runs `fn` in one transaction holding the catalog write lock. */
  async inWriteTransaction<T>(fn: (tx: CatalogWriteTransaction) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (tx) => {
      await this.lock(tx);
      return fn(new CatalogWriteTransaction(tx));
    });
  }

  /**
   * Opens a transaction holding the catalog write lock, for a caller that writes several batches and
   * rows of its own (a sync cursor) that must commit together. On the embedded database it holds the
   * only session until it ends: every query meanwhile must go through `db`.
   */
  async startWriteTransaction(): Promise<OpenWriteTransaction> {
    const trx: ControlledTransaction<DB> = await this.db.startTransaction().execute();
    try {
      await this.lock(trx);
    } catch (err) {
      await trx.rollback().execute();
      throw err;
    }
    return {
      tx: new CatalogWriteTransaction(trx),
      db: trx,
      commit: () => trx.commit().execute(),
      rollback: () => trx.rollback().execute(),
    };
  }

  private async lock(tx: Transaction<DB>): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(${CATALOG_WRITE_LOCK})`.execute(tx);
    if (await this.serverHasWalWriter(tx)) {
      // Safe not to wait for the WAL flush: a transaction lost to a crash is lost whole (statements,
      // hashes, rows and changes together, and a sync cursor written with them), and the next import of
      // the same input applies it again.
      await sql`SET LOCAL synchronous_commit = off`.execute(tx);
    }
  }

  private walWriter: boolean | undefined;

  /**
   * Whether a background WAL writer flushes asynchronous commits. A PostgreSQL server has one (it
   * flushes within a fraction of a second); the embedded PGlite runs no background processes, so an
   * asynchronous commit there would stay unwritten until a later flush and be lost to a kill -9.
   */
  private async serverHasWalWriter(tx: Transaction<DB>): Promise<boolean> {
    if (this.walWriter === undefined) {
      const row = await sql<{ version: string }>`SELECT version() AS version`.execute(tx);
      this.walWriter = !/PGlite|wasm32/i.test(row.rows[0]?.version ?? '');
    }
    return this.walWriter;
  }

  /**
   * Refreshes the planner's statistics of the tables imports read and write, for the columns queries
   * filter, join and sort on. The large JSON columns (statements, raw records, metrics, change
   * details) are left out: no query filters on them, and sampling them meant reading and
   * decompressing every sampled document (a quarter of a first import's server time). `search_text`
   * tells the planner how common a searched piece of text is (`search=micro` walks the newest CVEs,
   * `search=log4j` reads the trigram index).
   */
  async analyze(): Promise<void> {
    await sql`
      ANALYZE cve_source (cve_id, provider),
              cve (cve_id, state, created_at, updated_at, cvss20, cvss30, cvss31, cvss40, kev, epss,
                   vendors, weaknesses, search_text),
              cve_vendor, cve_change (cve_id, created_at, seq), cve_input (source, cve_id)`.execute(this.db);
  }

  /**
   * Whether the catalog holds no CVE, and whether the search index is missing: a first import writes
   * without it and builds it at its end (`ImportService`, "Bulk loads").
   */
  searchIndexState(): Promise<{ empty: boolean; missing: boolean }> {
    return searchIndexState(this.db);
  }

  /** Drops the search index if the catalog is still empty; searches then read every row. */
  async dropSearchIndexIfEmpty(): Promise<void> {
    await this.underSearchIndexLock(async (tx) => {
      if ((await searchIndexState(tx)).empty)
        await sql`DROP INDEX IF EXISTS ${sql.id(SEARCH_INDEX)}`.execute(tx);
    });
  }

  /**
   * Builds the search index over every CVE in one pass if it is still missing (another process may
   * have built it meanwhile). Writes to `cve` wait meanwhile; searches go on.
   */
  async buildSearchIndexIfMissing(): Promise<void> {
    await this.underSearchIndexLock(async (tx) => {
      if ((await searchIndexState(tx)).missing) {
        await sql`CREATE INDEX ${sql.id(SEARCH_INDEX)} ON cve USING gin (search_text gin_trgm_ops)`.execute(
          tx,
        );
      }
    });
  }

  /** One transaction holding the search index's own advisory lock: one process drops or builds it at a time. */
  private underSearchIndexLock(fn: (tx: Transaction<DB>) => Promise<void>): Promise<void> {
    return this.db.transaction().execute(async (tx) => {
      await sql`SELECT pg_advisory_xact_lock(${SEARCH_INDEX_LOCK})`.execute(tx);
      await fn(tx);
    });
  }

  /**
   * The statements of `provider` about CVEs other than `except` (those a snapshot no longer lists),
   * in CVE id order.
   */
  async statementsNotListed(
    provider: Provider,
    except: readonly string[],
  ): Promise<{ cveId: string; doc: SourceDocument }[]> {
    const { rows } = await sql<{ cve_id: string; data: unknown }>`
      SELECT cve_id, data FROM cve_source
       WHERE provider = ${provider} AND cve_id <> all(${[...except]}::text[])
       ORDER BY cve_id`.execute(this.db);
    return rows.map((r) => ({ cveId: r.cve_id, doc: r.data as SourceDocument }));
  }

  /**
   * Up to `limit` CVE ids of the catalog after `after`, in id order: all of them, only those merged
   * before migration 0032 (`legacy`: without vendor provenance, read through its partial index), or
   * only those carrying one of `keys` (read through `cve_vendor`'s key index).
   */
  async cveIdsAfter(after: string, limit: number, scope: CveScope): Promise<string[]> {
    const { rows } =
      scope === 'legacy'
        ? await sql<{ cve_id: string }>`
          SELECT cve_id FROM cve WHERE vendor_sources IS NULL AND cve_id > ${after}
           ORDER BY cve_id LIMIT ${limit}`.execute(this.db)
        : scope === 'all'
          ? await sql<{ cve_id: string }>`
          SELECT cve_id FROM cve WHERE cve_id > ${after} ORDER BY cve_id LIMIT ${limit}`.execute(this.db)
          : await sql<{ cve_id: string }>`
          SELECT DISTINCT cve_id FROM cve_vendor
           WHERE vendor_key = any(${[...scope.keys]}::text[]) AND cve_id > ${after}
           ORDER BY cve_id LIMIT ${limit}`.execute(this.db);
    return rows.map((r) => r.cve_id);
  }

  /** How many CVEs a scope of `cveIdsAfter` holds. */
  async cveScopeCount(scope: CveScope): Promise<number> {
    const { rows } =
      scope === 'legacy'
        ? await sql<{ n: number }>`SELECT count(*)::int AS n FROM cve WHERE vendor_sources IS NULL`.execute(
            this.db,
          )
        : scope === 'all'
          ? await sql<{ n: number }>`SELECT count(*)::int AS n FROM cve`.execute(this.db)
          : await sql<{ n: number }>`
          SELECT count(DISTINCT cve_id)::int AS n FROM cve_vendor
           WHERE vendor_key = any(${[...scope.keys]}::text[])`.execute(this.db);
    return rows[0]?.n ?? 0;
  }

  /** Whether any CVE was merged before migration 0032 (an index lookup). */
  async hasLegacyVendorKeys(): Promise<boolean> {
    const { rows } = await sql<{ any: boolean }>`
      SELECT EXISTS (SELECT 1 FROM cve WHERE vendor_sources IS NULL) AS any`.execute(this.db);
    return rows[0]?.any ?? false;
  }

  /** Whether any raw record of this source was fingerprinted (none before a first import). */
  async hasInputs(source: string): Promise<boolean> {
    const result = await sql<{ any: boolean }>`
      SELECT EXISTS (SELECT 1 FROM cve_input WHERE source = ${source}) AS any`.execute(this.db);
    return result.rows[0]?.any ?? false;
  }

  /**
   * Which of these raw records are known to change nothing: the same fingerprint is stored for the
   * CVE and the statements it produced are still the stored ones. Read outside the write lock: the
   * caller must not trust the answer for a CVE it has written since (or is writing).
   */
  async unchangedInputs(
    source: string,
    records: { cveId: string; fingerprint: string }[],
  ): Promise<{ has(cveId: string, fingerprint: string): boolean }> {
    const found = new Set<string>();
    const answer = { has: (cveId: string, fingerprint: string) => found.has(`${cveId} ${fingerprint}`) };
    if (!records.length) return answer;
    const result = await sql<{ cve_id: string; fingerprint: string }>`
      SELECT f.cve_id, f.fingerprint
        FROM unnest(${records.map((r) => r.cveId)}::text[], ${records.map((r) => r.fingerprint)}::text[])
          AS x(cve_id, fingerprint)
        JOIN cve_input f ON f.source = ${source} AND f.cve_id = x.cve_id AND f.fingerprint = x.fingerprint
       WHERE f.hashes = ARRAY(
               SELECT coalesce(s.hash, '')
                 FROM unnest(f.providers) WITH ORDINALITY AS p(provider, n)
                 LEFT JOIN cve_source s ON s.cve_id = f.cve_id AND s.provider = p.provider
                ORDER BY p.n)`.execute(this.db);
    for (const r of result.rows) found.add(`${r.cve_id} ${r.fingerprint}`);
    return answer;
  }

  /** Upserts weaknesses from the CWE catalog; returns how many were new and how many changed. */
  async upsertWeaknesses(items: WeaknessRecord[]): Promise<{ inserted: number; updated: number }> {
    if (!items.length) return { inserted: 0, updated: 0 };
    const rows = items.map((w) => ({ cwe_id: w.cweId, name: w.name, description: w.description }));
    const result = await sql<{ inserted: boolean }>`
      INSERT INTO weakness (cwe_id, name, description)
      SELECT cwe_id, name, description FROM jsonb_to_recordset(${json(rows)}::jsonb)
        AS x(cwe_id text, name text, description text)
      ON CONFLICT (cwe_id) DO UPDATE SET name = excluded.name, description = excluded.description, updated_at = now()
        WHERE weakness.name IS DISTINCT FROM excluded.name OR weakness.description IS DISTINCT FROM excluded.description
      RETURNING (xmax = 0) AS inserted`.execute(this.db);
    const inserted = result.rows.filter((r) => r.inserted).length;
    return { inserted, updated: result.rows.length - inserted };
  }
}

export class CatalogWriteTransaction {
  /** Changes written so far in this transaction (see `write`). */
  private changesWritten = 0;

  constructor(private readonly tx: Transaction<DB>) {}

  /** Hashes of the stored statements of these CVEs. */
  async sourceHashes(cveIds: string[]): Promise<Map<string, StoredSource[]>> {
    const map = new Map<string, StoredSource[]>();
    if (!cveIds.length) return map;
    const rows = await this.tx
      .selectFrom('cve_source')
      .select(['cve_id', 'provider', 'hash'])
      .where('cve_id', '=', sql<string>`any(${cveIds}::text[])`)
      .execute();
    for (const r of rows) {
      const list = map.get(r.cve_id) ?? [];
      list.push({ provider: r.provider as Provider, hash: r.hash });
      map.set(r.cve_id, list);
    }
    return map;
  }

  /** Stored statements, by CVE and provider: for each CVE of `wanted`, those of its providers. */
  async sourceDocuments(
    wanted: ReadonlyMap<string, readonly Provider[]>,
  ): Promise<Map<string, Map<Provider, SourceDocument>>> {
    const map = new Map<string, Map<Provider, SourceDocument>>();
    const pairs = [...wanted].flatMap(([cveId, providers]) => providers.map((p) => [cveId, p] as const));
    if (!pairs.length) return map;
    const { rows } = await sql<{ cve_id: string; provider: string; data: unknown }>`
      SELECT s.cve_id, s.provider, s.data
        FROM unnest(${pairs.map((p) => p[0])}::text[], ${pairs.map((p) => p[1])}::text[]) AS x(cve_id, provider)
        JOIN cve_source s ON s.cve_id = x.cve_id AND s.provider = x.provider`.execute(this.tx);
    for (const r of rows) {
      const inner = map.get(r.cve_id) ?? new Map<Provider, SourceDocument>();
      inner.set(r.provider as Provider, r.data as SourceDocument);
      map.set(r.cve_id, inner);
    }
    return map;
  }

  /** The stored merged views of these CVEs. */
  async mergedViews(cveIds: string[]): Promise<Map<string, MergedCve>> {
    const map = new Map<string, MergedCve>();
    if (!cveIds.length) return map;
    const rows = await this.tx
      .selectFrom('cve')
      .select([
        'cve_id',
        'state',
        'title',
        'description',
        'created_at',
        'updated_at',
        'metrics',
        'vendors',
        'cpes',
        'weaknesses',
        'references',
        'nvd_configurations',
        'providers',
        'vendor_sources',
      ])
      .where('cve_id', '=', sql<string>`any(${cveIds}::text[])`)
      .execute();
    for (const r of rows) {
      map.set(r.cve_id, {
        cveId: r.cve_id,
        state: r.state as MergedCve['state'],
        title: r.title,
        description: r.description,
        created: r.created_at.toISOString(),
        updated: r.updated_at.toISOString(),
        metrics: r.metrics as unknown as MergedCve['metrics'],
        vendors: r.vendors,
        cpes: r.cpes,
        weaknesses: r.weaknesses,
        references: r.references as MergedCve['references'],
        nvdConfigurations: r.nvd_configurations as MergedCve['nvdConfigurations'],
        providers: r.providers as Provider[],
        ...(r.vendor_sources ? { vendorSources: r.vendor_sources } : {}),
      });
    }
    return map;
  }

  async write(batch: CatalogBatchWrite): Promise<void> {
    const { tx } = this;
    if (batch.sourceDeletes.length) {
      await sql`
        DELETE FROM cve_source s USING jsonb_to_recordset(${json(batch.sourceDeletes)}::jsonb) AS x("cveId" text, provider text)
        WHERE s.cve_id = x."cveId" AND s.provider = x.provider`.execute(tx);
    }
    // The statements go first; the merged rows' and the changes' JSON (a good part of an import's
    // Node time) are built while the server writes them.
    const statements = batch.sourceUpserts.length ? this.upsertStatements(batch.sourceUpserts) : undefined;
    if (statements) {
      statements.catch(() => {}); // awaited below; not unhandled meanwhile
      await sent();
    }
    const cveRows = batch.cves.map(toRow);
    const cvePayload = cveRows.length ? json(cveRows) : undefined;
    const changesPayload = batch.changes.length
      ? // now() is the transaction's start, the same for every change it writes; one transaction may
        // record several versions of a CVE (a history applied at once), so each change is dated a
        // microsecond after the one before: (created_at, id) orders a CVE's history as `seq` does.
        json(
          batch.changes.map((c) => ({
            cve_id: c.cveId,
            types: c.types,
            data: c.data,
            n: this.changesWritten++,
            origin: c.origin ?? null,
          })),
        )
      : undefined;
    await statements;
    if (cvePayload) {
      await sql`
        INSERT INTO cve (cve_id, state, title, description, created_at, updated_at, metrics, cvss20, cvss30, cvss31,
                         cvss40, kev, epss, vendors, weaknesses, cpes, "references", nvd_configurations, providers,
                         vendor_sources)
        SELECT cve_id, state, title, description, created_at, updated_at, metrics, cvss20, cvss30, cvss31,
               cvss40, kev, epss, vendors, weaknesses, cpes, "references", nvd_configurations, providers,
               vendor_sources
          FROM jsonb_to_recordset(${cvePayload}::jsonb) AS x(
            cve_id text, state text, title text, description text, created_at timestamptz, updated_at timestamptz,
            metrics jsonb, cvss20 float8, cvss30 float8, cvss31 float8, cvss40 float8, kev boolean, epss float8,
            vendors text[], weaknesses text[], cpes text[], "references" jsonb, nvd_configurations jsonb,
            providers text[], vendor_sources jsonb)
        ON CONFLICT (cve_id) DO UPDATE SET
          state = excluded.state, title = excluded.title, description = excluded.description,
          created_at = excluded.created_at, updated_at = excluded.updated_at, metrics = excluded.metrics,
          cvss20 = excluded.cvss20, cvss30 = excluded.cvss30, cvss31 = excluded.cvss31, cvss40 = excluded.cvss40,
          kev = excluded.kev, epss = excluded.epss, vendors = excluded.vendors, weaknesses = excluded.weaknesses,
          cpes = excluded.cpes, "references" = excluded."references",
          nvd_configurations = excluded.nvd_configurations, providers = excluded.providers,
          vendor_sources = excluded.vendor_sources, modified_at = now()`.execute(tx);
    }
    // Cached list counts (CountCache) and inventory matching's kept candidates are keyed by this
    // version: it moves with any CVE row, and with any statement (a CNA's `affected[]` may change
    // while the merged row does not).
    if (cvePayload || batch.sourceUpserts.length || batch.sourceDeletes.length) {
      await sql`UPDATE catalog_state SET version = version + 1 WHERE id = 1`.execute(tx);
    }
    if (changesPayload) {
      await sql`
        INSERT INTO cve_change (cve_id, types, data, created_at, origin)
        SELECT cve_id, types, data, now() + n * interval '1 microsecond', origin
          FROM jsonb_to_recordset(${changesPayload}::jsonb) AS x(cve_id text, types text[], data jsonb, n int, origin text)`.execute(
        tx,
      );
    }
    if (batch.importedChanges?.length) {
      const rows = batch.importedChanges.map(({ cveId, change }) => ({
        id: change.id,
        cve_id: cveId,
        created_at: change.createdAt,
        types: change.types,
        data: change.data,
        origin: change.origin,
      }));
      await sql`
        INSERT INTO cve_change (id, cve_id, created_at, types, data, origin)
        SELECT x.id, x.cve_id, x.created_at, x.types, x.data, x.origin
          FROM jsonb_to_recordset(${json(rows)}::jsonb)
            AS x(id uuid, cve_id text, created_at timestamptz, types text[], data jsonb, origin text)
          JOIN cve c ON c.cve_id = x.cve_id
        ON CONFLICT (id) DO NOTHING`.execute(tx);
    }
    if (batch.epssMoves?.length) {
      const rows = batch.epssMoves.map((m) => ({
        cve_id: m.cveId,
        old_score: m.oldScore,
        new_score: m.newScore,
      }));
      await sql`
        INSERT INTO epss_move (cve_id, old_score, new_score)
        SELECT cve_id, old_score, new_score
          FROM jsonb_to_recordset(${json(rows)}::jsonb) AS x(cve_id text, old_score float8, new_score float8)`.execute(
        tx,
      );
    }
    if (batch.inputs?.length) {
      const rows = batch.inputs.map((i) => ({
        source: i.source,
        cve_id: i.cveId,
        fingerprint: i.fingerprint,
        providers: i.providers,
        hashes: i.hashes,
      }));
      await sql`
        INSERT INTO cve_input (source, cve_id, fingerprint, providers, hashes)
        SELECT source, cve_id, fingerprint, providers, hashes
          FROM jsonb_to_recordset(${json(rows)}::jsonb)
            AS x(source text, cve_id text, fingerprint text, providers text[], hashes text[])
        ON CONFLICT (source, cve_id) DO UPDATE
          SET fingerprint = excluded.fingerprint, providers = excluded.providers, hashes = excluded.hashes`.execute(
        tx,
      );
    }
    if (batch.vendorKeys.length) await this.upsertVendorKeys(batch.vendorKeys);
    if (batch.weaknessIds.length) {
      await sql`
        INSERT INTO weakness (cwe_id) SELECT unnest(${batch.weaknessIds}::text[])
        ON CONFLICT (cwe_id) DO NOTHING`.execute(tx);
    }
  }

  /** The statements, built from their already-serialized documents (the largest values are never stringified twice). */
  private async upsertStatements(upserts: CatalogBatchWrite['sourceUpserts']): Promise<void> {
    const rows = upserts.map(
      (s) =>
        `{"cve_id":${json(s.cveId)},"provider":${json(s.provider)},"hash":${json(s.hash)},"data":${s.docJson},"raw":${s.rawJson ?? 'null'}}`,
    );
    await sql`
      INSERT INTO cve_source (cve_id, provider, data, raw, hash)
      SELECT cve_id, provider, data, raw, hash
        FROM jsonb_to_recordset(${`[${rows.join(',')}]`}::jsonb) AS x(cve_id text, provider text, data jsonb, raw jsonb, hash text)
      ON CONFLICT (cve_id, provider) DO UPDATE
        SET data = excluded.data, raw = excluded.raw, hash = excluded.hash, updated_at = now()`.execute(
      this.tx,
    );
  }

  private async upsertVendorKeys(keys: string[]): Promise<void> {
    const vendors = new Set<string>();
    const products: { vendor: string; product: string }[] = [];
    for (const key of keys) {
      const i = key.indexOf('$PRODUCT$');
      if (i < 0) vendors.add(key);
      else {
        vendors.add(key.slice(0, i));
        products.push({ vendor: key.slice(0, i), product: key.slice(i + 9) });
      }
    }
    await sql`
      INSERT INTO vendor (name) SELECT unnest(${[...vendors].sort()}::text[])
      ON CONFLICT (name) DO NOTHING`.execute(this.tx);
    if (products.length) {
      await sql`
        INSERT INTO product (vendor_id, name)
        SELECT v.id, x.product FROM jsonb_to_recordset(${json(products)}::jsonb) AS x(vendor text, product text)
          JOIN vendor v ON v.name = x.vendor
        ON CONFLICT (vendor_id, name) DO NOTHING`.execute(this.tx);
    }
  }
}

/**
 * Resolves once the statements started before it are on their way to the server: the query
 * builder's and the driver's own awaits (microtasks) have all run by the next turn of the event loop.
 */
function sent(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function toRow(cve: MergedCve) {
  const epss = cve.metrics.epss.data as { score?: number } | null;
  return {
    cve_id: cve.cveId,
    state: cve.state,
    title: cve.title,
    description: cve.description,
    created_at: cve.created,
    updated_at: cve.updated,
    metrics: cve.metrics,
    cvss20: scoreOf(cve.metrics.cvssV2_0),
    cvss30: scoreOf(cve.metrics.cvssV3_0),
    cvss31: scoreOf(cve.metrics.cvssV3_1),
    cvss40: scoreOf(cve.metrics.cvssV4_0),
    kev: cve.metrics.kev.provider !== null,
    epss: typeof epss?.score === 'number' ? epss.score : null,
    vendors: cve.vendors,
    weaknesses: cve.weaknesses,
    cpes: cve.cpes,
    references: cve.references,
    nvd_configurations: cve.nvdConfigurations,
    providers: cve.providers,
    vendor_sources: cve.vendorSources ?? null,
  };
}
