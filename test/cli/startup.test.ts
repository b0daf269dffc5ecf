import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot, runCli, startCli, waitForOutput } from '../helpers/cli.ts';

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

  describe('serve', () => {
    it('says on first start that it syncs every upstream, how large that is, and the setting that turns it off', async () => {
      // Upstreams on a closed port: should a schedule fire during the test, nothing is downloaded.
      const nowhere = 'http://127.0.0.1:9';
      const server = startCli(['serve'], {
        VULNTRACK_DATA_DIR: path.join(dir, 'first-start'),
        DATABASE_URL: '',
        VULNTRACK_LOAD_SAMPLE: 'false',
        PORT: '0',
        HOST: '127.0.0.1',
        SYNC_SOURCES: 'cve5,nvd,kev,epss,cwe',
        CVE5_BASE_URL: nowhere,
        NVD_API_URL: nowhere,
        KEV_URL: nowhere,
        EPSS_URL: nowhere,
        CWE_URL: nowhere,
      });
      try {
        const line = await waitForOutput(server, /first sync of [^\n]*/, 90_000);
        expect(line).toContain('first sync of cve5, nvd, kev, epss, cwe');
        expect(line).toContain('the whole CVE Program baseline');
        expect(line).toContain('every NVD record');
        expect(line).toContain('SYNC_SOURCES=none turns sync off');
      } finally {
        server.kill('SIGTERM');
        await once(server, 'close');
      }
    });
  });

  describe('serve, stopped while it loads the sample', () => {
    it('stops at once, keeps none of the file it was reading, and loads the whole sample at the next start', async () => {
      const env = {
        VULNTRACK_DATA_DIR: path.join(dir, 'sample-stop'),
        DATABASE_URL: '',
        PORT: '0',
        HOST: '127.0.0.1',
        SYNC_SOURCES: 'none',
      };
      const first = startCli(['serve'], env);
      await waitForOutput(first, /loading the sample catalog: cve5/, 90_000);
      const stopped = Date.now();
      first.kill('SIGTERM');
      const [code] = (await once(first, 'close')) as [number | null];
      expect(code).toBe(0);
      expect(Date.now() - stopped).toBeLessThan(15_000);

      const second = startCli(['serve'], env);
      try {
        const line = await waitForOutput(second, /Server listening at http:\/\/127\.0\.0\.1:\d+/, 90_000);
        const base = line.slice(line.indexOf('http://'));
        await waitForOutput(second, /sample kev loaded/, 100_000);
        const ready = (await (await fetch(`${base}/readyz`)).json()) as {
          catalog: { cves: number; sample: string };
        };
        // The whole sample (6,258 CVE 5 records), not the part read before the stop plus nothing.
        expect(ready.catalog).toEqual({ cves: 6258, sample: 'loaded' });
      } finally {
        second.kill('SIGTERM');
        await once(second, 'close');
      }
    });
  });

  describe('bin/vulntrack.js', () => {
    // A project of two one-line programs: dist/ says "compiled", src/ says "source".
    let root: string;
    const hourAgo = new Date(Date.now() - 3_600_000);
    const twoHoursAgo = new Date(Date.now() - 7_200_000);
    const run = () =>
      spawnSync(process.execPath, [path.join(root, 'bin/vulntrack.js')], { encoding: 'utf8' });
    const setTimes = (folder: string, time: Date) => {
      for (const entry of fs.readdirSync(folder, { withFileTypes: true, recursive: true }))
        fs.utimesSync(path.join(entry.parentPath, entry.name), time, time);
      fs.utimesSync(folder, time, time);
    };

    beforeAll(() => {
      root = path.join(dir, 'project');
      fs.mkdirSync(path.join(root, 'bin'), { recursive: true });
      for (const file of ['vulntrack.js', 'compiled.js'])
        fs.copyFileSync(path.join(projectRoot, 'bin', file), path.join(root, 'bin', file));
      fs.writeFileSync(path.join(root, 'package.json'), '{"type": "module"}\n');
      fs.symlinkSync(path.join(projectRoot, 'node_modules'), path.join(root, 'node_modules'));
      fs.mkdirSync(path.join(root, 'src/cli'), { recursive: true });
      fs.writeFileSync(
        path.join(root, 'src/cli/main.ts'),
        "const from: string = 'source';\nconsole.log(from);\n",
      );
      fs.writeFileSync(path.join(root, 'src/cli/output.ts'), 'export {};\n');
      fs.mkdirSync(path.join(root, 'dist/cli'), { recursive: true });
      fs.writeFileSync(path.join(root, 'dist/cli/main.js'), "console.log('compiled');\n");
    });

    it('runs the sources when nothing was built', () => {
      expect(run().stdout).toBe('source\n');
    });

    it('runs dist/ when it was built after the last change to src/', () => {
      setTimes(path.join(root, 'src'), twoHoursAgo);
      fs.writeFileSync(path.join(root, 'dist/.built'), 'built\n');
      fs.utimesSync(path.join(root, 'dist/.built'), hourAgo, hourAgo);
      expect(run().stdout).toBe('compiled\n');
    });

    it('runs the sources once a file of src/ changed after the build', () => {
      fs.utimesSync(path.join(root, 'src/cli/main.ts'), new Date(), new Date());
      expect(run().stdout).toBe('source\n');
    });

    it('runs the sources once a file of src/ was deleted after the build', () => {
      setTimes(path.join(root, 'src'), twoHoursAgo);
      expect(run().stdout).toBe('compiled\n');
      fs.rmSync(path.join(root, 'src/cli/output.ts'));
      expect(run().stdout).toBe('source\n');
    });
  });
});
