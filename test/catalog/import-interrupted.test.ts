/**
 * An import killed with SIGKILL half-way (SPEC §9): the catalog it leaves behind is consistent (whole
 * CVEs with their statements and their one `created` change, nothing half-written), the embedded data
 * dir's stale lock does not block the next start, and running the same import again completes it with
 * exactly one change per CVE (SPEC §3.3: changes are neither lost nor duplicated).
 *
 * Runs the real command line (`bin/vulntrack.js`) as a child process, against the embedded database in
 * a temporary data dir and, when TEST_DATABASE_URL is set, against a fresh PostgreSQL server database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import type { DB } from '../../src/db/schema.ts';
import { backends, createServerDatabase, type Backend } from '../helpers/databases.ts';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(PROJECT_ROOT, 'bin', 'vulntrack.js');
const SAMPLE = path.join(PROJECT_ROOT, 'data', 'sample', 'cve5-sample.jsonl.gz');
const COPIES = 5;
const SAMPLE_SIZE = 6258;
const TOTAL = COPIES * SAMPLE_SIZE;
/** A progress line once at least one batch is committed ("saved" counts committed records). */
const PROGRESS_LINE = /^cve5: [\d,]+ records read \([\d,]+\/s\), [1-9][\d,]* saved, [\d,]+ skipped$/m;

type Json = Record<string, unknown>;

/**
 * Writes the sample COPIES times into one .jsonl.gz, copy k's CVE ids rewritten from `CVE-2024-1234`
 * to `CVE-900k-20241234` (distinct, still valid ids). Returns, per id, the providers its record has
 * statements for: `mitre` always, `vulnrichment` when a CISA-ADP container is present.
 */
async function writeLargeInput(file: string): Promise<Map<string, string[]>> {
  const providers = new Map<string, string[]>();
  const sample: string[] = [];
  const lines = readline.createInterface({ input: fs.createReadStream(SAMPLE).pipe(zlib.createGunzip()) });
  for await (const line of lines) if (line.trim()) sample.push(line);
  expect(sample).toHaveLength(SAMPLE_SIZE);

  async function* records() {
    for (let copy = 1; copy <= COPIES; copy++) {
      for (const line of sample) {
        const record = JSON.parse(line) as { cveMetadata: Json; containers: { adp?: Json[] } };
        const [, year, number] = /^CVE-(\d{4})-(\d+)$/.exec(record.cveMetadata.cveId as string)!;
        const cveId = `CVE-${9000 + copy}-${year}${number}`;
        record.cveMetadata.cveId = cveId;
        const cisaAdp = (record.containers.adp ?? []).some(
          (adp) => (adp.providerMetadata as Json | undefined)?.shortName === 'CISA-ADP',
        );
        providers.set(cveId, cisaAdp ? ['mitre', 'vulnrichment'] : ['mitre']);
        yield `${JSON.stringify(record)}\n`;
      }
    }
  }
  // Level 1: the input is written once per run and read once; compression ratio does not matter here.
  await pipeline(records, zlib.createGzip({ level: 1 }), fs.createWriteStream(file));
  expect(providers.size).toBe(TOTAL);
  return providers;
}

/** Children still running when a test fails are killed after the file. */
const children = new Set<ChildProcess>();

function startImport(file: string, env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, [BIN, '--json', 'import', 'cve5', file], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('close', () => children.delete(child));
  return child;
}

/** Collects a child's output; `exited` resolves with its exit code and signal once its streams closed. */
function watch(child: ChildProcess) {
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (output.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output.stderr += d.toString()));
  const exited = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  return { output, exited };
}

