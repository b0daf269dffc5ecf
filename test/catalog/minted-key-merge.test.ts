/**
 * A key minted from a CNA's name merges into the key a CPE later names for the same text (issue 30,
 * docs/catalog.md "Merging minted keys"), end to end on real records through the import path:
 * CVE-2024-2555 and CVE-2024-2572 are SourceCodester's "Employee Task Management System" records,
 * whose CVE 5 records carry no CPE; NVD later files CVE-2024-2555 under `oretnom23`, the author.
 *
 * The alias table here knows no SourceCodester, so the text is minted into `sourcecodester` and
 * `sourcecodester$PRODUCT$employee_task_management_system` (rule `cna-name`). The mapping that mints
 * is another part of issue 30: until it lands, the table's mapping is given one that mints by the CPE
 * naming conventions (the overrides and everything after are the real ones).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import { VendorAliasRepository } from '../../src/db/vendor-alias.repository.ts';
import { vendorKey } from '../../src/domain/cpe.ts';
import {
  mapCnaKeys,
  productTextKey,
  vendorTextKey,
  type MappedKeys,
} from '../../src/domain/vendor-aliases.ts';
import type { KeyMerge, VendorProvenance } from '../../src/domain/vendor-provenance.ts';
import { handleRemapVendorKeys } from '../../src/jobs/handlers.ts';
import type { JobContext } from '../../src/jobs/worker.ts';
import { ImportService } from '../../src/services/import.service.ts';
import { KeyMergeService, type KeyMergeReport } from '../../src/services/key-merge.service.ts';
import {
  emptyAliasTable,
  REMAP_VENDOR_KEYS_JOB,
  VendorAliasService,
} from '../../src/services/vendor-alias.service.ts';
import type { TableMapping } from '../../src/domain/vendor-alias-overrides.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { fixture, mustCveRow } from '../helpers/catalog.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

const TASKS = 'CVE-2024-2555';
const SECOND = 'CVE-2024-2572';
const MINTED = 'sourcecodester';
const MINTED_PRODUCT = 'sourcecodester$PRODUCT$employee_task_management_system';
const MERGED = 'oretnom23';
const MERGED_PRODUCT = 'oretnom23$PRODUCT$employee_task_management_system';

type Json = Record<string, unknown>;

/** The table's mapping, and a key minted from the CNA's vendor and product names where it gives none. */
const minting: TableMapping = (table, containers) => {
  const mapped: MappedKeys = mapCnaKeys(table, containers);
  const affected = (containers?.cna?.affected ?? []) as { vendor?: string; product?: string }[];
  for (const { vendor, product } of affected) {
    const v = vendorTextKey(vendor);
    if (!v || mapped.vendors.length) continue;
    mapped.vendors.push(v);
    mapped.evidence[v] = { source: 'cna-text', rule: 'cna-name', text: vendor! };
    const p = productTextKey(product, vendor);
    if (!p) continue;
    const key = vendorKey(v, p);
    mapped.products.push(key);
    mapped.evidence[key] = { source: 'cna-text', rule: 'cna-name', text: `${vendor} / ${product}` };
  }
  return mapped;
};

