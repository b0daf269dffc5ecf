/**
 * A key for every name a CNA writes (issue 30), end to end on real records with the alias table
 * shipped with the sample (a new install's): a FortiOS-only record gets FortiOS and no FortiProxy
 * key (the table learns each affected entry with its own product's CPE keys); a vendor no CPE of the
 * sample names ("Iqonic Design" / "Graphina", CVE-2024-43124, a record without ADP CPEs) gets a key minted from its name
 * (rule `cna-name`), which the vendors list shows and a project can subscribe to; the xz backdoor
 * and regreSSHion records, whose upstream entries name no vendor, get their Red Hat keys only.
 * Log4Shell (`apache`, `apache$PRODUCT$log4j`) is in import-real-records.test.ts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { VendorProvenance } from '../../src/domain/vendor-provenance.ts';
import { sources } from '../../src/sources/index.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { fixture, mustCveRow } from '../helpers/catalog.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

const FORTIOS = 'CVE-2022-41328';
const GRAPHINA = 'CVE-2024-43124';

describeEachDatabase('vendor keys for every CNA name (issue 30)', (use) => {
  let api: TestApi;
  let auth: { authorization: string };
  const org = `map-${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    api = await buildTestApi(use(), { SYNC_SOURCES: 'none' });
    const owner = await createOrganization(api.services, org);
    auth = { authorization: (await createToken(api.services, owner.org.id, owner.actor)).header };
    expect((await api.services.vendorAliases.status()).origin).toBe('shipped');
    const report = await api.services.imports.importInputs(sources.cve5, [
      fixture('cve5/mapping-fortios-graphina.jsonl'),
      fixture('cve5/cves/2024/3xxx/CVE-2024-3094.json'),
      fixture('cve5/cves/2024/6xxx/CVE-2024-6387.json'),
    ]);
    expect(report.status).toBe('completed');
  });

  afterAll(async () => {
    await api?.close();
  });

  it('keys a FortiOS-only record fortios, not fortiproxy', async () => {
    const row = await mustCveRow(use().db, FORTIOS);
    expect(row.vendors).toEqual(['fortinet', 'fortinet$PRODUCT$fortios']);
  });

  it('mints a key for a name no CPE knows, lists it as a vendor and lets a project subscribe to it', async () => {
    const row = await mustCveRow(use().db, GRAPHINA);
    expect(row.vendors).toEqual(['iqonic_design', 'iqonic_design$PRODUCT$graphina']);
    const provenance = row.vendor_sources as unknown as VendorProvenance;
    expect(provenance.keys.iqonic_design).toEqual([
      { source: 'cna-text', rule: 'cna-name', text: 'Iqonic Design', provider: 'mitre' },
    ]);
    const listed = await api.app.inject({ url: '/api/v2/vendors?search=iqonic', headers: auth });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json<{ results: { name: string }[] }>().results.map((v) => v.name)).toEqual([
      'iqonic_design',
    ]);
    const base = `/api/v2/organizations/${org}/projects`;
    const created = await api.app.inject({
      method: 'POST',
      url: base,
      headers: auth,
      payload: { name: 'charts' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const subscribed = await api.app.inject({
      method: 'PUT',
      url: `${base}/charts/subscriptions`,
      headers: auth,
      payload: { vendors: ['iqonic_design'] },
    });
    expect(subscribed.statusCode, subscribed.body).toBe(200);
    const cves = await api.app.inject({ url: `${base}/charts/cves`, headers: auth });
    expect(cves.statusCode, cves.body).toBe(200);
    expect(cves.json<{ results: { cve_id: string }[] }>().results.map((c) => c.cve_id)).toEqual([GRAPHINA]);
  });

  it('gives the xz and regreSSHion records their Red Hat keys: their upstream entries name no vendor', async () => {
    const xz = await mustCveRow(use().db, 'CVE-2024-3094');
    expect(xz.vendors.filter((k) => !k.startsWith('redhat'))).toEqual([]);
    const ssh = await mustCveRow(use().db, 'CVE-2024-6387');
    expect(ssh.vendors.filter((k) => !k.startsWith('redhat'))).toEqual([]);
  });
});