async function waitForStderr(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  let seen = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} on stderr within ${timeoutMs} ms:\n${seen}`)),
      timeoutMs,
    );
    child.stderr!.on('data', (d: Buffer) => {
      seen += d.toString();
      const m = pattern.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    });
    child.on('close', () => {
      clearTimeout(timer);
      reject(new Error(`the import exited before printing ${pattern}:\n${seen}`));
    });
  });
}

const count = async (db: Kysely<DB>, query: RawBuilder<{ n: number }>) =>
  (await query.execute(db)).rows[0]!.n;

/** The catalog's consistency facts, each of which must hold after any run, killed or not. */
async function catalogState(db: Kysely<DB>, expectedProviders: Map<string, string[]>) {
  const cves = await count(db, sql<{ n: number }>`SELECT count(*)::int AS n FROM cve`);
  const changes = await count(db, sql<{ n: number }>`SELECT count(*)::int AS n FROM cve_change`);
  const cvesWithoutOneCreatedChange = await count(
    db,
    sql<{ n: number }>`
      SELECT count(*)::int AS n FROM cve c
       WHERE (SELECT count(*) FROM cve_change ch WHERE ch.cve_id = c.cve_id AND 'created' = ANY (ch.types)) <> 1`,
  );
  const cvesWithSeveralChanges = await sql<{ cve_id: string; n: number }>`
    SELECT cve_id, count(*)::int AS n FROM cve_change GROUP BY cve_id HAVING count(*) > 1 LIMIT 5`.execute(
    db,
  );
  const changesWithoutCve = await count(
    db,
    sql<{ n: number }>`
      SELECT count(*)::int AS n FROM cve_change ch WHERE NOT EXISTS (SELECT 1 FROM cve c WHERE c.cve_id = ch.cve_id)`,
  );
  const sourcesWithoutCve = await count(
    db,
    sql<{ n: number }>`
      SELECT count(*)::int AS n FROM cve_source s WHERE NOT EXISTS (SELECT 1 FROM cve c WHERE c.cve_id = s.cve_id)`,
  );
  const statements = await sql<{ cve_id: string; providers: string[] | null }>`
    SELECT c.cve_id, array_agg(s.provider ORDER BY s.provider) FILTER (WHERE s.provider IS NOT NULL) AS providers
      FROM cve c LEFT JOIN cve_source s ON s.cve_id = c.cve_id
     GROUP BY c.cve_id`.execute(db);
  const wrongStatements = statements.rows
    .filter((r) => JSON.stringify(r.providers ?? []) !== JSON.stringify(expectedProviders.get(r.cve_id)))
    .slice(0, 5);
  return {
    cves,
    changes,
    cvesWithoutOneCreatedChange,
    cvesWithSeveralChanges: cvesWithSeveralChanges.rows,
    changesWithoutCve,
    sourcesWithoutCve,
    wrongStatements,
  };
}

interface Target {
  env: NodeJS.ProcessEnv;
  open(): Promise<Database>;
  /** Embedded only: the data dir's lock file. */
  lockFile?: string;
  cleanup(): Promise<void>;
}

async function createTarget(backend: Backend, workDir: string): Promise<Target> {
  if (backend === 'embedded') {
    const dataDir = path.join(workDir, 'data');
    return {
      env: { VULNTRACK_DATA_DIR: dataDir, DATABASE_URL: '' },
      open: () => openDatabase({ dataDir }),
      lockFile: path.join(dataDir, 'vulntrack.lock'),
      cleanup: async () => {},
    };
  }
  const { url, drop } = await createServerDatabase();
  return {
    env: { DATABASE_URL: url, VULNTRACK_SECRET: randomBytes(32).toString('hex') },
    open: () => openDatabase({ url, poolSize: 2 }),
    cleanup: drop,
  };
}

describe('vulntrack import', () => {
  let workDir: string;
  let input: string;
  let expectedProviders: Map<string, string[]>;

  beforeAll(async () => {
    workDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'vulntrack-interrupted-'));
    input = path.join(workDir, 'cve5-x5.jsonl.gz');
    expectedProviders = await writeLargeInput(input);
  }, 300_000);

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await Promise.all([...children].map((child) => once(child, 'close')));
    if (workDir) await fsp.rm(workDir, { recursive: true, force: true });
  });

  for (const backend of backends) {
    describe(`cve5 <file> [${backend}]`, () => {
      let target: Target | undefined;
      let killedAt: Awaited<ReturnType<typeof catalogState>> | undefined;

      beforeAll(async () => {
        const dir = await fsp.mkdtemp(path.join(workDir, `${backend}-`));
        target = await createTarget(backend, dir);
      });

      afterAll(async () => {
        await target?.cleanup();
      });

      it('leaves a consistent, partial catalog when killed with SIGKILL once a batch is saved', async () => {
        const child = startImport(input, target!.env);
        const { output, exited } = watch(child);
        await waitForStderr(child, PROGRESS_LINE, 120_000);
        child.kill('SIGKILL');
        const [code, signal] = await exited;
        expect({ code, signal, stdout: output.stdout }).toEqual({
          code: null,
          signal: 'SIGKILL',
          stdout: '',
        });

        if (target!.lockFile) {
          // The dead process's lock is still there: opening must take it over, not refuse.
          expect(fs.readFileSync(target!.lockFile, 'utf8').trim()).toBe(String(child.pid));
        }
        const database = await target!.open();
        try {
          killedAt = await catalogState(database.db, expectedProviders);
        } finally {
          await database.close();
        }
        expect(killedAt.cves).toBeGreaterThan(0);
        expect(killedAt.cves).toBeLessThan(TOTAL);
        expect(killedAt).toEqual({
          cves: killedAt.cves,
          changes: killedAt.cves,
          cvesWithoutOneCreatedChange: 0,
          cvesWithSeveralChanges: [],
          changesWithoutCve: 0,
          sourcesWithoutCve: 0,
          wrongStatements: [],
        });
        if (target!.lockFile) expect(fs.existsSync(target!.lockFile)).toBe(false);
      }, 180_000);

      it('completes the catalog with exactly one change per CVE when run again', async () => {
        expect(killedAt, 'the killed run left its state').toBeDefined();
        const child = startImport(input, target!.env);
        const { output, exited } = watch(child);
        const [code] = await exited;
        expect(code, output.stderr).toBe(0);
        const report = JSON.parse(output.stdout) as { status: string; counts: Json; changes: number };
        expect(report).toMatchObject({
          status: 'completed',
          counts: {
            imported: TOTAL - killedAt!.cves,
            updated: 0,
            unchanged: killedAt!.cves,
            skipped: 0,
            pending: 0,
          },
          changes: TOTAL - killedAt!.cves,
        });

        const database = await target!.open();
        try {
          expect(await catalogState(database.db, expectedProviders)).toEqual({
            cves: TOTAL,
            changes: TOTAL,
            cvesWithoutOneCreatedChange: 0,
            cvesWithSeveralChanges: [],
            changesWithoutCve: 0,
            sourcesWithoutCve: 0,
            wrongStatements: [],
          });
        } finally {
          await database.close();
        }
      }, 180_000);
    });
  }
});
