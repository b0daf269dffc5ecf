/**
 * The checks of `npm run check` that keep the layers apart: the lint rules of eslint.layers.js refuse
 * an upward import, and scripts/check-import-cycles.ts refuses a cycle.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { layerRules } from '../../eslint.layers.js';
import { findCycles, importGraph } from '../../scripts/check-import-cycles.ts';

const run = promisify(execFile);

describe('layer lint rules', () => {
  const linter = new Linter({ configType: 'flat', cwd: process.cwd() });
  const config = [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...layerRules];
  /** The restricted-import messages for `source` as if it were the file `filename`. */
  const problems = (filename: string, source: string) =>
    linter
      .verify(source, config, { filename: path.join(process.cwd(), filename) })
      .map((m) => `${m.ruleId}: ${m.message}`);

  it.each([
    ['src/services/x.service.ts', "import { pageEnvelope } from '../api/pagination.ts';"],
    ['src/services/x.service.ts', "import type { Services } from '../main.ts';"],
    ['src/db/x.repository.ts', "import type { CatalogService } from '../services/catalog.service.ts';"],
    ['src/sources/nvd/x.ts', "import { buildApp } from '../../api/app.ts';"],
    ['src/sync/x.sync.ts', "import type { ImportService } from '../services/import.service.ts';"],
    ['src/api/v2/x.routes.ts', "import type { CveRow } from '../../db/schema.ts';"],
    ['src/api/v2/x.routes.ts', "import { createServices } from '../../main.ts';"],
    ['src/jobs/x.ts', "import { buildApp } from '../api/app.ts';"],
    ['src/domain/x.ts', "import { getConfig } from '../config.ts';"],
    ['src/domain/x.ts', "import type { DB } from '../db/schema.ts';"],
  ])('refuses in %s: %s', (filename, source) => {
    const found = problems(filename, source);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^no-restricted-imports: /);
  });

  it.each([
    ['src/services/x.service.ts', "import { CveRepository } from '../db/cve.repository.ts';"],
    ['src/services/x.service.ts', "import { offsetOf } from '../domain/paging.ts';"],
    ['src/api/v2/x.routes.ts', "import type { Services } from '../../services/services.ts';"],
    ['src/api/v2/x.routes.ts', "import { pageEnvelope } from '../pagination.ts';"],
    ['src/sync/x.sync.ts', "import type { ImportReport } from '../domain/import-report.ts';"],
    ['src/domain/x.ts', "import { toIsoUtc } from './timestamps.ts';"],
    ['src/cli/x.command.ts', "import { createServices } from '../main.ts';"],
  ])('allows in %s: %s', (filename, source) => {
    expect(problems(filename, source)).toEqual([]);
  });
});

describe('check-import-cycles', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vulntrack-cycles-'));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  /** A tree of files `name → content` under a new folder. */
  const tree = (name: string, files: Record<string, string>) => {
    const dir = path.join(root, name);
    for (const [file, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), content);
    }
    return dir;
  };
  const script = path.resolve('scripts/check-import-cycles.ts');
  const check = (dir: string) => run(process.execPath, ['--import', 'tsx', script, dir]);

  it('fails on a cycle through three files, naming them, type-only imports included', async () => {
    const dir = tree('cyclic', {
      'api/plugin.ts': "import { a } from './routes/a.ts';\nexport const auth = 1;\n",
      'api/routes/a.ts': "import { b } from './b.ts';\nexport const a = b;\n",
      'api/routes/b.ts': "import type { auth } from '../plugin.ts';\nexport const b = 2;\n",
      'domain/ok.ts': 'export const ok = 1;\n',
    });
    const error = await check(dir).then(
      () => undefined,
      (e: unknown) => e as { code: number; stderr: string },
    );
    expect(error?.code).toBe(1);
    expect(error?.stderr).toMatch(
      /import cycle among: .*api\/plugin\.ts, .*api\/routes\/a\.ts, .*api\/routes\/b\.ts/,
    );
    expect(error?.stderr).not.toMatch(/ok\.ts/);
  });

  it('passes a tree whose imports only go one way', async () => {
    const dir = tree('acyclic', {
      'a.ts': "import { b } from './b.ts';\nexport * from './c.ts';\nexport const a = b;\n",
      'b.ts': "import { c } from './c.ts';\nexport const b = c;\n",
      'c.ts': "import fs from 'node:fs';\nexport const c = fs.constants.F_OK;\n",
    });
    const { stdout } = await check(dir);
    expect(stdout).toMatch(/no import cycles/);
  });

  it('finds no cycle in src/', () => {
    expect(findCycles(importGraph('src'))).toEqual([]);
  });
});
