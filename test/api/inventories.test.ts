/**
 * Inventories (issue 33): API v2's `…/projects/<project>/inventories` on real records imported
 * through the real importers (Log4Shell's CVE 5 record, Heartbleed's NVD 1.1 feed, the xz backdoor's
 * CVE 5 record and NVD API 2.0 record), both databases: upload (CycloneDX, and the same in SPDX),
 * list, components paged and searched, a component's findings, delete; a bad document's 400 naming
 * where; tenancy and scopes; the CVEs found entering the project's tracker with cause `inventory`,
 * and an upgrade resolving them with the versions before and after, in the tracker's history and
 * the audit log.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { fixture } from '../helpers/catalog.ts';
import { SAMPLE_RECORDS, storeAliasTable } from '../helpers/aliases.ts';
import { expectMissingScope, expectNotFound, expectReadOnly } from '../helpers/projects.ts';

const LOG4SHELL = 'CVE-2021-44228';
const HEARTBLEED = 'CVE-2014-0160';
const XZ = 'CVE-2024-3094';
const THREE = [HEARTBLEED, LOG4SHELL, XZ];

const sbom = (name: string) => fs.readFileSync(`test/fixtures/sbom/${name}`, 'utf8');

describeEachDatabase('API v2 inventories', (use) => {
  let api: TestApi;
  let admin: string;
  let reader: string;
  let other: string;
  let owner: Awaited<ReturnType<typeof createOrganization>>;
  const org = 'inv';
  const base = `/api/v2/organizations/${org}/projects`;

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    header: string,
    body?: string | object,
    contentType = 'application/json',
  ) =>
    api.app.inject({
      method,
      url,
      headers: { authorization: header, ...(body !== undefined ? { 'content-type': contentType } : {}) },
      ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });

  const cveIds = async (project: string) => {
    const res = await call('GET', `${base}/${project}/cves?page_size=100`, admin);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { results: { cve_id: string }[] }).results.map((r) => r.cve_id).sort();
  };

  beforeAll(async () => {
    api = await buildTestApi(use(), { SYNC_SOURCES: 'none' });
    await api.app.ready();
    await storeAliasTable(use().db, [SAMPLE_RECORDS]);
    await api.services.imports.importInputs(sources.cve5, [fixture('cve5', 'cves')]);
    await api.services.imports.importInputs(sources.nvd, [
      fixture('nvd', 'feed-1.1-heartbleed.json.gz'),
      fixture('nvd', 'CVE-2024-3094.json'),
    ]);
    owner = await createOrganization(api.services, org);
    admin = (await createToken(api.services, owner.org.id, owner.actor, { mode: 'write', scopes: [] }))
      .header;
    reader = (
      await createToken(api.services, owner.org.id, owner.actor, {
        mode: 'read',
        scopes: ['projects:read', 'projects:write'],
      })
    ).header;
    const outsider = await createOrganization(api.services, `${org}-other`);
    other = (await createToken(api.services, outsider.org.id, outsider.actor, { mode: 'write', scopes: [] }))
      .header;
    for (const name of ['shop', 'spdx', 'empty'])
      expect((await call('POST', base, admin, { name })).statusCode).toBe(201);
  });
  afterAll(() => api.close());

  const auditOf = async (action: string) =>
    (
      await sql<{ resource_name: string; changes: Record<string, unknown> }>`
        SELECT resource_name, changes FROM audit_log WHERE action = ${action} ORDER BY seq`.execute(use().db)
    ).rows;

  describe('the proof: a vulnerable SBOM, then the same upgraded', () => {
    it('finds Log4Shell, Heartbleed and the xz backdoor in the CycloneDX SBOM, and they enter the project', async () => {
      const res = await call(
        'PUT',
        `${base}/shop/inventories/backend`,
        admin,
        sbom('cyclonedx-1.6-vulnerable.json'),
      );
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({
        inventory: {
          name: 'backend',
          format: 'cyclonedx',
          spec_version: '1.6',
          component_count: 3,
          cve_count: 3,
        },
        components: 3,
        version_unknown: 0,
        cves: 3,
        resolved: [],
      });
      expect([...body.entered].sort()).toEqual(THREE);
      // The project's CVE list (its tracker) holds them, without any subscription.
      expect(await cveIds('shop')).toEqual(THREE);
      const one = await call('GET', `${base}/shop/cves/${LOG4SHELL}`, admin);
      expect(one.statusCode, one.body).toBe(200);
    });

    it('finds the same three in the same SBOM written as SPDX (JSON and tag-value)', async () => {
      const json = await call(
        'PUT',
        `${base}/spdx/inventories/json`,
        admin,
        sbom('spdx-2.3-vulnerable.spdx.json'),
      );
      const tv = await call(
        'PUT',
        `${base}/spdx/inventories/tv`,
        admin,
        sbom('spdx-2.3-vulnerable.spdx'),
        'text/spdx',
      );
      expect(json.statusCode, json.body).toBe(200);
      expect(tv.statusCode, tv.body).toBe(200);
      expect(json.json()).toMatchObject({
        inventory: { format: 'spdx-json', spec_version: 'SPDX-2.3' },
        cves: 3,
      });
      expect(tv.json()).toMatchObject({ inventory: { format: 'spdx-tag-value' }, cves: 3 });
      // Already the project's through the first inventory: the second brings nothing new.
      expect(tv.json().entered).toEqual([]);
      expect(await cveIds('spdx')).toEqual(THREE);
    });

    it('names the component and the rule of each finding', async () => {
      const res = await call('GET', `${base}/shop/inventories/backend/components/1`, reader);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.component).toMatchObject({ position: 1, name: 'openssl', version: '1.0.1f', findings: 1 });
      expect(body.findings).toEqual([
        expect.objectContaining({ cve_id: HEARTBLEED, rules: [expect.objectContaining({ source: 'nvd' })] }),
      ]);
      expect(await call('GET', `${base}/shop/inventories/backend/components/9`, reader)).toHaveProperty(
        'statusCode',
        404,
      );
    });

    it('finds none of them in the upgraded SBOM (2.17.1, 1.0.1g, 5.4.6)', async () => {
      const res = await call(
        'PUT',
        `${base}/empty/inventories/fixed`,
        admin,
        sbom('cyclonedx-1.6-fixed.json'),
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ cves: 0, findings: 0, entered: [], resolved: [] });
      expect(await cveIds('empty')).toEqual([]);
    });

    it('marks the three resolved by inventory when the upgrade replaces the vulnerable SBOM, deleting nothing', async () => {
      const res = await call(
        'PUT',
        `${base}/shop/inventories/backend`,
        admin,
        sbom('cyclonedx-1.6-fixed.json'),
      );
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ cves: 0, entered: [], inventory: { cve_count: 0 } });
      const resolved = Object.fromEntries(
        (body.resolved as { cve_id: string; changes: unknown }[]).map((r) => [r.cve_id, r.changes]),
      );
      expect(resolved).toEqual({
        [HEARTBLEED]: [{ name: 'openssl', before: '1.0.1f', after: '1.0.1g' }],
        [LOG4SHELL]: [{ name: 'log4j-core', before: '2.14.1', after: '2.17.1' }],
        [XZ]: [{ name: 'xz-utils', before: '5.6.0', after: '5.4.6' }],
      });
      // Still the project's CVEs, now resolved in its tracker.
      expect(await cveIds('shop')).toEqual(THREE);
      const one = await call('GET', `${base}/shop/cves/${LOG4SHELL}`, admin);
      expect(one.json()).toMatchObject({ tracker: { status: 'resolved' } });
      // The tracker's history says why.
      const comments = await call('GET', `${base}/shop/cves/${LOG4SHELL}/comments`, admin);
      expect(comments.statusCode, comments.body).toBe(200);
      expect(JSON.stringify(comments.json())).toContain(
        'Resolved by inventory backend: log4j-core 2.14.1 → 2.17.1.',
      );
      // So does the audit log.
      const entries = (await auditOf('tracker_entry.create')).filter(
        (e) => e.resource_name === `shop/${LOG4SHELL}`,
      );
      expect(entries).toEqual([
        {
          resource_name: `shop/${LOG4SHELL}`,
          changes: {
            status: { old: null, new: 'resolved' },
            resolved_by: {
              inventory: 'backend',
              changes: [{ name: 'log4j-core', before: '2.14.1', after: '2.17.1' }],
            },
          },
        },
      ]);
      expect((await auditOf('inventory.update')).at(-1)).toMatchObject({
        resource_name: 'shop/backend',
        changes: { resolved: expect.arrayContaining(THREE) },
      });
    });

    it('does not resolve a CVE another inventory of the project still has', async () => {
      const res = await call('PUT', `${base}/spdx/inventories/json`, admin, sbom('spdx-2.3-fixed.spdx.json'));
      expect(res.statusCode, res.body).toBe(200);
      // `tv` still holds the vulnerable versions.
      expect(res.json().resolved).toEqual([]);
      const one = await call('GET', `${base}/spdx/cves/${LOG4SHELL}`, admin);
      expect(one.json()).toMatchObject({ tracker: { status: null } });
    });
  });

  describe('list, get, delete', () => {
    it('lists the inventories with format, component count, upload time and uploader', async () => {
      const res = await call('GET', `${base}/spdx/inventories`, reader);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        results: [
          expect.objectContaining({ name: 'json', format: 'spdx-json', component_count: 3, cve_count: 0 }),
          expect.objectContaining({ name: 'tv', format: 'spdx-tag-value', cve_count: 3 }),
        ],
      });
      expect(res.json().results[0].uploaded_by).toMatch(/\S/);
      expect(res.json().results[0].uploaded_at).toMatch(/Z$/);
    });

    it('pages the components in document order and searches them by name', async () => {
      const page = await call('GET', `${base}/shop/inventories/backend?page_size=2`, reader);
      expect(page.statusCode, page.body).toBe(200);
      expect(page.json()).toMatchObject({
        inventory: { name: 'backend', component_count: 3 },
        count: 3,
        previous: null,
        results: [
          { position: 0, name: 'log4j-core', version: '2.17.1' },
          { position: 1, name: 'openssl', version: '1.0.1g' },
        ],
      });
      expect(page.json().next).toContain('page=2');
      const two = await call('GET', `${base}/shop/inventories/backend?page_size=2&page=2`, reader);
      expect(two.json().results.map((c: { name: string }) => c.name)).toEqual(['xz-utils']);
      const search = await call('GET', `${base}/shop/inventories/backend?search=SSL`, reader);
      expect(search.json()).toMatchObject({ count: 1, results: [{ name: 'openssl' }] });
      expect(await call('GET', `${base}/shop/inventories/backend?page=5`, reader)).toHaveProperty(
        'statusCode',
        404,
      );
    });

    it('keeps a component without a version, listed as version unknown', async () => {
      const doc = {
        bomFormat: 'CycloneDX',
        specVersion: '1.6',
        version: 1,
        components: [
          { type: 'library', name: 'zlib', purl: 'pkg:generic/zlib' },
          {
            type: 'library',
            name: 'openssl',
            version: '1.0.1f',
            cpe: 'cpe:2.3:a:openssl:openssl:1.0.1f:*:*:*:*:*:*:*',
          },
        ],
      };
      const res = await call('PUT', `${base}/empty/inventories/firmware`, admin, doc);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ components: 2, version_unknown: 1, cves: 1 });
      const got = await call('GET', `${base}/empty/inventories/firmware`, reader);
      expect(got.json().results[0]).toMatchObject({ name: 'zlib', version: null, version_unknown: true });
    });

    it('answers a bad document with a 400 naming its first problem and where, and stores nothing', async () => {
      const bad = await call(
        'PUT',
        `${base}/empty/inventories/broken`,
        admin,
        sbom('broken-cyclonedx-1.6-bad-type.json'),
      );
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error).toMatchObject({
        code: 'validation_error',
        message: expect.stringContaining('/components/0/type'),
        details: {
          '/components/0/type': [expect.stringContaining('must be equal to one of the allowed values')],
        },
      });
      const line = await call(
        'PUT',
        `${base}/empty/inventories/broken`,
        admin,
        sbom('broken-spdx-2.3-line-without-colon.spdx'),
        'text/spdx',
      );
      expect(line.statusCode).toBe(400);
      expect(line.json().error.details).toEqual({
        'line 41': [expect.stringContaining('PackageVersion 1.0.1f')],
      });
      const json = await call('PUT', `${base}/empty/inventories/broken`, admin, '{"bomFormat": ');
      expect(json.statusCode).toBe(400);
      expect(json.json().error.code).toBe('validation_error');
      expect(await call('GET', `${base}/empty/inventories/broken`, reader)).toHaveProperty('statusCode', 404);
      const name = await call(
        'PUT',
        `${base}/empty/inventories/-bad`,
        admin,
        sbom('cyclonedx-1.6-fixed.json'),
      );
      expect(name.statusCode).toBe(400);
    });

    it('deletes an inventory: its components go, the CVEs leave the project, tracker entries stay', async () => {
      expect(await cveIds('empty')).toEqual([HEARTBLEED]);
      const res = await call('DELETE', `${base}/empty/inventories/firmware`, admin);
      expect(res.statusCode, res.body).toBe(204);
      expect(await call('GET', `${base}/empty/inventories/firmware`, reader)).toHaveProperty(
        'statusCode',
        404,
      );
      expect(await cveIds('empty')).toEqual([]);
      expect(await auditOf('inventory.delete')).toEqual([
        { resource_name: 'empty/firmware', changes: { components: 2 } },
      ]);
    });
  });

  describe('VEX out', () => {
    it("exports the project's triage as CycloneDX VEX, tracker statuses mapped, the comment as detail", async () => {
      // `tv` still has the three; triage two of them.
      const patch = (id: string, status: string) =>
        api.app.inject({
          method: 'PATCH',
          url: `${base}/spdx/cves/${id}`,
          headers: { authorization: admin, 'content-type': 'application/json' },
          payload: JSON.stringify({ status }),
        });
      expect((await patch(HEARTBLEED, 'not_applicable')).statusCode).toBe(200);
      const comment = await call('POST', `${base}/spdx/cves/${HEARTBLEED}/comments`, admin, {
        body: 'code_not_reachable: the TLS heartbeat extension is disabled at build time.',
      });
      expect(comment.statusCode, comment.body).toBe(201);
      expect((await patch(XZ, 'remediation_in_progress')).statusCode).toBe(200);

      const res = await call('GET', `${base}/spdx/inventories/tv/vex`, reader);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toContain('application/vnd.cyclonedx+json');
      const bom = res.json();
      expect(bom).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.5', version: 1 });
      expect(bom.serialNumber).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);
      const byId = Object.fromEntries((bom.vulnerabilities as { id: string }[]).map((v) => [v.id, v]));
      expect(Object.keys(byId).sort()).toEqual(THREE);
      expect(byId[HEARTBLEED]).toEqual({
        id: HEARTBLEED,
        source: { name: 'NVD', url: `https://nvd.nist.gov/vuln/detail/${HEARTBLEED}` },
        analysis: {
          state: 'not_affected',
          justification: 'code_not_reachable',
          detail: 'code_not_reachable: the TLS heartbeat extension is disabled at build time.',
        },
        affects: [{ ref: 'SPDXRef-Package-generic-openssl' }],
      });
      expect(byId[XZ]).toMatchObject({ analysis: { state: 'exploitable' } });
      expect(byId[LOG4SHELL]).toMatchObject({ analysis: { state: 'in_triage' } });
    });

    it('exports OpenVEX 0.2.0, products by package URL, and a resolved upgrade as fixed', async () => {
      const res = await call('GET', `${base}/spdx/inventories/tv/vex?format=openvex`, reader);
      expect(res.statusCode, res.body).toBe(200);
      const doc = res.json();
      expect(doc).toMatchObject({ '@context': 'https://openvex.dev/ns/v0.2.0', version: 1 });
      expect(doc['@id']).toMatch(/^urn:uuid:/);
      expect(doc.timestamp).toMatch(/Z$/);
      expect(typeof doc.author).toBe('string');
      const byId = Object.fromEntries(
        (doc.statements as { vulnerability: { name: string } }[]).map((st) => [st.vulnerability.name, st]),
      );
      expect(byId[HEARTBLEED]).toEqual({
        vulnerability: { name: HEARTBLEED },
        products: [{ '@id': 'pkg:generic/openssl@1.0.1f' }],
        status: 'not_affected',
        justification: undefined,
        impact_statement: 'code_not_reachable: the TLS heartbeat extension is disabled at build time.',
      });
      expect(byId[XZ]).toMatchObject({ status: 'affected', action_statement: 'Remediation in progress.' });
      expect(byId[LOG4SHELL]).toMatchObject({ status: 'under_investigation' });

      // The upgraded `backend` of `shop`: the three fixed, each naming the component as it is now.
      const fixed = await call('GET', `${base}/shop/inventories/backend/vex?format=openvex`, reader);
      const statements = fixed.json().statements as {
        vulnerability: { name: string };
        status: string;
        products: unknown[];
      }[];
      expect(statements.map((st) => [st.vulnerability.name, st.status])).toEqual(
        THREE.map((id) => [id, 'fixed']),
      );
      expect(statements.find((st) => st.vulnerability.name === LOG4SHELL)!.products).toEqual([
        { '@id': 'pkg:maven/org.apache.logging.log4j/log4j-core@2.17.1' },
      ]);
      const bad = await call('GET', `${base}/shop/inventories/backend/vex?format=csaf`, reader);
      expect(bad.statusCode).toBe(400);
    });
  });

  describe('tenancy and scopes', () => {
    it("is a 404 for another organization's token, reading or writing", async () => {
      expectNotFound(await call('GET', `/api/v2/organizations/${org}/projects/shop/inventories`, other));
      expectNotFound(await call('GET', `${base}/shop/inventories/backend`, other));
      expectNotFound(await call('GET', `${base}/shop/inventories/backend/vex`, other));
      expectNotFound(
        await call('PUT', `${base}/shop/inventories/backend`, other, sbom('cyclonedx-1.6-vulnerable.json')),
      );
      expectNotFound(await call('DELETE', `${base}/shop/inventories/backend`, other));
      // Its own organization has no such project either.
      expectNotFound(
        await call('GET', `/api/v2/organizations/${org}-other/projects/shop/inventories`, other),
      );
    });

    it('refuses a read-only token to write, and a token without projects:read to read', async () => {
      expectReadOnly(
        await call('PUT', `${base}/shop/inventories/x`, reader, sbom('cyclonedx-1.6-fixed.json')),
      );
      expectReadOnly(await call('DELETE', `${base}/shop/inventories/backend`, reader));
      const tracker = (
        await createToken(api.services, owner.org.id, owner.actor, {
          mode: 'write',
          scopes: ['tracker:read'],
        })
      ).header;
      expectMissingScope(await call('GET', `${base}/shop/inventories`, tracker), 'projects:read');
      expectMissingScope(
        await call('PUT', `${base}/shop/inventories/x`, tracker, sbom('cyclonedx-1.6-fixed.json')),
        'projects:write',
      );
      expect(await call('GET', `${base}/shop/inventories/x`, reader)).toHaveProperty('statusCode', 404);
    });
  });
});
