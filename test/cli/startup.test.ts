import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

describe('vulntrack start-up', { timeout: 120_000 }, () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-startup-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('--help', () => {
    it('loads no HTTP server, query builder, database driver or mailer', async () => {
      // A module resolve hook that writes down every module the process loads.
      const log = path.join(dir, 'modules.log');
      const hooks = `data:text/javascript,${encodeURIComponent(
        `import fs from 'node:fs';
        export async function resolve(specifier, context, next) {
          const r = await next(specifier, context);
          fs.appendFileSync(${JSON.stringify(log)}, r.url + '\\n');
          return r;
        }`,
      )}`;
      const hook = path.join(dir, 'record-modules.mjs');
      fs.writeFileSync(
        hook,
        `import { register } from 'node:module';\nregister(${JSON.stringify(hooks)});\n`,
      );

      const r = await runCli(['--help'], { NODE_OPTIONS: `--import=${pathToFileURL(hook).href}` });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Usage: vulntrack');
      const loaded = fs.readFileSync(log, 'utf8');
      expect(loaded).toContain('/cli/main.');
      for (const heavy of ['fastify', 'kysely', '/pg/', '@electric-sql/pglite', 'nodemailer', 'pino']) {
        expect(loaded, heavy).not.toContain(`node_modules/${heavy.replace(/^\//, '')}`);
      }
    });
  });
});
