/**
 * The server under test: `node bin/vulntrack.js serve` in a child process, configured by environment
 * as in production, and the CLI commands the benchmark needs (`token create`).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../lib/paths.ts';
import type { ApiTarget } from './types.ts';
import { withDatabase } from '../lib/pg-admin.ts';
import { processCpuMs } from '../lib/pg-server-cpu.ts';

const cli = path.join(projectRoot, 'bin', 'vulntrack.js');

/** Fixed, so a cached PostgreSQL catalog's tokens stay valid from run to run (a benchmark database only). */
export const BENCH_SECRET = 'vulntrack-api-benchmark-secret-not-for-production';

/**
 * The server's environment. Embedded gets no VULNTRACK_SECRET: like a default install, the first
 * command to open the data dir generates one there, and the CLI and the server share it.
 */
export function serverEnv(target: ApiTarget, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(DATABASE_URL|VULNTRACK_|PORT$|HOST$|LOG_LEVEL$|RATE_LIMIT|API_RESPONSE_CACHE|SYNC_)/.test(key))
      env[key] = value;
  }
  Object.assign(env, {
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    VULNTRACK_LOAD_SAMPLE: 'false',
    RATE_LIMIT_PER_MINUTE: '1000000',
    // No upstream sync during the loads: an import would move the catalog version mid-run (every
    // cached count and answer read again) and its work would compete for the cores.
    SYNC_SOURCES: 'none',
  });
  if (target.kind === 'postgres') {
    env.DATABASE_URL = withDatabase(target.serverUrl, target.database);
    env.VULNTRACK_SECRET = BENCH_SECRET;
  } else {
    env.VULNTRACK_DATA_DIR = target.dataDir;
  }
  return env;
}

/** A port nobody listens on right now, on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** `vulntrack token create`: a write token with every scope; the CLI prints it alone on stdout. */
export async function createToken(env: NodeJS.ProcessEnv, org: string, name: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [cli, 'token', 'create', '--org', org, '--name', name, '--mode', 'write'],
    { env, cwd: projectRoot },
  );
  const token = stdout.trim();
  if (!/^vtr_org\.\w+\.\w+$/.test(token)) throw new Error(`token create printed ${JSON.stringify(stdout)}`);
  return token;
}

export interface ServerOptions {
  /** Write a `--cpu-prof` profile of the whole server process into this folder. */
  cpuProfileDir?: string | undefined;
}

export class Server {
  /** Servers started and not stopped yet: a Ctrl-C stops them. */
  static readonly live = new Set<Server>();
  private exited: Promise<void>;

  private constructor(
    readonly child: ChildProcess,
    readonly baseUrl: string,
    readonly cpuProfileDir: string | undefined,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  static async start(env: NodeJS.ProcessEnv, options: ServerOptions = {}): Promise<Server> {
    const nodeArgs = options.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir] : [];
    const child = spawn(process.execPath, [...nodeArgs, cli, 'serve'], {
      env,
      cwd: projectRoot,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const server = new Server(child, `http://127.0.0.1:${env.PORT}`, options.cpuProfileDir);
    Server.live.add(server);
    let exitCode: number | null | undefined;
    child.once('exit', (code) => (exitCode = code));
    // Embedded opens (and may recover) a large data dir first: allow minutes, not seconds.
    const deadline = Date.now() + 300_000;
    while (Date.now() < deadline) {
      if (exitCode !== undefined) throw new Error(`the server exited with code ${exitCode} while starting`);
      try {
        if ((await fetch(`${server.baseUrl}/healthz`)).ok) return server;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    await server.stop();
    throw new Error('the server did not answer /healthz within 300 s');
  }

  get pid(): number {
    return this.child.pid!;
  }

  cpuMs(): number | undefined {
    return processCpuMs(this.pid);
  }

  /** SIGTERM (the server closes and exits, writing its profile), SIGKILL after 60 s. */
  async stop(): Promise<string | undefined> {
    Server.live.delete(this);
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 60_000);
      await this.exited;
      clearTimeout(timer);
    }
    if (!this.cpuProfileDir) return undefined;
    const profiles = fs
      .readdirSync(this.cpuProfileDir)
      .filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${this.pid}.`));
    return profiles.length ? path.join(this.cpuProfileDir, profiles[0]!) : undefined;
  }
}
