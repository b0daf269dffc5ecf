/**
 * `vulntrack inventory upload|list|delete` on the server host, against both databases: Heartbleed
 * (the NVD 1.1 feed) found in a CycloneDX SBOM's OpenSSL 1.0.1f by its CPE, then resolved by the
 * upgraded SBOM, each upload printing its summary line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { backends, cliDatabase } from '../helpers/databases.ts';

const sbom = (name: string) => path.resolve('test/fixtures/sbom', name);

for (const backend of backends) {
  describe(`vulntrack inventory [${backend}]`, { timeout: 240_000 }, () => {
    let workDir: string;
    let env: NodeJS.ProcessEnv;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-cli-inventory-'));
      const db = await cliDatabase(backend, workDir);
      drop = db.drop;
      env = { ...db.env, VULNTRACK_LOAD_SAMPLE: 'false' };
      for (const args of [
        [
          'user',
          'create',
          '--username',
          'alice',
          '--email',
          'alice@example.com',
          '--password',
          'correct horse',
        ],
        ['org', 'create', 'acme', '--owner', 'alice'],
        ['project', 'create', 'acme', 'shop'],
        ['import', 'nvd', path.resolve('test/fixtures/nvd/feed-1.1-heartbleed.json.gz')],
      ]) {
        const r = await runCli(args, env);
        expect({ args, code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
      }
    });
    afterAll(async () => {
      await drop();
      fs.rmSync(workDir, { recursive: true, force: true });
    });

    it('uploads an SBOM and prints what it read and found', async () => {
      const r = await runCli(
        [
          'inventory',
          'upload',
          'acme',
          'shop',
          'backend',
          sbom('cyclonedx-1.6-vulnerable.json'),
          '--uploaded-by',
          'alice',
        ],
        env,
      );
      expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
      expect(r.stdout).toContain('shop/backend: 3 components read (0 without a version');
      expect(r.stdout).toMatch(/1 CVEs; 1 entered the project, 0 resolved/);
    });

    it('resolves Heartbleed when the upgraded SBOM replaces it, naming the versions', async () => {
      const r = await runCli(
        ['--json', 'inventory', 'upload', 'acme', 'shop', 'backend', sbom('cyclonedx-1.6-fixed.json')],
        env,
      );
      expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
      expect(JSON.parse(r.stdout)).toMatchObject({
        cves: 0,
        resolved: [
          { cve_id: 'CVE-2014-0160', changes: [{ name: 'openssl', before: '1.0.1f', after: '1.0.1g' }] },
        ],
      });
    });

    it('lists and deletes; a bad document and an unknown project are errors', async () => {
      const list = await runCli(['--json', 'inventory', 'list', 'acme', 'shop'], env);
      expect(list.code).toBe(0);
      expect(JSON.parse(list.stdout)).toMatchObject([
        { name: 'backend', format: 'cyclonedx', components: 3, cves: 0, uploaded_by: 'system' },
      ]);
      const bad = await runCli(
        ['inventory', 'upload', 'acme', 'shop', 'x', sbom('broken-cyclonedx-1.6-bad-type.json')],
        env,
      );
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('/components/0/type');
      const missing = await runCli(['inventory', 'upload', 'acme', 'shop', 'x', '/no/such.json'], env);
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain('no such file');
      const del = await runCli(['inventory', 'delete', 'acme', 'shop', 'backend'], env);
      expect({ code: del.code, stdout: del.stdout }).toMatchObject({
        code: 0,
        stdout: 'deleted inventory shop/backend\n',
      });
      const empty = await runCli(['inventory', 'list', 'acme', 'shop'], env);
      expect(empty.stdout).toContain('shop has no inventory');
    });
  });
}