describeEachDatabase('a minted key merging into the key a CPE names', (use) => {
  let api: TestApi;
  let imports: ImportService;
  let aliases: VendorAliasService;
  const reports: KeyMergeReport[] = [];
  let owner: Awaited<ReturnType<typeof createOrganization>>;
  let auth: { authorization: string };
  let adminToken: string;
  const org = `merge-${Math.random().toString(36).slice(2, 8)}`;

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Json, payload?: object) =>
    api.app.inject({ method, url, headers: headers as never, ...(payload ? { payload } : {}) });

  const provenance = async (cveId: string) =>
    (await mustCveRow(use().db, cveId)).vendor_sources as unknown as VendorProvenance;

  async function importAndProcess(source: keyof typeof sources, file: string) {
    const report = await imports.importInputs(sources[source], [file]);
    expect(report.status).toBe('completed');
    await api.services.events.processPending();
  }

  /** Runs the queued `vendors.remap` jobs through their handler, then the event processor. */
  async function remapAndProcess() {
    const { rows } = await sql<{ id: number; payload: Record<string, unknown> }>`
      DELETE FROM job WHERE name = ${REMAP_VENDOR_KEYS_JOB} RETURNING id, payload`.execute(use().db);
    const handle = handleRemapVendorKeys({ vendorAliases: aliases });
    for (const job of rows) {
      const context: JobContext = {
        id: job.id,
        name: REMAP_VENDOR_KEYS_JOB,
        attempt: 1,
        maxAttempts: 1,
        workerId: 'test',
        signal: new AbortController().signal,
      };
      await handle(job.payload, context);
    }
    await api.services.events.processPending();
  }

  /** Per project, the CVEs of its reports with their events, oldest first. */
  async function reported(project: string): Promise<{ cve_id: string; types: string[] }[]> {
    const { rows } = await sql<{ cve_id: string; events: { type: string }[] }>`
      SELECT i.cve_id, i.events FROM report_item i
        JOIN report r ON r.id = i.report_id JOIN project p ON p.id = r.project_id
        JOIN organization o ON o.id = p.organization_id
       WHERE o.name = ${org} AND p.name = ${project}
       ORDER BY r.created_at, i.cve_id`.execute(use().db);
    return rows.map((r) => ({ cve_id: r.cve_id, types: r.events.map((e) => e.type) }));
  }

  /** Notifications' alert automations run per project: how many ran so far (by project name). */
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

  const subscriptions = async (project: string) =>
    (await call('GET', `/api/v2/organizations/${org}/projects/${project}/subscriptions`, auth)).json<{
      vendors: string[];
      products: string[];
    }>();

  beforeAll(async () => {
    api = await buildTestApi(use(), { SYNC_SOURCES: 'none' });
    await new VendorAliasRepository(use().db).saveTable({
      aliases: emptyAliasTable() as unknown as Record<string, unknown>,
      origin: 'learned',
      learnedFrom: 0,
    });
    const merges = new KeyMergeService(use().db);
    aliases = new VendorAliasService(use().db, {
      mapTable: minting,
      remap: (onProgress, keys) => imports.remapVendorKeys({ onProgress, keys }),
    });
    imports = new ImportService(use().db, () => Promise.resolve(), {
      vendorAliases: aliases,
      onKeyMerges: async (found: KeyMerge[], db) => {
        reports.push(await merges.remember(found, db));
      },
    });
    owner = await createOrganization(api.services, org);
    auth = { authorization: (await createToken(api.services, owner.org.id, owner.actor)).header };
    const admin = await api.services.accounts.createUser({
      username: `admin-${org}`,
      email: `admin@${org}.example`,
      password: 'correct horse battery staple',
      isAdmin: true,
    });
    const adminOrg = await api.services.accounts.createOrganization(`${org}-ops`, admin.username);
    adminToken = (
      await createToken(api.services, adminOrg.id, { type: 'user', id: admin.id, name: admin.username })
    ).header;
    // A catalog that lists both vendors already (a minted key is a real, subscribable vendor).
    for (const name of [MINTED, MERGED])
      await sql`INSERT INTO vendor (name) VALUES (${name}) ON CONFLICT DO NOTHING`.execute(use().db);
    for (const [project, vendor] of [
      ['tasks', MINTED],
      ['authors', MERGED],
    ] as const) {
      await api.services.projects.create(owner.org.id, { name: project }, owner.actor, { vendors: [vendor] });
      const res = await call('POST', `/api/v2/organizations/${org}/projects/${project}/automations`, auth, {
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

  it('mints the keys from the CVE 5 records, and the project subscribed to the minted vendor hears of both', async () => {
    await importAndProcess('cve5', fixture('cve5/minted-merge-2-records.jsonl'));
    for (const id of [TASKS, SECOND]) {
      expect((await mustCveRow(use().db, id)).vendors).toEqual([MINTED, MINTED_PRODUCT]);
      expect((await provenance(id)).keys[MINTED]).toEqual([
        { source: 'cna-text', rule: 'cna-name', text: 'SourceCodester', provider: 'mitre' },
      ]);
    }
    expect(await reported('tasks')).toEqual([
      { cve_id: TASKS, types: ['cve_enters_project'] },
      { cve_id: SECOND, types: ['cve_enters_project'] },
    ]);
    expect(await reported('authors')).toEqual([]);
  });

  describe("NVD's record naming another key", () => {
    let before: Record<string, number>;
    const NVD_FEED = fixture('nvd/feed-1.1-vendor-provenance.json.gz');

    beforeAll(async () => {
      before = await executions();
    });

    it('remembers no merge of an atomic import that does not commit (a sync killed or failing before its cursor)', async () => {
      const failed = imports.importInputs(sources.nvd, [NVD_FEED], {
        atomic: {
          beforeCommit: () => Promise.reject(new Error('the cursor could not be saved')),
        },
      });
      await expect(failed).rejects.toThrow('the cursor could not be saved');
      expect((await mustCveRow(use().db, TASKS)).vendors).toEqual([MINTED, MINTED_PRODUCT]);
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM vendor_alias_override WHERE created_by = 'catalog'`.execute(use().db);
      expect(rows[0]!.n).toBe(0);
      expect(await subscriptions('tasks')).toMatchObject({ vendors: [MINTED] });
    });

    it('remembers the merges of an atomic import in its own transaction, as a sync imports', async () => {
      let seen: number | undefined;
      const report = await imports.importInputs(sources.nvd, [NVD_FEED], {
        atomic: {
          // Run last in the import's transaction: the overrides are already there, not yet committed.
          beforeCommit: async (db) => {
            const { rows } = await sql<{ n: number }>`
              SELECT count(*)::int AS n FROM vendor_alias_override WHERE created_by = 'catalog'`.execute(db);
            seen = rows[0]!.n;
          },
        },
      });
      expect(report.status).toBe('completed');
      expect(seen).toBe(2);
      await api.services.events.processPending();
    });

    it("moves the CVE's keys to NVD's, remembering the merge in its provenance", async () => {
      expect((await mustCveRow(use().db, TASKS)).vendors).toEqual([MERGED, MERGED_PRODUCT]);
      const stored = await provenance(TASKS);
      expect(stored.merged).toEqual({
        [MINTED]: { into: MERGED, text: 'SourceCodester' },
        [MINTED_PRODUCT]: { into: MERGED_PRODUCT, text: 'SourceCodester / Employee Task Management System' },
      });
      expect(Object.keys(stored.retracted ?? {})).toEqual([MINTED, MINTED_PRODUCT]);
    });

    it('stores the merge as alias overrides made by `catalog`, and queues the re-map', async () => {
      expect(reports.at(-1)).toEqual({
        remembered: [
          { vendorText: 'SourceCodester', from: MINTED, into: MERGED },
          {
            vendorText: 'SourceCodester',
            productText: 'Employee Task Management System',
            from: MINTED_PRODUCT,
            into: MERGED_PRODUCT,
          },
        ],
        skipped: 0,
        projects: 1,
      });
      const listed = await call('GET', '/api/v2/vendor-aliases', { authorization: adminToken });
      expect(listed.statusCode, listed.body).toBe(200);
      const overrides = listed.json<{ overrides: Json[] }>().overrides;
      expect(overrides).toEqual([
        expect.objectContaining({
          vendor: 'SourceCodester',
          product: null,
          key: MERGED,
          action: 'add',
          created_by: 'catalog',
        }),
        expect.objectContaining({
          vendor: 'SourceCodester',
          product: 'Employee Task Management System',
          key: MERGED_PRODUCT,
          action: 'add',
          created_by: 'catalog',
        }),
      ]);
      // One re-map for the import's merges, of the CVEs carrying the minted keys only.
      const { rows } = await sql<{ payload: { keys?: string[] } }>`
        SELECT payload FROM job WHERE name = ${REMAP_VENDOR_KEYS_JOB} AND status = 'pending'`.execute(
        use().db,
      );
      expect(rows.map((r) => r.payload.keys)).toEqual([[MINTED, MINTED_PRODUCT]]);
    });

    it('subscribes the project to the merged key, with an audit entry by `catalog`', async () => {
      expect(await subscriptions('tasks')).toMatchObject({ vendors: [MERGED, MINTED] });
      const res = await call(
        'GET',
        `/api/v2/organizations/${org}/audit-logs?action=subscription.update`,
        auth,
      );
      expect(res.statusCode, res.body).toBe(200);
      const entries = res
        .json<{ results: Json[] }>()
        .results.filter((e) => (e.actor as Json).name === 'catalog');
      expect(entries).toEqual([
        expect.objectContaining({
          actor: { type: 'system', id: null, name: 'catalog' },
          action: 'subscription.update',
          resource: expect.objectContaining({ type: 'subscription', name: 'tasks' }),
          changes: {
            added: [MERGED],
            removed: [],
            merged: { from: MINTED, into: MERGED, text: 'SourceCodester', cve_id: TASKS },
          },
        }),
      ]);
    });

    it('alerts the subscribed project once (no second entry), and the project of the merged key hears of it', async () => {
      const after = await executions();
      expect(after.tasks).toBe(before.tasks);
      expect(after.authors).toBe(before.authors! + 1);
      expect((await reported('tasks')).filter((r) => r.cve_id === TASKS)).toEqual([
        { cve_id: TASKS, types: ['cve_enters_project'] },
      ]);
      // NVD's keys are new to the catalog's records too (new_vendor, new_product).
      expect(await reported('authors')).toEqual([
        { cve_id: TASKS, types: ['cve_enters_project', 'new_vendor', 'new_product'] },
      ]);
      const listed = await call('GET', `/api/v2/organizations/${org}/projects/tasks/cves`, auth);
      expect(listed.statusCode, listed.body).toBe(200);
      expect(
        listed
          .json<{ results: { cve_id: string }[] }>()
          .results.map((c) => c.cve_id)
          .sort(),
      ).toEqual([TASKS, SECOND]);
    });

    it('moves the second CVE with the minted key too (the re-map job), again without a second alert', async () => {
      const beforeRemap = await executions();
      await remapAndProcess();
      expect((await mustCveRow(use().db, SECOND)).vendors).toEqual([MERGED, MERGED_PRODUCT]);
      expect((await provenance(SECOND)).keys[MERGED]).toEqual([
        { source: 'cna-text', rule: 'operator', text: 'SourceCodester', provider: 'mitre' },
      ]);
      const after = await executions();
      expect(after.tasks).toBe(beforeRemap.tasks);
      expect(await reported('tasks')).toEqual([
        { cve_id: TASKS, types: ['cve_enters_project'] },
        { cve_id: SECOND, types: ['cve_enters_project'] },
      ]);
      expect((await reported('authors')).map((r) => r.cve_id)).toEqual([TASKS, SECOND]);
    });

    it('maps a new record with the same text to the merged key at once', async () => {
      const mapped = (await aliases.mapper()).map({
        cna: { affected: [{ vendor: 'SourceCodester', product: 'Employee Task Management System' }] },
      });
      expect([...mapped.vendors, ...mapped.products]).toEqual([MERGED, MERGED_PRODUCT]);
    });
  });

  describe("an operator's word", () => {
    it('vetoes the merge through the API: the text mints its key again, and the merge is not made again', async () => {
      const res = await call(
        'POST',
        '/api/v2/vendor-aliases/overrides',
        { authorization: adminToken },
        {
          vendor: 'SourceCodester',
          key: MERGED,
          action: 'veto',
        },
      );
      expect(res.statusCode, res.body).toBe(201);
      const beforeVeto = await executions();
      const reportsBefore = reports.length;
      await remapAndProcess();
      expect((await mustCveRow(use().db, SECOND)).vendors).toEqual([MERGED_PRODUCT, MINTED]);
      // NVD still names oretnom23 for CVE-2024-2555: the merge is found again, the veto keeps it unmade.
      expect((await mustCveRow(use().db, TASKS)).vendors).toEqual([MERGED, MERGED_PRODUCT]);
      // Whether the re-map finds the pairing again or not, the catalog remembers no merge of the vetoed text.
      const remembered = reports.slice(reportsBefore).flatMap((r) => r.remembered);
      expect(remembered.filter((m) => m.productText === undefined)).toEqual([]);
      const overrides = (await aliases.listOverrides()).filter((o) => o.productText === null);
      expect(overrides.map((o) => [o.key, o.action])).toEqual([[MERGED, 'veto']]);
      // The project still lists both CVEs, nobody alerted again.
      expect(await executions()).toEqual(beforeVeto);
      const listed = await call('GET', `/api/v2/organizations/${org}/projects/tasks/cves`, auth);
      expect(listed.json<{ count: number }>().count).toBe(2);
    });

    it('redirects the text to another key through the API', async () => {
      const res = await call(
        'POST',
        '/api/v2/vendor-aliases/overrides',
        { authorization: adminToken },
        {
          vendor: 'SourceCodester',
          key: 'sourcecodester',
          action: 'add',
        },
      );
      expect(res.statusCode, res.body).toBe(201);
      await remapAndProcess();
      // The operator has the last word: NVD's CPEs do not retract the key an alias gives.
      expect((await mustCveRow(use().db, TASKS)).vendors).toEqual([MERGED, MERGED_PRODUCT, MINTED]);
      expect((await provenance(TASKS)).keys[MINTED]).toEqual([
        { source: 'cna-text', rule: 'operator', text: 'SourceCodester', provider: 'mitre' },
      ]);
      expect((await provenance(TASKS)).merged).toBeUndefined();
    });
  });
});
