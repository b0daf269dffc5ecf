/**
 * Replays 199 real upstream commits of cisagov/vulnrichment (test/fixtures/cve5/history, see
 * ../shared/data/README.md §7) through the importer, commit by commit, and checks the change
 * history (SPEC §3.3) against one computed independently here with the pure functions
 * (parseCve5Record → mergeCve → diffCve), plus a few changes written out by hand from the records.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/schema.ts';
import { affectedSourcesOf } from '../../src/domain/affected.ts';
import { diffCve, type CveChange } from '../../src/domain/cve-change.ts';
import { mergeCve, type MergedCve, type Provider, type SourceDocument } from '../../src/domain/cve.ts';
import { ImportService } from '../../src/services/import.service.ts';
import type { ImportReport } from '../../src/domain/import-report.ts';
import { cve5Source } from '../../src/sources/cve5/cve5.source.ts';
import { parseCve5Record } from '../../src/sources/cve5/cve5.parse.ts';
import { describeEachDatabase, openTestDatabase } from '../helpers/databases.ts';
import { SAMPLE_RECORDS, learnAliasTable, storeAliasTable } from '../helpers/aliases.ts';
import { mapCnaKeys } from '../../src/domain/vendor-aliases.ts';
import { catalogSnapshot } from '../helpers/cve5-history.ts';

const HISTORY = fileURLToPath(new URL('../fixtures/cve5/history/', import.meta.url));
const BASE_FILE = path.join(HISTORY, 'base.jsonl.gz');
const COMMITS_FILE = path.join(HISTORY, 'commits.jsonl.gz');

type Json = Record<string, unknown>;

interface HistoryLine {
  commit: string;
  committedAt: string;
  change: 'A' | 'M';
  path: string;
  record: Json;
}

/** What a recorded or computed change is compared by. */
interface ChangeShape {
  types: string[];
  data: unknown;
}

