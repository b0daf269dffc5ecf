import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, waitForOutput } from '../helpers/cli.ts';

const fixtures = path.resolve('test/fixtures');
const nvdRecords = [
  'CVE-2019-25161',
  'CVE-2021-36593',
  'CVE-2022-20698',
  'CVE-2023-4863',
  'CVE-2024-3094',
  'CVE-2024-31331',
].map((id) => path.join(fixtures, 'nvd', `${id}.json`));

describe('vulntrack CLI', { timeout: 180_000 }, () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-cli-'));
    env = { VULNTRACK_DATA_DIR: dataDir, DATABASE_URL: '', VULNTRACK_LOAD_SAMPLE: 'false' };
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  describe('import', () => {
    it('exits 2 with one sentence for an unknown source', async () => {
      const r = await runCli(['import', 'bogus', fixtures], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('unknown source "bogus"; use one of cve5, nvd, kev, epss, cwe, opencve-kb');
    });

    it('exits 2 when a path does not exist', async () => {
      const r = await runCli(['import', 'cve5', '/no/such/path.jsonl'], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('/no/such/path.jsonl: no such file or folder');
    });

    it('exits 2 on a missing argument', async () => {
      const r = await runCli(['import', 'cve5'], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/missing required argument/);
    });

    it('imports a folder and prints the counts as JSON with --json', async () => {
      const r = await runCli(['--json', 'import', 'cve5', path.join(fixtures, 'cve5/cves')], env);
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout) as {
        status: string;
        counts: Record<string, number>;
        changes: number;
      };
      expect(report.status).toBe('completed');
      expect(report.counts).toMatchObject({ imported: 9, updated: 0, unchanged: 0, skipped: 0 });
      expect(report.changes).toBe(9);
    });

    it('reports unchanged records on a second import, in words without --json', async () => {
      const r = await runCli(['import', 'cve5', path.join(fixtures, 'cve5/cves')], env);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^cve5: 0 imported, 0 updated, 9 unchanged, 0 skipped; 0 changes recorded/);
    });

    it('exits 3 and lists each skipped record when the input is partly malformed', async () => {
      const file = path.join(dataDir, 'mixed.jsonl');
      const good = fs.readFileSync(path.join(fixtures, 'cve5/cves/2024/3xxx/CVE-2024-3094.json'), 'utf8');
      fs.writeFileSync(
        file,
        [
          JSON.stringify(JSON.parse(good)),
          '{"cveMetadata": {"cveId": "CVE-2024-',
          '{"cveMetadata":{"cveId":"NOT-AN-ID"},"containers":{}}',
        ].join('\n'),
      );
      const r = await runCli(['import', 'cve5', file], env);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(`skipped ${file}:2: malformed JSON`);
      expect(r.stderr).toContain(`skipped ${file}:3 (NOT-AN-ID): invalid CVE id "NOT-AN-ID"`);
      expect(r.stderr).toContain('the import was partial: 2 malformed records were skipped');
      expect(r.stdout).toContain('1 unchanged');
    });

    it('imports every record of a .jsonl whose middle record holds U+0000, which it stores without', async () => {
      const file = path.join(dataDir, 'nul.jsonl');
      const [first, last] = fs
        .readFileSync(path.join(fixtures, 'cve5/vulnrichment-2-records.jsonl'), 'utf8')
        .split('\n');
      const xz = JSON.parse(
        fs.readFileSync(path.join(fixtures, 'cve5/cves/2024/3xxx/CVE-2024-3094.json'), 'utf8'),
      ) as { containers: { cna: { descriptions: { value: string }[] } } };
      xz.containers.cna.descriptions[0]!.value += '\u0000';
      fs.writeFileSync(file, [first, JSON.stringify(xz), last].join('\n'));
      const r = await runCli(['import', 'cve5', file], env);
      expect(r.stderr).not.toContain('unsupported Unicode escape sequence');
      expect(r.code).toBe(0);
      // CVE-2024-3094 was imported above: without the NUL, its record is the one stored.
      expect(r.stdout).toMatch(/^cve5: 2 imported, 0 updated, 1 unchanged, 0 skipped/);
    });
  });

  describe('serve', () => {
    it('holds the data dir: a second server is refused, an import is handed to the running one, the lock goes with it', async () => {
      const server = startCli(['serve'], { ...env, PORT: '0', HOST: '127.0.0.1' });
      try {
        await waitForOutput(server, /vulntrack listening/);
        expect(fs.existsSync(path.join(dataDir, 'vulntrack.lock'))).toBe(true);

        const second = await runCli(['serve'], { ...env, PORT: '0' });
        expect(second.code).toBe(1);
        expect(second.stderr).toContain(`The data dir ${dataDir} is in use by process ${server.pid}`);

        const handed = await runCli(['--json', 'import', 'nvd', ...nvdRecords], env);
        expect(handed.stderr).toContain(`handing the command to the running server (pid ${server.pid})`);
        expect(handed.code).toBe(0);
        const report = JSON.parse(handed.stdout) as { counts: { imported: number; updated: number } };
        expect(report.counts.imported + report.counts.updated).toBe(6);
      } finally {
        server.kill('SIGTERM');
        await once(server, 'close');
      }
      expect(fs.existsSync(path.join(dataDir, 'vulntrack.lock'))).toBe(false);
      expect(fs.existsSync(path.join(dataDir, 'control.sock'))).toBe(false);
      // The data survived the server: the next import sees the NVD records as unchanged.
      const again = await runCli(['--json', 'import', 'nvd', ...nvdRecords], env);
      expect((JSON.parse(again.stdout) as { counts: Record<string, number> }).counts.unchanged).toBe(6);
    });
  });

  describe('configuration', () => {
    it('stops with a message naming the variable when a setting is invalid', async () => {
      const r = await runCli(['migrate'], { ...env, PORT: 'eighty' });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('PORT must be a whole number from 0 to 65535 (got "eighty")');
    });

    it('requires VULNTRACK_SECRET with DATABASE_URL', async () => {
      const r = await runCli(['migrate'], {
        ...env,
        DATABASE_URL: 'postgres://127.0.0.1:1/x',
        VULNTRACK_SECRET: '',
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('VULNTRACK_SECRET is required with DATABASE_URL');
    });
  });
});

describe('vulntrack user, org and token commands', { timeout: 180_000 }, () => {
  let env: NodeJS.ProcessEnv;
  let dataDir: string;

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-cli-accounts-'));
    env = { VULNTRACK_DATA_DIR: dataDir, DATABASE_URL: '', VULNTRACK_LOAD_SAMPLE: 'false' };
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('creates a user, an organization and a token printed alone on stdout, lists and revokes it', async () => {
    const user = await runCli(
      [
        'user',
        'create',
        '--username',
        'alice',
        '--email',
        'alice@example.com',
        '--password',
        'a long passphrase',
      ],
      env,
    );
    expect(user.code).toBe(0);
    expect((await runCli(['org', 'create', 'acme', '--owner', 'alice'], env)).code).toBe(0);
    const created = await runCli(
      [
        'token',
        'create',
        '--org',
        'acme',
        '--name',
        'ci',
        '--scope',
        'projects:read',
        '--scope',
        'subscriptions:write',
        '--created-by',
        'alice',
      ],
      env,
    );
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^vtr_org\.[A-Za-z0-9]{12}\.[A-Za-z0-9]{32}\n$/);
    const tokenId = created.stdout.split('.')[1]!;
    expect(created.stderr).toContain(`created write token ${tokenId} "ci" for acme; it is shown only now`);

    const list = await runCli(['--json', 'token', 'list', '--org', 'acme'], env);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({
        token_id: tokenId,
        name: 'ci',
        mode: 'write',
        scopes: ['projects:read', 'subscriptions:write'],
        created_by: 'alice',
        revoked_at: null,
      }),
    ]);
    expect(list.stdout).not.toContain(created.stdout.trim().split('.')[2]);

    expect((await runCli(['token', 'revoke', '--org', 'acme', tokenId], env)).code).toBe(0);
    const again = await runCli(['token', 'revoke', '--org', 'acme', tokenId], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`no live token ${tokenId} in acme`);
    const after = JSON.parse((await runCli(['--json', 'token', 'list', '--org', 'acme'], env)).stdout) as {
      revoked_at: string | null;
    }[];
    expect(after[0]!.revoked_at).not.toBeNull();
  });

  it('refuses bad input with exit status 2 and a sentence naming the problem', async () => {
    const dup = await runCli(
      [
        'user',
        'create',
        '--username',
        'alice',
        '--email',
        'other@example.com',
        '--password',
        'a long passphrase',
      ],
      env,
    );
    expect(dup.code).toBe(2);
    expect(dup.stderr).toContain('username: already taken');
    const short = await runCli(
      ['user', 'create', '--username', 'bob', '--email', 'bob@example.com', '--password', 'short'],
      env,
    );
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('password: at least 8 characters');
    const both = await runCli(['user', 'create', '--username', 'bob', '--email', 'bob@example.com'], env);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give exactly one of --password and --password-stdin');
    const scope = await runCli(
      ['token', 'create', '--org', 'acme', '--name', 'x', '--scope', 'everything'],
      env,
    );
    expect(scope.code).toBe(2);
    expect(scope.stderr).toContain('unknown scope "everything"');
    const org = await runCli(['org', 'create', 'bad name!', '--owner', 'alice'], env);
    expect(org.code).toBe(2);
  });

  it('refuses a token credited to a user who is not a member of the organization', async () => {
    const mallory = await runCli(
      [
        'user',
        'create',
        '--username',
        'mallory',
        '--email',
        'mallory@example.com',
        '--password',
        'a long passphrase',
      ],
      env,
    );
    expect(mallory.code).toBe(0);
    const outsider = await runCli(
      ['token', 'create', '--org', 'acme', '--name', 'sneaky', '--created-by', 'mallory'],
      env,
    );
    expect(outsider.code).toBe(2);
    expect(outsider.stdout).toBe('');
    expect(outsider.stderr).toContain('"mallory" is not a member of acme; name one of its members');
    const nobody = await runCli(
      ['token', 'create', '--org', 'acme', '--name', 'x', '--created-by', 'nobody'],
      env,
    );
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toContain('no user named "nobody"');
    const tokens = JSON.parse((await runCli(['--json', 'token', 'list', '--org', 'acme'], env)).stdout) as {
      name: string;
    }[];
    expect(tokens.map((t) => t.name)).not.toContain('sneaky');
  });
});
