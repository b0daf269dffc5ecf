/**
 * Alerts on publication day (issue 20), end to end on real records: a CVE 5 record alone gives its
 * CVE the keys its CNA's text maps to (the learned alias table), with their provenance stored; a
 * project subscribed to such a key hears of the CVE at once (`cve_enters_project`), and the "why"
 * answer names the CNA's text and the alias evidence. NVD's record afterwards confirms the key and
 * sends nothing more, or contradicts it: the key is retracted, the change recorded, nobody alerted,
 * the tracker entry kept. Re-mapping with a new table re-keys the catalog, silently for CVEs merged
 * before provenance was stored.
 *
 * Log4Shell's NVD record is not in the data (the NVD 1.1 feeds are of 2014, 2017 and early 2025), so
 * the NVD-afterwards steps use two real CVEs that are in both the CVE 5 sample and the NVD 1.1 feeds:
 * CVE-2017-3248 (Oracle WebLogic Server, which NVD confirms) and CVE-2024-2555 (SourceCodester's
 * Employee Task Management System, which NVD files under `oretnom23`).
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import { VendorAliasRepository } from '../../src/db/vendor-alias.repository.ts';
import type { VendorProvenance } from '../../src/domain/vendor-provenance.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { ImportService } from '../../src/services/import.service.ts';
import { emptyAliasTable, REMAP_VENDOR_KEYS_JOB } from '../../src/services/vendor-alias.service.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { LEARNING_RECORDS, SAMPLE_RECORDS, storeAliasTable } from '../helpers/aliases.ts';
import { changesOf, fixture, mustCveRow, tempDir } from '../helpers/catalog.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

const LOG4SHELL = 'CVE-2021-44228';
const WEBLOGIC = 'CVE-2017-3248';
const TASKS = 'CVE-2024-2555';

type Json = Record<string, unknown>;

describeEachDatabase('vendor keys from CNA text, with their provenance', (use) => {
  let api: TestApi;
  let auth: { authorization: string };
  let owner: Awaited<ReturnType<typeof createOrganization>>;
  const org = `prov-${Math.random().toString(36).slice(2, 8)}`;

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    api.app.inject({
      method,
      url: `/api/v2/organizations/${org}${url}`,
      headers: auth,
      ...(payload ? { payload: payload as Json } : {}),
    });

  async function importAndProcess(source: keyof typeof sources, file: string) {
    const report = await api.services.imports.importInputs(sources[source], [file]);
    expect(report.status).toBe('completed');
    await api.services.events.processPending();
    return report;
  }

  /** Executions so far of each project's `on-enter` automation (by project name). */
  async function executions(): Promise<Record<string, number>> {
    const { rows } = await sql<{ name: string; n: number }>`
      SELECT p.name, count(e.id)::int AS n
        FROM project p JOIN automation a ON a.project_id = p.id
        LEFT JOIN automation_execution e ON e.automation_id = a.id
        JOIN organization o ON o.id = p.organization_id
       WHERE o.name = ${org}
       GROUP BY p.name`.execute(use().db);
    return Object.fromEntries(rows.map((r) => [r.name, r.n]));
  }

  /** The events of the project's reports, newest report last. */
  async function reportEvents(project: string): Promise<{ cve_id: string; events: Json[] }[]> {
    const { rows } = await sql<{ cve_id: string; events: Json[] }>`
      SELECT i.cve_id, i.events FROM report_item i
        JOIN report r ON r.id = i.report_id JOIN project p ON p.id = r.project_id
        JOIN organization o ON o.id = p.organization_id
       WHERE o.name = ${org} AND p.name = ${project}
       ORDER BY r.created_at, i.cve_id`.execute(use().db);
    return rows;
  }

  const provenance = async (cveId: string) =>
    (await mustCveRow(use().db, cveId)).vendor_sources as unknown as VendorProvenance;

  beforeAll(async () => {
    api = await buildTestApi(use(), { SYNC_SOURCES: 'none' });
    await storeAliasTable(use().db, [LEARNING_RECORDS]);
    owner = await createOrganization(api.services, org);
    auth = { authorization: (await createToken(api.services, owner.org.id, owner.actor)).header };
    // A real catalog lists these vendors already (through other CVEs); this one starts empty.
    for (const name of ['apache', 'oracle', 'sourcecodester'])
      await sql`INSERT INTO vendor (name) VALUES (${name}) ON CONFLICT DO NOTHING`.execute(use().db);
    for (const [project, vendor] of [
      ['logging', 'apache'],
      ['middleware', 'oracle'],
      ['tasks', 'sourcecodester'],
    ] as const) {
      await api.services.projects.create(owner.org.id, { name: project }, owner.actor, { vendors: [vendor] });
      const res = await call('POST', `/projects/${project}/automations`, {
        name: 'on-enter',
        trigger_type: 'alert',
        configuration: { triggers: ['cve_enters_project'], actions: [{ type: 'generate_report' }] },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  });

  afterAll(async () => {
    await api?.close();
  });

  describe('a CVE 5 record alone', () => {
    it('gives Log4Shell the key its CNA text maps to, and the project subscribed to apache hears of it', async () => {
      await importAndProcess('cve5', fixture('cve5/cves/2021/44xxx/CVE-2021-44228.json'));
      const row = await mustCveRow(use().db, LOG4SHELL);
      expect(row.providers).toEqual(['mitre', 'vulnrichment']);
      expect(row.vendors).toEqual(['apache', 'apache$PRODUCT$log4j']);
      expect(await provenance(LOG4SHELL)).toEqual({
        keys: {
          apache: [
            {
              source: 'cna-text',
              rule: 'alias',
              text: 'Apache Software Foundation',
              support: 3,
              records: 3,
              provider: 'mitre',
            },
          ],
          // No CPE of the learning records names the product: minted from the CNA's name (issue 30).
          apache$PRODUCT$log4j: [
            {
              source: 'cna-text',
              rule: 'cna-name',
              text: 'Apache Software Foundation / Apache Log4j2',
              provider: 'mitre',
            },
          ],
        },
      });
      const [created] = await changesOf(use().db, LOG4SHELL);
      expect(created!.data).toEqual([
        { type: 'created', details: { state: 'PUBLISHED' } },
        { type: 'first_time', details: ['apache', 'apache$PRODUCT$log4j'] },
      ]);
      expect(await executions()).toEqual({ logging: 1, middleware: 0, tasks: 0 });
      expect(await reportEvents('logging')).toEqual([
        { cve_id: LOG4SHELL, events: [{ type: 'cve_enters_project', details: { created: true } }] },
      ]);
    });

    it('answers why with the CNA text and the alias evidence', async () => {
      const res = await call('GET', `/projects/logging/cves/${LOG4SHELL}/match`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json<Json>();
      expect(body).toMatchObject({ in_project: true, outcome: 'matched', retracted: [] });
      expect((body.matched as Json[]).map((m) => m.sources)).toEqual([
        [
          {
            provider: 'mitre',
            via: 'cna_text',
            source: 'cna-text',
            vendor: 'Apache Software Foundation',
            rule: 'alias',
            text: 'Apache Software Foundation',
            support: 3,
            records: 3,
          },
        ],
      ]);
    });

    it('alerts the projects of the two other records on publication too', async () => {
      await importAndProcess('cve5', fixture('cve5/vendor-provenance-2-records.jsonl'));
      expect((await mustCveRow(use().db, WEBLOGIC)).vendors).toEqual([
        'oracle',
        'oracle$PRODUCT$weblogic_server',
      ]);
      expect((await mustCveRow(use().db, TASKS)).vendors).toEqual([
        'sourcecodester',
        'sourcecodester$PRODUCT$employee_task_management_system',
      ]);
      expect(await executions()).toEqual({ logging: 1, middleware: 1, tasks: 1 });
      const tracked = await call('PATCH', `/projects/tasks/cves/${TASKS}`, {
        status: 'analysis_in_progress',
      });
      expect(tracked.statusCode, tracked.body).toBe(200);
    });
  });

  describe("NVD's record afterwards", () => {
    let before: Record<string, number>;

    beforeAll(async () => {
      before = await executions();
      await importAndProcess('nvd', fixture('nvd/feed-1.1-vendor-provenance.json.gz'));
    });

    it('confirms the text-derived keys of WebLogic and sends nothing more', async () => {
      expect((await mustCveRow(use().db, WEBLOGIC)).vendors).toEqual([
        'oracle',
        'oracle$PRODUCT$weblogic_server',
      ]);
      const keys = (await provenance(WEBLOGIC)).keys;
      expect(keys.oracle!.map((o) => o.source)).toEqual(['cpe:nvd', 'cna-text']);
      expect(keys['oracle$PRODUCT$weblogic_server']!.map((o) => o.source)).toEqual(['cpe:nvd', 'cna-text']);
      const last = (await changesOf(use().db, WEBLOGIC)).at(-1)!;
      expect(last.types).not.toContain('vendors');
      expect(last.types).not.toContain('first_time');
      expect((await executions()).middleware).toBe(before.middleware);
    });

    it("retracts the SourceCodester keys NVD's CPEs contradict, records it and alerts nobody", async () => {
      const row = await mustCveRow(use().db, TASKS);
      expect(row.vendors).toEqual(['oretnom23', 'oretnom23$PRODUCT$employee_task_management_system']);
      const stored = await provenance(TASKS);
      expect(Object.keys(stored.retracted ?? {})).toEqual([
        'sourcecodester',
        'sourcecodester$PRODUCT$employee_task_management_system',
      ]);
      expect(stored.retracted!.sourcecodester).toEqual([
        {
          source: 'cna-text',
          rule: 'alias',
          text: 'SourceCodester',
          support: 3,
          records: 3,
          provider: 'mitre',
        },
      ]);
      const last = (await changesOf(use().db, TASKS)).at(-1)!;
      const vendors = (last.data as { type: string; details: Json }[]).find((e) => e.type === 'vendors');
      expect(vendors?.details).toEqual({
        added: ['oretnom23', 'oretnom23$PRODUCT$employee_task_management_system'],
        removed: ['sourcecodester', 'sourcecodester$PRODUCT$employee_task_management_system'],
      });
      expect(await executions()).toEqual(before);
      // The project's tracker entry stays (the CVE is no longer listed; its triage is not lost).
      const entry = await use()
        .db.selectFrom('tracker_entry')
        .innerJoin('project', 'project.id', 'tracker_entry.project_id')
        .select('tracker_entry.status')
        .where('project.name', '=', 'tasks')
        .where('project.organization_id', '=', owner.org.id)
        .where('tracker_entry.cve_id', '=', TASKS)
        .executeTakeFirst();
      expect(entry?.status).toBe('analysis_in_progress');
    });

    it('answers why not, naming the retracted keys and their evidence', async () => {
      const res = await call('GET', `/projects/tasks/cves/${TASKS}/match`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json<{ in_project: boolean; retracted: Json[]; keys: Json[] }>();
      expect(body.in_project).toBe(false);
      expect(body.retracted.map((k) => k.key)).toEqual([
        'sourcecodester',
        'sourcecodester$PRODUCT$employee_task_management_system',
      ]);
      expect((body.retracted[0]!.sources as Json[])[0]).toMatchObject({ source: 'cna-text', rule: 'alias' });
      expect(body.keys.map((k) => (k.sources as Json[])[0]!.source)).toEqual(['cpe:nvd', 'cpe:nvd']);
    });
  });

  describe('re-mapping', () => {
    it('re-keys the catalog with a new table, recording the changes, and a second run changes nothing', async () => {
      await new VendorAliasRepository(use().db).saveTable({
        aliases: emptyAliasTable() as unknown as Record<string, unknown>,
        origin: 'learned',
        learnedFrom: 0,
      });
      const progress: number[] = [];
      const report = await api.services.imports.remapVendorKeys({
        batchSize: 2,
        onProgress: (p) => progress.push(p.examined),
      });
      // A table that knows nothing mints every name (issue 30). Log4Shell's keys become the minted
      // ones (one change); WebLogic keeps its keys, which NVD's CPEs give and the minted names
      // confirm; CVE-2024-2555 its own, the minted SourceCodester keys retracted again.
      expect(report).toMatchObject({ examined: 3, total: 3, remapped: 3, changes: 1 });
      expect(
        (await provenance(WEBLOGIC)).keys.oracle!.map((o) => [o.source, 'rule' in o ? o.rule : null]),
      ).toEqual([
        ['cpe:nvd', null],
        ['cna-text', 'cna-name'],
      ]);
      expect(Object.keys((await provenance(TASKS)).retracted ?? {})).toEqual([
        'sourcecodester',
        'sourcecodester$PRODUCT$employee_task_management_system',
      ]);
      expect(progress).toEqual([2, 3]);
      const minted = ['apache_software_foundation', 'apache_software_foundation$PRODUCT$log4j'];
      expect((await mustCveRow(use().db, LOG4SHELL)).vendors).toEqual(minted);
      const last = (await changesOf(use().db, LOG4SHELL)).at(-1)!;
      expect(last.data).toEqual([
        { type: 'first_time', details: minted },
        { type: 'vendors', details: { added: minted, removed: ['apache', 'apache$PRODUCT$log4j'] } },
      ]);
      // The first run found the minted SourceCodester keys merging into NVD's (oretnom23) and the
      // catalog remembered it as an alias: the second run rewrites that CVE's provenance (the alias
      // now reads the text) and records no change; a third changes nothing.
      expect(await api.services.imports.remapVendorKeys()).toMatchObject({ remapped: 1, changes: 0 });
      expect(await api.services.imports.remapVendorKeys()).toMatchObject({ remapped: 0, changes: 0 });
    });

    it('re-keys a CVE merged before provenance was stored as history, alerting nobody', async () => {
      await storeAliasTable(use().db, [LEARNING_RECORDS]);
      // Log4Shell merged before provenance was stored, its CNA text spelled as a key the way the old
      // normalization spelled such names (no project subscribes to that spelling).
      await sql`
        UPDATE cve SET vendor_sources = NULL, vendors = ARRAY['apache_software_foundation']
         WHERE cve_id = ${LOG4SHELL}`.execute(use().db);
      const before = await executions();
      // The first import of a process started after the upgrade re-maps such CVEs first.
      const upgraded = new ImportService(use().db);
      const report = await upgraded.importInputs(sources.cve5, [
        fixture('cve5/vendor-provenance-2-records.jsonl'),
      ]);
      expect(report.counts.unchanged).toBe(2);
      await api.services.events.processPending();
      expect((await mustCveRow(use().db, LOG4SHELL)).vendors).toEqual(['apache', 'apache$PRODUCT$log4j']);
      const { rows } = await sql<{ origin: string | null; data: Json[] }>`
        SELECT origin, data FROM cve_change WHERE cve_id = ${LOG4SHELL} ORDER BY seq DESC LIMIT 1`.execute(
        use().db,
      );
      expect(rows[0]).toEqual({
        origin: 'vendor-remap',
        data: [
          { type: 'first_time', details: ['apache', 'apache$PRODUCT$log4j'] },
          {
            type: 'vendors',
            details: { added: ['apache', 'apache$PRODUCT$log4j'], removed: ['apache_software_foundation'] },
          },
        ],
      });
      // The project subscribed to apache lists Log4Shell again, without an alert.
      expect(await executions()).toEqual(before);
    });
  });

  describe("an operator's alias", () => {
    it('queues a re-map of the catalog; the job gives the key to the CVEs with that text, and the subscribed project hears of them', async () => {
      await sql`INSERT INTO vendor (name) VALUES ('bea') ON CONFLICT DO NOTHING`.execute(use().db);
      await api.services.projects.create(owner.org.id, { name: 'legacy' }, owner.actor, { vendors: ['bea'] });
      const automation = await call('POST', '/projects/legacy/automations', {
        name: 'on-enter',
        trigger_type: 'alert',
        configuration: { triggers: ['cve_enters_project'], actions: [{ type: 'generate_report' }] },
      });
      expect(automation.statusCode, automation.body).toBe(201);
      const pendingRemaps = async () =>
        (
          await sql<{ n: number }>`
            SELECT count(*)::int AS n FROM job WHERE name = ${REMAP_VENDOR_KEYS_JOB} AND status = 'pending'`.execute(
            use().db,
          )
        ).rows[0]!.n;
      // Merges the catalog remembered in the tests above queued theirs.
      const before = await pendingRemaps();
      // WebLogic came from BEA Systems: an operator files Oracle's records under `bea` as well.
      await api.services.vendorAliases.setOverride(
        { vendorText: 'Oracle', key: 'bea', action: 'add' },
        { commandLine: 'ops' },
      );
      expect(await pendingRemaps()).toBe(before + 1);
      expect((await mustCveRow(use().db, WEBLOGIC)).vendors).not.toContain('bea');

      const remap = jobHandlers({ vendorAliases: api.services.vendorAliases } as never)[
        REMAP_VENDOR_KEYS_JOB
      ]!;
      await remap(
        {},
        {
          id: 1,
          name: REMAP_VENDOR_KEYS_JOB,
          attempt: 1,
          maxAttempts: 5,
          workerId: 'test',
          signal: new AbortController().signal,
        },
      );
      await api.services.events.processPending();
      expect((await mustCveRow(use().db, WEBLOGIC)).vendors).toContain('bea');
      // NVD's CPEs name no `bea`, but the operator has the last word: the key is not retracted.
      expect((await provenance(WEBLOGIC)).keys.bea).toEqual([
        { source: 'cna-text', rule: 'operator', text: 'Oracle', provider: 'mitre' },
      ]);
      expect((await executions()).legacy).toBe(1);
      expect((await reportEvents('legacy')).map((r) => r.cve_id)).toEqual([WEBLOGIC]);
    });
  });

  describe('a record that names no vendor', () => {
    it("takes its CNA for the vendor when the CNA's earlier such records named one", async () => {
      // Microsoft's CNA wrote "n/a" / "n/a" on CVE-2006-4692; its description names "the Windows
      // Object Packager", no vendor. The bundled sample teaches that Microsoft's such records are
      // Microsoft's (12 of 12).
      await storeAliasTable(use().db, [SAMPLE_RECORDS]);
      const line = gunzipSync(readFileSync(SAMPLE_RECORDS))
        .toString()
        .split('\n')
        .find((l) => l.includes('"CVE-2006-4692"'))!;
      const { dir, remove } = await tempDir();
      try {
        await writeFile(path.join(dir, 'CVE-2006-4692.json'), line);
        await importAndProcess('cve5', path.join(dir, 'CVE-2006-4692.json'));
      } finally {
        await remove();
      }
      expect((await mustCveRow(use().db, 'CVE-2006-4692')).vendors).toEqual(['microsoft']);
      expect((await provenance('CVE-2006-4692')).keys).toEqual({
        microsoft: [
          {
            source: 'cna-text',
            rule: 'alias',
            text: '@microsoft',
            support: 12,
            records: 12,
            provider: 'mitre',
          },
        ],
      });
    });
  });
});
