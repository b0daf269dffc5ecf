import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/cli.ts';

describe('npm ci', { timeout: 120_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-install-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('installs the locked packages on this Node with no engine warning', () => {
    // A dry run resolves the lock file and checks every package's engines without installing anything.
    for (const file of ['package.json', 'package-lock.json'])
      fs.copyFileSync(path.join(projectRoot, file), path.join(dir, file));
    const run = spawnSync(
      'npm',
      ['ci', '--dry-run', '--ignore-scripts', '--engine-strict', '--no-audit', '--no-fund'],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(run.stderr).not.toContain('EBADENGINE');
    expect(run.status).toBe(0);
  });
});
