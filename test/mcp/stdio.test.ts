/**
 * `vulntrack mcp` over stdio, through the SDK's StdioClientTransport spawning the real CLI, on both
 * databases: against the local data dir (or DATABASE_URL) with `--token`, and passing every call to a
 * running server's `/mcp` with `--url` (the token from VULNTRACK_TOKEN). The same proofs as over HTTP:
 * the tools listed, log4j found, KEV and 10.0 named, another organization's project not found, the
 * read-only refusal, and a triage with its audit entry.
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Database } from '../../src/db/client.ts';
import { backends, cliDatabase } from '../helpers/databases.ts';
import { buildProjectWorld } from '../helpers/projects.ts';
import { buildTestApi } from '../helpers/api.ts';
import { projectRoot, runCli } from '../helpers/cli.ts';
import { ALL_TOOLS, callTool, toolNames } from '../helpers/mcp.ts';

const LOG4SHELL = 'CVE-2021-44228';
/** The server secret of buildTestApi's services: the CLI must hash tokens with the same one. */
const SECRET = 'test-secret-'.padEnd(40, 'x');

for (const backend of backends) {
  // Each test starts the CLI two or three times (a few seconds each on a busy machine).
  describe(`vulntrack mcp (stdio) [${backend}]`, { timeout: 240_000 }, () => {
    let workDir: string;
    let db: Awaited<ReturnType<typeof cliDatabase>>;
    let env: Record<string, string>;
    let org: { id: string; name: string };
    const tokens: Record<'write' | 'read' | 'triager', string> = { write: '', read: '', triager: '' };

    /** A client of `vulntrack mcp` with these arguments (and environment). */
    const spawnMcp = async (args: string[], extra: Record<string, string> = {}) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [path.join(projectRoot, 'bin/vulntrack.js'), 'mcp', ...args],
        cwd: projectRoot,
        env: { ...(process.env as Record<string, string>), SYNC_SOURCES: 'none', ...env, ...extra },
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const client = new Client({ name: 'vulntrack-test', version: '1.0.0' });
      try {
        await client.connect(transport);
      } catch (err) {
        throw new Error(`vulntrack mcp did not start: ${(err as Error).message}\n${stderr}`);
      }
      return { client, stderr: () => stderr };
    };

    const auditOf = async (database: Database, actorName: string) =>
      database.db
        .selectFrom('audit_log')
        .select(['action', 'actor_type', 'actor_name', 'changes'])
        .where('organization_id', '=', org.id)
        .where('actor_name', '=', actorName)
        .orderBy('seq')
        .execute();

    beforeAll(async () => {
      workDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'vulntrack-mcp-'));
      db = await cliDatabase(backend, workDir);
      env = { ...(db.env as Record<string, string>), VULNTRACK_SECRET: SECRET };
      const database = await db.open();
      try {
        const w = await buildProjectWorld(database, 'stdio');
        org = w.org;
        tokens.write = (await w.token({ mode: 'write', name: 'admin' })).replace(/^Bearer /, '');
        tokens.read = (await w.token({ mode: 'read', name: 'reader' })).replace(/^Bearer /, '');
        tokens.triager = (await w.token({ mode: 'write', scopes: ['tracker:write'], name: 'desk' })).replace(
          /^Bearer /,
          '',
        );
        const admin = `Bearer ${tokens.write}`;
        const base = `/api/v2/organizations/${org.name}/projects`;
        expect((await w.call('POST', base, admin, { name: 'web-apps' })).statusCode).toBe(201);
        const subs = { products: { apache: ['log4j2'] } };
        expect((await w.call('PUT', `${base}/web-apps/subscriptions`, admin, subs)).statusCode).toBe(200);
        const other = `/api/v2/organizations/${w.other.name}/projects`;
        expect((await w.call('POST', other, w.other.header, { name: 'secret-apps' })).statusCode).toBe(201);
        await w.close();
      } finally {
        await database.close();
      }
    });
    afterAll(async () => {
      await db.drop();
      await fsp.rm(workDir, { recursive: true, force: true });
    });

    it('serves the local data dir as the token: tools, search, CVE, tenancy, read-only, triage', async () => {
      const reader = await spawnMcp(['--token', tokens.read]);
      try {
        expect(await toolNames(reader.client)).toEqual(ALL_TOOLS.filter((t) => t !== 'triage_cve'));
        const search = await callTool(reader.client, 'search_cves', { text: 'log4j' });
        expect(search.data.cves.map((c: { cve_id: string }) => c.cve_id)).toContain(LOG4SHELL);
        const cve = await callTool(reader.client, 'get_cve', { cve_id: LOG4SHELL });
        expect(cve.text).toMatch(/CVSS 3\.1 10 .*In CISA KEV since 2021-12-10/);
        expect(cve.data).toMatchObject({ kev: { listed: true }, cvss: { score: 10 } });
        const theirs = await callTool(reader.client, 'project_cves', { project: 'secret-apps' });
        expect(theirs).toMatchObject({ isError: true, text: 'not_found: Not found.' });
        const refused = await callTool(reader.client, 'triage_cve', {
          project: 'web-apps',
          cve_id: LOG4SHELL,
          status: 'resolved',
        });
        expect(refused.text).toMatch(/^read_only_token: /);
      } finally {
        await reader.client.close();
      }

      const writer = await spawnMcp(['--token', tokens.triager]);
      try {
        expect(await toolNames(writer.client)).toEqual(['project_cves', 'triage_cve', 'why_in_project']);
        const moved = await callTool(writer.client, 'triage_cve', {
          project: 'web-apps',
          cve_id: LOG4SHELL,
          status: 'remediation_in_progress',
        });
        expect(moved.isError).toBe(false);
        expect(moved.data.triage).toMatchObject({ status: 'remediation_in_progress' });
        // Nothing but MCP messages on stdout: the SDK's client would have failed to parse anything else.
        expect(writer.stderr()).toMatch(/vulntrack MCP server on stdio/);
      } finally {
        await writer.client.close();
      }
      // The process has ended (the data dir is free again): read what it wrote.
      const database = await db.open();
      try {
        const entries = await auditOf(database, 'desk via mcp');
        expect(entries.map((e) => [e.action, e.actor_type])).toEqual([['tracker_entry.create', 'token']]);
        expect(entries[0]!.changes).toMatchObject({ status: { old: null, new: 'remediation_in_progress' } });
      } finally {
        await database.close();
      }
    });

    it('refuses to start without a token or with a bad one', async () => {
      const none = await runCli(['mcp'], { ...env, VULNTRACK_TOKEN: '' });
      expect(none.code).toBe(2);
      expect(none.stderr).toMatch(/no token: give --token <token> or set VULNTRACK_TOKEN/);
      const bad = await runCli(
        ['mcp', '--token', 'vtr_org.aaaaaaaaaaaa.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'],
        env,
      );
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/invalid_token: Invalid or missing token\./);
      expect(bad.stdout).toBe('');
    });

    it('with --url passes every call to a running server’s /mcp (token from VULNTRACK_TOKEN)', async () => {
      const database = await db.open();
      const api = await buildTestApi(database);
      try {
        await api.app.listen({ port: 0, host: '127.0.0.1' });
        const url = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
        // No data dir nor database for this process: it must not need one.
        const noLocal = { VULNTRACK_DATA_DIR: path.join(workDir, 'absent'), DATABASE_URL: '' };
        const reader = await spawnMcp(['--url', url], { ...noLocal, VULNTRACK_TOKEN: tokens.read });
        try {
          expect(await toolNames(reader.client)).toEqual(ALL_TOOLS.filter((t) => t !== 'triage_cve'));
          const cve = await callTool(reader.client, 'get_cve', { cve_id: LOG4SHELL });
          expect(cve.data).toMatchObject({ kev: { listed: true }, cvss: { score: 10 } });
          const theirs = await callTool(reader.client, 'project_cves', { project: 'secret-apps' });
          expect(theirs.text).toBe('not_found: Not found.');
          const refused = await callTool(reader.client, 'triage_cve', {
            project: 'web-apps',
            cve_id: LOG4SHELL,
            status: 'resolved',
          });
          expect(refused.text).toMatch(/^read_only_token: /);
          const resource = await reader.client.readResource({
            uri: `vulntrack://project/${org.name}/web-apps/summary`,
          });
          expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({ open_kev: 1 });
        } finally {
          await reader.client.close();
        }
        const writer = await spawnMcp(['--url', url], { ...noLocal, VULNTRACK_TOKEN: tokens.write });
        try {
          const moved = await callTool(writer.client, 'triage_cve', {
            project: 'web-apps',
            cve_id: LOG4SHELL,
            status: 'resolved',
            comment: 'Patched to 2.17.1 everywhere.',
          });
          expect(moved.isError).toBe(false);
        } finally {
          await writer.client.close();
        }
        const entries = await auditOf(database, 'admin via mcp');
        expect(entries.map((e) => e.action)).toEqual(['tracker_entry.update', 'tracker_comment.create']);
        expect(entries[0]!.changes).toMatchObject({
          status: { old: 'remediation_in_progress', new: 'resolved' },
        });
        const bad = await runCli(
          ['mcp', '--url', url, '--token', 'vtr_org.aaaaaaaaaaaa.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'],
          noLocal,
        );
        expect(bad.code).toBe(1);
        expect(bad.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+/);
      } finally {
        await api.close();
        await database.close();
      }
    });
  });
}
