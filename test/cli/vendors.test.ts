/** `vulntrack vendors learn|status` and `vendors alias show|list|add|veto|remove`, against both databases. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { fixture } from '../helpers/catalog.ts';
import { backends, cliDatabase } from '../helpers/databases.ts';

for (const backend of backends) {
  describe(`vulntrack vendors [${backend}]`, { timeout: 240_000 }, () => {
    let workDir: string;
    let env: NodeJS.ProcessEnv;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-cli-vendors-'));
      const db = await cliDatabase(backend, workDir);
      drop = db.drop;
      env = { ...db.env, VULNTRACK_LOAD_SAMPLE: 'false' };
      const imported = await runCli(['import', 'cve5', fixture('cve5', 'aliases', 'teaching.jsonl')], env);
      expect({ code: imported.code, stderr: imported.stderr }).toMatchObject({ code: 0 });
    });
    afterAll(async () => {
      await drop();
      fs.rmSync(workDir, { recursive: true, force: true });
    });

    it('learns the table from the catalog and says what it holds', async () => {
      const learned = await runCli(['vendors', 'learn'], env);
      expect(learned.code).toBe(0);
      expect(learned.stdout).toMatch(/^alias table: learned from this catalog on .*, taught by 5 records: /);
      expect(learned.stdout).toContain('(5 CVEs read in');
      const status = await runCli(['--json', 'vendors', 'status'], env);
      expect(JSON.parse(status.stdout)).toMatchObject({ origin: 'learned', learnedFrom: 5, overrides: 0 });
    });

    it('shows how a text maps, and takes an alias, a veto and their removal', async () => {
      const show = await runCli(['vendors', 'alias', 'show', 'QNAP Systems Inc.', '--product', 'QTS'], env);
      expect(show.stdout).toContain(
        '"QNAP Systems Inc." / "QTS":\n  learned from 2 records:\n    qnap:qts  2 records  (confident)',
      );
      expect(show.stdout).toMatch(/maps to: .*qnap:qts \(alias\)/);

      const add = await runCli(
        ['vendors', 'alias', 'add', 'Rockwell Automation', 'rockwellautomation', '--by', 'ops'],
        env,
      );
      expect(add.code).toBe(0);
      expect(add.stdout).toContain('alias  "Rockwell Automation" → rockwellautomation  (by ops)');
      const veto = await runCli(
        ['vendors', 'alias', 'veto', 'QNAP Systems Inc.', 'qnap:quts_hero', '--product', 'QTS'],
        env,
      );
      expect(veto.stdout).toContain('veto   "QNAP Systems Inc." / "QTS" → qnap:quts_hero');
      const shown = await runCli(['vendors', 'alias', 'show', 'QNAP', '--product', 'QTS'], env);
      expect(shown.stdout).not.toMatch(/maps to: .*quts_hero/);

      const list = await runCli(['--json', 'vendors', 'alias', 'list'], env);
      expect((JSON.parse(list.stdout) as { key: string }[]).map((o) => o.key).sort()).toEqual([
        'qnap$PRODUCT$quts_hero',
        'rockwellautomation',
      ]);
      const removed = await runCli(
        ['vendors', 'alias', 'remove', 'Rockwell Automation', 'rockwellautomation'],
        env,
      );
      expect(removed.stdout).toContain('removed "Rockwell Automation" → rockwellautomation');
      const again = await runCli(
        ['vendors', 'alias', 'remove', 'Rockwell Automation', 'rockwellautomation'],
        env,
      );
      expect(again.code).toBe(2);
      expect(again.stderr).toContain(
        'No alias or veto of "Rockwell Automation" → rockwellautomation to remove.',
      );
    });

    it('refuses a placeholder text and a malformed key in words', async () => {
      const placeholder = await runCli(['vendors', 'alias', 'add', 'n/a', 'acme'], env);
      expect(placeholder.code).toBe(2);
      expect(placeholder.stderr).toContain('is a placeholder or empty: it names no vendor');
      const badKey = await runCli(['vendors', 'alias', 'add', 'Acme', 'acme:'], env);
      expect(badKey.code).toBe(2);
      expect(badKey.stderr).toContain('"acme:" is not a key: write VENDOR or VENDOR:PRODUCT');
    });
  });
}
