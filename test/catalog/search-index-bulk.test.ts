/**
 * Bulk loads (issue 16, "the first import no slower than today"): an import into an empty catalog
 * writes without the trigram search index and builds it once at its end, whatever way the import
 * ends; an import into a catalog that has CVEs never drops it; a catalog a first import left without
 * it (its process died first) gets it back when the next import starts. What is checked is the
 * index as the migrations define it, observed from progress callbacks while the import reads.
 */
import { sql, type Kysely } from 'kysely';
import { expect, it } from 'vitest';
import type { DB } from '../../src/db/schema.ts';
import type { ImportProgress } from '../../src/domain/import-report.ts';
import { ImportService } from '../../src/services/import.service.ts';
import { sources } from '../../src/sources/index.ts';
import { inputFiles } from '../../src/sources/input.ts';
import { countRows, fixture } from '../helpers/catalog.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

/** The index as migration 0033 leaves it. */
const MIGRATED = 'CREATE INDEX cve_search_text_idx ON public.cve USING gin (search_text gin_trgm_ops)';
const CVE5 = fixture('cve5', 'cves');
const NVD = fixture('nvd', 'CVE-2024-3094.json');

async function searchIndex(db: Kysely<DB>): Promise<string | null> {
  const { rows } = await sql<{ def: string | null }>`
    SELECT pg_get_indexdef(to_regclass('cve_search_text_idx')) AS def`.execute(db);
  return rows[0]!.def;
}

/** Progress options that look at the index at every record read, and keep the steps reported. */
function watching(db: Kysely<DB>) {
  const whileReading: Promise<string | null>[] = [];
  const steps: ImportProgress['step'][] = [];
  return {
    /** What the index was at each record read (at least one). */
    async seenWhileReading(): Promise<Set<string | null>> {
      const seen = await Promise.all(whileReading);
      expect(seen.length).toBeGreaterThan(0);
      return new Set(seen);
    },
    steps,
    options: {
      batchSize: 2,
      progressEveryMs: 0,
      onProgress: (p: ImportProgress) => {
        steps.push(p.step);
        if (!p.step) whileReading.push(searchIndex(db));
      },
    },
  };
}

describeEachDatabase('Search index: a first import builds it at its end', (use) => {
  it('writes a first import without it, says it builds it, and leaves it as migrated', async () => {
    const db = use().db;
    expect(await searchIndex(db)).toBe(MIGRATED);
    const watch = watching(db);
    const report = await new ImportService(db).importInputs(sources.cve5, [CVE5], watch.options);
    expect(report.counts.imported).toBe(9);
    expect(await watch.seenWhileReading()).toEqual(new Set([null]));
    expect(watch.steps.at(-1)).toBe('search-index');
    expect(await searchIndex(db)).toBe(MIGRATED);
    const { rows } = await sql<{ cve_id: string }>`
      SELECT cve_id FROM cve WHERE search_text LIKE '%log4j%'`.execute(db);
    expect(rows.map((r) => r.cve_id)).toEqual(['CVE-2021-44228']);
  });

  it('keeps it in place for an import into a catalog that has CVEs', async () => {
    const db = use().db;
    const watch = watching(db);
    const report = await new ImportService(db).importInputs(sources.nvd, [NVD], watch.options);
    expect(report.counts.updated).toBe(1);
    expect(await watch.seenWhileReading()).toEqual(new Set([MIGRATED]));
    expect(watch.steps).not.toContain('search-index');
  });

  it('builds it back before reading when a first import died without building it', async () => {
    const db = use().db;
    // What a first import killed with SIGKILL before its end leaves behind.
    await sql`DROP INDEX cve_search_text_idx`.execute(db);
    const watch = watching(db);
    await new ImportService(db).importInputs(sources.cve5, [CVE5], watch.options);
    expect(await watch.seenWhileReading()).toEqual(new Set([MIGRATED]));
  });
});

describeEachDatabase('Search index: a first import that fails', (use) => {
  it('keeps the batches it committed and still builds the index', async () => {
    const db = use().db;
    async function* files() {
      yield* inputFiles(CVE5);
      throw new Error('the mirror went away');
    }
    await expect(new ImportService(db).importFiles(sources.cve5, files(), { batchSize: 2 })).rejects.toThrow(
      'the mirror went away',
    );
    // Its four whole batches of two; the ninth CVE's batch was never complete.
    expect(await countRows(db, 'cve')).toBe(8);
    expect(await searchIndex(db)).toBe(MIGRATED);
  });
});
