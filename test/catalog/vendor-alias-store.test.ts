/**
 * The alias table as the catalog keeps it: the shipped table a new install maps with, learning anew
 * from the catalog's own records, the operator's aliases and vetoes (service, API v2), and a second
 * process seeing a change through the stored revision.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../src/sources/index.ts';
import { SAMPLE_DIR } from '../../src/services/sample.service.ts';
import {
  aliasTableOfCve5File,
  SHIPPED_ALIASES,
  VendorAliasService,
} from '../../src/services/vendor-alias.service.ts';
import { AppError } from '../../src/domain/errors.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { fixture } from '../helpers/catalog.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

const qnapQts = { cna: { affected: [{ vendor: 'QNAP Systems Inc.', product: 'QTS' }] } };

describe('the shipped alias table', () => {
  it('is what the bundled sample teaches (run `npm run learn-sample-aliases` after a change of the rules)', async () => {
    const learned = await aliasTableOfCve5File(path.join(SAMPLE_DIR, 'cve5-sample.jsonl.gz'));
    const shipped = JSON.parse(gunzipSync(fs.readFileSync(SHIPPED_ALIASES)).toString()) as unknown;
    expect(learned.learnedFrom).toBeGreaterThan(1000);
    expect(shipped).toEqual(learned);
  });
});

describeEachDatabase('vendor aliases', (use) => {
  let api: TestApi;
  let adminToken: string;
  let memberToken: string;
  let readToken: string;

  beforeAll(async () => {
    api = await buildTestApi(use());
    // A server administrator's organization, and another whose owner is not one.
    const admin = await api.services.accounts.createUser({
      username: 'root-admin',
      email: 'root@aliases.example',
      password: 'correct horse battery staple',
      isAdmin: true,
    });
    const adminOrg = await api.services.accounts.createOrganization('aliases', admin.username);
    const adminActor = { type: 'user' as const, id: admin.id, name: admin.username };
    adminToken = (await createToken(api.services, adminOrg.id, adminActor)).header;
    const { org, actor } = await createOrganization(api.services, 'others');
    memberToken = (await createToken(api.services, org.id, actor)).header;
    readToken = (await createToken(api.services, org.id, actor, { mode: 'read' })).header;
  });
  afterAll(() => api.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, token: string, payload?: object) =>
    api.app.inject({ method, url, headers: { authorization: token }, ...(payload ? { payload } : {}) });

  it('a new catalog maps with the table learned from the bundled sample', async () => {
    const mapper = await api.services.vendorAliases.mapper();
    const status = await api.services.vendorAliases.status();
    expect(status).toMatchObject({ origin: 'shipped', overrides: 0 });
    expect(status.learnedFrom).toBeGreaterThan(1000);
    // "QNAP Systems Inc." is learned from the sample's QNAP records (CPE vendor `qnap`).
    const mapped = mapper.map(qnapQts);
    expect(mapped.vendors).toEqual(['qnap']);
    expect(mapped.evidence.qnap).toMatchObject({ source: 'cna-text', rule: 'alias' });
  });

  it('learns anew from the catalog: every CVE with CNA text and CPEs teaches', async () => {
    await api.services.imports.importInputs(sources.cve5, [fixture('cve5', 'aliases', 'teaching.jsonl')]);
    const progress: number[] = [];
    const report = await api.services.vendorAliases.learn((step) => {
      if ('read' in step) progress.push(step.read);
    });
    expect(report).toMatchObject({ origin: 'learned', read: 5, learnedFrom: 5 });
    expect(progress.at(-1)).toBe(5);
    const explained = await api.services.vendorAliases.explain('QNAP Systems Inc.', 'QTS');
    // CVE-2024-27127 and -27128 name QTS with CISA-ADP's qnap:qts CPE; quts_hero, from the same
    // records, is taught to their "QuTS hero" entries only (learning per affected entry, issue 30).
    expect(explained.evidence).toEqual({
      records: 2,
      keys: [{ key: 'qnap$PRODUCT$qts', records: 2, confident: true }],
    });
    expect(explained.mapped.products).toContain('qnap$PRODUCT$qts');
    const vendor = await api.services.vendorAliases.explain('Palo Alto Networks');
    expect(vendor.evidence?.keys[0]).toEqual({ key: 'paloaltonetworks', records: 2, confident: true });
  });

  it("an operator's veto and alias apply at once, also in another process (the revision moves)", async () => {
    const other = new VendorAliasService(use().db);
    expect((await other.mapper()).map(qnapQts).vendors).toEqual(['qnap']);
    await api.services.vendorAliases.setOverride(
      { vendorText: 'QNAP', key: 'qnap', action: 'veto' },
      { commandLine: 'ops' },
    );
    await api.services.vendorAliases.setOverride(
      { vendorText: 'Acme Widgets Ltd', key: 'acme', action: 'add' },
      { commandLine: null },
    );
    const mapper = await other.mapper();
    // "QNAP" and "QNAP Systems Inc." are one text; the veto takes the vendor key, not the product's.
    expect(mapper.map(qnapQts).vendors).toEqual([]);
    expect(mapper.map(qnapQts).products).toContain('qnap$PRODUCT$qts');
    const acme = mapper.map({ cna: { affected: [{ vendor: 'ACME Widgets', product: 'Anvil' }] } });
    expect(acme.vendors).toEqual(['acme']);
    expect(acme.evidence.acme).toEqual({ source: 'cna-text', rule: 'operator', text: 'ACME Widgets' });

    await api.services.vendorAliases.removeOverride(
      { vendorText: 'QNAP Systems', key: 'qnap' },
      { commandLine: null },
    );
    expect((await other.mapper()).map(qnapQts).vendors).toEqual(['qnap']);
  });

  it('refuses a placeholder text, a malformed key, or a key of the wrong kind, with a sentence', async () => {
    const set = (vendorText: string, key: string, productText?: string) =>
      api.services.vendorAliases.setOverride(
        { vendorText, productText, key, action: 'add' },
        { commandLine: null },
      );
    await expect(set('n/a', 'acme')).rejects.toThrow(/placeholder or empty/);
    await expect(set('Acme', 'Acme Corp!')).rejects.toThrow(/not a catalog key/);
    await expect(set('Acme', 'acme$PRODUCT$anvil')).rejects.toThrow(/is a product key/);
    await expect(set('Acme', 'acme', 'Anvil')).rejects.toThrow(/is a vendor key/);
    await expect(
      api.services.vendorAliases.removeOverride(
        { vendorText: 'Nobody', key: 'nobody' },
        { commandLine: null },
      ),
    ).rejects.toBeInstanceOf(AppError);
  });

  describe('API v2 /vendor-aliases', () => {
    it('shows the table and what a text maps to (catalog:read)', async () => {
      const res = await call('GET', '/api/v2/vendor-aliases', readToken);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ origin: 'learned', learned_from: 5 });
      const explained = await call(
        'GET',
        `/api/v2/vendor-aliases/explain?vendor=${encodeURIComponent('Palo Alto Networks')}`,
        readToken,
      );
      expect(explained.statusCode).toBe(200);
      expect(explained.json()).toMatchObject({
        vendor: 'Palo Alto Networks',
        product: null,
        keys: [{ key: 'paloaltonetworks', source: 'cna-text', rule: 'alias', support: 2, records: 2 }],
      });
      const placeholder = await call('GET', '/api/v2/vendor-aliases/explain?vendor=n%2Fa', readToken);
      expect(placeholder.statusCode).toBe(400);
      expect(placeholder.json().error.message).toMatch(/placeholder/);
    });

    it("an administrator's write token adds and removes an override; nobody else's can", async () => {
      const body = { vendor: 'Rockwell Automation', key: 'rockwellautomation', action: 'add' };
      const denied = await call('POST', '/api/v2/vendor-aliases/overrides', memberToken, body);
      expect(denied.statusCode).toBe(403);
      expect(denied.json().error).toMatchObject({ code: 'permission_denied' });
      expect(denied.json().error.message).toMatch(/server administrator/);
      const readOnly = await call('POST', '/api/v2/vendor-aliases/overrides', readToken, body);
      expect(readOnly.json().error).toMatchObject({ code: 'read_only_token' });

      const created = await call('POST', '/api/v2/vendor-aliases/overrides', adminToken, body);
      expect(created.statusCode).toBe(201);
      expect(created.json()).toMatchObject({
        vendor: 'Rockwell Automation',
        product: null,
        key: 'rockwellautomation',
        action: 'add',
        created_by: 'root-admin',
      });
      const listed = await call('GET', '/api/v2/vendor-aliases', readToken);
      expect(listed.json().overrides.map((o: { key: string }) => o.key)).toContain('rockwellautomation');

      const url = `/api/v2/vendor-aliases/overrides?vendor=${encodeURIComponent('Rockwell Automation')}&key=rockwellautomation`;
      expect((await call('DELETE', url, memberToken)).statusCode).toBe(403);
      expect((await call('DELETE', url, adminToken)).statusCode).toBe(204);
      const again = await call('DELETE', url, adminToken);
      expect(again.statusCode).toBe(404);
      expect(again.json().error.message).toMatch(/No alias or veto/);
    });
  });
});