function parseJsonLines<T>(text: string): T[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

async function readGzipJsonLines<T>(file: string): Promise<T[]> {
  return parseJsonLines<T>(zlib.gunzipSync(await fs.readFile(file)).toString('utf8'));
}

const cveIdOf = (record: Json) => (record.cveMetadata as { cveId: string }).cveId;

/** JSON with object keys sorted: jsonb does not keep key order. */
function stable(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The merged view of one CVE 5 record on its own (its mitre and vulnrichment statements). */
function mergedViewOf(record: Json): MergedCve {
  const { cveId, records } = parseCve5Record(record);
  // Mapped with the table the imports use (learned from the bundled sample, as a new install's).
  const table = learnAliasTable([SAMPLE_RECORDS]);
  return mergeCve(
    cveId,
    new Map<Provider, SourceDocument>(records.map((r) => [r.provider, r.doc])),
    (containers) => mapCnaKeys(table, containers),
  );
}

/**
 * The change history the importer must record, computed with the pure functions only: each version
 * of a CVE diffed against the merged view of its previous version.
 */
function expectedHistory(base: Json[], lines: HistoryLine[]) {
  const views = new Map<string, MergedCve>();
  const statements = new Map<string, Map<Provider, SourceDocument>>();
  const changes = new Map<string, CveChange[]>();
  const apply = (record: Json) => {
    const after = mergedViewOf(record);
    // The affected entries are compared statement to statement, as the import does.
    const docs = new Map<Provider, SourceDocument>(
      parseCve5Record(record).records.map((r) => [r.provider, r.doc]),
    );
    const previous = statements.get(after.cveId);
    const affected = previous && { before: affectedSourcesOf(previous), after: affectedSourcesOf(docs) };
    const change = diffCve(views.get(after.cveId), after, affected);
    views.set(after.cveId, after);
    statements.set(after.cveId, docs);
    if (!changes.has(after.cveId)) changes.set(after.cveId, []);
    if (change) changes.get(after.cveId)!.push(change);
  };
  base.forEach(apply);
  lines.forEach((line) => apply(line.record));
  return { changes, finalViews: views };
}

interface RecordedChange extends ChangeShape {
  id: string;
  cveId: string;
  /** created_at with full (microsecond) precision, as text: changes of one transaction share it. */
  ts: string;
}

/** Every recorded change, per CVE, in the order they were recorded. */
async function recordedChanges(db: Kysely<DB>): Promise<Map<string, RecordedChange[]>> {
  const rows = await sql<{ id: string; cve_id: string; types: string[]; data: unknown; ts: string }>`
    SELECT id, cve_id, types, data, created_at::text AS ts FROM cve_change ORDER BY cve_id, created_at`.execute(
    db,
  );
  const map = new Map<string, RecordedChange[]>();
  for (const r of rows.rows) {
    const list = map.get(r.cve_id) ?? [];
    list.push({ id: r.id, cveId: r.cve_id, types: r.types, data: r.data, ts: r.ts });
    map.set(r.cve_id, list);
  }
  return map;
}

/**
 * Recorded and expected changes of one CVE as comparable key lists. Changes recorded in one
 * transaction share their created_at, so their order is unknown: within such a run both sides are
 * compared as multisets (a run's length is taken from the recorded side).
 */
function comparable(recorded: RecordedChange[], expected: ChangeShape[], key: (c: ChangeShape) => string) {
  const got: string[] = [];
  const want: string[] = [];
  let i = 0;
  while (i < recorded.length) {
    let j = i + 1;
    while (j < recorded.length && recorded[j]!.ts === recorded[i]!.ts) j++;
    got.push(...recorded.slice(i, j).map(key).sort());
    want.push(...expected.slice(i, j).map(key).sort());
    i = j;
  }
  want.push(...expected.slice(i).map(key));
  return { got, want };
}

async function countChanges(db: Kysely<DB>): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM cve_change`.execute(db);
  return r.rows[0]!.n;
}

const [baseRecords, historyLines] = await Promise.all([
  readGzipJsonLines<Json>(BASE_FILE),
  readGzipJsonLines<HistoryLine>(COMMITS_FILE),
]);

/** The commits in upstream order, each with its lines in order. */
const commits: { commit: string; lines: HistoryLine[] }[] = [];
for (const line of historyLines) {
  if (commits.at(-1)?.commit !== line.commit) commits.push({ commit: line.commit, lines: [] });
  commits.at(-1)!.lines.push(line);
}

const expected = expectedHistory(baseRecords, historyLines);
const baseIds = new Set(baseRecords.map(cveIdOf));
const addedIds = new Set(historyLines.filter((l) => l.change === 'A').map((l) => cveIdOf(l.record)));
/** Two `M` lines modify files that base.jsonl.gz lacks: those CVEs enter the catalog by a modification. */
const modifiedOnlyIds = new Set(
  historyLines.map((l) => cveIdOf(l.record)).filter((id) => !baseIds.has(id) && !addedIds.has(id)),
);
const allIds = new Set([...baseIds, ...addedIds, ...modifiedOnlyIds]);

/**
 * Changes read by hand from the records (old version vs new version of the file), not computed:
 * `commit` is the upstream commit whose version of `cveId` must have recorded exactly `change`.
 */
const HAND_CHECKED: { what: string; commit: string; cveId: string; change: ChangeShape }[] = [
  {
    what: 'a KEV flag added by CISA-ADP (Ivanti CSA, KEV since 2024-10-09)',
    commit: '4a97479ec958ac5548dfdf80dd2a8398d940de30',
    cveId: 'CVE-2024-9380',
    change: {
      types: ['metrics'],
      data: [
        {
          type: 'metrics',
          details: {
            added: {
              kev: {
                dateAdded: '2024-10-09',
                reference:
                  'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json',
              },
            },
            removed: {},
            updated: {},
          },
        },
      ],
    },
  },
  {
    what: 'an SSVC decision updated by CISA-ADP (Exploitation none → active)',
    commit: 'bbbb20dcf91bedbccac3c1fedfaaea943d32fb8c',
    cveId: 'CVE-2024-9380',
    change: {
      types: ['metrics'],
      data: [
        {
          type: 'metrics',
          details: {
            added: {},
            removed: {},
            updated: {
              ssvc: {
                old: {
                  options: { Exploitation: 'none', Automatable: 'no', 'Technical Impact': 'total' },
                  version: '2.0.3',
                },
                new: {
                  options: { Exploitation: 'active', Automatable: 'no', 'Technical Impact': 'total' },
                  version: '2.0.3',
                },
              },
            },
          },
        },
      ],
    },
  },
  {
    what: 'a CISA-ADP enrichment: CVSS 3.1 added, CWE-416, linux_kernel CPEs, SSVC none/partial → poc/total',
    commit: 'bf219de1fc9914924dda8e2892bf71646a1da92a',
    cveId: 'CVE-2023-52447',
    change: {
      types: ['weaknesses', 'cpes', 'metrics', 'affected'],
      data: [
        // The CNA's "Linux" / "Linux" maps to `linux` and `linux$PRODUCT$linux_kernel` (learned
        // aliases; the pair above the 80 % share since issue 30): CISA-ADP's CPEs bring no new key.
        { type: 'weaknesses', details: { added: ['CWE-416'], removed: [] } },
        {
          type: 'cpes',
          details: {
            added: [
              'cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*',
              'cpe:2.3:o:linux:linux_kernel:5.9:*:*:*:*:*:*:*',
            ],
            removed: [],
          },
        },
        {
          type: 'metrics',
          details: {
            added: { cvssV3_1: { score: 6.7, vector: 'CVSS:3.1/AV:L/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H' } },
            removed: {},
            updated: {
              ssvc: {
                old: {
                  options: { Exploitation: 'none', Automatable: 'no', 'Technical Impact': 'partial' },
                  version: '2.0.3',
                },
                new: {
                  options: { Exploitation: 'poc', Automatable: 'no', 'Technical Impact': 'total' },
                  version: '2.0.3',
                },
              },
            },
          },
        },
        // CISA-ADP's container gains three entries with CPEs (the CNA's ranges, restated).
        {
          type: 'affected',
          details: {
            old: [],
            new: [
              {
                source: 'adp',
                provider: 'CISA-ADP',
                entries: [
                  expect.objectContaining({ cpes: ['cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*'] }),
                  {
                    vendor: 'linux',
                    product: 'linux_kernel',
                    defaultStatus: 'affected',
                    versions: [{ version: '5.9', status: 'affected' }],
                    cpes: ['cpe:2.3:o:linux:linux_kernel:5.9:*:*:*:*:*:*:*'],
                  },
                  expect.objectContaining({ cpes: ['cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*'] }),
                ],
              },
            ],
          },
        },
      ],
    },
  },
  {
    what: 'a CPE and its vendor added by CISA-ADP where the CNA says only "n/a"',
    commit: '546cfe18640f08eb9dc0a98c1108311e97cb6acb',
    cveId: 'CVE-2024-48792',
    change: {
      types: ['first_time', 'cpes', 'vendors', 'affected'],
      data: [
        { type: 'first_time', details: ['hideez', 'hideez$PRODUCT$com.hideez_firmware'] },
        {
          type: 'cpes',
          details: { added: ['cpe:2.3:o:hideez:com.hideez_firmware:2.7.8.3:*:*:*:*:*:*:*'], removed: [] },
        },
        {
          type: 'vendors',
          details: { added: ['hideez', 'hideez$PRODUCT$com.hideez_firmware'], removed: [] },
        },
        {
          type: 'affected',
          details: {
            old: [],
            new: [
              {
                source: 'adp',
                provider: 'CISA-ADP',
                entries: [
                  {
                    vendor: 'hideez',
                    product: 'com.hideez_firmware',
                    defaultStatus: 'unknown',
                    versions: [{ version: '2.7.8.3', status: 'affected' }],
                    cpes: ['cpe:2.3:o:hideez:com.hideez_firmware:2.7.8.3:*:*:*:*:*:*:*'],
                  },
                ],
              },
            ],
          },
        },
      ],
    },
  },
  {
    what: 'a CWE added by CISA-ADP',
    commit: 'd238675daeb499ee0f860e062095fab5a9719041',
    cveId: 'CVE-2024-9802',
    change: {
      types: ['weaknesses'],
      data: [{ type: 'weaknesses', details: { added: ['CWE-312'], removed: [] } }],
    },
  },
  {
    what: 'a reference added by the CVE Program container',
    commit: '68e4989601aa08949e683afcbf1e9e31ac34f53e',
    cveId: 'CVE-2024-9473',
    change: {
      types: ['references'],
      data: [
        {
          type: 'references',
          details: {
            added: [{ url: 'http://seclists.org/fulldisclosure/2024/Oct/2', tags: [] }],
            removed: [],
            changed: [],
          },
        },
      ],
    },
  },
];

const commitIndex = (prefix: string) => {
  const i = commits.findIndex((c) => c.commit.startsWith(prefix));
  if (i < 0) throw new Error(`no commit ${prefix} in the history fixture`);
  return i;
};

/** Writes each commit's records, in order, to its own .jsonl file; returns the files in commit order. */
async function writeCommitFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const [i, c] of commits.entries()) {
    const file = path.join(dir, `${String(i).padStart(3, '0')}-${c.commit.slice(0, 10)}.jsonl`);
    await fs.writeFile(file, c.lines.map((l) => JSON.stringify(l.record)).join('\n') + '\n');
    files.push(file);
  }
  return files;
}

/** Imports base and then the given commit files, one import per commit, in order. */
async function replay(service: ImportService, commitFiles: string[]): Promise<ImportReport[]> {
  const reports = [await service.importInputs(cve5Source, [BASE_FILE])];
  for (const file of commitFiles) reports.push(await service.importInputs(cve5Source, [file]));
  return reports;
}

describeEachDatabase('ImportService (cve5 history replay)', (use, backend) => {
  describe('importInputs', () => {
    let dir: string;
    let commitFiles: string[];
    let reports: ImportReport[];
    let recorded: Map<string, RecordedChange[]>;
    let straight: Awaited<ReturnType<typeof catalogSnapshot>>;
    /** Per hand-checked commit and CVE: the changes recorded by that commit's import. */
    const byCommit = new Map<string, RecordedChange[]>();

    beforeAll(async () => {
      dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vulntrack-history-'));
      commitFiles = await writeCommitFiles(dir);
      await storeAliasTable(use().db, [SAMPLE_RECORDS]);
      const service = new ImportService(use().db);
      const watched = new Map<number, string[]>();
      for (const h of HAND_CHECKED)
        watched.set(commitIndex(h.commit), [...(watched.get(commitIndex(h.commit)) ?? []), h.cveId]);
      reports = [await service.importInputs(cve5Source, [BASE_FILE])];
      for (const [i, file] of commitFiles.entries()) {
        const cveIds = watched.get(i) ?? [];
        const before = cveIds.length ? await recordedChanges(use().db) : undefined;
        reports.push(await service.importInputs(cve5Source, [file]));
        if (before) {
          const after = await recordedChanges(use().db);
          for (const id of cveIds) {
            const known = new Set(before.get(id)?.map((c) => c.id));
            byCommit.set(
              `${i}:${id}`,
              (after.get(id) ?? []).filter((c) => !known.has(c.id)),
            );
          }
        }
      }
      recorded = await recordedChanges(use().db);
      straight = await catalogSnapshot(use().db);
    }, 300_000);

    afterAll(async () => {
      if (dir) await fs.rm(dir, { recursive: true, force: true });
    });

    it('completes every import without skipping a record', () => {
      expect(reports).toHaveLength(commits.length + 1);
      expect(reports.filter((r) => r.status !== 'completed' || r.counts.skipped)).toEqual([]);
      expect(reports[0]!.counts).toEqual({ imported: 553, updated: 0, unchanged: 0, skipped: 0, pending: 0 });
    });

    it('ends with every CVE of base and of the commits in the catalog, and no other', async () => {
      expect(baseIds.size).toBe(553);
      expect(addedIds.size).toBe(4456);
      expect([...modifiedOnlyIds].sort()).toEqual(['CVE-2024-38817', 'CVE-2024-46304']);
      const ids = await use().db.selectFrom('cve').select('cve_id').execute();
      expect(ids).toHaveLength(5011);
      expect(new Set(ids.map((r) => r.cve_id))).toEqual(allIds);
    });

    it('records exactly one created change per CVE, the first of its changes, when it enters the catalog', () => {
      const wrong: { cveId: string; types: string[][] }[] = [];
      for (const id of allIds) {
        const list = recorded.get(id) ?? [];
        const created = list.filter((c) => c.types.includes('created'));
        if (created.length !== 1 || !list[0]?.types.includes('created')) {
          wrong.push({ cveId: id, types: list.map((c) => c.types) });
        }
      }
      expect(wrong.slice(0, 5)).toEqual([]);
      expect(wrong).toHaveLength(0);
      expect([...recorded.keys()].filter((id) => !allIds.has(id))).toEqual([]);
    });

    it('records one change per version whose merged view differs, with the computed types in order', () => {
      const wrong: { cveId: string; got: string[]; want: string[] }[] = [];
      for (const id of allIds) {
        const { got, want } = comparable(recorded.get(id) ?? [], expected.changes.get(id) ?? [], (c) =>
          c.types.join(','),
        );
        if (stable(got) !== stable(want)) wrong.push({ cveId: id, got, want });
      }
      expect(wrong.slice(0, 5)).toEqual([]);
      expect(wrong).toHaveLength(0);
      const total = [...expected.changes.values()].reduce((n, list) => n + list.length, 0);
      // 5,011 CVEs entering the catalog + about 400 later versions that change a merged view (most of
      // the 2,973 modifications only move dates); the exact number follows the merge rules.
      expect(total).toBeGreaterThan(allIds.size + 300);
      expect([...recorded.values()].reduce((n, list) => n + list.length, 0)).toBe(total);
      expect(reports.reduce((n, r) => n + r.changes, 0)).toBe(total);
    });

    it('records the computed details of every change', () => {
      const wrong: { cveId: string; got: string[]; want: string[] }[] = [];
      for (const id of allIds) {
        const { got, want } = comparable(recorded.get(id) ?? [], expected.changes.get(id) ?? [], (c) =>
          stable({ types: c.types, data: c.data }),
        );
        if (stable(got) !== stable(want)) wrong.push({ cveId: id, got, want });
      }
      expect(wrong.slice(0, 3)).toEqual([]);
      expect(wrong).toHaveLength(0);
    });

    it('leaves each CVE with the merged view of its last version', async () => {
      const rows = await use()
        .db.selectFrom('cve')
        .select([
          'cve_id',
          'state',
          'title',
          'description',
          'metrics',
          'vendors',
          'cpes',
          'weaknesses',
          'references',
        ])
        .execute();
      const wrong = rows.filter((row) => {
        const view = expected.finalViews.get(row.cve_id)!;
        const { cve_id: _id, ...stored } = row;
        return (
          stable(stored) !==
          stable({
            state: view.state,
            title: view.title,
            description: view.description,
            metrics: view.metrics,
            vendors: view.vendors,
            cpes: view.cpes,
            weaknesses: view.weaknesses,
            references: view.references,
          })
        );
      });
      expect(wrong.map((r) => r.cve_id).slice(0, 10)).toEqual([]);
    });

    for (const { what, commit, cveId, change } of HAND_CHECKED) {
      it(`records ${what} (${cveId}, commit ${commit.slice(0, 10)})`, () => {
        const got = byCommit.get(`${commitIndex(commit)}:${cveId}`);
        expect(got?.map((c) => ({ types: c.types, data: c.data }))).toEqual([change]);
      });
    }

    // Replaying a history from its start passes through old states again (and upstream dates cannot
    // tell an old version from a rollback: 13 real modifications here carry an older dateUpdated), so
    // the contracts are: the current state imported again records nothing, and an import resumed where
    // it stopped (as sync does from its commit cursor) ends like the straight replay.
    it('records no change when the current state of every CVE is imported again', async () => {
      const latest = new Map<string, unknown>();
      const lines = zlib
        .gunzipSync(await fs.readFile(BASE_FILE))
        .toString('utf8')
        .split('\n')
        .filter(Boolean);
      for (const line of lines) {
        const record = JSON.parse(line) as { cveMetadata: { cveId: string } };
        latest.set(record.cveMetadata.cveId, record);
      }
      for (const file of commitFiles) {
        for (const line of (await fs.readFile(file, 'utf8')).split('\n').filter(Boolean)) {
          const record = JSON.parse(line) as { cveMetadata: { cveId: string } };
          latest.set(record.cveMetadata.cveId, record);
        }
      }
      const current = path.join(dir, 'current.jsonl');
      await fs.writeFile(current, [...latest.values()].map((r) => JSON.stringify(r)).join('\n') + '\n');
      const before = await countChanges(use().db);
      const again = await new ImportService(use().db).importInputs(cve5Source, [current]);
      expect(again.counts).toMatchObject({ imported: 0, updated: 0, unchanged: latest.size, skipped: 0 });
      expect(again.changes).toBe(0);
      expect(await countChanges(use().db)).toBe(before);
      expect(await catalogSnapshot(use().db)).toEqual(straight);
    }, 300_000);

    it('ends like the straight replay when a replay stopped half-way is resumed where it stopped', async () => {
      const database = await openTestDatabase(backend);
      try {
        await storeAliasTable(database.db, [SAMPLE_RECORDS]);
        const service = new ImportService(database.db);
        const half = Math.floor(commitFiles.length / 2);
        await replay(service, commitFiles.slice(0, half));
        const firstHalf = await countChanges(database.db);
        expect(firstHalf).toBeGreaterThan(0);
        for (const file of commitFiles.slice(half)) await service.importInputs(cve5Source, [file]);
        const resumed = await recordedChanges(database.db);
        const shape = (m: Map<string, RecordedChange[]>) =>
          Object.fromEntries(
            [...m].map(([id, list]) => [
              id,
              list.map((c) => stable({ types: c.types, data: c.data })).sort(),
            ]),
          );
        const total = (m: Map<string, RecordedChange[]>) => [...m.values()].reduce((n, l) => n + l.length, 0);
        expect(total(resumed)).toBe(total(recorded));
        expect(shape(resumed)).toEqual(shape(recorded));
        expect(await catalogSnapshot(database.db)).toEqual(straight);
      } finally {
        await database.close();
      }
    }, 300_000);
  });
});
