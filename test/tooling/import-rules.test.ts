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
  const config = [
    {
      files: ['**/*.ts', '**/*.tsx'],
      languageOptions: { parser: tseslint.parser, parserOptions: { ecmaFeatures: { jsx: true } } },
    },
    ...layerRules,
  ];
  /** The restricted-import messages for `source` as if it were the file `filename`. */
  const problems = (filename: string, source: string) =>
    linter
      .verify(source, config, { filename: path.join(process.cwd(), filename) })
      .map((m) => `${m.ruleId}: ${m.message}`);

  it.each([
    ['src/services/x.service.ts', "import { pageEnvelope } from '../api/pagination.ts';"],
    ['src/services/x.service.ts', "import type { Services } from '../main.ts';"],
    ['src/db/x.repository.ts', "import type { CatalogService } from '../services/catalog.service.ts';"],
    ['src/sources/nvd/x.ts', "import { buildApp } from '../../server.ts';"],
    ['src/sync/x.sync.ts', "import type { ImportService } from '../services/import.service.ts';"],
    ['src/api/v2/x.routes.ts', "import type { CveRow } from '../../db/schema.ts';"],
    ['src/api/v2/x.routes.ts', "import { createServices } from '../../main.ts';"],
    ['src/jobs/x.ts', "import { buildApp } from '../server.ts';"],
    ['src/domain/x.ts', "import { getConfig } from '../config.ts';"],
    ['src/domain/x.ts', "import type { DB } from '../db/schema.ts';"],
    // api/ and web/ never import each other; http/ (what both share) imports neither.
    ['src/api/v2/x.routes.ts', "import { renderNotFound } from '../../web/error-page.tsx';"],
    ['src/api/x.ts', "import { webRoutes } from '../web/web.plugin.ts';"],
    ['src/web/catalog/x.routes.tsx', "import { jsonOrCsv } from '../../api/csv-query.ts';"],
    ['src/web/kit/x.ts', "import type { V2Route } from '../../api/v2/v2.plugin.ts';"],
    ['src/http/x.ts', "import { envelope } from '../api/api.ts';"],
    ['src/http/x.ts', "import type { PageContext } from '../web/kit/context.ts';"],
    ['src/services/x.service.ts', "import { csvStream } from '../http/csv.ts';"],
    // mcp/ is a caller as api/ is: never api/, web/, db/ or the top; nothing below it imports it.
    ['src/mcp/x.tools.ts', "import { cveDetail } from '../api/v2/catalog.presenter.ts';"],
    ['src/mcp/x.ts', "import { renderNotFound } from '../web/error-page.tsx';"],
    ['src/mcp/x.ts', "import { CveRepository } from '../db/cve.repository.ts';"],
    ['src/mcp/x.ts', "import { createServices } from '../main.ts';"],
    ['src/api/v2/x.routes.ts', "import { TOOLS } from '../../mcp/mcp-server.ts';"],
    ['src/web/kit/x.ts', "import { TOOLS } from '../../mcp/mcp-server.ts';"],
    ['src/services/x.service.ts', "import { capped } from '../mcp/results.ts';"],
    // Pages and routes never import the server composition, nor db/.
    ['src/web/org/x.routes.tsx', "import { buildApp } from '../../server.ts';"],
    [
      'src/web/project/tracker/x.routes.tsx',
      "import type { CveFilters } from '../../../db/cve-list-conditions.ts';",
    ],
    // kit/ imports nothing else of web/.
    ['src/web/kit/x.tsx', "import { OrgPage } from '../org/org-page.tsx';"],
    ['src/web/kit/x.ts', "import { Summary } from '../shared/cve/summary.tsx';"],
    ['src/web/kit/x.ts', "import type { WebOptions } from '../web.plugin.ts';"],
    // shared/ never imports a feature.
    ['src/web/shared/x.tsx', "import { ProjectPage } from '../project/project-page.tsx';"],
    ['src/web/shared/cve-list/x.tsx', "import { OrgPage } from '../../org/org-page.tsx';"],
    // A feature never imports another feature, nor the plugin.
    ['src/web/org/x.routes.tsx', "import { ProjectPage } from '../project/project-page.tsx';"],
    ['src/web/project/automations/x.tsx', "import { OrgPage } from '../../../org/org-page.tsx';"],
    ['src/web/catalog/cve/x.tsx', "import { startSession } from '../../account/session.ts';"],
    ['src/web/account/x.routes.tsx', "import type { WebOptions } from '../web.plugin.ts';"],
    ['src/web/project/x.routes.tsx', "import { renderError } from '../error-page.tsx';"],
    // Only a feature's index.ts imports a page module; no page imports another.
    ['src/web/project/feed.routes.tsx', "import { x } from './dashboard.routes.tsx';"],
    ['src/web/project/tracker/x.view.tsx', "import { x } from '../cve.routes.tsx';"],
    ['src/web/web.plugin.ts', "import { projectListRoutes } from './project/list.routes.tsx';"],
    ['src/web/kit/x.ts', "import { x } from './y.routes.tsx';"],
    // A view is pure: no fastify, services/ as types only.
    ['src/web/project/x.view.tsx', "import type { FastifyReply } from 'fastify';"],
    ['src/web/project/x.view.tsx', "import { TrackerService } from '../../services/tracker.service.ts';"],
  ])('refuses in %s: %s', (filename, source) => {
    const found = problems(filename, source);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^(@typescript-eslint\/)?no-restricted-imports: /);
  });

  it.each([
    ['src/services/x.service.ts', "import { CveRepository } from '../db/cve.repository.ts';"],
    ['src/services/x.service.ts', "import { offsetOf } from '../domain/paging.ts';"],
    ['src/api/v2/x.routes.ts', "import type { Services } from '../../services/services.ts';"],
    ['src/api/v2/x.routes.ts', "import { pageEnvelope } from '../pagination.ts';"],
    ['src/sync/x.sync.ts', "import type { ImportReport } from '../domain/import-report.ts';"],
    ['src/domain/x.ts', "import { toIsoUtc } from './timestamps.ts';"],
    ['src/cli/x.command.ts', "import { createServices } from '../main.ts';"],
    ['src/cli/serve.command.ts', "import { buildApp } from '../server.ts';"],
    ['src/api/v2/x.routes.ts', "import { csvStream, sendCsv } from '../../http/csv.ts';"],
    ['src/mcp/x.ts', "import { registerCallerRateLimit } from '../http/rate-limit.ts';"],
    ['src/mcp/x.tools.ts', "import type { Services } from '../services/services.ts';"],
    ['src/cli/mcp.command.ts', "import { createMcpServer } from '../mcp/mcp-server.ts';"],
    ['src/server.ts', "import { mcpRoutes } from './mcp/mcp.routes.ts';"],
    ['src/web/project/x.routes.tsx', "import { csvStream, sendCsv } from '../../http/csv.ts';"],
    ['src/http/x.ts', "import type { ReportCve } from '../services/report.service.ts';"],
    ['src/web/kit/x.tsx', "import type { PageContext } from './context.ts';"],
    ['src/web/kit/x.ts', "import type { Services } from '../../services/services.ts';"],
    ['src/web/shared/x.tsx', "import { Layout } from '../kit/layout.tsx';"],
    ['src/web/shared/cve-list/x.tsx', "import { Summary } from '../cve/summary.tsx';"],
    ['src/web/org/x.routes.tsx', "import { OrgPage } from './org-page.tsx';"],
    ['src/web/project/tracker/x.routes.tsx', "import { ProjectPage } from '../project-page.tsx';"],
    ['src/web/project/x.routes.tsx', "import { Summary } from '../shared/cve/summary.tsx';"],
    ['src/web/project/x.routes.tsx', "import { projectAccess } from '../kit/access.ts';"],
    ['src/web/project/index.ts', "import { projectListRoutes } from './list.routes.tsx';"],
    ['src/web/project/index.ts', "import { x } from './tracker/tracker.routes.tsx';"],
    ['src/web/web.plugin.ts', "import { projectPages } from './project/index.ts';"],
    ['src/web/project/x.view.tsx', "import type { TrackedCve } from '../../services/tracker.service.ts';"],
    ['src/web/project/x.view.tsx', "import { Field } from '../kit/fields.tsx';"],
    ['src/web/project/x.routes.tsx', "import type { FastifyPluginAsync } from 'fastify';"],
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

  it('sees .tsx files: a cycle between two of them fails', async () => {
    const dir = tree('cyclic-tsx', {
      'web/web.plugin.ts': "import { page } from './pages/a.routes.tsx';\nexport type Options = {};\n",
      'web/pages/a.routes.tsx': "import type { Options } from '../web.plugin.ts';\nexport const page = 1;\n",
    });
    const error = await check(dir).then(
      () => undefined,
      (e: unknown) => e as { code: number; stderr: string },
    );
    expect(error?.code).toBe(1);
    expect(error?.stderr).toMatch(/import cycle among: .*web\/pages\/a\.routes\.tsx, .*web\/web\.plugin\.ts/);
  });

  it('finds no cycle in src/', () => {
    expect(findCycles(importGraph('src'))).toEqual([]);
  });
});
