/**
 * Project inventories at scale (issue 33, item 4), on the 300,000-CVE PostgreSQL catalog the match
 * benchmark builds (bench/match/catalog.ts; `--reuse` takes a kept one):
 *
 * 1. One inventory of 5,000 components uploaded through the API (`PUT …/inventories/<name>`, a
 *    CycloneDX document: parse, validate, match, store, findings, events), in a fresh process (the
 *    matcher keeps nothing yet) and again with a changed version of the same document.
 * 2. 200 projects × 2,000 components uploaded, then sync rounds of 1,000 changed CVEs imported and
 *    processed by the event processor, with the inventories and again after they are deleted: the
 *    difference is the work inventories add to a round (the findings kept current).
 *
 * Peak memory of the process (RSS and V8 heap, sampled every 50 ms) is recorded per phase. Writes
 * bench/.work/RESULTS-inventory-run.md.
 *
 *   npm run bench -- inventory [--reuse] [--keep] [--database vt_bench_match] [--projects 200]
 *                              [--components 2000] [--changes 1000] [--size 300000]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'kysely';
import { buildApp } from '../src/server.ts';
import { sources } from '../src/sources/index.ts';
import { corpusFile } from './import/corpus.ts';
import { dropDatabase, serverInfo } from './lib/pg-admin.ts';
import { loadAverage, machineInfo } from './lib/machine.ts';
import { fixed, int, table } from './lib/markdown.ts';
import { projectRoot, workDir } from './lib/paths.ts';
import { catalogStats, openMatchCatalog } from './match/catalog.ts';
import { chooseInventory } from './match/inventory.ts';
import { busiestIds, writeRound } from './inventory/changes.ts';
import { cycloneDx } from './inventory/sbom.ts';

const UPLOAD_TARGET_S = 10;
const ROUND_TARGET_S = 2;
const ORG_PREFIX = 'invbench-';

/** A full collection, when the process allows one (`--expose-gc`, set below). */
const collect = (): void => (globalThis as { gc?: () => void }).gc?.();

/** Peak RSS and heap while `work` runs (sampled every 50 ms). */
async function peakMemory<T>(
  work: () => Promise<T>,
): Promise<{ value: T; rssMiB: number; heapMiB: number; keptMiB: number }> {
  let rss = process.memoryUsage().rss;
  let heap = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
  }, 50);
  try {
    const value = await work();
    collect();
    return {
      value,
      rssMiB: rss / 2 ** 20,
      heapMiB: heap / 2 ** 20,
      /** What stays reachable after the work (the matcher's cache, the app): heap after a full collection. */
      keptMiB: process.memoryUsage().heapUsed / 2 ** 20,
    };
  } finally {
    clearInterval(timer);
  }
}

/** Packages no catalog knows, shared by every project as real dependencies are. */
const UNKNOWN_POOL = 20_000;
const ECOSYSTEMS = ['npm', 'maven', 'pypi', 'golang'];

/**
 * A typical inventory: `known` components of the catalog (each affected at its version: the stress
 * part) and `unknown` packages from a pool no CVE names, each project `p` its own window of both.
 */
function mix(items: readonly unknown[], known: number, unknown: number, p: number): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < known; i++) out.push(items[(p * 997 + i) % items.length]);
  for (let i = 0; i < unknown; i++) {
    const n = (p * 7919 + i) % UNKNOWN_POOL;
    const eco = ECOSYSTEMS[n % ECOSYSTEMS.length]!;
    const name = eco === 'maven' ? `com.example.bench/lib-${n}` : `vt-bench-lib-${n}`;
    out.push(`pkg:${eco}/${name}@${1 + (n % 7)}.${n % 13}.0`);
  }
  return out;
}

/** An inventory item's version changed (an upgrade): the document uploaded again. */
function upgraded(items: readonly unknown[]): unknown[] {
  return items.map((item, i) => {
    if (i % 10) return item;
    if (typeof item === 'string') return item.replace(/@[^@/]*$/, '@999.0.0');
    if (item && typeof item === 'object') return { ...item, version: '999.0' };
    return item;
  });
}

