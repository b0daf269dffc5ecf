/**
 * The MCP server over Streamable HTTP (`POST /mcp`), through the SDK's own client against the real
 * server listening on loopback, on both databases: the tools a token is offered, what they answer,
 * tenancy, scopes and the read-only mode, the triage and its audit entry, and the HTTP edge (401,
 * 405, security headers, rate limit).
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describeEachDatabase } from '../helpers/databases.ts';
import { buildProjectWorld, type ProjectWorld } from '../helpers/projects.ts';
import { buildTestApi } from '../helpers/api.ts';
import { createToken } from '../helpers/api.ts';
import { ALL_TOOLS, callTool, httpMcpClient, toolNames } from '../helpers/mcp.ts';

const LOG4SHELL = 'CVE-2021-44228';
const tokenOf = (header: string) => header.replace(/^Bearer /, '');

describeEachDatabase('MCP over Streamable HTTP', (use) => {
  let w: ProjectWorld;
  let baseUrl: string;
  let admin: string;
  const clients: Client[] = [];
  const connect = async (header: string) => {
    const client = await httpMcpClient(baseUrl, tokenOf(header));
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    w = await buildProjectWorld(use(), 'mcp');
    admin = await w.token({ mode: 'write', name: 'admin' });
    const base = `/api/v2/organizations/${w.org.name}/projects`;
    expect((await w.call('POST', base, admin, { name: 'web-apps' })).statusCode).toBe(201);
    const subs = await w.call('PUT', `${base}/web-apps/subscriptions`, admin, {
      vendors: ['tukaani'],
      products: { apache: ['log4j2'] },
    });
    expect(subs.statusCode).toBe(200);
    // A project of another organization, by a name this organization does not have.
    const otherBase = `/api/v2/organizations/${w.other.name}/projects`;
    expect((await w.call('POST', otherBase, w.other.header, { name: 'secret-apps' })).statusCode).toBe(201);
    await w.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(w.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await w.close();
  });

  describe('tools/list', () => {
    it('offers every tool to a read-write token, triage_cve not to a read token, only what the scopes allow', async () => {
      expect(await toolNames(await connect(admin))).toEqual(ALL_TOOLS);
      const reader = await connect(await w.token({ mode: 'read' }));
      expect(await toolNames(reader)).toEqual(ALL_TOOLS.filter((t) => t !== 'triage_cve'));
      const catalogOnly = await connect(await w.token({ mode: 'write', scopes: ['catalog:read'] }));
      expect(await toolNames(catalogOnly)).toEqual([
        'get_cve',
        'list_vendors_products',
        'match_components',
        'search_cves',
      ]);
      const tracker = await connect(await w.token({ mode: 'write', scopes: ['tracker:write'] }));
      expect(await toolNames(tracker)).toEqual(['project_cves', 'triage_cve', 'why_in_project']);
    });

    it('describes each tool with an input schema a model can fill', async () => {
      const { tools } = await (await connect(admin)).listTools();
      const search = tools.find((t) => t.name === 'search_cves')!;
      expect(search.description).toMatch(/plain words/);
      expect(search.inputSchema.properties).toHaveProperty('q');
      expect(search.annotations?.readOnlyHint).toBe(true);
      const triage = tools.find((t) => t.name === 'triage_cve')!;
      expect(triage.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
      expect(triage.inputSchema.required).toEqual(['project', 'cve_id']);
    });
  });

  describe('catalog tools', () => {
    it('search_cves "log4j" finds CVE-2021-44228, with its KEV flag and best CVSS', async () => {
      const answer = await callTool(await connect(admin), 'search_cves', { text: 'log4j' });
      expect(answer.isError).toBe(false);
      expect(answer.text).toContain(LOG4SHELL);
      const cve = answer.data.cves.find((c: { cve_id: string }) => c.cve_id === LOG4SHELL);
      expect(cve).toMatchObject({ kev: true, cvss: { score: 10, version: '3.1', severity: 'critical' } });
    });

    it('search_cves takes the query language and pages with next_cursor, at most 50 a page', async () => {
      const client = await connect(admin);
      const q = await callTool(client, 'search_cves', { q: 'kev=true AND cvss31>=9' });
      expect(q.data.cves.map((c: { cve_id: string }) => c.cve_id)).toContain(LOG4SHELL);
      expect(q.data.cves.every((c: { kev: boolean }) => c.kev)).toBe(true);
      const first = await callTool(client, 'search_cves', { page_size: 2, ordering: 'cve_id' });
      expect(first.data.cves).toHaveLength(2);
      const second = await callTool(client, 'search_cves', {
        page_size: 2,
        ordering: 'cve_id',
        cursor: first.data.next_cursor,
      });
      expect(second.data.cves[0].cve_id > first.data.cves[1].cve_id).toBe(true);
      const tooMany = await callTool(client, 'search_cves', { page_size: 51 });
      expect(tooMany.isError).toBe(true);
      const badQuery = await callTool(client, 'search_cves', { q: 'cvss31>>9' });
      expect(badQuery.isError).toBe(true);
      expect(badQuery.text).toMatch(/^validation_error: /);
    });

    it('get_cve names KEV (with its date), CVSS 10.0 with its source, SSVC, CWEs and the affected versions', async () => {
      const answer = await callTool(await connect(admin), 'get_cve', {
        cve_id: 'cve-2021-44228',
        history: true,
      });
      expect(answer.isError).toBe(false);
      expect(answer.text).toMatch(/CISA KEV since 2021-12-10/);
      expect(answer.text).toMatch(/CVSS 3\.1 10 \(critical, from vulnrichment\)/);
      expect(answer.data).toMatchObject({
        cve_id: LOG4SHELL,
        cvss: {
          score: 10,
          version: '3.1',
          source: 'vulnrichment',
          vector: expect.stringMatching(/^CVSS:3\.1\//),
        },
        kev: { listed: true, dateAdded: '2021-12-10' },
        ssvc: { options: { Exploitation: 'active' } },
        cwe: expect.arrayContaining(['CWE-502']),
        vendors_products: expect.arrayContaining(['apache / log4j2']),
      });
      expect(answer.data.affected[0].versions[0]).toMatch(/^2\.0-beta9/);
      expect(answer.data.history.length).toBeGreaterThan(0);
      const missing = await callTool(await connect(admin), 'get_cve', { cve_id: 'CVE-2099-99999' });
      expect(missing).toMatchObject({ isError: true, text: 'not_found: Not found.' });
    });

    it('list_vendors_products finds names with their CVE counts', async () => {
      const client = await connect(admin);
      const apache = await callTool(client, 'list_vendors_products', { search: 'log4' });
      expect(apache.data.products).toContainEqual({ vendor: 'apache', product: 'log4j2', cves: 1 });
      const products = await callTool(client, 'list_vendors_products', { vendor: 'Apache' });
      expect(products.data.products).toContainEqual({ product: 'log4j2', cves: 1 });
    });

    it('match_components says which CVEs affect a component at its version', async () => {
      const answer = await callTool(await connect(admin), 'match_components', {
        components: [
          { vendor: 'apache', product: 'log4j2', version: '2.14.1' },
          { vendor: 'apache', product: 'log4j2', version: '2.17.1' },
          'not a component',
        ],
      });
      expect(answer.isError).toBe(false);
      const [vulnerable, fixed, bad] = answer.data.components;
      expect(vulnerable.cves.map((c: { cve_id: string }) => c.cve_id)).toContain(LOG4SHELL);
      expect(fixed.cves.map((c: { cve_id: string }) => c.cve_id)).not.toContain(LOG4SHELL);
      expect(bad.error).toEqual(expect.any(String));
      const tooMany = await callTool(await connect(admin), 'match_components', {
        components: Array.from({ length: 101 }, (_, i) => `cpe:2.3:a:x:y:${i}:*:*:*:*:*:*:*`),
      });
      expect(tooMany.isError).toBe(true);
    });
  });

  describe('project tools', () => {
    it('list_projects and project_cves answer for the token’s organization', async () => {
      const client = await connect(admin);
      const projects = await callTool(client, 'list_projects', {});
      expect(projects.data.projects.map((p: { name: string }) => p.name)).toEqual(['web-apps']);
      const open = await callTool(client, 'project_cves', {
        project: 'web-apps',
        kev: true,
        status: 'no_status',
      });
      expect(open.data.cves.map((c: { cve_id: string }) => c.cve_id)).toEqual([LOG4SHELL]);
      expect(open.data.cves[0].triage).toEqual({ status: null });
    });

    it('project_cves of another organization’s project is not_found, as the API answers', async () => {
      const answer = await callTool(await connect(admin), 'project_cves', { project: 'secret-apps' });
      expect(answer).toMatchObject({ isError: true, text: 'not_found: Not found.' });
      // The other organization's own token sees it.
      const theirs = await callTool(await connect(w.other.header), 'project_cves', {
        project: 'secret-apps',
      });
      expect(theirs.isError).toBe(false);
    });

    it('why_in_project names the subscribed product and where the CVE got it', async () => {
      const client = await connect(admin);
      const why = await callTool(client, 'why_in_project', { project: 'web-apps', cve_id: LOG4SHELL });
      expect(why.data).toMatchObject({ in_project: true, outcome: 'matched' });
      expect(why.text).toMatch(/is in web-apps: it carries apache \/ log4j2/);
      const not = await callTool(client, 'why_in_project', { project: 'web-apps', cve_id: 'CVE-2023-4863' });
      expect(not.data).toMatchObject({ in_project: false, outcome: 'no_subscribed_key' });
    });

    it('a token without tracker:read is refused with missing_scope, naming the scope', async () => {
      const client = await connect(await w.token({ mode: 'read', scopes: ['catalog:read'] }));
      const answer = await callTool(client, 'project_cves', { project: 'web-apps' });
      expect(answer.isError).toBe(true);
      expect(answer.text).toMatch(/^missing_scope: .*Required scope: tracker:read\./);
    });
  });

  describe('triage_cve', () => {
    const trackerRow = () =>
      w.services.projectCves.getCve(w.org.id, 'web-apps', LOG4SHELL).then((c) => c.tracker);

    it('is refused to a read-only token with read_only_token, and nothing changes', async () => {
      const client = await connect(await w.token({ mode: 'read', scopes: ['tracker:read'] }));
      const answer = await callTool(client, 'triage_cve', {
        project: 'web-apps',
        cve_id: LOG4SHELL,
        status: 'resolved',
      });
      expect(answer).toMatchObject({
        isError: true,
        text: 'read_only_token: This token is read-only and cannot perform write operations.',
      });
      expect((await trackerRow()).status).toBeNull();
    });

    it('with a read-write token changes the status and writes the audit entry as "<token> via mcp"', async () => {
      const triager = await w.token({ mode: 'write', scopes: ['tracker:write'], name: 'assistant' });
      const client = await connect(triager);
      const answer = await callTool(client, 'triage_cve', {
        project: 'web-apps',
        cve_id: LOG4SHELL,
        status: 'analysis_in_progress',
        assignee: w.member.email,
        comment: 'Checking which services ship log4j-core.',
      });
      expect(answer.isError).toBe(false);
      expect(answer.text).toMatch(/audited as token assistant via mcp/);
      expect(answer.data.triage).toMatchObject({ status: 'analysis_in_progress', assignee: w.member.email });
      expect(await trackerRow()).toMatchObject({ status: 'analysis_in_progress', assignee: w.member.email });
      const entries = await w.services.database.db
        .selectFrom('audit_log')
        .select(['action', 'actor_type', 'actor_id', 'actor_name', 'resource_type', 'changes'])
        .where('organization_id', '=', w.org.id)
        .where('actor_name', '=', 'assistant via mcp')
        .orderBy('seq')
        .execute();
      expect(entries.map((e) => [e.action, e.actor_type])).toEqual([
        ['tracker_entry.create', 'token'],
        ['tracker_comment.create', 'token'],
      ]);
      expect(entries[0]!.changes).toMatchObject({ status: { old: null, new: 'analysis_in_progress' } });
      // The audit API shows the same actor.
      const log = await w.call(
        'GET',
        `/api/v2/organizations/${w.org.name}/audit-logs?resource=tracker_entry`,
        admin,
      );
      expect(log.json().results[0].actor).toMatchObject({ type: 'token', name: 'assistant via mcp' });
      // The status filter sees the move.
      const moved = await callTool(client, 'project_cves', {
        project: 'web-apps',
        status: 'analysis_in_progress',
      });
      expect(moved.data.cves.map((c: { cve_id: string }) => c.cve_id)).toEqual([LOG4SHELL]);
    });

    it('refuses an assignee who is not a member, and a CVE outside the project', async () => {
      const client = await connect(admin);
      const stranger = await callTool(client, 'triage_cve', {
        project: 'web-apps',
        cve_id: LOG4SHELL,
        assignee: w.outsider.email,
      });
      expect(stranger.text).toMatch(/^validation_error: .*assignee: .* is not a member/);
      const outside = await callTool(client, 'triage_cve', {
        project: 'web-apps',
        cve_id: 'CVE-2023-4863',
        status: 'resolved',
      });
      expect(outside.text).toBe('not_found: Not found.');
    });
  });

  describe('resources', () => {
    it('reads a CVE and a project summary; another organization’s summary is not found', async () => {
      const client = await connect(admin);
      const cve = await client.readResource({ uri: `vulntrack://cve/${LOG4SHELL}` });
      expect(JSON.parse((cve.contents[0] as { text: string }).text)).toMatchObject({
        cve_id: LOG4SHELL,
        kev: { listed: true },
      });
      const { resources } = await client.listResources();
      const uri = `vulntrack://project/${w.org.name}/web-apps/summary`;
      expect(resources.map((r) => r.uri)).toContain(uri);
      const summary = JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text);
      expect(summary).toMatchObject({ project: 'web-apps', open_kev: 1, open_critical: expect.any(Number) });
      expect(summary.total).toBeGreaterThanOrEqual(2);
      await expect(
        client.readResource({ uri: `vulntrack://project/${w.other.name}/secret-apps/summary` }),
      ).rejects.toThrow(/not_found/);
      // A token that may not read the tracker is offered no summary, and refused one.
      const catalogOnly = await connect(await w.token({ mode: 'read', scopes: ['catalog:read'] }));
      expect((await catalogOnly.listResources()).resources).toEqual([]);
      await expect(catalogOnly.readResource({ uri })).rejects.toThrow(/missing_scope/);
    });
  });

  describe('HTTP', () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

    it('answers 401 in the API envelope without a valid token, before any MCP', async () => {
      for (const authorization of [undefined, 'Bearer vtr_org.nope.nope']) {
        const res = await fetch(`${baseUrl}/mcp`, {
          method: 'POST',
          headers: { ...headers, ...(authorization ? { authorization } : {}) },
          body: JSON.stringify(initialize),
        });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        expect(await res.json()).toEqual({
          error: { code: 'invalid_token', message: 'Invalid or missing token.' },
        });
      }
    });

    it('answers with the security headers, and GET is a 405 (stateless: no server stream)', async () => {
      const res = await fetch(`${baseUrl}/mcp`, {
        method: 'POST',
        headers: { ...headers, authorization: admin },
        body: JSON.stringify(initialize),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(res.headers.get('mcp-session-id')).toBeNull();
      expect((await res.json()).result.serverInfo.name).toBe('vulntrack');
      const get = await fetch(`${baseUrl}/mcp`, { headers: { authorization: admin } });
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST');
    });

    it('counts /mcp requests in the token’s API v2 budget (RATE_LIMIT_PER_MINUTE)', async () => {
      const api = await buildTestApi(use(), { RATE_LIMIT_PER_MINUTE: '3' });
      try {
        const system = { type: 'system', id: null, name: 'system' } as const;
        const { header } = await createToken(api.services, w.org.id, system);
        const post = (authorization = header) =>
          api.app.inject({
            method: 'POST',
            url: '/mcp',
            headers: { ...headers, authorization },
            payload: initialize,
          });
        const apiCall = () =>
          api.app.inject({ url: '/api/v2/cves?page_size=1', headers: { authorization: header } });
        expect((await apiCall()).statusCode).toBe(200);
        expect((await post()).statusCode).toBe(200);
        expect((await post()).statusCode).toBe(200);
        const limited = await post();
        expect(limited.statusCode).toBe(429);
        expect(limited.json().error.code).toBe('rate_limited');
        expect(limited.headers['retry-after']).toBeDefined();
        expect((await apiCall()).statusCode).toBe(429);
        // Another token has a budget of its own.
        expect((await post((await createToken(api.services, w.org.id, system)).header)).statusCode).toBe(200);
      } finally {
        await api.close();
      }
    });
  });
});
