import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { NVD_FILES } from '../helpers/projects.ts';

describe('vulntrack project create', { timeout: 180_000 }, () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-cli-project-'));
    env = { VULNTRACK_DATA_DIR: dataDir, DATABASE_URL: '', VULNTRACK_LOAD_SAMPLE: 'false' };
    for (const args of [
      ['import', 'cve5', path.resolve('test/fixtures/cve5/cves')],
      ['import', 'nvd', ...NVD_FILES.map((f) => path.resolve(f))],
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
    ]) {
      const r = await runCli(args, env);
      expect({ args, code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    }
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('creates a project with vendor and product subscriptions', async () => {
    const r = await runCli(
      [
        'project',
        'create',
        'acme',
        'web',
        '--vendor',
        'tukaani',
        '--vendor',
        'google',
        '--product',
        'debian:debian_linux',
      ],
      env,
    );
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('created project web in acme with 3 subscriptions');
  });

  it('prints the project as JSON with --json', async () => {
    const r = await runCli(
      ['--json', 'project', 'create', 'acme', 'mail', '--product', 'mozilla:thunderbird'],
      env,
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'mail',
      organization: 'acme',
      subscriptions: { vendors: [], products: { mozilla: ['thunderbird'] } },
    });
  });

  it('exits 2 naming an unknown vendor, and creates nothing', async () => {
    const r = await runCli(['project', 'create', 'acme', 'api', '--vendor', 'initech'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("vendors: Vendor does not exist: 'initech'.");
    const again = await runCli(['project', 'create', 'acme', 'api'], env);
    expect(again.code).toBe(0);
  });

  it('reads vendor and product names in any case, and suggests the nearest for an unknown one', async () => {
    const r = await runCli(
      [
        '--json',
        'project',
        'create',
        'acme',
        'casing',
        '--vendor',
        'Tukaani',
        '--product',
        'Debian:Debian_Linux',
      ],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).subscriptions).toEqual({
      vendors: ['tukaani'],
      products: { debian: ['debian_linux'] },
    });
    const typo = await runCli(['project', 'create', 'acme', 'typo', '--vendor', 'Tukani'], env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("vendors: Vendor does not exist: 'tukani'. Did you mean 'tukaani'?");
  });

  it('exits 2 for a malformed --product, a taken name, an unknown organization', async () => {
    let r = await runCli(['project', 'create', 'acme', 'x', '--product', 'debian'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--product takes VENDOR:PRODUCT, not "debian"');
    r = await runCli(['project', 'create', 'acme', 'web'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('name: This project already exists.');
    r = await runCli(['project', 'create', 'nope', 'web'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not found');
  });
});