export async function run(args: string[]): Promise<void> {
  // A full collection after each measured piece says what stays (peak heap counts garbage too).
  v8.setFlagsFromString('--expose-gc');
  (globalThis as { gc?: unknown }).gc = runInNewContext('gc');
  const { values } = parseArgs({
    args,
    options: {
      size: { type: 'string', default: '300000' },
      database: { type: 'string', default: 'vt_bench_match' },
      projects: { type: 'string', default: '200' },
      components: { type: 'string', default: '2000' },
      changes: { type: 'string', default: '1000' },
      keep: { type: 'boolean', default: false },
      reuse: { type: 'boolean', default: false },
    },
  });
  const projectCount = Number(values.projects);
  const perProject = Number(values.components);
  const changeCount = Number(values.changes);
  const name = values.database;
  const loadAtStart = loadAverage();
  const started = performance.now();
  // A deployment's defaults, but for the rate limit (the benchmark calls as fast as it can).
  const { serverUrl, database, services, build } = await openMatchCatalog(
    name,
    { reuse: values.reuse, size: Number(values.size) },
    { RATE_LIMIT_PER_MINUTE: '1000000' },
  );
  const work = workDir;
  fs.mkdirSync(work, { recursive: true });
  try {
    const { db } = database;
    // A kept catalog: the previous run's organizations (and their inventories) go first.
    await sql`DELETE FROM organization WHERE name LIKE ${ORG_PREFIX + '%'}`.execute(db);
    await services.events.processPending();
    const stats = await catalogStats(db);

    const inventory = await chooseInventory(db, 5000);
    const items = inventory.withoutHeaviest;
    const owner = await services.accounts.createUser({
      username: `invbench${Date.now()}`,
      email: `invbench${Date.now()}@example.com`,
      password: 'correct horse battery staple',
    });
    const actor = { type: 'user' as const, id: owner.id, name: owner.username };
    const orgs: { id: string; name: string }[] = [];
    for (let o = 0; o < Math.ceil(projectCount / 20); o++) {
      const org = await services.accounts.createOrganization(
        `${ORG_PREFIX}${Date.now()}-${o}`,
        owner.username,
      );
      orgs.push({ id: org.id, name: org.name });
    }
    const { token } = await services.tokens.create(
      orgs[0]!.id,
      { name: 'bench', mode: 'write', scopes: ['projects:read', 'projects:write'] },
      actor,
    );
    await services.projects.create(orgs[0]!.id, { name: 'big' }, actor);
    await services.projects.create(orgs[0]!.id, { name: 'typical' }, actor);

    // 1. One inventory of 5,000 components through the API.
    const app = await buildApp({ services, logger: false });
    await app.ready();
    const put = async (document: string, project = 'big') => {
      const t = performance.now();
      const res = await app.inject({
        method: 'PUT',
        url: `/api/v2/organizations/${orgs[0]!.name}/projects/${project}/inventories/backend`,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: document,
      });
      const ms = performance.now() - t;
      if (res.statusCode !== 200 && res.statusCode !== 201)
        throw new Error(`upload answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
      return { ms, body: res.json() as Record<string, unknown> };
    };
    const big = await peakMemory(() => put(cycloneDx(inventory.components, 'big')));
    const bigAgain = await peakMemory(() => put(cycloneDx(upgraded(inventory.components), 'big')));
    const bigLight = await peakMemory(() => put(cycloneDx(items, 'big')));
    // A typical SBOM, uploaded into a project of its own (replacing the stress inventory would
    // measure resolving its 60,000 CVEs).
    const typical = await peakMemory(() => put(cycloneDx(mix(items, 500, 4500, 0), 'typical'), 'typical'));
    const typicalAgain = await peakMemory(() =>
      put(cycloneDx(upgraded(mix(items, 500, 4500, 0)), 'typical'), 'typical'),
    );
    const bigFindings = (
      await sql<{ n: number; cves: number }>`
        SELECT count(*)::int AS n, count(DISTINCT f.cve_id)::int AS cves FROM inventory_finding f
          JOIN inventory_component c ON c.id = f.component_id JOIN inventory i ON i.id = c.inventory_id
          JOIN project p ON p.id = i.project_id WHERE p.name = 'big' AND p.organization_id = ${orgs[0]!.id}`.execute(
        db,
      )
    ).rows[0]!;
    console.error(
      `5,000 components: ${fixed(big.value.ms / 1000)} s, again ${fixed(bigAgain.value.ms / 1000)} s, without the heaviest ${fixed(bigLight.value.ms / 1000)} s, typical ${fixed(typical.value.ms / 1000)} s, again ${fixed(typicalAgain.value.ms / 1000)} s`,
    );
    await app.close();

    // 2. 200 projects × 2,000 components, each a window of the 4,980 components without the heaviest.
    const uploads: number[] = [];
    const fleet = await peakMemory(async () => {
      for (let p = 0; p < projectCount; p++) {
        const org = orgs[Math.floor(p / 20)]!;
        const project = `app-${p}`;
        await services.projects.create(org.id, { name: project }, actor);
        const window = mix(items, perProject / 10, perProject - perProject / 10, p);
        const t = performance.now();
        await services.inventories.upload(
          org.id,
          project,
          'backend',
          cycloneDx(window, project),
          'application/json',
          actor,
        );
        uploads.push(performance.now() - t);
        if ((p + 1) % 20 === 0)
          console.error(
            `${p + 1}/${projectCount} inventories uploaded (last ${fixed(uploads.at(-1)! / 1000)} s)`,
          );
      }
      return services.events.processPending();
    });
    const stored = (
      await sql<{ components: number; keys: number; findings: number; cves: number }>`
        SELECT (SELECT count(*)::int FROM inventory_component) AS components,
               (SELECT count(*)::int FROM inventory_component_key) AS keys,
               (SELECT count(*)::int FROM inventory_finding) AS findings,
               (SELECT count(*)::int FROM inventory_cve) AS cves`.execute(db)
    ).rows[0]!;

    // 3. Sync rounds: the busiest 1,000 records, and 1,000 sharing a key with a stored component.
    const corpus = corpusFile();
    const busy = await busiestIds(corpus, changeCount);
    const keyed = (
      await sql<{ cve_id: string }>`
        SELECT cve_id FROM (SELECT DISTINCT v.cve_id FROM cve_vendor v
          WHERE v.cve_id < 'CVE-9000' AND v.vendor_key IN (SELECT DISTINCT key FROM inventory_component_key)) x
         ORDER BY md5(cve_id) LIMIT ${changeCount}`.execute(db)
    ).rows.map((r) => r.cve_id);
    const round = async (ids: readonly string[], label: string) => {
      const file = path.join(work, `round-${label}.jsonl`);
      const written = await writeRound(corpus, ids, `${label}-${Date.now()}`, file);
      const imported = await services.imports.importInputs(sources.cve5, [file]);
      const t = performance.now();
      const measured = await peakMemory(() => services.events.processPending());
      return {
        written,
        changed: imported.counts.updated,
        ms: performance.now() - t,
        report: measured.value,
        rssMiB: measured.rssMiB,
        heapMiB: measured.heapMiB,
        keptMiB: measured.keptMiB,
      };
    };
    const rounds: Record<string, Awaited<ReturnType<typeof round>>> = {};
    for (const [label, ids] of [
      ['busy', busy],
      ['keyed', keyed],
    ] as const) {
      await round(ids, `${label}-warm`);
      rounds[`${label} with`] = await round(ids, `${label}-with`);
      console.error(`${label} round with inventories: ${fixed(rounds[`${label} with`]!.ms / 1000)} s`);
    }
    const findingsAfter = (
      await sql<{ n: number }>`SELECT count(*)::int AS n FROM inventory_finding`.execute(db)
    ).rows[0]!.n;
    // One inventory deleted as a user does (timed), then the rest at once: the benchmark's are the
    // only inventories of its catalog (the previous run's were deleted at the start).
    const t = performance.now();
    await services.inventories.delete(orgs[0]!.id, 'app-0', 'backend', actor);
    const deleteMs = performance.now() - t;
    await sql`TRUNCATE inventory, inventory_component, inventory_component_key, inventory_finding, inventory_cve, inventory_event`.execute(
      db,
    );
    for (const [label, ids] of [
      ['busy', busy],
      ['keyed', keyed],
    ] as const) {
      rounds[`${label} without`] = await round(ids, `${label}-without`);
      console.error(`${label} round without inventories: ${fixed(rounds[`${label} without`]!.ms / 1000)} s`);
    }

    const info = machineInfo();
    const server = await serverInfo(serverUrl);
    const sorted = [...uploads].sort((a, b) => a - b);
    const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
    const added = (label: string) => rounds[`${label} with`]!.ms - rounds[`${label} without`]!.ms;
    const lines = [
      '# Project inventories at scale (issue 33, item 4)',
      '',
      `Generated by \`npm run bench -- inventory${values.reuse ? ' --reuse' : ''}\` (bench/inventory.bench.ts). Targets: an inventory of 5,000 components uploaded and matched in ≤ ${UPLOAD_TARGET_S} s; ${projectCount} projects × ${int(perProject)} components kept current while a sync round of ${int(changeCount)} changed CVEs is processed with ≤ ${ROUND_TARGET_S} s of added work; memory bounded.`,
      '',
      '## Machine',
      '',
      `- ${info.cpuModel}, ${info.cores} cores, ${info.memoryGiB} GiB, ${info.os}, Node ${info.node}`,
      `- PostgreSQL ${server.version} (${server.settings}) on the same machine`,
      `- commit ${info.commit}${info.srcDirty ? ' (src/ had uncommitted changes)' : ''}`,
      `- load average (1/5/15 min) at start: ${loadAtStart}; at end: ${loadAverage()}`,
      '',
      '## Catalog',
      '',
      ...(build.length ? build.map((b) => `- ${b}`) : ['- reused (`--reuse`)']),
      `- ${stats}`,
      '',
      '## 1. One inventory of 5,000 components (`PUT …/inventories/backend`, CycloneDX 1.5 JSON, in-process `inject`)',
      '',
      ...inventory.description.map((d) => `- ${d}`),
      '',
      table(
        [
          'upload',
          'time',
          'components',
          'findings',
          'CVEs',
          'entered',
          'resolved',
          'peak RSS',
          'peak heap',
          'heap after GC',
        ],
        [
          ['first, fresh process (the matcher keeps nothing yet)', big],
          ['again, one component in ten upgraded', bigAgain],
          ['again, without the 20 products with the most CVEs', bigLight],
          ['typical, another project: 500 of those, 4,500 packages the catalog does not know', typical],
          ['typical again, one component in ten upgraded', typicalAgain],
        ].map(([label, r]) => {
          const m = r as typeof big;
          const body = m.value.body as {
            components: number;
            findings: number;
            cves: number;
            entered: unknown[];
            resolved: unknown[];
          };
          return [
            label as string,
            `${fixed(m.value.ms / 1000)} s`,
            int(body.components),
            int(body.findings),
            int(body.cves),
            int(body.entered.length),
            int(body.resolved.length),
            `${int(m.rssMiB)} MiB`,
            `${int(m.heapMiB)} MiB`,
            `${int(m.keptMiB)} MiB`,
          ];
        }),
        ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
      ),
      '',
      `- the stress inventory's findings after its last upload (without the 20 heaviest): ${int(bigFindings.n)} (component, CVE) pairs, ${int(bigFindings.cves)} CVEs`,
      '',
      `## 2. ${projectCount} projects × ${int(perProject)} components`,
      '',
      `- each as the typical inventory above: ${int(perProject / 10)} components of the ${int(items.length)} above without the 20 heaviest products, and ${int(perProject - perProject / 10)} packages the catalog does not know (of ${int(UNKNOWN_POOL)} shared by all projects), each project its own window of both; uploaded through \`InventoryService.upload\``,
      `- uploads: p50 ${fixed(pct(50) / 1000)} s, p90 ${fixed(pct(90) / 1000)} s, max ${fixed(sorted.at(-1)! / 1000)} s; all ${int(uploads.reduce((a, b) => a + b, 0) / 1000)} s; peak RSS ${int(fleet.rssMiB)} MiB, heap ${int(fleet.heapMiB)} MiB, ${int(fleet.keptMiB)} MiB after a full collection`,
      `- stored: ${int(stored.components)} components, ${int(stored.keys)} component keys, ${int(stored.findings)} findings, ${int(stored.cves)} (inventory, CVE) rows; the uploads' events processed: ${int(fleet.value.items)} items`,
      '',
      `## 3. Sync rounds of ${int(changeCount)} changed CVEs (import, then \`processPending\` timed)`,
      '',
      `- busy: the ${int(changeCount)} most recently updated published records of the corpus (a busy day: mostly 2024 Linux kernel CVEs)`,
      `- keyed: ${int(keyed.length)} records sharing a vendor key with a stored component (the worst case for inventories)`,
      `- each round edited once before its measured run (so both measured runs change the same text); findings before the inventories were deleted ${int(findingsAfter)}; deleting one (2,000 components, \`InventoryService.delete\`) took ${fixed(deleteMs / 1000)} s`,
      '',
      table(
        [
          'round',
          'changes',
          'with inventories',
          'without',
          'added by inventories',
          'peak RSS with',
          'peak heap with',
          'heap after GC',
        ],
        ['busy', 'keyed'].map((label) => {
          const w = rounds[`${label} with`]!;
          const wo = rounds[`${label} without`]!;
          return [
            label,
            `${int(w.changed)} / ${int(wo.changed)}`,
            `${fixed(w.ms / 1000, 2)} s`,
            `${fixed(wo.ms / 1000, 2)} s`,
            `**${fixed(added(label) / 1000, 2)} s**`,
            `${int(w.rssMiB)} MiB`,
            `${int(w.heapMiB)} MiB`,
            `${int(w.keptMiB)} MiB`,
          ];
        }),
        ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
      ),
      '',
      `Total bench time ${((performance.now() - started) / 1000).toFixed(0)} s.`,
      '',
    ];
    const out = path.join(projectRoot, 'bench', '.work', 'RESULTS-inventory-run.md');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, lines.join('\n'));
    console.log(lines.join('\n'));
    console.error(`written to ${path.relative(projectRoot, out)}`);
  } finally {
    await database.close();
    if (!values.keep) await dropDatabase(serverUrl, name);
  }
}
